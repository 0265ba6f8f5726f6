"""Every GET route of every enabled plugin, walked from the registry on a demo site: each one an anonymous
caller may read is served from the response cache, or says why not (`Route.uncacheable`).

A route that refuses anonymous callers (401, 403) is private and never cached for them. Any other GET
route must declare `cacheable` or `uncacheable`: a new route joins this test by itself and fails it until
it does. A cacheable route that answers 200 is asked twice: the second answer is the first, from the
cache (`X-Cache: hit`); an uncacheable one is never answered from the cache.
"""

from __future__ import annotations

from urllib.parse import urlencode

from host.openapi import path_templates

from tests.reliability.harness import example_value, fill_pattern, path_variables, regex_example

REST = "/wp-json"
PRIVATE = (401, 403)
# Path variables whose values the collection before them lists, and the field of an item that holds them;
# types, statuses and taxonomies are documents keyed by the name.
_LISTED = {"id": "id", "parent": "id", "slug": "slug", "type": "type", "status": "status", "taxonomy": "taxonomy"}


def _first_listed(app, collection: str, field: str):
    """The `field` of the first item an anonymous caller sees in `collection`, or None."""
    answer = app.client.get(REST + collection, expect_errors=True)
    if answer.status_int != 200:
        return None
    body = answer.json
    if isinstance(body, dict):  # a keyed document (types) or an envelope (the calendar's {"events": [...]})
        listed = next((value for value in body.values() if isinstance(value, list)), None)
        if listed is None:
            return next(iter(body), None) if field != "id" else None
        body = listed
    first = body[0] if isinstance(body, list) and body else None
    return first.get(field) if isinstance(first, dict) else None


def public_path(app, pattern: str, endpoint) -> str:
    """A concrete path of `pattern` naming something public where its collection lists it (else the
    regex's example), with an example of every required query arg."""
    values: dict = {}
    for name in path_variables(pattern):
        found = None
        if name in _LISTED:
            collection = fill_pattern(pattern.split(f"/(?P<{name}>", 1)[0], values).removesuffix("/by-slug")
            found = _first_listed(app, collection, _LISTED[name])
        if found is None and endpoint.args.get(name, {}).get("enum"):
            found = example_value(endpoint.args[name], "zqexample")
        values[name] = found if found is not None else regex_example(path_templates(pattern)[0][1][name])
    path = fill_pattern(pattern, values)
    required = {name: example_value(arg, "zqexample") for name, arg in endpoint.args.items()
                if arg.get("required") and name not in values}
    return path + ("?" + urlencode(required, doseq=True) if required else "")


def test_every_public_get_route_is_cached_or_declares_why_not(make_app):
    app = make_app()  # every built-in and installed plugin
    app.install_site(demo=True)
    undeclared, not_kept, kept_anyway, checked = [], [], [], []
    for pattern, route in app.registry.ordered_routes():
        endpoint = route.endpoint_for("GET")
        if endpoint is None or "GET" not in endpoint.methods:
            continue
        path = public_path(app, pattern, endpoint)
        first = app.client.get(REST + path, expect_errors=True)
        if first.status_int in PRIVATE:
            continue
        index = endpoint.automatic_index or pattern in ("/", "/" + route.namespace)
        if not (endpoint.cacheable or endpoint.uncacheable or index):
            undeclared.append(f"{pattern} (anonymous GET {path} answers {first.status_int})")
            continue
        second = app.client.get(REST + path, expect_errors=True)
        if endpoint.uncacheable:
            if second.headers.get("X-Cache") == "hit":
                kept_anyway.append(pattern)
            continue
        if first.status_int == 200:
            checked.append(pattern)
            if second.headers.get("X-Cache") != "hit" or second.body != first.body:
                not_kept.append(f"{pattern} ({path}: X-Cache {second.headers.get('X-Cache')})")
    assert not undeclared, "public GET routes neither cacheable nor uncacheable (with a reason): " + "; ".join(undeclared)
    assert not not_kept, "cacheable routes not answered from the cache: " + "; ".join(not_kept)
    assert not kept_anyway, "uncacheable routes answered from the cache: " + "; ".join(kept_anyway)
    # The walk reached the families the cache must serve (a broken path builder would check nothing).
    for family in ("/core/v2/posts/(?P<id>[\\d]+)", "/core/v2/categories", "/core/v2/users", "/core/v2/comments",
                   "/core/v2/search", "/cal/events/v1/events", "/cal/events/v1/venues/(?P<id>\\d+)",
                   "/core/v2/courses"):
        assert any(pattern.endswith(family) for pattern in checked), family
