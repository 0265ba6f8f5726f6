"""The measured scenarios: what wrk sends (Lua) and the one-request check that proves it works.

A scenario whose check fails (a route missing, an error answer) is reported as
unavailable with the reason instead of being measured: numbers for error pages would
flatter the server and mislead.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .seed import DRAFT_EVERY, SEARCH_WORD, SeedResult, body_for, paragraph_pool
from .wrk import lua_string

BATCH_SIZE = 25
WRITE_SHARE = 0.10  # the mixed load: 90% reads, 10% creates


class Unavailable(Exception):
    """The scenario's check request did not get the answer a client needs."""


@dataclass
class Context:
    """What a scenario needs: the server's REST root and what the seed put in the database."""

    rest: str  # http://127.0.0.1:PORT/wp-json
    seeded: SeedResult
    # The database the server serves (a fresh copy of the seed), for a plugin's prepare that must
    # bulk-load more rows than REST could create in reasonable time (the calendar's 100,000 events).
    database: Path | None = None
    # The served database's URL: sqlite:///<database>, or the PostgreSQL schema of a --database run.
    database_url: str = ""

    @property
    def rest_path(self) -> str:
        return "/" + self.rest.split("/", 3)[3]

    @property
    def authorization(self) -> str:
        token = f"{self.seeded.author_login}:{self.seeded.author_password}".encode()
        return "Basic " + base64.b64encode(token).decode()

    @property
    def admin_authorization(self) -> str:
        token = f"{self.seeded.admin_login}:{self.seeded.admin_password}".encode()
        return "Basic " + base64.b64encode(token).decode()


@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    lua: Callable[[Context], str]
    check: Callable[[Context], None]
    cached: bool = False  # runs on the server with the cache plugin enabled
    writes: bool = False
    # Runs once on each fresh server before the check: a plugin scenario creates its own data here,
    # through the REST API (Context.admin_authorization), so the post seed stays the plugins' common base.
    prepare: Callable[[Context], None] | None = None


# --- one request with urllib, for the checks -------------------------------------------------

