"""`sitehost serve` reloads gracefully: on SIGHUP and when the plugin set stored for the site changes.

A client loop reads the site over kept-alive connections the whole time; not one request may
fail or be refused while the workers (or the single process's site) are replaced.
"""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from host.testing import start_sitehost, stop_sitehost

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="workers share a port (Linux)")


class ClientLoop(threading.Thread):
    """GET the REST root again and again; remember every failure and the namespaces last seen."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.stopped = threading.Event()
        self.failures: list[str] = []
        self.answers = 0
        self.retried = 0  # idle keep-alive connections closed under a request, retried (see run)
        self.namespaces: list[str] = []

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while not self.stopped.is_set():
            reused = connection.sock is not None
            try:
                connection.request("GET", "/wp-json/")
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    self.failures.append(f"status {response.status}")
                else:
                    self.namespaces = json.loads(body)["namespaces"]
                self.answers += 1
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                # A draining worker closes keep-alive connections left idle for a second; a request
                # sent on one at that moment meets the close, and HTTP clients retry such an
                # idempotent request on a new connection (RFC 9112 9.3.1), as urllib3 and browsers
                # do. Anything else, and any failure on a fresh connection, is a lost request.
                closed_while_idle = isinstance(error, (http.client.RemoteDisconnected, ConnectionResetError,
                                                       BrokenPipeError))
                if reused and closed_while_idle:
                    self.retried += 1
                else:
                    self.failures.append(repr(error))

    def wait_for(self, predicate, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.namespaces):
                return True
            time.sleep(0.1)
        return False


@pytest.mark.parametrize("workers", ["2", "1"])
def test_reload_on_sighup_and_on_a_stored_plugin_change_loses_no_request(tmp_path, workers):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n')
    log_file = tmp_path / "serve.log"
    process, rest = start_sitehost(config, "--workers", workers, "--quiet", env={**os.environ},
                                   global_args=("--log-file", str(log_file)))
    loop = ClientLoop(int(rest.rsplit(":", 1)[1].split("/")[0]))
    try:
        loop.start()
        assert loop.wait_for(lambda namespaces: "oembed/1.0" in namespaces)
        process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while "reloaded" not in log_file.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "reloaded" in log_file.read_text()
        disabled = subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "plugins", "disable",
                                   "oembed"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert disabled.returncode == 0, disabled.stderr
        assert loop.wait_for(lambda namespaces: "oembed/1.0" not in namespaces), "the change never reached the site"
        time.sleep(1.5)  # the drained workers close their idle connections meanwhile
    finally:
        loop.stopped.set()
        loop.join(15)
        stop_sitehost(process)
    assert loop.failures == []
    assert loop.answers > 20
    assert Path(log_file).read_text().count("reloaded") >= 2


def _editable_install(site_folder: Path, source: Path, name: str, module: str) -> None:
    """What `pip install -e` leaves in a site folder: the dist-info (metadata, entry point, RECORD) and a
    `.pth` file naming the source folder; the package itself stays in `source`. Written here directly,
    which is the same layout in a fraction of pip's time (see test_scaffold.py for a real pip install)."""
    distribution = f"sitehost_{name}"
    info = site_folder / f"{distribution}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sitehost-{name.replace('_', '-')}\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[sitehost]\n{name} = {module}\n")
    pth = f"__editable__.{distribution}-0.1.0.pth"
    (info / "RECORD").write_text(f"{info.name}/METADATA,,\n{info.name}/entry_points.txt,,\n{pth},,\n"
                                 f"{info.name}/RECORD,,\n")
    (site_folder / pth).write_text(f"{source}\n")


@pytest.mark.parametrize("workers", ["2", "1"])
def test_sighup_loads_a_plugin_installed_since_the_start_or_says_a_restart_is_needed(tmp_path, workers):
    """a package installed after `sitehost serve` started (an editable install, whose `.pth`
    Python reads only at start) is loaded on SIGHUP; one that cannot be imported gets one line, no traceback."""
    from host.scaffold import create_plugin_package

    site_folder = tmp_path / "site-packages"  # on PYTHONPATH, as a venv's site-packages is on sys.path
    site_folder.mkdir()
    source = create_plugin_package("lunch_menu", tmp_path / "src")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n')
    log_file = tmp_path / "serve.log"
    env = {**{key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")},
           "PYTHONPATH": str(site_folder)}
    process, rest = start_sitehost(config, "--workers", workers, "--quiet", env=env,
                                   global_args=("--log-file", str(log_file)))
    loop = ClientLoop(int(rest.rsplit(":", 1)[1].split("/")[0]))

    def reload_and_wait(count: int) -> None:
        process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60
        while log_file.read_text().count("reloaded") < count and time.monotonic() < deadline:
            time.sleep(0.1)
        assert log_file.read_text().count("reloaded") >= count

    try:
        loop.start()
        assert loop.wait_for(lambda namespaces: "core/v2" in namespaces)
        assert "lunch_menu/v1" not in loop.namespaces
        _editable_install(site_folder, source, "lunch_menu", "sitehost_lunch_menu")
        reload_and_wait(1)
        assert loop.wait_for(lambda namespaces: "lunch_menu/v1" in namespaces), "the new plugin was not loaded"
        # a package whose module no path reaches: one line saying a restart is needed
        _editable_install(site_folder, tmp_path / "nowhere", "ghost_menu", "sitehost_ghost_menu")
        reload_and_wait(2)
        time.sleep(1.5)
    finally:
        loop.stopped.set()
        loop.join(15)
        stop_sitehost(process)
    log = log_file.read_text()
    assert "Traceback" not in log and "ModuleNotFoundError" not in log
    assert "plugin lunch_menu 0.1.0 (package): enabled, serving lunch_menu/v1 (since the start)" in log
    ghost = [line for line in log.splitlines() if "ghost_menu" in line]
    assert ghost and all(line.endswith(
        "plugin ghost_menu 0.1.0 (package): failed: not loaded: its module 'sitehost_ghost_menu' cannot be "
        "imported; a package installed after `sitehost serve` started needs a restart of it (since the start)")
        for line in ghost), ghost
    assert len(ghost) == int(workers)  # one line per process that built the site
    assert loop.failures == []
