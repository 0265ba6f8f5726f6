"""Element trees, a tiny real PNG, a stand-in calendar plugin and an image server for the builder tests."""

from __future__ import annotations

import json
import struct
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


PAGES = "/wp-json/core/v2/pages"
BUILDER = "/wp-json/builder/v1"


def widget(element_id: str, kind: str, **settings) -> dict:
    return {"id": element_id, "elType": "widget", "widgetType": kind, "settings": settings, "elements": []}


def section(element_id: str, *children, **settings) -> dict:
    return {"id": element_id, "elType": "section", "settings": settings,
            "elements": [{"id": element_id + "c", "elType": "column", "settings": {"_column_size": 100},
                          "elements": list(children)}]}


def builder_meta(elements: list, **extra) -> dict:
    return {"_builder_edit_mode": "builder", "_builder_data": json.dumps(elements), **extra}


def create_page(client, headers, elements, status: int = 201, **fields):
    body = {"title": fields.pop("title", "Landing"), "status": fields.pop("status", "publish"),
            "meta": builder_meta(elements), **fields}
    return client.post_json(PAGES, body, headers=headers, status=status)


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    """A real PNG (what the media library's sniffing accepts)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\xff\x80\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class ImageServer:
    """Serves `files` {path: (content type, bytes)} on 127.0.0.1 and counts requests."""

    def __init__(self, files: dict[str, tuple[str, bytes]]):
        self.files, self.hits = files, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.hits.append(self.path)
                found = outer.files.get(self.path)
                if found is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", found[0])
                self.send_header("Content-Length", str(len(found[1])))
                self.end_headers()
                self.wfile.write(found[1])

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


EVENTS = [{"title": "Year 7 open evening", "start_date": "2027-03-14 18:00:00", "end_date": "2027-03-14 20:00:00"},
          {"title": "Spring concert & prize giving", "start_date": "2027-03-20 19:00:00",
           "end_date": "2027-03-20 21:00:00"}]


def calendar_stand_in():
    """The calendar plugin, by name: the builder's events list reads its cal/events/v1 list."""
    return "calendar"


def add_events(app, headers) -> list[dict]:
    """The two EVENTS, published through cal/events/v1; their answers (with `url`)."""
    return [app.client.post_json("/wp-json/cal/events/v1/events", {**event, "status": "publish"}, headers=headers,
                                 status=201).json for event in EVENTS]


class LazyUsers(dict):
    """One user per role, created the first time a test asks for it (a user costs a slow password hash)."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def __missing__(self, role):
        from host.testing import create_test_user

        self[role] = create_test_user(self.app, role)
        return self[role]
