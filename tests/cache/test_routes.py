"""cache/v1 operator routes over HTTP: crawler switches, status, IP detection, guest lists (callbacks: test_callbacks.py)."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from .helpers import NOTES

REST = "/wp-json"


@pytest.fixture
def site(cache_app):
    app = cache_app()
    app.admin = create_test_user(app, "administrator")
    app.editor = create_test_user(app, "editor")
    return app


def status_of(app):
    return client_as(app, app.admin).get(REST + "/cache/v1/status").json


# --- operator routes -------------------------------------------------------------------------

def test_operator_routes_need_manage_options(site):
    for path in ("/cache/v1/status", "/cache/v1/tool/check_ip", "/cache/v1/guest/sync"):
        assert_rest_error(site.client.get(REST + path, expect_errors=True), "rest_forbidden", 401)
        assert_rest_error(client_as(site, site.editor).get(REST + path, expect_errors=True), "rest_forbidden", 403)
    assert_rest_error(client_as(site, site.editor).post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0},
                                                        expect_errors=True), "rest_forbidden", 403)
    assert [crawler["active"] for crawler in status_of(site)["crawlers"]] == [True, True]


def test_the_first_toggle_switches_a_crawler_off_and_the_next_on_again_warming_the_cache(site):
    admin = client_as(site, site.admin)
    create_note_response = client_as(site, site.editor).post_json(REST + NOTES, {"title": "Warm me"}, status=201)
    note_id = create_note_response.json["id"]
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 1}).json == 0
    status = status_of(site)
    assert [crawler["active"] for crawler in status["crawlers"]] == [True, False]
    assert status["crawler_last_run"] is None  # switching off warms nothing
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 1}).json == 1
    status = status_of(site)
    assert [crawler["active"] for crawler in status["crawlers"]] == [True, True]
    assert status["crawler_last_run"]["crawlers"] == [1]
    assert status["crawler_last_run"]["cached"] == 2  # the notes list and the note on it
    assert site.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert site.client.get(REST + NOTES + f"/{note_id}").headers["X-Cache"] == "hit"
    assert admin.post_json(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0}).json == 0
    assert admin.post_json(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0}).json == 1
    assert site.client.get(REST + "/").headers["X-Cache"] == "hit"
    assert site.client.get(REST + "/cache/v3").headers["X-Cache"] == "hit"


def test_any_crawler_id_is_toggled_as_the_real_plugin_does(site):
    admin = client_as(site, site.admin)
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": "7"}).json == 0
    assert admin.post_json(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 7}).json == 1
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 999}).json == 0
    status = status_of(site)
    assert [crawler["active"] for crawler in status["crawlers"]] == [True, True]  # the known crawlers stay on
    assert status["crawler_last_run"] is None  # an id without a crawler warms nothing


def test_toggle_without_a_crawler_id_answers_null_and_changes_nothing(site):
    admin = client_as(site, site.admin)
    for response in (admin.post(REST + "/cache/v1/toggle_crawler_state"),
                     admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": ""}),
                     admin.post_json(REST + "/cache/v1/toggle_crawler_state", {})):
        assert (response.status_int, response.text) == (200, "null")
        assert response.headers["Content-Type"].startswith("application/json")
    assert [crawler["active"] for crawler in status_of(site)["crawlers"]] == [True, True]


@pytest.mark.parametrize("crawler_id", ["x", "1.5", -1, 1000, "99999999999999999999"])
def test_toggle_refuses_a_crawler_id_that_is_not_one_and_changes_nothing(site, crawler_id):
    admin = client_as(site, site.admin)
    body = assert_rest_error(admin.post_json(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": crawler_id},
                                             expect_errors=True), "rest_invalid_param", 400)
    assert "crawler_id" in body["data"]["params"]
    assert [crawler["active"] for crawler in status_of(site)["crawlers"]] == [True, True]
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0}).json == 0  # the list was untouched


def test_status_reports_the_cache(site):
    site.client.get(REST + "/")
    site.client.get(REST + "/")
    cache = status_of(site)["cache"]
    assert cache["enabled"] is True
    assert cache["entries"] == 1 and cache["hits"] == 1 and cache["misses"] == 1
    assert cache["paths"] == [NOTES]
    version = cache["version"]
    client_as(site, site.editor).post_json(REST + NOTES, {"title": "Bump"}, status=201)
    cache = status_of(site)["cache"]
    assert cache["version"] == version + 1
    assert cache["entries"] == 0


def test_check_ip_asks_the_configured_service(cache_app, remote):
    app = cache_app(ip_service_url=remote.serve("/ip", "203.0.113.7\n", content_type="text/plain"),
                    allow_private_targets=True)
    admin = create_test_user(app, "administrator")
    response = client_as(app, admin).get(REST + "/cache/v1/tool/check_ip")
    assert (response.status_int, response.json) == (200, "203.0.113.7")


@pytest.mark.parametrize("status, body", [(200, b"<html>not an address</html>"), (500, b"oops"), (200, b"9" * 500),
                                          (200, b"2001:db8::1")])
def test_check_ip_failures_answer_the_real_plugins_message(cache_app, remote, status, body):
    app = cache_app(ip_service_url=remote.serve("/ip", body, status, "text/plain"), allow_private_targets=True)
    admin = create_test_user(app, "administrator")
    response = client_as(app, admin).get(REST + "/cache/v1/tool/check_ip")
    assert (response.status_int, response.json) == (200, "Failed to detect IP")


def test_check_ip_goes_through_the_outbound_guard(cache_app, remote):
    """A private address is only asked with allow_private_targets: the guard refuses it otherwise."""
    app = cache_app(ip_service_url=remote.serve("/ip", "203.0.113.7", content_type="text/plain"))
    admin = create_test_user(app, "administrator")
    assert client_as(app, admin).get(REST + "/cache/v1/tool/check_ip").json == "Failed to detect IP"
    assert remote.hits.get("/ip") is None


# --- guest/sync --------------------------------------------------------------------------------

def test_guest_sync_downloads_both_lists_and_keeps_them(cache_app, remote):
    remote.serve("/lists/gm_ips", "192.0.2.1\n192.0.2.2\n\n", content_type="text/plain")
    remote.serve("/lists/gm_uas", "Lighthouse\nGTmetrix\nPingdom\n", content_type="text/plain")
    app = cache_app(guest_lists_url=remote.base + "/lists/", allow_private_targets=True)
    admin = client_as(app, create_test_user(app, "administrator"))
    response = admin.get(REST + "/cache/v1/guest/sync")
    assert (response.status_int, response.json) == (200, {"success": True,
                                                          "message": "Guest Mode lists synced successfully."})
    lists = admin.get(REST + "/cache/v1/status").json["guest_lists"]
    assert (lists["ips"]["count"], lists["uas"]["count"]) == (2, 3)
    assert lists["ips"]["synced"] is not None


def test_guest_sync_keeps_the_list_that_arrived_and_says_it_failed(cache_app, remote):
    remote.serve("/gm_ips", "192.0.2.1\n", content_type="text/plain")  # gm_uas: 404
    app = cache_app(guest_lists_url=remote.base, allow_private_targets=True)
    admin = client_as(app, create_test_user(app, "administrator"))
    response = admin.get(REST + "/cache/v1/guest/sync")
    assert (response.status_int, response.json) == (200, {"success": False,
                                                          "message": "Failed to sync Guest Mode lists."})
    lists = admin.get(REST + "/cache/v1/status").json["guest_lists"]
    assert (lists["ips"]["count"], lists["uas"]) == (1, {"count": 0, "synced": None})
    remote.serve("/gm_uas", "", content_type="text/plain")  # an empty list is a failure too, and keeps what is kept
    remote.serve("/gm_ips", "192.0.2.1\n192.0.2.9\n", content_type="text/plain")
    assert admin.get(REST + "/cache/v1/guest/sync").json["success"] is False
    lists = admin.get(REST + "/cache/v1/status").json["guest_lists"]
    assert (lists["ips"]["count"], lists["uas"]["count"]) == (2, 0)
    assert remote.hits == {"/gm_ips": 2, "/gm_uas": 2}
