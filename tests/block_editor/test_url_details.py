"""block-editor/v1/url-details over HTTP, against pages served by a local HTTP server."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest

from host.testing import assert_rest_error, role_users

ROUTE = "/wp-json/block-editor/v1/url-details?url="

PAGES = {
    "/trip": ("text/html; charset=utf-8", b"""<!doctype html><html><head>
<title>Year 8 &amp; Year 9 trip to the coast</title>
<meta name="description" content="  Coaches leave at 8am;
   bring a packed lunch.  ">
<meta property="og:image" content="/images/coast.jpg">
<link rel="apple-touch-icon" href="/touch.png"><link rel="icon" href="/favicon.png">
</head><body><title>not this one</title><p>Details</p></body></html>"""),
    "/og-only": ("text/html", b"""<html><head><meta property="og:title" content="Open day">
<meta property="og:description" content="Meet the teachers"></head><body></body></html>"""),
    "/latin1": ("text/html; charset=iso-8859-1", "<title>Caf\u00e9 menu</title>".encode("iso-8859-1")),
    "/data.json": ("application/json", b'{"title": "not a page"}'),
    "/huge": ("text/html", b"<html><head><title>Big</title></head><body>" + b"x" * (600 * 1024) + b"</body></html>"),
}


class _Handler(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        _Handler.hits.append(self.path)
        page = PAGES.get(self.path)
        if page is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", page[0])
        self.send_header("Content-Length", str(len(page[1])))
        self.end_headers()
        self.wfile.write(page[1])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def pages():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "block_editor"], config={"block_editor": {"allow_private_targets": True}})
    return app, role_users(app)


def _details(app, url, headers, status=200):
    return app.client.get(ROUTE + quote(url, safe=""), headers=headers, status=status)


def test_title_description_image_and_icon_from_the_head(site, pages):
    app, users = site
    body = _details(app, pages + "/trip", users["editor"].headers).json
    assert body == {"title": "Year 8 & Year 9 trip to the coast",
                    "description": "Coaches leave at 8am; bring a packed lunch.",
                    "image": pages + "/images/coast.jpg", "icon": pages + "/favicon.png"}


def test_open_graph_fills_in_and_charsets_are_read(site, pages):
    app, users = site
    assert _details(app, pages + "/og-only", users["author"].headers).json == {
        "title": "Open day", "description": "Meet the teachers", "image": "", "icon": ""}
    assert _details(app, pages + "/latin1", users["author"].headers).json["title"] == "Caf\u00e9 menu"


def test_details_are_kept_in_the_database(site, pages):
    app, users = site
    _Handler.hits.clear()
    for _attempt in range(2):  # a failure is not kept: the next request tries again
        assert_rest_error(_details(app, pages + "/not-yet", users["editor"].headers, status=404), "no_response", 404)
    assert _Handler.hits == ["/not-yet", "/not-yet"]
    _Handler.hits.clear()
    PAGES["/kept"] = ("text/html", b"<title>Kept</title>")
    assert _details(app, pages + "/kept", users["editor"].headers).json["title"] == "Kept"
    PAGES["/kept"] = ("text/html", b"<title>Changed</title>")
    assert _details(app, pages + "/kept", users["editor"].headers).json["title"] == "Kept"
    assert _Handler.hits == ["/kept"]


def test_without_a_cache_every_request_fetches(make_app, pages):
    app = make_app(plugins=["core", "block_editor"],
                   config={"block_editor": {"allow_private_targets": True, "cache_ttl_seconds": 0}})
    editor = role_users(app)["editor"].headers
    _Handler.hits.clear()
    _details(app, pages + "/trip", editor)
    _details(app, pages + "/trip", editor)
    assert _Handler.hits == ["/trip", "/trip"]


def test_failures_answer_wordpress_codes_with_the_reason(site, pages):
    app, users = site
    editor = users["editor"].headers
    body = assert_rest_error(_details(app, pages + "/missing", editor, status=404), "no_response", 404)
    assert body["data"]["details"] == "url_details_fetch_failed"
    body = assert_rest_error(_details(app, pages + "/data.json", editor, status=404), "no_content", 404)
    assert body["data"]["content_type"] == "application/json"
    body = assert_rest_error(_details(app, pages + "/huge", editor, status=404), "no_response", 404)
    assert body["data"]["details"] == "url_details_response_too_large"
    body = assert_rest_error(_details(app, "ftp://example.org/file", editor, status=404), "rest_invalid_url", 404)
    assert body["data"]["details"] == "url_details_unsupported_url"
    assert_rest_error(_details(app, "http://127.0.0.1:1/", editor, status=404), "no_response", 404)


def test_private_addresses_are_refused_by_default(make_app, pages):
    app = make_app(plugins=["core", "block_editor"])
    body = assert_rest_error(_details(app, pages + "/trip", role_users(app)["editor"].headers, status=404),
                             "rest_invalid_url", 404)
    assert body["data"]["details"] == "url_details_private_target"


def test_bad_arguments(site):
    app, users = site
    editor = users["editor"].headers
    assert_rest_error(app.client.get("/wp-json/block-editor/v1/url-details", headers=editor, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(_details(app, "http://example.org/" + "a" * 2100, editor, status=400), "rest_invalid_param", 400)


@pytest.mark.parametrize("role, status", [(None, 401), ("subscriber", 403)])
def test_only_editors_may_fetch(site, pages, role, status):
    app, users = site
    _Handler.hits.clear()
    headers = users[role].headers if role else {}
    assert_rest_error(_details(app, pages + "/trip", headers, status=status), "rest_cannot_view_url_details", status)
    assert _Handler.hits == []
