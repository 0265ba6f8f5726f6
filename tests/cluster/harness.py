"""Three `sitehost serve` nodes in three folders (as three machines), nginx in front, on loopback only.

nginx runs docs/deploy/nginx/sitehost.conf itself, with the test's addresses put in: the nodes'
ports in its upstream, its own port, generous rates (the workload comes from one address), and
`proxy_bind 127.0.0.2`, so that the nodes see the balancer at 127.0.0.2 (their `trusted_proxies`)
and the test's own direct requests at 127.0.0.1 (an outsider's).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import requests

from host.testing import start_sitehost, stop_sitehost

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "docs" / "deploy" / "nginx" / "sitehost.conf"
BALANCER_ADDRESS = "127.0.0.2"  # nginx's source address towards the nodes (proxy_bind)
TIMEOUT = 30  # s for any one HTTP request of the tests
SIGN_IN_LIMITS = {"max_failures": 4, "max_failures_per_address": 50, "window_seconds": 600, "lockout_seconds": 300,
                  "slow_after": 3, "slow_seconds": 0}  # every node's [auth]
MAIL = {"poll_seconds": 1, "retry_seconds": 1}  # every node's [mail], beside the sink's address
FIGURES_PROPERTY = "cluster_workload"  # the workload's figures, a test property the run's summary prints


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((path for path in ("/usr/sbin/nginx",) if os.path.exists(path)), None)


class Node:
    """One `sitehost serve` in its own folder, always on the same port (nginx's upstream names it)."""

    def __init__(self, folder: Path, config_text: str, env: dict):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "sitehost.toml"
        self.config.write_text(config_text)
        self.port = free_port()
        self.env = env
        self.process = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process, _rest = start_sitehost(
            self.config, "--port", str(self.port), "--workers", "1", "--threads", "4", "--quiet", env=self.env,
            global_args=("--log-file", str(self.folder / "sitehost.log")), timeout=90)

    def kill(self) -> None:
        """SIGKILL, as a machine that is lost: no shutdown hook, no lease given back."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_sitehost(self.process)

    def log(self) -> str:
        path = self.folder / "sitehost.log"
        return path.read_text() if path.exists() else ""


class Balancer:
    """nginx with docs/deploy/nginx/sitehost.conf, its upstream pointed at the nodes."""

    def __init__(self, folder: Path, nodes: list[Node]):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        site = NGINX_CONF.read_text()
        upstream = "".join(f"    server 127.0.0.1:{node.port} max_fails=2 fail_timeout=10s;\n" for node in nodes)
        site, replaced = re.subn(r"(?m)^    server 10\.0\.0\.\d+:8080 .*\n", "", site)
        assert replaced == 3, "docs/deploy/nginx/sitehost.conf: the three upstream server lines moved"
        site = site.replace("    keepalive 16;", upstream + "    keepalive 16;", 1)
        site = site.replace("    listen 80;", f"    listen 127.0.0.1:{self.port};", 1)
        site = site.replace("rate=20r/s", "rate=5000r/s").replace("limit_conn sitehost_clients 20;",
                                                                   "limit_conn sitehost_clients 200;")
        site = site.replace("        proxy_pass http://sitehost_nodes;",
                            f"        proxy_pass http://sitehost_nodes;\n        proxy_bind {BALANCER_ADDRESS};")
        assert f"listen 127.0.0.1:{self.port};" in site and site.count("proxy_bind") == 2
        (folder / "sitehost.conf").write_text(site)
        for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (folder / name).mkdir(exist_ok=True)
        (folder / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
{"user root;" if os.geteuid() == 0 else ""}
events {{ worker_connections 512; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/sitehost.conf;
}}
""")
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen([nginx_binary(), "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError("nginx did not start:\n" + self.process.stdout.read()
                                     + (self.folder / "error.log").read_text())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("nginx did not listen within 15 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finishes the requests it holds
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def session(source: str | None = None) -> requests.Session:
    """A requests session; `source` binds its connections to that loopback address (another client)."""
    client = requests.Session()
    client.trust_env = False  # no proxy from the environment between the test and loopback
    if source is not None:
        adapter = _SourceAdapter(source)
        client.mount("http://", adapter)
    return client


class _SourceAdapter(requests.adapters.HTTPAdapter):
    def __init__(self, source: str):
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)
