"""Apps with the cache plugin and the example plugin (whose notes fire the content hooks)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .helpers import NOTES, SECRET

@pytest.fixture
def cache_app(make_app, example_plugin):
    """cache_app(**cache_settings) -> app with cache + example, caching the notes routes."""

    def build(**settings):
        config = {"paths": [NOTES], "callback_secret": SECRET, **settings}
        return make_app(plugins=["example", "cache"], config={"cache": config})

    return build


@pytest.fixture
def local_http():
    """local_http(status, body) -> URL of a one-route HTTP server on 127.0.0.1 (stopped after the test)."""
    servers = []

    def start(status: int, body: bytes, content_type: str = "text/plain") -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
