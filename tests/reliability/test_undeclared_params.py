"""A parameter a route does not declare must never reach SQL or crash a handler.

WordPress keeps undeclared query parameters on the request, so a handler that reads a name its
route does not declare sees the raw string. `categories?offset=x` once reached SQL that way and
answered 500 (issue 12.9). This walks every GET route of the registry, so new plugins' routes
are covered without a hand-kept list, and sends the names collection handlers commonly read
with values no declared schema would let through.
"""

from __future__ import annotations

import re

import pytest

COMMON_NAMES = ("offset", "page", "per_page", "parent", "include", "exclude", "search", "order", "orderby",
                "status", "author", "post", "slug", "before", "after", "context", "hide_empty", "categories",
                "tags", "media_type", "mime_type", "roles", "who", "force", "password", "type", "subtype")
DELIBERATE = (501, 502, 503)  # documented refusals with their own code, as in test_fuzz.py
JUNK = ("x", "99999999999999999999999")  # not a number; beyond 64 bits


def _concrete(path: str) -> str:
    """A route pattern with each named group replaced by an id that may exist (1)."""
    return re.sub(r"\(\?P<[^>]+>[^)]*\)", "1", path)


@pytest.mark.parametrize("junk", JUNK)
def test_undeclared_or_junk_params_never_answer_500(app, users, junk):
    admin = users["administrator"].headers
    checked = 0
    for compiled in list(app.registry.routes.values()):
        endpoint = compiled.endpoint_for("GET")
        if endpoint is None:
            continue
        path = "/wp-json" + _concrete(compiled.path)
        for name in COMMON_NAMES:
            response = app.client.get(path, {name: junk}, headers=admin, expect_errors=True)
            deliberate = response.status_int in DELIBERATE and response.json.get("code") != "internal_server_error"
            assert response.status_int < 500 or deliberate, f"GET {path}?{name}={junk!r} answered {response.status}: {response.text[:300]}"
            checked += 1
    assert checked > 100  # the registry really was walked