def fetch(url: str, method: str = "GET", body: dict | None = None, headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        **({"Content-Type": "application/json"} if data else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # a slow server may still be busy
            return response.status, response.headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, error.headers, json.loads(raw or b"null")
        except ValueError:
            return error.code, error.headers, raw[:200]


def expect(status: int, wanted: int, body, what: str) -> None:
    if status != wanted:
        code = body.get("code") if isinstance(body, dict) else body
        raise Unavailable(f"{what}: HTTP {status} {code or ''}".strip())


# --- request bodies ----------------------------------------------------------------------------

_CONTENT = body_for(__import__("random").Random(7), paragraph_pool(__import__("random").Random(7), 20), False)


def post_body(title: str, category: int) -> dict:
    return {"title": title, "content": _CONTENT, "status": "publish", "categories": [category]}


def _lua_create_request(context: Context) -> str:
    """Lua that builds one create request with a unique title (a JSON string spliced around a counter)."""
    head, tail = json.dumps(post_body("@@TITLE@@", context.seeded.busiest_category)).split("@@TITLE@@")
    return f"""
local create_path = {lua_string(context.rest_path + "/core/v2/posts")}
local create_headers = {{["Authorization"] = {lua_string(context.authorization)}, ["Content-Type"] = "application/json"}}
local body_head = {lua_string(head)}
local body_tail = {lua_string(tail)}
function create_request()
  counter = counter + 1
  return wrk.format("POST", create_path, create_headers,
                    body_head .. "Benchmark post " .. thread_id .. "-" .. counter .. body_tail)
end
"""


SAME_TITLE = "Weekly newsletter"


def _lua_create_same_title(context: Context) -> str:
    """Every request creates a post of one title: each needs the next free `weekly-newsletter-N`, so a
    create's cost must not grow with the thousands made before it in the run (plugins/core/store/slugs.py)."""
    body = json.dumps(post_body(SAME_TITLE, context.seeded.busiest_category))
    return f"""
wrk.method = "POST"
wrk.path = {lua_string(context.rest_path + "/core/v2/posts")}
wrk.headers["Authorization"] = {lua_string(context.authorization)}
wrk.headers["Content-Type"] = "application/json"
wrk.body = {lua_string(body)}
"""


def _fixed_get(path_of: Callable[[Context], str]) -> Callable[[Context], str]:
    def lua(context: Context) -> str:
        return f'wrk.method = "GET"\nwrk.path = {lua_string(context.rest_path + path_of(context))}\n'
    return lua


# --- checks ------------------------------------------------------------------------------------

def _check_list(path_of: Callable[[Context], str], minimum_total: Callable[[Context], int] = lambda c: 1,
                embedded: bool = False) -> Callable[[Context], None]:
    def check(context: Context) -> None:
        status, headers, body = fetch(context.rest + path_of(context))
        expect(status, 200, body, path_of(context))
        total = int(headers.get("X-WP-Total") or -1)
        if total < minimum_total(context) or not headers.get("X-WP-TotalPages"):
            raise Unavailable(f"{path_of(context)}: X-WP-Total {total}, expected at least {minimum_total(context)}")
        if not isinstance(body, list) or len(body) != min(10, total):
            raise Unavailable(f"{path_of(context)}: {len(body) if isinstance(body, list) else body!r} items")
        if embedded and not all("_embedded" in item for item in body):
            raise Unavailable(f"{path_of(context)}: items without _embedded")
    return check


def _check_document(path: str, key: str) -> Callable[[Context], None]:
    def check(context: Context) -> None:
        status, _headers, body = fetch(context.rest + path)
        expect(status, 200, body, path or "/")
        if not isinstance(body, dict) or key not in body:
            raise Unavailable(f"{path or '/'}: no {key!r} in the answer")
    return check


def _lua_health(context: Context) -> str:
    return 'wrk.method = "GET"\nwrk.path = "/-/health"\n'


def _check_health(context: Context) -> None:
    """The balancers' probe (host.health): `200 ok`, at the site's root rather than under the REST prefix."""
    url = context.rest[: -len(context.rest_path)] + "/-/health" if context.rest_path != "/" else context.rest + "/-/health"
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    if (status, text) != (200, "ok\n"):
        raise Unavailable(f"/-/health answered {status}: {text.strip()[:200]}")


def _check_single(context: Context) -> None:
    post_id = context.seeded.first_post
    status, _headers, body = fetch(context.rest + f"/core/v2/posts/{post_id}")
    expect(status, 200, body, f"/core/v2/posts/{post_id}")
    if body.get("id") != post_id:
        raise Unavailable(f"/core/v2/posts/{post_id} answered another post")


def _check_create(context: Context) -> None:
    status, _headers, body = fetch(context.rest + "/core/v2/posts", "POST", post_body("Benchmark check post", context.seeded.busiest_category),
                                   {"Authorization": context.authorization})
    expect(status, 201, body, "POST /core/v2/posts")


def _check_create_same_title(context: Context) -> None:
    """Two creates of the title: the second gets the next number of the family."""
    slugs = []
    for _attempt in range(2):
        status, _headers, body = fetch(context.rest + "/core/v2/posts", "POST",
                                       post_body(SAME_TITLE, context.seeded.busiest_category),
                                       {"Authorization": context.authorization})
        expect(status, 201, body, "POST /core/v2/posts (same title)")
        slugs.append(body.get("slug", ""))
    first, second = slugs
    expected = "weekly-newsletter-2" if first == "weekly-newsletter" else \
        f"weekly-newsletter-{int(first.rsplit('-', 1)[1]) + 1}"
    if second != expected:
        raise Unavailable(f"POST /core/v2/posts (same title): slugs {first!r} then {second!r}")


def _batch_body(prefix: str, category: int) -> dict:
    return {"requests": [{"method": "POST", "path": "/core/v2/posts", "body": post_body(f"{prefix} {index}", category)}
                         for index in range(BATCH_SIZE)]}


def _check_batch(context: Context) -> None:
    status, _headers, body = fetch(context.rest + "/batch/v1", "POST", _batch_body("Benchmark check batch", context.seeded.busiest_category),
                                   {"Authorization": context.authorization})
    expect(status, 207, body, "POST /batch/v1")
    statuses = [item.get("status") for item in body.get("responses", [])]
    if statuses != [201] * BATCH_SIZE:
        raise Unavailable(f"POST /batch/v1: item statuses {sorted(set(map(str, statuses)))}")


def _fixed_get_gzip(path_of: Callable[[Context], str]) -> Callable[[Context], str]:
    def lua(context: Context) -> str:
        return _fixed_get(path_of)(context) + 'wrk.headers["Accept-Encoding"] = "gzip"\n'
    return lua


def _check_gzip(cached: bool) -> Callable[[Context], None]:
    """The list answers gzip to a client that accepts it (from the cache: a hit, compressed once when stored)."""
    def check(context: Context) -> None:
        import gzip

        request = urllib.request.Request(context.rest + "/core/v2/posts", headers={"Accept-Encoding": "gzip"})
        headers, raw = get_until_hit(request, cached)
        if headers.get("Content-Encoding") != "gzip" or "accept-encoding" not in headers.get("Vary", "").lower():
            raise Unavailable(f"/core/v2/posts with Accept-Encoding: gzip: Content-Encoding {headers.get('Content-Encoding')!r}")
        body = json.loads(gzip.decompress(raw))
        if not isinstance(body, list) or len(body) != 10:
            raise Unavailable("/core/v2/posts with Accept-Encoding: gzip: not a 10-item list")
        if cached and headers.get("X-Cache") != "hit":
            raise Unavailable(f"/core/v2/posts with Accept-Encoding: gzip: X-Cache {headers.get('X-Cache')!r}")
    return check


def _check_cached(context: Context) -> None:
    _check_list(lambda c: "/core/v2/posts")(context)
    _check_list(lambda c: "/core/v2/posts")(context)  # the second answer comes from the cache


# Each worker process keeps its own cache entries, so with several workers the next request may reach
# one that has none yet: a cached scenario's check asks a few more times for its hit.
HIT_ATTEMPTS = 8


def get_until_hit(request: urllib.request.Request | str, cached: bool):
    """(headers, raw body) of the first answer, or, when `cached`, of the first cache hit among HIT_ATTEMPTS more
    (the last answer when none was a hit: the caller's check of X-Cache says so)."""
    for attempt in range(1 + HIT_ATTEMPTS if cached else 1):
        with urllib.request.urlopen(request, timeout=120) as response:
            headers, body = response.headers, response.read()
        if attempt and headers.get("X-Cache") == "hit":
            break
    return headers, body


def _check_hit(path: str, embedded: bool = False, attempts: int = HIT_ATTEMPTS) -> Callable[[Context], None]:
    """The anonymous list answers 200 with items (with `_embedded` when asked), then a hit: each worker
    process keeps its own entries, so a few more requests may each reach a worker that has none yet."""
    def check(context: Context) -> None:
        _check_list(lambda c: path, embedded=embedded)(context)
        for _attempt in range(attempts):
            status, headers, body = fetch(context.rest + path)
            expect(status, 200, body, path)
            if headers.get("X-Cache") == "hit":
                return
        raise Unavailable(f"{path}: X-Cache {headers.get('X-Cache')!r} after {attempts} more requests")
    return check


def _check_mixed(context: Context) -> None:
    _check_list(lambda c: "/core/v2/posts")(context)
    _check_create(context)


# --- Lua of the scenarios that vary their requests ------------------------------------------------

def _lua_single(context: Context) -> str:
    return f"""
local item_prefix = {lua_string(context.rest_path + "/core/v2/posts/")}
local first_id = {context.seeded.first_post}
local count = {context.seeded.posts}
request = function()
  local offset = math.random(1, count)
  if offset % {DRAFT_EVERY} == 0 then offset = offset - 1 end
  local id = first_id + offset - 1
  return wrk.format("GET", item_prefix .. id)
end
"""


def _lua_create(context: Context) -> str:
    return _lua_create_request(context) + "request = create_request\n"


def _lua_batch(context: Context) -> str:
    items = _batch_body("@@TITLE@@", context.seeded.busiest_category)["requests"]
    item_head, item_tail = json.dumps(items[0]).split("@@TITLE@@ 0")
    return f"""
local batch_path = {lua_string(context.rest_path + "/batch/v1")}
local batch_headers = {{["Authorization"] = {lua_string(context.authorization)}, ["Content-Type"] = "application/json"}}
local item_head = {lua_string(item_head)}
local item_tail = {lua_string(item_tail)}
request = function()
  local parts = {{}}
  for index = 1, {BATCH_SIZE} do
    counter = counter + 1
    parts[index] = item_head .. "Benchmark batch " .. thread_id .. "-" .. counter .. item_tail
  end
  return wrk.format("POST", batch_path, batch_headers, '{{"requests":[' .. table.concat(parts, ",") .. ']}}')
end
response = function(status, headers, body)
  local _, created = string.gsub(body, '"status":201', "")
  if status ~= 207 or created ~= {BATCH_SIZE} then
    bad_items = bad_items + {BATCH_SIZE} - created
    wrk.thread:set("bad_items", bad_items)
  end
end
"""


def _lua_mixed(context: Context) -> str:
    return _lua_create_request(context) + f"""
local list_path = {lua_string(context.rest_path + "/core/v2/posts")}
request = function()
  if math.random() < {WRITE_SHARE} then return create_request() end
  return wrk.format("GET", list_path)
end
"""


def _search_path(context: Context) -> str:
    return f"/core/v2/posts?search={SEARCH_WORD}"


def _category_path(context: Context) -> str:
    return f"/core/v2/posts?categories={context.seeded.busiest_category}"


SCENARIOS: list[Scenario] = [
    Scenario("list", "GET posts (10, totals)", _fixed_get(lambda c: "/core/v2/posts"),
             _check_list(lambda c: "/core/v2/posts", lambda c: c.seeded.published)),
    Scenario("search", f"GET posts?search={SEARCH_WORD}", _fixed_get(_search_path),
             _check_list(_search_path, lambda c: 1)),
    Scenario("categories", "GET posts?categories=N", _fixed_get(_category_path), _check_list(_category_path)),
    Scenario("embed", "GET posts?_embed", _fixed_get(lambda c: "/core/v2/posts?_embed"),
             _check_list(lambda c: "/core/v2/posts?_embed", embedded=True)),
    Scenario("single", "GET posts/<random id>", _lua_single, _check_single),
    Scenario("root", "GET / (root index)", _fixed_get(lambda c: "/"), _check_document("/", "routes")),
    Scenario("health", "GET /-/health (balancer probe)", _lua_health, _check_health),
    Scenario("namespace", "GET /core/v2 (namespace index)", _fixed_get(lambda c: "/core/v2"),
             _check_document("/core/v2", "routes")),
    Scenario("terms", "GET categories (10, counts)", _fixed_get(lambda c: "/core/v2/categories"),
             _check_list(lambda c: "/core/v2/categories")),
    Scenario("cached", "GET posts, cache hit", _fixed_get(lambda c: "/core/v2/posts"), _check_cached, cached=True),
    Scenario("gzip", "GET posts, Accept-Encoding: gzip", _fixed_get_gzip(lambda c: "/core/v2/posts"),
             _check_gzip(cached=False)),
    Scenario("cached-gzip", "GET posts, cache hit, Accept-Encoding: gzip",
             _fixed_get_gzip(lambda c: "/core/v2/posts"), _check_gzip(cached=True), cached=True),
    Scenario("cached-embed", "GET posts?_embed, cache hit", _fixed_get(lambda c: "/core/v2/posts?_embed"),
             _check_hit("/core/v2/posts?_embed", embedded=True), cached=True),
    Scenario("cached-terms", "GET categories, cache hit", _fixed_get(lambda c: "/core/v2/categories"),
             _check_hit("/core/v2/categories"), cached=True),
    Scenario("cached-users", "GET users (public authors), cache hit", _fixed_get(lambda c: "/core/v2/users"),
             _check_hit("/core/v2/users"), cached=True),
    Scenario("create", "POST posts as author", _lua_create, _check_create, writes=True),
    Scenario("create-same-title", f"POST posts as author, every one titled {SAME_TITLE!r}", _lua_create_same_title,
             _check_create_same_title, writes=True),
    Scenario("batch", f"POST batch/v1 ({BATCH_SIZE} creates)", _lua_batch, _check_batch, writes=True),
    Scenario("mixed", "mixed 90% list / 10% create", _lua_mixed, _check_mixed, writes=True),
]
