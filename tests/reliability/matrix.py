"""The write permission matrix, generated from the registry, and its split into shares.

Every write route (POST/PUT/PATCH/DELETE) of every enabled plugin is called by each role
with a valid example request. Routes that declare `capability` must answer exactly by the
role's capabilities; any other non-public route must refuse anonymous callers, with the status
the route declares (`anonymous_refusal`: 401, or 403 where the real plugin says so); a role that
is let through lets every stronger role through; and a refused request changes nothing.

The matrix is the longest test of the suite, and `--dist loadfile` runs a file on one worker,
so it runs in MATRIX_SHARES files (test_permissions_matrix_N.py), each over the write routes
whose pattern hashes to its share: a stable hash of the pattern, so a new route joins a share by
itself and no list of routes is kept by hand. test_permissions.py checks that the files are
there and that the shares split every write route exactly once.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from sqlalchemy import MetaData

from host.auth.models import define_auth_tables
from host.openapi import path_templates
from host.testing import assert_rest_error, create_test_user

from .harness import (ROLE_ORDER, collection_of, example_body, fill_pattern, marker, path_variables,
                      regex_example, role_capabilities, snapshot, write_endpoints)

NOT_SUPPORTED = 501  # a deliberate refusal in the error shape (e.g. trashing terms), not a failure
MATRIX_SHARES = 4  # files test_permissions_matrix_0.py ... _3.py; two workers, and shares of unequal cost
MATRIX_FILE = "test_permissions_matrix_{share}.py"
# What a sign-in with an application password depends on: the host's own auth tables.
AUTH_TABLES = tuple(define_auth_tables(MetaData()))

# The declared capabilities of the probe's routes, spelled out once so the generated expectations are
# checked too: (role, method, pattern) -> status. Each is checked by the share its pattern falls in.
SPELLED_OUT_CELLS = {
    ("contributor", "POST", "/probe/v1/items"): 201,
    ("subscriber", "POST", "/probe/v1/items"): 403,
    ("anonymous", "POST", "/probe/v1/items"): 401,
    ("author", "PUT", r"/probe/v1/items/(?P<id>[\d]+)"): 403,
    ("editor", "PUT", r"/probe/v1/items/(?P<id>[\d]+)"): 200,
    ("editor", "DELETE", r"/probe/v1/items/(?P<id>[\d]+)"): 200,
}
# Routes the matrix must reach (it walks the registry, so these show the probe and example plugins joined it).
REQUIRED_ROUTES = {("POST", "/probe/v1/items"), ("DELETE", r"/probe/v1/items/(?P<id>[\d]+)"),
                   ("POST", "/example/v1/notes")}


def share_of(pattern: str) -> int:
    """The share a route pattern's write endpoints run in: stable across runs, processes and machines."""
    return zlib.crc32(pattern.encode()) % MATRIX_SHARES


def share_of_file(path: str) -> int:
    """`.../test_permissions_matrix_2.py` -> 2."""
    return int(Path(path).stem.rsplit("_", 1)[1])


def headers_of(site_users):
    return {"anonymous": {}, **{role: user.headers for role, user in site_users.items()}}


def warm_up(app, headers):
    """Record each application password's first use now, so later requests write nothing by themselves."""
    for role_headers in headers.values():
        app.client.get("/wp-json/", headers=role_headers, status=200)


def send(app, method: str, path: str, body: dict | None, headers: dict):
    data = json.dumps(body or {}).encode()
    return app.client.request("/wp-json" + path, method=method, body=data, expect_errors=True,
                              headers={**headers, "Content-Type": "application/json"})


def create_as(app, admin_headers, collection: str) -> int | None:
    """Create an item of `collection` through its POST route as the administrator; its id, or None."""
    matched = app.registry.match(collection, "POST")
    if matched is None:
        return None
    _route, endpoint, _params = matched
    response = send(app, "POST", collection, example_body(endpoint.args, marker()), admin_headers)
    if response.status_int in (200, 201) and isinstance(response.json, dict) and "id" in response.json:
        return response.json["id"]
    return None


def path_for(app, pattern: str, route, admin_headers) -> str:
    """A concrete path of `pattern`: an item created for its `id` where its collection can, else regex examples."""
    values = {}
    for name in path_variables(pattern):
        collection = collection_of(pattern) if name == "id" else None
        created = create_as(app, admin_headers, collection) if collection else None
        if created is not None:
            values[name] = created
            continue
        group = path_templates(pattern)[0][1][name]
        values[name] = regex_example(group)
    return fill_pattern(pattern, values)


