"""A parameter a route does not declare must never reach SQL or crash a handler.

WordPress keeps undeclared query parameters on the request, so a handler that reads a name its
route does not declare sees the raw string. `categories?offset=x` once reached SQL that way and
answered 500. This walks every GET route of the registry, so new plugins' routes
are covered without a hand-kept list, and sends the names collection handlers commonly read
with values no declared schema would let through.

Every GET route times every name times two values is thousands of requests, so it runs in
UNDECLARED_SHARES files test_undeclared_params_N.py, each over the GET routes whose path hashes
to N (no hand-kept list), on one site shared by the file's tests (they only read).
test_undeclared_params.py checks the files are there and the shares split every GET route once.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

COMMON_NAMES = ("offset", "page", "per_page", "parent", "include", "exclude", "search", "order", "orderby",
                "status", "author", "post", "slug", "before", "after", "context", "hide_empty", "categories",
                "tags", "media_type", "mime_type", "roles", "who", "force", "password", "type", "subtype")
DELIBERATE = (501, 502, 503)  # documented refusals with their own code, as in test_fuzz.py
JUNK = ("x", "99999999999999999999999")  # not a number; beyond 64 bits
UNDECLARED_SHARES = 2
UNDECLARED_FILE = "test_undeclared_params_{share}.py"


def _concrete(path: str) -> str:
    """A route pattern with each named group replaced by an id that may exist (1)."""
    return re.sub(r"\(\?P<[^>]+>[^)]*\)", "1", path)


def share_of_route(path: str) -> int:
    """The share a route's GET runs in, by its path: stable across runs and processes."""
    return zlib.crc32(path.encode()) % UNDECLARED_SHARES


def share_of_file(test_file: str) -> int:
    """`.../test_undeclared_params_1.py` -> 1."""
    return int(Path(test_file).stem.rsplit("_", 1)[1])


def get_routes(app) -> list:
    return [compiled for compiled in list(app.registry.routes.values()) if compiled.endpoint_for("GET") is not None]


def check_undeclared_or_junk_params(app, admin_headers, junk: str, test_file: str) -> int:
    """Every GET route of the file's share, with every common name set to `junk`: never a 500."""
    share = share_of_file(test_file)
    checked = 0
    for compiled in get_routes(app):
        if share_of_route(compiled.path) != share:
            continue
        path = "/wp-json" + _concrete(compiled.path)
        for name in COMMON_NAMES:
            response = app.client.get(path, {name: junk}, headers=admin_headers, expect_errors=True)
            deliberate = response.status_int in DELIBERATE and response.json.get("code") != "internal_server_error"
            assert response.status_int < 500 or deliberate, f"GET {path}?{name}={junk!r} answered {response.status}: {response.text[:300]}"
            checked += 1
    assert checked > 100  # the registry really was walked
    return checked
