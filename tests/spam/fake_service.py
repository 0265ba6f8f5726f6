"""A small spam service on 127.0.0.1 speaking the reference protocol, for the remote-service tests.

It answers verify-key (`valid` for VALID_KEYS), comment-check (`true` when the text holds
"viagra", with the discard tip when it also holds "discard"), submit-spam/submit-ham and
get-stats, records every call it received, and can set an alert on its replies.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VALID_KEYS = {"abcdef123456"}


class FakeService:
    def __init__(self):
        self.calls: list[tuple[str, dict]] = []
        self.alert: tuple[str, str] | None = None
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = {key: values[0] for key, values in
                        urllib.parse.parse_qs(self.rfile.read(length).decode(), keep_blank_values=True).items()}
                name = self.path.rsplit("/", 1)[-1]
                service.calls.append((name, form))
                headers = {}
                if name == "verify-key":
                    body = "valid" if form.get("key") in VALID_KEYS else "invalid"
                elif name == "comment-check":
                    text = form.get("comment_content", "").lower()
                    body = "true" if "viagra" in text else "false"
                    if "discard" in text:
                        headers["X-Spam-Pro-Tip"] = "discard"
                elif name in ("submit-spam", "submit-ham"):
                    body = "Thanks for making the web a better place."
                elif name == "get-stats":
                    body = json.dumps({"spam": 7, "accuracy": 99.5})
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                if service.alert:
                    headers["X-Spam-Alert-Code"], headers["X-Spam-Alert-Msg"] = service.alert
                data = body.encode()
                self.send_response(200)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def names(self) -> list[str]:
        return [name for name, _form in self.calls]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
