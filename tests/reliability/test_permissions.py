"""Who may write what, and what anonymous readers can see, generated from the registry.

Every write route (POST/PUT/PATCH/DELETE) of every enabled plugin is called by each role
with a valid example request. Routes that declare `capability` must answer exactly by the
role's capabilities; any other non-public route must refuse anonymous callers; a role that
is let through lets every stronger role through; and a refused request changes nothing.
"""

from __future__ import annotations

import json

import pytest

from host.openapi import path_templates
from host.testing import assert_rest_error, create_test_user

from .harness import (ROLE_ORDER, collection_of, example_body, fill_pattern, marker, path_variables,
                      regex_example, role_capabilities, snapshot, write_endpoints)


NOT_SUPPORTED = 501  # a deliberate refusal in the error shape (e.g. trashing terms), not a failure


def _headers(site_users):
    return {"anonymous": {}, **{role: user.headers for role, user in site_users.items()}}


def _warm_up(app, headers):
    """Record each application password's first use now, so later requests write nothing by themselves."""
    for role_headers in headers.values():
        app.client.get("/wp-json/", headers=role_headers, status=200)


def send(app, method: str, path: str, body: dict | None, headers: dict):
    data = json.dumps(body or {}).encode()
    return app.client.request("/wp-json" + path, method=method, body=data, expect_errors=True,
                              headers={**headers, "Content-Type": "application/json"})


def _create_as(app, admin_headers, collection: str) -> int | None:
    """Create an item of `collection` through its POST route as the administrator; its id, or None."""
    matched = app.registry.match(collection, "POST")
    if matched is None:
        return None
    _route, endpoint, _params = matched
    response = send(app, "POST", collection, example_body(endpoint.args, marker()), admin_headers)
    if response.status_int in (200, 201) and isinstance(response.json, dict) and "id" in response.json:
        return response.json["id"]
    return None


def _path_for(app, pattern: str, route, admin_headers) -> str | None:
    values = {}
    for name in path_variables(pattern):
        collection = collection_of(pattern) if name == "id" else None
        created = _create_as(app, admin_headers, collection) if collection else None
        if created is not None:
            values[name] = created
            continue
        group = path_templates(pattern)[0][1][name]
        values[name] = regex_example(group)
    return fill_pattern(pattern, values)


def _ensure_user(app, users: dict, headers: dict, role: str) -> None:
    """A cell may have deleted the role's user or its application passwords (`DELETE .../me/...`): replace it."""
    if role == "anonymous" or app.client.get("/wp-json/", headers=headers[role], expect_errors=True).status_int == 200:
        return
    users[role] = create_test_user(app, role)
    headers[role] = users[role].headers
    app.client.get("/wp-json/", headers=headers[role], status=200)


def run_matrix(app, site_users) -> list[tuple[str, str, str, int]]:
    """Call every write endpoint as every role; check the invariants; return the cells."""
    users = dict(site_users)
    headers = _headers(users)
    _warm_up(app, headers)
    cells = []
    for pattern, route, endpoint, method in write_endpoints(app):
        statuses: dict[str, int] = {}
        for role in ROLE_ORDER:
            _ensure_user(app, users, headers, "administrator")
            _ensure_user(app, users, headers, role)
            path = _path_for(app, pattern, route, headers["administrator"])
            body = example_body(endpoint.args, marker(), skip=tuple(path_variables(pattern)))
            before = snapshot(app)
            response = send(app, method, path, body, headers[role])
            status = response.status_int
            where = f"{role} {method} {pattern} -> {status}: {response.text[:300]}"
            assert status < 500 or status == NOT_SUPPORTED, where
            if status >= 400:
                assert_rest_error(response, response.json["code"], status)
                assert snapshot(app) == before, f"refused request changed the database: {where}"
            if status in (401, 403):
                assert status == (401 if role == "anonymous" else 403), where
            statuses[role] = status
            cells.append((role, method, pattern, status))
        passed = [role for role in ROLE_ORDER if statuses[role] not in (401, 403)]
        if passed:  # capabilities grow with the role, so being let through must too
            weakest = ROLE_ORDER.index(passed[0])
            assert passed == list(ROLE_ORDER[weakest:]), f"{method} {pattern}: {statuses}"
        if endpoint.capability:
            for role in ROLE_ORDER:
                holds = endpoint.capability in role_capabilities(app, role)
                assert (statuses[role] not in (401, 403)) == holds, f"{method} {pattern} needs " \
                    f"{endpoint.capability}: {role} got {statuses[role]}"
        elif endpoint.permission is not None:
            assert not 200 <= statuses["anonymous"] < 300, f"anonymous wrote through {method} {pattern}"
    return cells


