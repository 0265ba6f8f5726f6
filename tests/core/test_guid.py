"""A guid is kept for ever, so it must not follow the Host header an outsider sends (issue 12.14)."""

from __future__ import annotations

from host.testing import create_test_user

from tests.core.helpers import API
from tests.core.test_media import upload


def _create(client, users, host, title):
    return client.post_json(f"{API}/posts", {"title": title, "status": "publish"},
                            headers=dict(users["administrator"].headers, Host=host), status=201).json


def test_guid_uses_the_first_host_once_then_never_a_request_host(app, client, users):
    first = _create(client, users, "school.test", "First")
    assert first["guid"]["rendered"] == f"http://school.test/?p={first['id']}"
    second = _create(client, users, "evil.example", "Second")
    assert second["guid"]["rendered"] == f"http://school.test/?p={second['id']}"
    media = upload(client, dict(users["author"].headers, Host="evil.example")).json
    assert media["guid"]["rendered"].startswith("http://school.test/uploads/")
    # The link still follows the request (it is not stored); only the stored guid is pinned.
    assert second["link"].startswith("http://evil.example/")


def test_guid_uses_the_configured_site_url(make_app):
    app = make_app(plugins=["core"], site={"url": "https://www.riverside.example/"})
    admin = create_test_user(app, "administrator")
    created = app.client.post_json(f"{API}/posts", {"title": "Hello"},
                                   headers=dict(admin.headers, Host="evil.example"), status=201).json
    assert created["guid"]["raw"] == f"https://www.riverside.example/?p={created['id']}"