def seed_items(app, admin_headers) -> None:
    """One item, created by the administrator, in every collection whose items have routes of their own.

    Path variables other than a collection's `id` take example values (1): without this they would
    name whatever some earlier cell happened to create, perhaps a contributor's own post, which a
    contributor may edit and an author may not. Seeded first, the low ids are the administrator's,
    whichever share runs and whatever ran before it.
    """
    seen = set()
    for pattern, _route in app.registry.ordered_routes():
        collection = collection_of(pattern)
        if collection is not None and collection not in seen:
            seen.add(collection)
            create_as(app, admin_headers, collection)


class SignIns:
    """Keeps every role's user able to sign in, checking over HTTP only when it may have stopped.

    A cell may delete a role's user or its application passwords (`DELETE .../me/...`); such a user
    is replaced. Signing in reads only the auth tables (users, application passwords, failure
    counts), so while their rows equal the rows seen when every user last signed in, every user
    still can: the GET per user and cell is needed only after a cell changed those rows.
    """

    def __init__(self, app, users: dict, headers: dict):
        self.app, self.users, self.headers = app, users, headers
        self.verified = None

    def ensure(self, current: dict | None = None) -> dict:
        """Make sure every role's user signs in. `current`: a snapshot known to be current (else the auth
        tables are read). Returns `current`, or a new snapshot of every table if users were checked."""
        current = current if current is not None else snapshot(self.app, AUTH_TABLES)
        if self.verified is not None and self._auth_rows(current) == self.verified:
            return current
        for role in ROLE_ORDER:
            self._ensure_user(role)
        current = snapshot(self.app)
        self.verified = self._auth_rows(current)
        return current

    def _ensure_user(self, role: str) -> None:
        app, users, headers = self.app, self.users, self.headers
        if role == "anonymous" or app.client.get("/wp-json/", headers=headers[role], expect_errors=True).status_int == 200:
            return
        users[role] = create_test_user(app, role)
        headers[role] = users[role].headers
        app.client.get("/wp-json/", headers=headers[role], status=200)

    @staticmethod
    def _auth_rows(current: dict) -> dict:
        return {name: current[name] for name in AUTH_TABLES if name in current}


def run_matrix(app, site_users, share: int | None = None) -> list[tuple[str, str, str, int]]:
    """Call every write endpoint (of `share`, or all) as every role; check the invariants; return the cells.

    A role's cell reuses the item the cell before it was refused on: a refused request changed
    nothing (checked on every table), so the item is as it was created. After a cell that wrote, the
    next role gets a newly created item.
    """
    users = dict(site_users)
    headers = headers_of(users)
    warm_up(app, headers)
    sign_ins = SignIns(app, users, headers)
    sign_ins.ensure()
    seed_items(app, headers["administrator"])
    cells = []
    for pattern, route, endpoint, method in write_endpoints(app):
        if share is not None and share_of(pattern) != share:
            continue
        statuses: dict[str, int] = {}
        path = before = None
        for role in ROLE_ORDER:
            if path is None:
                sign_ins.ensure()  # the administrator creates the item
                path = path_for(app, pattern, route, headers["administrator"])
            body = example_body(endpoint.args, marker(), skip=tuple(path_variables(pattern)))
            before = sign_ins.ensure(before if before is not None else snapshot(app))
            response = send(app, method, path, body, headers[role])
            status = response.status_int
            where = f"{role} {method} {pattern} -> {status}: {response.text[:300]}"
            assert status < 500 or status == NOT_SUPPORTED, where
            if status >= 400:
                assert_rest_error(response, response.json["code"], status)
                after = snapshot(app)
                assert after == before, f"refused request changed the database: {where}"
                before = after  # nothing ran since: the next role's cell starts from it
            else:
                path = before = None  # the write may have changed or removed the item
            if status in (401, 403):  # the route declares what a refused anonymous caller gets
                assert status == (endpoint.anonymous_refusal if role == "anonymous" else 403), where
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


def check_matrix_share(site, site_users, test_file: str) -> set[tuple[str, str]]:
    """The body of each test_permissions_matrix_N.py: the matrix over share N, and the spelled-out cells in it."""
    share = share_of_file(test_file)
    cells = run_matrix(site, site_users, share)
    routes = {(method, pattern) for _role, method, pattern, _status in cells}
    assert routes, f"share {share} has no write route"
    assert all(share_of(pattern) == share for _method, pattern in routes)
    by_cell = {(role, method, pattern): status for role, method, pattern, status in cells}
    for (role, method, pattern), status in SPELLED_OUT_CELLS.items():
        if share_of(pattern) == share:
            assert by_cell[(role, method, pattern)] == status, (role, method, pattern, by_cell.get((role, method, pattern)))
    for method, pattern in REQUIRED_ROUTES:
        if share_of(pattern) == share:
            assert (method, pattern) in routes
    print(f"permission matrix share {share}: {len(cells)} cells over {len(routes)} write endpoints")
    return routes
