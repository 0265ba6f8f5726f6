"""cache/v1 and cache/v3 routes over HTTP: operator routes, the crawler, service callbacks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from host.testing import assert_rest_error, client_as, create_test_user

from .helpers import NOTES, SECRET

REST = "/wp-json"
SIGNED = {"X-Cache-Secret": SECRET}
MD5 = "0123456789abcdef0123456789abcdef"


def sign(message: str) -> bytes:
    return hmac.new(SECRET.encode(), message.encode(), hashlib.sha256).digest()


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
    for path in ("/cache/v1/status", "/cache/v1/tool/check_ip"):
        assert_rest_error(site.client.get(REST + path, expect_errors=True), "rest_forbidden", 401)
        assert_rest_error(client_as(site, site.editor).get(REST + path, expect_errors=True), "rest_forbidden", 403)
    assert_rest_error(client_as(site, site.editor).post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0},
                                                        expect_errors=True), "rest_forbidden", 403)
    assert status_of(site)["crawlers"][0]["active"] is False


def test_toggling_a_crawler_warms_the_cache_and_records_the_pass(site):
    admin = client_as(site, site.admin)
    create_note_response = client_as(site, site.editor).post_json(REST + NOTES, {"title": "Warm me"}, status=201)
    note_id = create_note_response.json["id"]
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 1}).json == 1
    status = status_of(site)
    assert [crawler["active"] for crawler in status["crawlers"]] == [False, True]
    assert status["crawler_last_run"]["crawlers"] == [1]
    assert status["crawler_last_run"]["cached"] == 2  # the notes list and the note on it
    assert site.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    assert site.client.get(REST + NOTES + f"/{note_id}").headers["X-Cache"] == "hit"
    assert admin.post_json(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 0}).json == 1
    assert site.client.get(REST + "/").headers["X-Cache"] == "hit"
    assert site.client.get(REST + "/cache/v3").headers["X-Cache"] == "hit"
    assert admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 1}).json == 0
    assert [crawler["active"] for crawler in status_of(site)["crawlers"]] == [True, False]


def test_toggle_rejects_a_missing_or_unknown_crawler_and_changes_nothing(site):
    admin = client_as(site, site.admin)
    body = assert_rest_error(admin.post(REST + "/cache/v1/toggle_crawler_state", expect_errors=True),
                             "rest_missing_callback_param", 400)
    assert body["data"]["params"] == ["crawler_id"]
    body = assert_rest_error(admin.post(REST + "/cache/v1/toggle_crawler_state", {"crawler_id": 7},
                                        expect_errors=True), "rest_invalid_param", 400)
    assert "crawler_id" in body["data"]["params"]
    assert not any(crawler["active"] for crawler in status_of(site)["crawlers"])


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


def test_check_ip_asks_the_configured_service(cache_app, local_http):
    app = cache_app(ip_service_url=local_http(200, b"203.0.113.7\n"))
    admin = create_test_user(app, "administrator")
    assert client_as(app, admin).get(REST + "/cache/v1/tool/check_ip").json == "203.0.113.7"


@pytest.mark.parametrize("status, body", [(200, b"<html>not an address</html>"), (500, b"oops"), (200, b"9" * 500)])
def test_check_ip_failures_are_clear_errors(cache_app, local_http, status, body):
    app = cache_app(ip_service_url=local_http(status, body))
    admin = create_test_user(app, "administrator")
    response = client_as(app, admin).get(REST + "/cache/v1/tool/check_ip", expect_errors=True)
    assert_rest_error(response, "cache_ip_detection_failed", 502)


# --- callback authentication -------------------------------------------------------------------

def test_callbacks_need_the_shared_secret(site):
    url = REST + "/cache/v3/ping"
    assert_rest_error(site.client.post(url, expect_errors=True), "cache_callback_secret_missing", 401)
    assert_rest_error(site.client.post(url, headers={"X-Cache-Secret": "guess"}, expect_errors=True),
                      "cache_callback_secret_invalid", 401)
    admin_headers = {**client_as(site, site.admin).extra_environ}
    assert_rest_error(site.client.post(url, extra_environ=admin_headers, expect_errors=True),
                      "cache_callback_secret_missing", 403)
    assert site.client.post(url, headers=SIGNED).json["_res"] == "ok"


def test_callbacks_are_refused_when_no_secret_is_configured(cache_app):
    app = cache_app(callback_secret="")
    response = app.client.post(REST + "/cache/v3/ping", headers={"X-Cache-Secret": ""}, expect_errors=True)
    assert_rest_error(response, "cache_callbacks_disabled", 401)


# --- cache/v3 ---------------------------------------------------------------------------------

def test_ip_validate_exchanges_proofs_of_the_secret(site):
    url = REST + "/cache/v3/ip_validate"
    good = sign("ip_validate:service").hex()
    response = site.client.post(url, {"hash": good}, headers=SIGNED)
    assert response.json == {"hash": sign("ip_validate:site").hex(), "_res": "ok"}
    assert "no-store" in response.headers["Cache-Control"]
    assert_rest_error(site.client.post(url, {"hash": "0" * 64}, headers=SIGNED, expect_errors=True),
                      "cache_invalid_hash", 401)
    assert_rest_error(site.client.post(url, headers=SIGNED, expect_errors=True), "rest_missing_callback_param", 400)
    assert_rest_error(site.client.post(url, {"hash": "short"}, headers=SIGNED, expect_errors=True),
                      "rest_invalid_param", 400)


def test_wp_rest_echo_signs_fresh_timestamps_only(site):
    url = REST + "/cache/v3/wp_rest_echo"
    now = int(time.time())
    signature = base64.b64encode(sign(f"echo:service:{now}")).decode()
    body = site.client.post_json(url, {"wpapi_ts": now, "wpapi_signature_b64": signature}, headers=SIGNED).json
    assert body == {"signature_b64": base64.b64encode(sign(f"echo:site:{now}")).decode(), "_res": "ok"}
    wrong = base64.b64encode(b"x" * 32).decode()
    assert_rest_error(site.client.post_json(url, {"wpapi_ts": now, "wpapi_signature_b64": wrong}, headers=SIGNED,
                                            expect_errors=True), "cache_invalid_signature", 401)
    old = now - 3 * 24 * 3600
    old_signature = base64.b64encode(sign(f"echo:service:{old}")).decode()
    assert_rest_error(site.client.post_json(url, {"wpapi_ts": old, "wpapi_signature_b64": old_signature},
                                            headers=SIGNED, expect_errors=True), "cache_echo_expired", 400)
    assert_rest_error(site.client.post_json(url, {"wpapi_ts": now}, headers=SIGNED, expect_errors=True),
                      "rest_missing_callback_param", 400)


def test_ping_reports_versions_and_what_exists(site):
    body = site.client.post(REST + "/cache/v3/ping?funcs[]=content_saved&funcs[]=no_such_hook&classes[]=example"
                            "&consts[]=cache/v3&consts[]=spam/v1", headers=SIGNED).json
    assert body["_res"] == "ok"
    assert body["v_cache"] == "0.1.0" and body["v_cache_db"] == 1
    assert body["site_url"] == "http://school.test"
    assert (body["content_saved"], body["no_such_hook"], body["example"]) == ("y", "n", "y")
    assert (body["cache/v3"], body["spam/v1"]) == ("y", "n")
    too_many = {"funcs": [f"f{index}" for index in range(51)]}
    assert_rest_error(site.client.post_json(REST + "/cache/v3/ping", too_many, headers=SIGNED, expect_errors=True),
                      "rest_invalid_param", 400)


def test_cdn_status_is_recorded(site):
    url = REST + "/cache/v3/cdn_status"
    assert site.client.post(url, {"qc_activated": "cdn"}, headers=SIGNED).json == {"qc_activated": "cdn", "_res": "ok"}
    assert status_of(site)["cdn"]["cdn_enabled"] is True
    site.client.post(url, {"qc_activated": "linked"}, headers=SIGNED)
    cdn = status_of(site)["cdn"]
    assert (cdn["status"], cdn["cdn_enabled"]) == ("linked", True)
    site.client.post(url, {"qc_activated": "deleted"}, headers=SIGNED)
    assert status_of(site)["cdn"]["cdn_enabled"] is False
    assert_rest_error(site.client.post(url, {"qc_activated": "maybe"}, headers=SIGNED, expect_errors=True),
                      "rest_invalid_param", 400)
    assert_rest_error(site.client.post(url, headers=SIGNED, expect_errors=True), "rest_missing_callback_param", 400)
    assert status_of(site)["cdn"]["status"] == "deleted"


def test_err_domains_only_for_this_site(site):
    url = REST + "/cache/v3/err_domains"
    ok = site.client.post(url, {"alias": "www.school.test", "main_domain": "school.test"}, headers=SIGNED)
    assert ok.json == {"_res": "ok"}
    assert [entry["alias"] for entry in status_of(site)["err_domains"]] == ["www.school.test"]
    assert_rest_error(site.client.post(url, {"alias": "a.other.test", "main_domain": "other.test"}, headers=SIGNED,
                                       expect_errors=True), "cache_not_alias_of_site", 400)
    assert_rest_error(site.client.post(url, {"alias": "bad host!", "main_domain": "school.test"}, headers=SIGNED,
                                       expect_errors=True), "rest_invalid_param", 400)
    assert len(status_of(site)["err_domains"]) == 1


# --- cache/v1 callbacks --------------------------------------------------------------------------

def image_payload(status="notified", server="https://node7.images.test"):
    return {"server": server, "status": status, "data": {
        "11": {"id": 40, "src_size": 120000, "ori": 1, "ori_md5": MD5, "ori_reduced": 30000, "webp": 1,
               "webp_reduced": 50000, "extra": "ignored"},
        "12": {"id": 41, "file_id": 2, "src_size": 8000, "ori_reduced": 1000},
    }}


def test_notify_img_stores_results_that_check_img_and_status_show(site):
    response = site.client.post_json(REST + "/cache/v1/notify_img", image_payload(), headers=SIGNED)
    assert response.json == {"count": 2, "_res": "ok"}
    checked = site.client.post(REST + "/cache/v1/check_img", {"data": 40}, headers=SIGNED).json
    assert checked["_res"] == "ok"
    assert checked["data"]["img_count"] == 1
    assert checked["data"]["optm_summary"] == {"images": 2, "bytes_saved": 31000}
    assert checked["data"]["img_data"][0] == {
        "id": "11", "file_id": 0, "optm_status": "notified", "src_size": 120000, "server_info": "node7.images.test",
        "ori_reduced": 30000, "webp_reduced": 50000, "avif_reduced": 0}
    assert status_of(site)["images"] == {"count": 2, "bytes_saved": {"original": 31000, "webp": 50000, "avif": 0}}
    dropped = site.client.post_json(REST + "/cache/v1/notify_img", {**image_payload("err_fetch"),
                                                                   "data": {"11": {"id": 40}}}, headers=SIGNED)
    assert dropped.json == {"count": 1, "_res": "ok"}
    assert status_of(site)["images"]["count"] == 1


@pytest.mark.parametrize("change, code", [
    ({"data": {}}, "rest_invalid_param"),
    ({"data": None}, "rest_missing_callback_param"),
    ({"server": ""}, "rest_missing_callback_param"),
    ({"status": "Not A Status"}, "rest_invalid_param"),
    ({"data": {"11": {"id": 40, "src_size": -1}}}, "rest_invalid_param"),
    ({"data": {"abc": {"id": 40}}}, "rest_invalid_param"),
    ({"server": "http://evil.example/"}, "cache_wrong_server"),
])
def test_notify_img_rejects_bad_payloads_and_stores_nothing(cache_app, change, code):
    app = cache_app(image_servers=["images.test"])
    app.admin = create_test_user(app, "administrator")
    response = app.client.post_json(REST + "/cache/v1/notify_img", {**image_payload(), **change}, headers=SIGNED,
                                    expect_errors=True)
    assert_rest_error(response, code, 400)
    assert status_of(app)["images"]["count"] == 0


def test_check_img_of_an_unknown_attachment_is_empty(site):
    body = site.client.post(REST + "/cache/v1/check_img", {"data": 5}, headers=SIGNED).json
    assert body["data"]["img_count"] == 0 and body["data"]["img_data"] == []
    assert_rest_error(site.client.post(REST + "/cache/v1/check_img", {"data": "x"}, headers=SIGNED,
                                       expect_errors=True), "rest_invalid_param", 400)


@pytest.mark.parametrize("kind", ["ccss", "ucss", "vpi"])
def test_notify_page_results_are_stored_per_queue_key(site, kind):
    url = REST + f"/cache/v1/notify_{kind}"
    items = [{"request_url": "http://school.test/news/", "queue_k": "news", f"data_{kind}": "body{margin:0}"},
             {"request_url": "http://school.test/", "queue_k": "home", f"data_{kind}": "h1{color:red}"}]
    assert site.client.post_json(url, {"data": items}, headers=SIGNED).json == {"count": 2, "_res": "ok"}
    site.client.post_json(url, {"data": items[:1]}, headers=SIGNED)
    assert status_of(site)["page_optimizations"][kind] == 2
    bad = [{"request_url": "not a url", "queue_k": "x", f"data_{kind}": ""}]
    assert_rest_error(site.client.post_json(url, {"data": bad}, headers=SIGNED, expect_errors=True),
                      "rest_invalid_param", 400)
    assert_rest_error(site.client.post_json(url, {}, headers=SIGNED, expect_errors=True),
                      "rest_missing_callback_param", 400)
    assert status_of(site)["page_optimizations"][kind] == 2


# --- declared args ---------------------------------------------------------------------------

CALLBACK_ARGS = {
    "/cache/v1/toggle_crawler_state": {"crawler_id"}, "/cache/v1/notify_img": {"server", "status", "data"},
    "/cache/v1/notify_ccss": {"data"}, "/cache/v1/notify_ucss": {"data"}, "/cache/v1/notify_vpi": {"data"},
    "/cache/v1/check_img": {"data"}, "/cache/v3/ip_validate": {"hash"},
    "/cache/v3/wp_rest_echo": {"wpapi_ts", "wpapi_signature_b64"}, "/cache/v3/ping": {"funcs", "classes", "consts"},
    "/cache/v3/cdn_status": {"qc_activated"}, "/cache/v3/err_domains": {"alias", "main_domain"},
}


def test_every_cache_route_with_a_payload_declares_it_in_discovery_and_openapi(site):
    routes = site.client.get(REST + "/").json["routes"]
    document = site.client.get("/openapi.json").json
    for path, names in CALLBACK_ARGS.items():
        assert set(routes[path]["endpoints"][0]["args"]) == names, path
        operation = document["paths"][REST + path]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
        assert set(body) == names, path
    image_row = routes["/cache/v1/notify_img"]["endpoints"][0]["args"]["data"]
    assert image_row["maxProperties"] == 1000 and image_row["additionalProperties"]["properties"]["id"]["minimum"] == 1


def test_a_callback_payload_of_the_wrong_type_is_refused_by_the_pipeline_and_changes_nothing(site):
    response = site.client.post_json(REST + "/cache/v3/cdn_status", {"qc_activated": "sideways"}, headers=SIGNED,
                                     status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert "qc_activated" in response.json["data"]["params"]
    response = site.client.post_json(REST + "/cache/v1/check_img", {"data": "many"}, headers=SIGNED, status=400)
    assert response.json["data"]["details"]["data"]["code"] == "rest_invalid_type"
    assert status_of(site)["cdn"]["status"] != "sideways"
