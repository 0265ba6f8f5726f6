"""A guid is kept for ever, so it must not follow the Host header an outsider sends: it starts with the site address."""

from __future__ import annotations

from host.testing import TEST_SITE_ADDRESS, create_test_user

from tests.core.helpers import API
from tests.core.test_media import upload


def _create(client, users, host, title):
    return client.post_json(f"{API}/posts", {"title": title, "status": "publish"},
                            headers=dict(users["administrator"].headers, Host=host), status=201).json


def test_guid_never_follows_a_request_host_not_even_the_first_one(app, client, users):
    # The very first request of the site comes from an outsider's Host: it must not be recorded.
    first = _create(client, users, "evil.example", "First")
    assert first["guid"]["rendered"] == f"{TEST_SITE_ADDRESS}/?p={first['id']}"
    second = _create(client, users, "school.test", "Second")
    assert second["guid"]["rendered"] == f"{TEST_SITE_ADDRESS}/?p={second['id']}"
    media = upload(client, dict(users["author"].headers, Host="evil.example")).json
    assert media["guid"]["rendered"].startswith(f"{TEST_SITE_ADDRESS}/uploads/")
    # The link still follows the request (it is not stored); only the stored guid is pinned.
    assert first["link"].startswith("http://evil.example/")


def test_an_address_chosen_in_the_settings_is_the_base_of_new_guids_only(app, client, users):
    admin = users["administrator"].headers
    old = _create(client, users, "school.test", "Before")
    client.post_json(f"{API}/settings", {"url": "https://www.riverside.example"}, headers=admin, status=200)
    new = _create(client, users, "evil.example", "After")
    assert new["guid"]["raw"] == f"https://www.riverside.example/?p={new['id']}"
    assert client.get(f"{API}/posts/{old['id']}", {"context": "edit"}, headers=admin).json["guid"]["raw"] == \
        f"{TEST_SITE_ADDRESS}/?p={old['id']}"


def test_guid_uses_the_configured_site_url(make_app):
    app = make_app(plugins=["core"], site={"url": "https://www.riverside.example/"})
    admin = create_test_user(app, "administrator")
    created = app.client.post_json(f"{API}/posts", {"title": "Hello"},
                                   headers=dict(admin.headers, Host="evil.example"), status=201).json
    assert created["guid"]["raw"] == f"https://www.riverside.example/?p={created['id']}"