def test_write_permission_matrix_over_every_write_route(site, site_users):
    cells = run_matrix(site, site_users)
    routes = {(method, pattern) for _role, method, pattern, _status in cells}
    assert ("POST", "/probe/v1/items") in routes and ("DELETE", r"/probe/v1/items/(?P<id>[\d]+)") in routes
    assert ("POST", "/example/v1/notes") in routes
    by_cell = {(role, method, pattern): status for role, method, pattern, status in cells}
    # the declared capabilities, spelled out once so the generated expectations are checked too
    assert by_cell[("contributor", "POST", "/probe/v1/items")] == 201
    assert by_cell[("subscriber", "POST", "/probe/v1/items")] == 403
    assert by_cell[("anonymous", "POST", "/probe/v1/items")] == 401
    assert by_cell[("author", "PUT", r"/probe/v1/items/(?P<id>[\d]+)")] == 403
    assert by_cell[("editor", "PUT", r"/probe/v1/items/(?P<id>[\d]+)")] == 200
    assert by_cell[("editor", "DELETE", r"/probe/v1/items/(?P<id>[\d]+)")] == 200
    print(f"permission matrix: {len(cells)} cells over {len(routes)} write endpoints")


def test_a_route_that_lets_anonymous_write_is_caught(make_app, probe_module):
    """The matrix fails when a non-public write route lets anonymous callers through."""
    from host import Namespace, Route
    from host.testing import ROLES, create_test_user

    app = make_app(plugins=[probe_module])
    # a route whose callback forgets that anonymous callers are not administrators
    app.registry.add_namespace(Namespace("careless/v1"), "careless")
    app.registry.add_route(Route("careless/v1", "/things", "POST", lambda request: {"ok": True},
                                 permission=lambda request: not request.user.is_authenticated
                                 or request.user.can("manage_options")), "careless")
    users = {role: create_test_user(app, role) for role in ROLES}
    with pytest.raises(AssertionError):
        run_matrix(app, users)


def test_capability_routes_answer_401_then_403_and_list_allowed_methods(site, site_users):
    item = send(site, "POST", "/probe/v1/items", {"title": "allowed"}, site_users["editor"].headers).json
    path = f"/wp-json/probe/v1/items/{item['id']}"
    assert site.client.get(path).headers["Allow"] == "GET"
    assert site.client.get(path, headers=site_users["author"].headers).headers["Allow"] == "GET"
    assert site.client.get(path, headers=site_users["editor"].headers).headers["Allow"] == "GET, PUT, PATCH, DELETE"
    refused = send(site, "PATCH", f"/probe/v1/items/{item['id']}", {"title": "no"}, site_users["author"].headers)
    assert_rest_error(refused, "rest_forbidden", 403)
    document = site.client.get("/openapi.json").json
    assert document["paths"]["/wp-json/probe/v1/items/{id}"]["patch"]["x-capability"] == "edit_others_posts"


# --- reads: nothing non-public reaches an anonymous reader -----------------------------------

def create_non_public_items(app, admin_headers) -> dict[str, tuple[str, int]]:
    """Through the API as the administrator: one item per non-public status each collection accepts.

    Returns marker -> (collection pattern, id). Collections are found from the registry: POST routes without path
    variables whose `status` arg enumerates a registered status that is not public.
    """
    hidden = {name for name, (status, _owner) in app.registry.statuses.items() if not status.public}
    created = {}
    for pattern, route, endpoint, method in write_endpoints(app):
        status_arg = endpoint.args.get("status") or {}
        if method != "POST" or path_variables(pattern) or not status_arg.get("enum"):
            continue
        for status in [value for value in status_arg["enum"] if value in hidden]:
            token = marker()
            response = send(app, "POST", pattern, example_body(endpoint.args, token, extra={"status": status}),
                            admin_headers)
            # a "future" item dated in the past is published at once: count only what stayed hidden
            if response.status_int in (200, 201) and response.json.get("status") in hidden:
                created[token] = (pattern, response.json["id"])
    return created


