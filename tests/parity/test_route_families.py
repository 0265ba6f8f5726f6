"""The WordPress-parity behaviours, checked on every route family the registry holds.

One row per behaviour; each row walks every registered route (core/v2, the built-in plugins'
namespaces and the example plugin, installed as a third party would install it), so a new
plugin's routes get the same checks without being listed anywhere:

- every answer carries `Link: <REST root>; rel="https://api.w.org/"`, unless it has its own Link;
- OPTIONS answers the route's descriptor, its item `schema` when the route declares one,
  and `Allow` for a caller who may use it;
- a GET answer of an item carries `_links.self[0].targetHints.allow` equal to its `Allow`;
- a request with an Origin gets CORS as WordPress sends it.
"""

from __future__ import annotations

import re

import pytest

API = "/wp-json/core/v2"
DISCOVERY = 'rel="https://api.w.org/"'
ORIGIN = "https://planner.example"
GROUP = re.compile(r"\(\?P<(?P<name>\w+)>.*\)")  # one path segment: nested groups stay inside
SAMPLES = ("20300617T080000Z", "a1b2c3d4e5f6", "sample")  # values for groups that take no id


@pytest.fixture
def site(make_app, example_plugin):
    app = make_app()
    from host.testing import role_users

    users = role_users(app)
    admin = users["administrator"]
    post = app.client.post_json(f"{API}/posts", {"title": "Family", "status": "publish"}, headers=admin.headers).json
    app.client.post_json(f"{API}/posts/{post['id']}", {"title": "Family again"}, headers=admin.headers)
    autosave = app.client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "Auto"}, headers=admin.headers).json
    revision = app.client.get(f"{API}/posts/{post['id']}/revisions", headers=admin.headers).json[0]
    from tests.core.test_media import png

    media = app.client.post(f"{API}/media", png(), headers=dict(admin.headers, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="family.png"'})).json
    page = app.client.post_json(f"{API}/pages", {"title": "Page", "status": "publish"}, headers=admin.headers).json
    term = app.client.post_json(f"{API}/categories", {"name": "Family"}, headers=admin.headers).json
    tag = app.client.post_json(f"{API}/tags", {"name": "Family tag"}, headers=admin.headers).json
    password = app.client.post_json(f"{API}/users/{admin.id}/application-passwords", {"name": "Family"},
                                    headers=admin.headers).json
    note = app.client.post_json("/wp-json/example/v1/notes", {"title": "Family"}, headers=admin.headers,
                                expect_errors=True).json
    app.ids = {"posts": post["id"], "pages": page["id"], "media": media["id"], "categories": term["id"], "tags": tag["id"],
               "users": admin.id, "revisions": revision["id"], "autosaves": autosave["id"],
               "application-passwords": password["uuid"], "notes": note.get("id", 1) if isinstance(note, dict) else 1}
    app.admin = admin
    return app


def concrete(app, pattern: str) -> str:
    """The route pattern with each group filled with an object that exists (else 1).

    A group that takes no number (an occurrence's start, say) gets a sample its own expression
    accepts; a segment may hold text around its group (`(?P<id>\\d+)\\.ics`), unescaped here.
    """
    parts = pattern.split("/")
    filled = []
    for index, part in enumerate(parts):
        match = GROUP.search(part)
        if match is None:
            filled.append(part.replace("\\", ""))
            continue
        base = parts[index - 1] if index else ""
        name = match.group("name")
        if name in ("parent", "user_id") or (name == "id" and index + 1 < len(parts)):
            base = {"parent": parts[index - 1]}.get(name, base)
        value = str(app.ids.get(base, app.ids["users"] if name == "user_id" else 1))
        expression = match.group(0)[len(f"(?P<{name}>"):-1]
        if re.fullmatch(expression, value) is None:
            value = next((sample for sample in SAMPLES if re.fullmatch(expression, sample)), value)
        filled.append(part[:match.start()].replace("\\", "") + value + part[match.end():].replace("\\", ""))
    return "/".join(filled)


def families(app):
    for compiled in app.registry.routes.values():
        if compiled.path in ("", "/"):
            continue
        yield compiled, "/wp-json" + concrete(app, compiled.path)


def test_every_family_answers_with_the_discovery_link(site):
    missing = []
    for compiled, path in families(site):
        for method in {"GET", "OPTIONS"} & {m for endpoint in compiled.endpoints for m in endpoint.methods} | {"OPTIONS"}:
            response = site.client.request(path, method=method, headers=site.admin.headers, expect_errors=True)
            link = response.headers.get("Link", "")
            own = 'rel="alternate"' in link or 'rel="next"' in link or 'rel="prev"' in link
            if DISCOVERY not in link and not own:  # an answer's own Link replaces the discovery one
                missing.append(f"{method} {path} -> {response.status}")
    assert missing == []


def test_every_family_answers_options_with_descriptor_schema_and_allow(site):
    problems, checked = [], 0
    for compiled, path in families(site):
        response = site.client.options(path, headers=site.admin.headers, expect_errors=True)
        body = response.json
        if response.status_int != 200 or not isinstance(body, dict) or {"namespace", "methods", "endpoints"} - set(body):
            problems.append(f"{path}: {response.status} {str(body)[:120]}")
            continue
        if compiled.schema is not None and compiled.show_schema and body.get("schema", {}).get("type") != "object":
            problems.append(f"{path}: no item schema")
        if not compiled.show_schema and "schema" in body:  # the real route registers none (forms/v1)
            problems.append(f"{path}: OPTIONS shows a schema its route keeps out")
        if compiled.endpoint_for("GET") is not None and \
                site.client.get(path, headers=site.admin.headers, expect_errors=True).status_int == 200 and \
                "GET" not in response.headers.get("Allow", ""):
            problems.append(f"{path}: the administrator may GET it, but OPTIONS gives no such Allow")
        checked += 1
    assert problems == [], '\n'.join(problems)
    assert checked >= 40


def test_every_item_get_carries_target_hints_equal_to_allow(site):
    problems, checked = [], 0
    for compiled, path in families(site):
        if compiled.endpoint_for("GET") is None:
            continue
        response = site.client.get(path, headers=site.admin.headers, expect_errors=True)
        body = response.json if response.content_type == "application/json" else None  # feeds are text/calendar
        item = body if isinstance(body, dict) else None
        self_link = ((item or {}).get("_links") or {}).get("self") or [{}]
        if response.status_int != 200 or "targetHints" not in self_link[0] \
                or not self_link[0]["href"].endswith(path):  # introspect links to the password's own URL
            continue
        allow = [method.strip() for method in response.headers.get("Allow", "").split(",") if method.strip()]
        if self_link[0]["targetHints"]["allow"] != allow:
            problems.append(f"{path}: hints {self_link[0]['targetHints']['allow']} vs Allow {allow}")
        checked += 1
    assert problems == [], '\n'.join(problems)
    assert checked >= 8  # posts, pages, media, terms, users, revisions, autosaves...


def test_every_family_answers_cors_as_wordpress(site):
    problems = []
    for compiled, path in families(site):
        response = site.client.get(path, headers={"Origin": ORIGIN}, expect_errors=True)
        if compiled.endpoint_for("GET") is None:
            response = site.client.options(path, headers={"Origin": ORIGIN}, expect_errors=True)
        headers = response.headers
        exposed = headers.get("Access-Control-Expose-Headers", "")
        if headers.get("Access-Control-Allow-Origin") != ORIGIN or headers.get("Access-Control-Allow-Credentials") != "true" \
                or not all(name in exposed for name in ("X-WP-Total", "X-WP-TotalPages", "Link")):
            problems.append(f"{path}: {dict((k, v) for k, v in headers.items() if k.startswith('Access-Control'))}")
    assert problems == [], '\n'.join(problems)
