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
