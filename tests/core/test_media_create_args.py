"""The media create route's WordPress 7.1 args: generate_sub_sizes, convert_format, and
sideloading by `url` through the host's guarded fetch (no private addresses unless allowed)."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, create_test_user

from tests.core.helpers import API
from tests.core.test_media import png
from tests.helpers import FakeRemote

MEDIA = f"{API}/media"


@pytest.fixture
def remote():
    server = FakeRemote()
    yield server
    server.stop()


def site(make_app, **core):
    app = make_app(plugins=["core"], config={"core": core})
    app.author = create_test_user(app, "author")
    return app


def test_the_create_route_declares_the_args(make_app):
    app = site(make_app)
    create = next(endpoint for endpoint in app.client.options(MEDIA).json["endpoints"] if "POST" in endpoint["methods"])
    assert create["args"]["generate_sub_sizes"] == {"type": "boolean", "default": True, "required": False,
                                                    "description": "Whether to generate image sub sizes."}
    assert create["args"]["convert_format"] == {"type": "boolean", "default": True, "required": False,
                                                "description": "Whether to convert image formats."}
    assert create["args"]["url"]["format"] == "uri"
    update = app.client.options(f"{MEDIA}/1").json["endpoints"]
    assert all("url" not in endpoint["args"] for endpoint in update)  # create only, as WordPress


def test_generate_sub_sizes_and_convert_format_are_validated_and_give_the_original(make_app):
    app = site(make_app)
    headers = dict(app.author.headers, **{"Content-Type": "image/png",
                                          "Content-Disposition": 'attachment; filename="a.png"'})
    body = app.client.post(f"{MEDIA}?generate_sub_sizes=false&convert_format=false", png(), headers=headers,
                           status=201).json
    assert body["mime_type"] == "image/png" and body["media_details"]["sizes"] == {}
    assert_rest_error(app.client.post(f"{MEDIA}?generate_sub_sizes=maybe", png(), headers=headers, status=400),
                      "rest_invalid_param", 400)


def test_sideload_by_url_refuses_private_addresses_by_default(make_app, remote):
    app = site(make_app)
    url = remote.serve("/photo.png", png(), content_type="image/png")
    body = assert_rest_error(app.client.post_json(MEDIA, {"url": url}, headers=app.author.headers, status=400),
                             "rest_upload_sideload_private_target", 400)
    assert "private" in body["message"]
    assert remote.hits == {}  # refused before any connection
    assert app.client.get(MEDIA).json == []
    assert_rest_error(app.client.post_json(MEDIA, {"url": "file:///etc/passwd"}, headers=app.author.headers,
                                           status=400), "rest_upload_sideload_unsupported_url", 400)
    assert_rest_error(app.client.post_json(MEDIA, {"url": url}, status=401), "rest_cannot_create", 401)


def test_sideload_by_url_creates_the_attachment(make_app, remote):
    app = site(make_app, sideload_allow_private_targets=True, max_upload_bytes=5000)
    client, author = app.client, app.author.headers
    url = remote.serve("/files/class%20photo.png", png(4, 3), content_type="image/png")
    response = client.post_json(MEDIA, {"url": url, "title": "Class photo", "alt_text": "Year 5"}, headers=author,
                                status=201)
    body = response.json
    assert response.headers["Location"].endswith(f"/media/{body['id']}")
    assert body["mime_type"] == "image/png" and body["media_details"]["width"] == 4
    assert body["title"]["raw"] == "Class photo" and body["alt_text"] == "Year 5"
    assert body["source_url"].endswith("/class-photo.png")
    assert client.get(body["source_url"].replace("http://school.test", "")).body == png(4, 3)

    named = remote.serve("/download", b"%PDF-1.4 letter", content_type="application/pdf",
                         headers={"Content-Disposition": 'attachment; filename="letter.pdf"'})
    assert client.post_json(MEDIA, {"url": named}, headers=author, status=201).json["mime_type"] == "application/pdf"

    moved = remote.serve("/old.png", b"", status=302, headers={"Location": "/files/class%20photo.png"})
    assert client.post_json(MEDIA, {"url": moved}, headers=author, status=201).json["source_url"].endswith(".png")

    disguised = remote.serve("/evil.png", b"<script>alert(1)</script>", content_type="image/png")
    assert_rest_error(client.post_json(MEDIA, {"url": disguised}, headers=author, status=415),
                      "rest_upload_sideload_error", 415)
    large = remote.serve("/large.png", png(4, 3) + b"\0" * 6000, content_type="image/png")
    assert_rest_error(client.post_json(MEDIA, {"url": large}, headers=author, status=413),
                      "rest_upload_sideload_response_too_large", 413)
    assert_rest_error(client.post_json(MEDIA, {"url": remote.base + "/missing.png"}, headers=author, status=502),
                      "rest_upload_sideload_fetch_failed", 502)
    headers = dict(author, **{"Content-Type": "image/png", "Content-Disposition": 'attachment; filename="a.png"'})
    assert_rest_error(client.post(f"{MEDIA}?url={url}", png(), headers=headers, status=400),
                      "rest_upload_conflict", 400)
    assert len(client.get(MEDIA).json) == 3


def test_no_write_lock_is_held_while_the_url_is_fetched(make_app):
    """While the remote server answers, other writers of the site go on (the fetch precedes the transaction)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    app = site(make_app, sideload_allow_private_targets=True, sideload_timeout_seconds=8)
    admin = create_test_user(app, "administrator")
    parent = app.client.post_json(f"{API}/posts", {"title": "Trip", "status": "draft"}, headers=admin.headers).json
    written = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            # another writer of the site, while the sideload waits for this answer
            written["status"] = app.client.post_json(f"{API}/posts", {"title": "Meanwhile"}, headers=admin.headers,
                                                     expect_errors=True).status_int
            body = png()
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/trip.png"
        created = app.client.post_json(MEDIA, {"url": url, "post": parent["id"]}, headers=admin.headers,
                                       status=201).json
    finally:
        server.shutdown()
        server.server_close()
    assert written["status"] == 201 and created["post"] == parent["id"]
