"""gzip for answers over 1 KB when the client accepts it, over HTTP.

Vary: Accept-Encoding on every answer that could be compressed; nothing under 1 KB, no
non-text body and no media file is compressed; HEAD carries the GET's headers; media files
keep their strong ETag and their 304.
"""

from __future__ import annotations

import gzip

import pytest
from webob import Request

from tests.core.test_media import png, upload

API = "/wp-json/core/v2"
GZIP = {"Accept-Encoding": "gzip, deflate, br"}


@pytest.fixture(scope="module")
def site(make_module_app):
    from host.testing import role_users

    app = make_module_app(plugins=["core"])
    users = role_users(app)
    for index in range(6):
        app.client.post_json(f"{API}/posts", {"title": f"Post {index}", "content": "Words " * 80, "status": "publish"},
                             headers=users["editor"].headers, status=201)
    app.people = users
    return app


def raw(app, path: str, method: str = "GET", **headers):
    """The answer as the client receives it: WebTest's client would undo the gzip before we look."""
    return Request.blank(path, method=method, headers={"Host": "school.test", **headers}).get_response(app)


def vary(response) -> set[str]:
    return {part.strip().lower() for part in response.headers.get("Vary", "").split(",") if part.strip()}


def test_a_list_over_1kb_is_gzipped_for_a_client_that_accepts_gzip(site):
    plain = raw(site, f"{API}/posts")
    packed = raw(site, f"{API}/posts", **GZIP)
    assert plain.status_code == packed.status_code == 200
    assert len(plain.body) > 1024 and "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.body) == plain.body
    assert int(packed.headers["Content-Length"]) == len(packed.body) < len(plain.body)
    assert "accept-encoding" in vary(plain) and "accept-encoding" in vary(packed)
    assert packed.headers["X-WP-Total"] == plain.headers["X-WP-Total"] == "6"
    assert packed.headers["Content-Type"] == plain.headers["Content-Type"]


@pytest.mark.parametrize("header, compressed", [
    ("gzip", True), ("GZIP;q=0.5", True), ("x-gzip", True), ("*", True), ("br, *;q=0.1", True),
    ("gzip;q=0", False), ("*;q=0", False), ("identity", False), ("deflate, br", False), ("gzip;q=zero", False),
    ("*, gzip;q=0", False), ("", False),
])
def test_accept_encoding_is_read_with_its_q_values(site, header, compressed):
    response = raw(site, f"{API}/posts", **{"Accept-Encoding": header})
    assert (response.headers.get("Content-Encoding") == "gzip") is compressed
    assert "accept-encoding" in vary(response)
    body = gzip.decompress(response.body) if compressed else response.body
    assert len(body) > 1024


def test_small_answers_and_errors_under_1kb_are_not_compressed(site):
    small = raw(site, f"{API}/posts?per_page=1&_fields=id", **GZIP)
    assert len(small.body) <= 1024 and "Content-Encoding" not in small.headers
    assert "accept-encoding" not in vary(small)
    missing = raw(site, f"{API}/posts/999999", **GZIP)
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers
    assert missing.json["code"] == "rest_post_invalid_id"


def test_cors_vary_and_accept_encoding_vary_together(site):
    response = raw(site, f"{API}/posts", Origin="https://app.school.test", **GZIP)
    assert vary(response) == {"origin", "accept-encoding"}


def test_head_carries_the_get_headers_and_no_body(site):
    get = raw(site, f"{API}/posts", **GZIP)
    head = raw(site, f"{API}/posts", "HEAD", **GZIP)
    assert head.status_code == 200 and head.body == b""
    assert head.headers["Content-Encoding"] == "gzip" and "accept-encoding" in vary(head)
    assert head.headers["X-WP-Total"] == get.headers["X-WP-Total"]
    # the length the GET sends (its gzip form), not the empty body's 0
    assert head.headers["Content-Length"] == get.headers["Content-Length"] == str(len(get.body))
    plain_get, plain_head = raw(site, f"{API}/posts"), raw(site, f"{API}/posts", "HEAD")
    assert "Content-Encoding" not in plain_head.headers and plain_head.body == b""
    assert plain_head.headers["Content-Length"] == str(len(plain_get.body)) != head.headers["Content-Length"]


def test_jsonp_answers_are_compressed_as_text(site):
    response = raw(site, f"{API}/posts?_jsonp=show", **GZIP)
    assert response.headers["Content-Type"].startswith("application/javascript")
    assert gzip.decompress(response.body).startswith(b"/**/show(")


def test_media_files_are_never_compressed_and_keep_their_etag_and_304(site):
    media = upload(site.client, site.people["administrator"].headers, data=png(), name="small.png", mime="image/png").json
    path = media["source_url"].replace("http://school.test", "")
    first = raw(site, path, **GZIP)
    assert first.status_code == 200 and "Content-Encoding" not in first.headers and first.body.startswith(b"\x89PNG")
    etag = first.headers["ETag"]
    assert not etag.startswith("W/")  # the same bytes for every client: a strong validator stays right
    again = raw(site, path, **{**GZIP, "If-None-Match": etag})
    assert again.status_code == 304 and again.body == b"" and "Content-Encoding" not in again.headers
    head = raw(site, path, "HEAD", **GZIP)
    assert head.status_code == 200 and "Content-Encoding" not in head.headers and head.body == b""
