"""Screenshot of the demo "Open day" page in headless Chromium (docs/builder-open-day.png).

Run: python -m tests.builder.screenshot_open_day [OUT.png]

Starts a real `sitehost serve` on a fresh demo site, then, through the REST API only, points
the page's photo at an image on a local server and runs the builder's media import (so the
page shows a copy from the site's own media library, as an editor would do), and takes a
full-page screenshot of the page's HTML view with Debian's /usr/bin/chromium. Needs the
`playwright` Python package (not a dependency of sitehost: only this script uses it).
"""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from host.testing import start_sitehost, stop_sitehost

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def classroom_png(width: int = 640, height: int = 400) -> bytes:
    """A drawn picture (sky, a school building with windows, a lawn) as a real PNG."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")
        for x in range(width):
            if y > height * 0.78:
                pixel = (70, 140, 60)
            elif 120 < x < 520 and height * 0.35 < y <= height * 0.78:
                in_window = ((x - 150) % 70 < 40) and ((int(y - height * 0.4)) % 60 < 30) and y < height * 0.7
                door = 300 < x < 340 and y > height * 0.6
                pixel = (230, 230, 240) if in_window else (90, 50, 30) if door else (180, 90, 60)
            elif 100 < x < 540 and height * 0.28 < y <= height * 0.35:
                pixel = (120, 60, 40)
            else:
                shade = int(200 + 55 * y / height)
                pixel = (120, 170, min(255, shade))
            row += bytes(pixel)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


def serve_image(data: bytes):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def call(url: str, authorization: str, method: str = "GET", body: dict | None = None):
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": authorization, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def main(out: str) -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="builder-shot-"))
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder}/site.db"\nuploads_dir = "{folder}/uploads"\n'
                      '[plugins.builder]\nallow_private_targets = true\n')
    sitehost = [sys.executable, "-m", "host.cli", "--config", str(config)]
    subprocess.run(sitehost + ["init", "--demo"], check=True, capture_output=True)
    created = subprocess.run(sitehost + ["user", "list"], check=True, capture_output=True, text=True).stdout
    login = next(line.split()[1] for line in created.splitlines() if "administrator" in line)
    password = subprocess.run(sitehost + ["app-password", "create", login, "screenshot"], check=True,
                              capture_output=True, text=True).stdout.strip().splitlines()[-1]
    authorization = "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()
    image_server = serve_image(classroom_png())
    process, served = start_sitehost(config, "--quiet")
    url = served[: -len("/wp-json")] if served.endswith("/wp-json") else served
    try:
        rest = url + "/wp-json"
        page = next(page for page in call(f"{rest}/core/v2/pages?search=Open%20day&context=edit", authorization)
                    if page["title"]["raw"] == "Open day")
        tree = json.loads(page["meta"]["_builder_data"])
        image = tree[1]["elements"][0]["elements"][0]["settings"]["image"]
        image["url"] = f"http://127.0.0.1:{image_server.server_address[1]}/classroom.png"
        call(f"{rest}/core/v2/pages/{page['id']}", authorization, "POST",
             {"meta": {"_builder_data": json.dumps(tree)}})
        imported = call(f"{rest}/builder/v1/documents/{page['id']}/media/import", authorization, "POST", {})
        print("media import:", json.dumps(imported))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            view = browser.new_page(viewport={"width": 1200, "height": 900})
            view.goto(f"{url}/?page_id={page['id']}", wait_until="networkidle")
            view.screenshot(path=out, full_page=True)
            browser.close()
        print("screenshot:", out)
    finally:
        stop_sitehost(process)
        image_server.shutdown()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/builder-open-day.png")
