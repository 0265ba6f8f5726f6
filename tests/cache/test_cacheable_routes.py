"""Routes that declare themselves cacheable (Route.cacheable) and the terms_changed hook that purges them."""

from __future__ import annotations

from host import Namespace, Route
from host.testing import make_plugin


def _board_plugin(board: list):
    def notices(request):
        return {"notices": list(board)}

    return make_plugin(
        "noticeboard",
        register_namespaces=lambda: [Namespace("board/v1")],
        register_routes=lambda: [Route("board/v1", "/notices", "GET", notices, cacheable=True),
                                 Route("board/v1", "/live", "GET", notices)],
    )


def test_a_cacheable_route_is_cached_outside_the_configured_paths(make_app):
    board = ["Sports day on Friday"]
    app = make_app(plugins=["core", "cache", _board_plugin(board)])
    assert app.client.get("/wp-json/board/v1/notices").headers["X-Cache"] == "miss"
    board.append("Concert moved")
    cached = app.client.get("/wp-json/board/v1/notices")
    assert cached.headers["X-Cache"] == "hit" and cached.json == {"notices": ["Sports day on Friday"]}
    assert "X-Cache" not in app.client.get("/wp-json/board/v1/live").headers  # not declared cacheable


def test_hook_terms_changed(make_app):
    board = ["Sports day on Friday"]
    app = make_app(plugins=["core", "cache", _board_plugin(board)])
    app.client.get("/wp-json/board/v1/notices")
    board.append("Concert moved")
    assert app.client.get("/wp-json/board/v1/notices").headers["X-Cache"] == "hit"
    app.hook.terms_changed(app=app, taxonomy="category", term_id=1, deleted=False)
    fresh = app.client.get("/wp-json/board/v1/notices")
    assert fresh.headers["X-Cache"] == "miss" and fresh.json["notices"][-1] == "Concert moved"


def _pages_plugin(board: list):
    """A cacheable page kept a second at most, one that marks itself no-store, and one that sets a cookie."""
    import bottle

    from host import Page

    def notices(app, request):
        return "<p>" + "; ".join(board) + "</p>"

    def personal(app, request):
        bottle.response.set_header("Cache-Control", "private")
        return notices(app, request)

    def greeting(app, request):
        bottle.response.set_cookie("seen", "1")
        return notices(app, request)

    return make_plugin("noticepages", register_pages=lambda: [
        Page("/notices/", ("GET", "HEAD"), notices, cacheable=True, keep_seconds=1),
        Page("/notices/mine/", ("GET", "HEAD"), personal, cacheable=True),
        Page("/notices/hello/", ("GET", "HEAD"), greeting, cacheable=True)])


def test_a_page_is_kept_no_longer_than_its_keep_seconds(make_app):
    """What no hook reports (time passing) reaches a page's visitors within its `keep_seconds`."""
    import time

    board = ["Sports day on Friday"]
    app = make_app(plugins=["core", "cache", _pages_plugin(board)])
    assert "X-Cache" not in app.client.get("/notices/").headers
    board.append("Concert moved")
    assert app.client.get("/notices/").headers["X-Cache"] == "hit"
    time.sleep(1.2)
    fresh = app.client.get("/notices/")
    assert "X-Cache" not in fresh.headers and "Concert moved" in fresh.text


def test_a_private_page_or_one_that_sets_a_cookie_is_never_kept(make_app):
    app = make_app(plugins=["core", "cache", _pages_plugin(["Sports day on Friday"])])
    for path in ("/notices/mine/", "/notices/hello/"):
        for _attempt in range(2):
            app.client.reset()  # a new visitor: no cookie from the answer before
            answer = app.client.get(path)
            assert "X-Cache" not in answer.headers and "ETag" not in answer.headers, path
