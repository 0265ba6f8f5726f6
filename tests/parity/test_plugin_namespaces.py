"""the parity behaviours on plugin namespaces too, not only core/v2.

The example plugin (installed through its entry point, as a third party would), oembed/1.0
and cache/v1: Allow and Link (15.2), OPTIONS with schema (15.3), _envelope totals as numbers
and batch sub-response headers (15.7), CORS (15.8). Targets hints and the table over every
family are in test_route_families.py.
"""

from __future__ import annotations

import pytest

from host.testing import role_users

NOTES = "/wp-json/example/v1/notes"
DISCOVERY = '<http://school.test/wp-json/>; rel="https://api.w.org/"'
ORIGIN = "https://planner.example"


@pytest.fixture
def site(make_app, example_plugin):
    app = make_app()
    app.people = role_users(app)
    return app


def test_allow_and_link_on_a_plugin_namespace(site):
    admin = site.people["administrator"].headers
    created = site.client.post_json(NOTES, {"title": "Trip"}, headers=admin, status=201)
    assert DISCOVERY in created.headers["Link"]
    listed = site.client.get(NOTES, headers=admin)
    assert listed.headers["Allow"] == "GET, POST" and DISCOVERY in listed.headers["Link"]
    assert site.client.get(NOTES).headers["Allow"] == "GET"  # anonymous may not POST
    refused = site.client.post_json(NOTES, {"title": "x"}, status=401)
    assert refused.headers["Allow"] == "GET" and DISCOVERY in refused.headers["Link"]
    embed = site.client.get("/wp-json/oembed/1.0/embed?url=http://elsewhere.test/", status=404)
    assert DISCOVERY in embed.headers["Link"] and embed.headers["Allow"] == "GET"
    status = site.client.get("/wp-json/cache/v1/status", status=401)
    assert DISCOVERY in status.headers["Link"]
    assert "Allow" not in status.headers  # no method allowed: WordPress sends no Allow either
    assert site.client.get("/wp-json/cache/v1/status", headers=admin).headers["Allow"] == "GET"


def test_options_on_a_plugin_namespace_gives_descriptor_schema_and_allow(site):
    admin = site.people["administrator"].headers
    response = site.client.options(NOTES, headers=admin)
    body = response.json
    assert body["namespace"] == "example/v1" and body["methods"] == ["GET", "POST"]
    assert body["schema"]["title"] == "note" and body["schema"]["type"] == "object"
    assert response.headers["Allow"] == "GET, POST"
    assert site.client.options(NOTES).headers["Allow"] == "GET"
    cache = site.client.options("/wp-json/cache/v1/toggle_crawler_state", headers=admin).json
    assert cache["namespace"] == "cache/v1" and cache["endpoints"][0]["args"]


def test_envelope_and_batch_headers_on_a_plugin_namespace(site):
    admin = site.people["administrator"].headers
    for title in ("a", "b", "c"):
        site.client.post_json(NOTES, {"title": title}, headers=admin, status=201)
    enveloped = site.client.get(f"{NOTES}?per_page=2&_envelope").json
    assert enveloped["status"] == 200 and len(enveloped["body"]) == 2
    assert enveloped["headers"]["X-WP-Total"] == 3 and enveloped["headers"]["X-WP-TotalPages"] == 2
    batch = site.client.post_json("/wp-json/batch/v1", {"requests": [
        {"method": "POST", "path": "/example/v1/notes", "body": {"title": "Batched"}},
    ]}, headers=admin, status=207).json["responses"][0]
    assert batch["status"] == 201 and batch["headers"]["Location"].endswith(f"/example/v1/notes/{batch['body']['id']}")
    assert batch["headers"]["Allow"] == "GET, POST"


def test_cors_on_a_plugin_namespace(site):
    response = site.client.get(NOTES, headers={"Origin": ORIGIN})
    assert response.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert {"X-WP-Total", "X-WP-TotalPages", "Link"} <= {
        name.strip() for name in response.headers["Access-Control-Expose-Headers"].split(",")}
