"""Helpers shared by sitehost's own tests (imported by tests; conftest files hold only fixtures)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def install_entry_point_plugin(folder: Path, distribution: str, version: str, name: str, module: str) -> Path:
    """Make `module` an installed distribution with a `sitehost` entry point, the way pip would.

    Writes a `.dist-info` folder beside the package's source so that importlib.metadata
    (and so sitehost's plugin discovery) finds it once `folder` is on sys.path.
    """
    dist_info = folder / f"{distribution.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (dist_info / "entry_points.txt").write_text(f"[sitehost]\n{name} = {module}\n")
    return folder


def wait_until(condition, timeout: float = 30, step: float = 0.1):
    """Poll `condition()` until it answers something true (returned); AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(step)
    raise AssertionError(f"not reached within {timeout} seconds: {condition.__doc__ or condition}")


class FakeRemote:
    """Routes of a pretend remote site on 127.0.0.1; `hits` counts requests per path."""

    def __init__(self):
        self.routes: dict[str, tuple[int, dict, bytes]] = {}
        self.hits: dict[str, int] = {}
        remote = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                path = self.path.split("?", 1)[0]
                remote.hits[path] = remote.hits.get(path, 0) + 1
                status, headers, body = remote.routes.get(path, (404, {}, b"not here"))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body, status: int = 200, content_type: str = "text/html", headers=None):
        raw = json.dumps(body).encode() if isinstance(body, (dict, list)) else (
            body.encode() if isinstance(body, str) else body)
        self.routes[path] = (status, {"Content-Type": content_type, **(headers or {})}, raw)
        return self.base + path

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
