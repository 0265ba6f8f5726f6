"""Who may write what, and what anonymous readers can see, generated from the registry.

The write permission matrix itself (every write route, every role) lives in matrix.py and runs in
the shares test_permissions_matrix_N.py; here: that the shares cover every write route exactly
once, that the matrix catches a careless route, capability answers, anonymous reads, and batches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from host.testing import assert_rest_error

from .harness import example_body, fill_pattern, marker, path_variables, snapshot, write_endpoints
from .matrix import (MATRIX_FILE, MATRIX_SHARES, NOT_SUPPORTED, REQUIRED_ROUTES, SPELLED_OUT_CELLS, path_for,
                     run_matrix, send, share_of, share_of_file)


def test_the_matrix_shares_cover_every_write_route_exactly_once(site):
    """One file per share, and every write endpoint of the registry in exactly one share."""
    here = Path(__file__).parent
    files = sorted(path.name for path in here.glob(MATRIX_FILE.format(share="*")))
    assert files == sorted(MATRIX_FILE.format(share=share) for share in range(MATRIX_SHARES))
    assert [share_of_file(here / name) for name in sorted(files)] == sorted(range(MATRIX_SHARES))
    endpoints = [(method, pattern) for pattern, _route, _endpoint, method in write_endpoints(site)]
    assert len(endpoints) == len(set(endpoints)) and len(endpoints) > 100
    shares = {share: {(method, pattern) for method, pattern in endpoints if share_of(pattern) == share}
              for share in range(MATRIX_SHARES)}
    assert all(shares.values()), {share: len(routes) for share, routes in shares.items()}
    assert sum(len(routes) for routes in shares.values()) == len(endpoints)
    assert set().union(*shares.values()) == set(endpoints)
    assert REQUIRED_ROUTES <= set(endpoints)
    assert {(method, pattern) for _role, method, pattern in SPELLED_OUT_CELLS} <= set(endpoints)


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
    for pattern, _route, endpoint, method in write_endpoints(app):
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


def test_the_leak_detector_catches_a_leaky_plugin(make_app, probe_module):
    """The probe alone: with every plugin the detector walked ~5,000 reads of the others (a minute on
    PostgreSQL) before it reached the probe's; test_anonymous_readers_never_see_non_public_items walks those."""
    from host.testing import create_test_user

    app = make_app(plugins=[probe_module], config={"probe": {"leak": True}})
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
        path = path_for(site, pattern, route, admin)
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