def anonymous_reads(app, created: dict[str, tuple[str, int]]):
    """Every anonymous GET the registry offers: collections (plain, _embed, search) and items by id."""
    tokens = list(created)
    for pattern, route in app.registry.ordered_routes():
        endpoint = route.endpoint_for("GET")
        if endpoint is None:
            continue
        variables = path_variables(pattern)
        if not variables:
            yield "/wp-json" + (pattern if pattern != "/" else "/")
            yield "/wp-json" + pattern + "?_embed=1"
            if "search" in endpoint.args:
                for token in tokens:
                    yield "/wp-json" + pattern + f"?search={token}&_embed=1"
        elif variables == ["id"]:
            for _collection, item_id in created.values():
                yield "/wp-json" + fill_pattern(pattern, {"id": item_id}) + "?_embed=1"


def assert_nothing_hidden_is_served(app, created: dict[str, tuple[str, int]]) -> int:
    requests = 0
    for url in anonymous_reads(app, created):
        response = app.client.get(url, expect_errors=True)
        requests += 1
        assert response.status_int < 500 or response.status_int == NOT_SUPPORTED, url
        # A list may echo the caller's own query (the calendar's rest_url); that echo reveals nothing.
        searched = url.split("search=", 1)[1].split("&", 1)[0] if "search=" in url else None
        text = response.text.replace(f"search={searched}", "") if searched else response.text
        for token in created:
            assert token not in text, f"anonymous GET {url} revealed a non-public item"
    return requests


def test_anonymous_readers_never_see_non_public_items(site, site_users):
    admin = site_users["administrator"].headers
    created = create_non_public_items(site, admin)
    probe_ids = [item_id for pattern, item_id in created.values() if pattern == "/probe/v1/items"]
    assert probe_ids, "the probe collection did not accept its private status"
    public = send(site, "POST", "/probe/v1/items",
                  {"title": "public child", "parent": probe_ids[0]}, admin).json
    assert public["status"] == "probe-open"
    requests = assert_nothing_hidden_is_served(site, created)
    assert requests >= 10
    # the administrator does see them, so the markers are really in the data
    listing = site.client.get("/wp-json/probe/v1/items?_embed=1", headers=admin).text
    assert all(token in listing for token, (pattern, _id) in created.items() if pattern == "/probe/v1/items")


def test_the_leak_detector_catches_a_leaky_plugin(make_app, example_plugin, probe_module):
    from host.testing import create_test_user

    app = make_app(extra_plugins=[probe_module], config={"probe": {"leak": True}})
    admin = create_test_user(app, "administrator").headers
    created = create_non_public_items(app, admin)
    with pytest.raises(AssertionError, match="revealed a non-public item"):
        assert_nothing_hidden_is_served(app, created)


def test_anonymous_batch_cannot_write_through_any_batchable_route(site, site_users):
    if site.registry.match("/batch/v1", "POST") is None:
        pytest.skip("no batch/v1 route registered")
    admin = site_users["administrator"].headers
    requests = []
    for pattern, route, endpoint, method in write_endpoints(site):
        if not endpoint.allow_batch or endpoint.permission is None:
            continue
        path = _path_for(site, pattern, route, admin)
        requests.append({"method": method, "path": "/" + path.lstrip("/"),
                         "body": example_body(endpoint.args, marker(), skip=tuple(path_variables(pattern)))})
    assert requests
    before = snapshot(site)
    limit = site.registry.match("/batch/v1", "POST")[1].args["requests"].get("maxItems", 25)
    statuses = []
    for start in range(0, len(requests), limit):  # more batchable routes than one batch may carry
        response = send(site, "POST", "/batch/v1", {"requests": requests[start:start + limit]}, {})
        assert response.status_int == 207, response.text
        statuses += [answer["status"] for answer in response.json["responses"]]
    assert statuses and all(400 <= status < 500 for status in statuses), statuses
    assert 401 in statuses
    assert snapshot(site) == before
