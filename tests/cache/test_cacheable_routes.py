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
