"""GET oembed/1.0/proxy over HTTP against a local server standing in for remote sites."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, client_as, create_test_user, make_plugin

PROXY = "/wp-json/oembed/1.0/proxy"
VIDEO = {"version": "1.0", "type": "video", "title": "Choir concert", "provider_name": "Tube",
         "html": "<iframe src=\"https://video.test/embed/7\" width=\"480\" height=\"270\"></iframe>"
                 "<script src=\"https://video.test/evil.js\"></script>", "width": 480, "height": 270}


@pytest.fixture
def build(make_app, remote):
    """build(allow=True, **oembed_settings) -> (app, editor client); providers point at `remote`."""

    def providers(app):
        return [(rf"^{remote.base}/video/\d+$", remote.base + "/provider")]

    def make(allow=True, **settings):
        plugin = make_plugin("tube", oembed_providers=providers)
        app = make_app(plugins=["core", "oembed", plugin],
                       config={"oembed": {"allow_private_targets": allow, **settings}})
        return app, client_as(app, create_test_user(app, "contributor"))

    return make


def discovery_page(remote, oembed_path="/oembed"):
    link = remote.base + oembed_path + "?url=" + remote.base + "/article"
    return remote.serve("/article", f'<html><head><link rel="alternate" type="application/json+oembed" '
                                    f'href="{link}"></head><body>Hi</body></html>')


def test_only_editors_may_proxy(build, remote):
    app, _editor = build()
    url = remote.base + "/video/7"
    body = assert_rest_error(app.client.get(PROXY, {"url": url}, expect_errors=True), "rest_forbidden", 401)
    assert body["message"] == "Sorry, you are not allowed to make proxied oEmbed requests."
    subscriber = client_as(app, create_test_user(app, "subscriber"))
    assert_rest_error(subscriber.get(PROXY, {"url": url}, expect_errors=True), "rest_forbidden", 403)
    assert remote.hits == {}


def test_a_registered_provider_is_asked_and_the_result_cached(build, remote):
    remote.serve("/provider", VIDEO, content_type="application/json")
    app, editor = build()
    url = remote.base + "/video/7"
    first = editor.get(PROXY, {"url": url, "maxwidth": 500}).json
    assert first == VIDEO  # a provider from oembed_providers is trusted: its html is kept
    assert editor.get(PROXY, {"url": url, "maxwidth": 500}).json == VIDEO
    assert remote.hits == {"/provider": 1}
    editor.get(PROXY, {"url": url, "maxwidth": 400})
    assert remote.hits == {"/provider": 2}  # each parameter combination is cached on its own


def test_discovery_finds_the_endpoint_and_untrusted_html_is_sandboxed(build, remote):
    discovery_page(remote)
    remote.serve("/oembed", VIDEO, content_type="application/json")
    app, editor = build()
    data = editor.get(PROXY, {"url": remote.base + "/article"}).json
    assert data["title"] == "Choir concert"
    assert "<script" not in data["html"]
    assert data["html"].startswith('<iframe sandbox="allow-scripts" security="restricted" '
                                   'src="https://video.test/embed/7"')
    assert remote.hits == {"/article": 1, "/oembed": 1}


def test_without_discovery_or_a_provider_the_url_is_not_found(build, remote):
    discovery_page(remote)
    app, editor = build()
    assert_rest_error(editor.get(PROXY, {"url": remote.base + "/article", "discover": "false"}, expect_errors=True),
                      "oembed_invalid_url", 404)
    remote.serve("/plain", "<html><head></head><body>No oEmbed here</body></html>")
    assert_rest_error(editor.get(PROXY, {"url": remote.base + "/plain"}, expect_errors=True), "oembed_invalid_url", 404)
    assert "/article" not in remote.hits


def test_loopback_targets_are_refused_by_default(build, remote):
    remote.serve("/provider", VIDEO, content_type="application/json")
    discovery_page(remote)
    app, editor = build(allow=False)
    for url in (remote.base + "/video/7", remote.base + "/article", "http://localhost:9/x", "http://[::1]:9/x",
                "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/"):
        body = assert_rest_error(editor.get(PROXY, {"url": url}, expect_errors=True), "oembed_private_target", 400)
        assert "private" in body["message"]
    assert remote.hits == {}


def test_redirects_are_followed_hop_by_hop_within_the_limit(build, remote):
    remote.serve("/hop", "", status=302, headers={"Location": "/oembed"})
    remote.serve("/dead-end", "", status=302, headers={"Location": "http://127.0.0.1:9/closed"})
    remote.serve("/oembed", VIDEO, content_type="application/json")
    via_hop = remote.serve("/article", f'<link rel="alternate" type="application/json+oembed" href="{remote.base}/hop">')
    app, editor = build()
    assert editor.get(PROXY, {"url": via_hop}).json["title"] == "Choir concert"
    no_redirects, no_redirects_editor = build(max_redirects=0)
    assert_rest_error(no_redirects_editor.get(PROXY, {"url": via_hop}, expect_errors=True),
                      "oembed_too_many_redirects", 502)
    remote.serve("/article", f'<link rel="alternate" type="application/json+oembed" href="{remote.base}/dead-end">')
    assert_rest_error(editor.get(PROXY, {"url": via_hop, "maxwidth": 300}, expect_errors=True),
                      "oembed_fetch_failed", 502)


@pytest.mark.parametrize("serve, code, status", [
    (lambda remote: remote.serve("/oembed", "{not json", content_type="application/json"), "oembed_invalid_response", 502),
    (lambda remote: remote.serve("/oembed", {"title": "no type"}, content_type="application/json"),
     "oembed_invalid_response", 502),
    (lambda remote: remote.serve("/oembed", "gone", status=500), "oembed_fetch_failed", 502),
    (lambda remote: remote.serve("/oembed", "x" * 5000, content_type="application/json"),
     "oembed_response_too_large", 502),
])
def test_failures_of_the_target_are_clear_errors(build, remote, serve, code, status):
    discovery_page(remote)
    serve(remote)
    app, editor = build(max_response_bytes=4096)
    assert_rest_error(editor.get(PROXY, {"url": remote.base + "/article"}, expect_errors=True), code, status)
    assert_rest_error(editor.get(PROXY, {"url": remote.base + "/article"}, expect_errors=True), code, status)
    assert remote.hits["/oembed"] == 2  # failures are not cached


def test_unreachable_targets_and_bad_parameters(build, remote):
    app, editor = build()
    assert_rest_error(editor.get(PROXY, {"url": "http://127.0.0.1:9/closed"}, expect_errors=True),
                      "oembed_fetch_failed", 502)
    assert_rest_error(editor.get(PROXY, {"url": "http://no-such-host.invalid/"}, expect_errors=True),
                      "oembed_fetch_failed", 502)
    assert_rest_error(editor.get(PROXY, {"url": "ftp://127.0.0.1/file"}, expect_errors=True),
                      "oembed_unsupported_url", 400)
    assert_rest_error(editor.get(PROXY, {"url": remote.base + "/x", "format": "yaml"}, expect_errors=True),
                      "rest_invalid_param", 400)
    assert_rest_error(editor.get(PROXY, expect_errors=True), "rest_missing_callback_param", 400)


def test_this_sites_own_urls_are_answered_locally(build, remote):
    app, editor = build(allow=False)
    author = client_as(app, create_test_user(app, "author"))
    post = author.post_json("/wp-json/core/v2/posts", {"title": "Open day", "status": "publish"}, status=201).json
    data = editor.get(PROXY, {"url": post["link"], "maxwidth": 320}).json
    assert (data["type"], data["title"], data["width"]) == ("rich", "Open day", 320)
    draft = author.post_json("/wp-json/core/v2/posts", {"title": "Secret", "status": "draft"}, status=201).json
    assert_rest_error(editor.get(PROXY, {"url": draft["link"]}, expect_errors=True), "oembed_invalid_url", 404)


@pytest.mark.parametrize("answer, expected", [
    ({"type": "video", "title": "Choir & <band>", "width": 480, "height": "270",
      "html": '<p>x</p><iframe src="https://video.test/e/7?a=1&amp;b=2"></iframe>'},
     '<iframe sandbox="allow-scripts" security="restricted" src="https://video.test/e/7?a=1&amp;b=2" width="480" '
     'height="270" frameborder="0" title="Choir &amp; &lt;band&gt;"></iframe>'),
    ({"type": "video", "width": "wide", "html": '<iframe src="https://video.test/e/8"></iframe>'},
     '<iframe sandbox="allow-scripts" security="restricted" src="https://video.test/e/8" width="600" height="338" '
     'frameborder="0" title=""></iframe>'),
    ({"type": "photo", "title": "Sports day", "url": "https://photos.test/a.jpg?s=1&t=2"},
     '<a href="{article}"><img src="https://photos.test/a.jpg?s=1&amp;t=2" alt="Sports day"></a>'),
    ({"type": "link", "title": "<b>News</b>"}, '<blockquote><a href="{article}">&lt;b&gt;News&lt;/b&gt;</a></blockquote>'),
    ({"type": "link"}, '<blockquote><a href="{article}">{article}</a></blockquote>'),
])
def test_untrusted_html_keeps_its_exact_bytes(build, remote, answer, expected):
    """A discovered provider's html is cut down to these exact shapes (iframe, linked photo, plain link)."""
    discovery_page(remote)
    remote.serve("/oembed", {"version": "1.0", **answer}, content_type="application/json")
    _app, editor = build()
    data = editor.get(PROXY, {"url": remote.base + "/article"}).json
    assert data["html"] == expected.replace("{article}", remote.base + "/article")
