"""The optimisation service's callbacks over HTTP, in its protocol: who may call (the service's
published address list, the shared secret), the `_res` envelope and the real plugin's codes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import platform
import time
from importlib import metadata

import pytest
from sqlalchemy import update

from host.testing import assert_rest_error, client_as, create_test_user

from .helpers import SECRET, SERVICE, SERVICE_ADDRESS

REST = "/wp-json"
SIGNED = {"X-Cache-Secret": SECRET}
MD5 = "0123456789abcdef0123456789abcdef"
OUTSIDER = {"REMOTE_ADDR": "198.51.100.1"}
DAY = 24 * 3600


def sign(message: str) -> bytes:
    return hmac.new(SECRET.encode(), message.encode(), hashlib.sha256).digest()


def err(code: str) -> dict:
    return {"_res": "err", "_msg": code}


@pytest.fixture
def site(service_app):
    app = service_app()
    app.admin = create_test_user(app, "administrator")
    return app


def post(app, path: str, body=None, *, json: bool = False, environ=None, headers=SIGNED, status=200):
    """POST a callback as the service (listed address, secret) unless told otherwise."""
    send = app.client.post_json if json else app.client.post
    return send(REST + path, body if body is not None else ({} if json else ""), headers=headers,
                extra_environ=SERVICE if environ is None else environ, status=status)


def status_of(app):
    return client_as(app, app.admin).get(REST + "/cache/v1/status").json


def age_address_list(app, *, fetched_ago: float = 0, attempted_ago: float = 0) -> None:
    """Move the stored list's fetch and last attempt back in time (as days passing would)."""
    table = app.db.metadata.tables["cache_state"]
    with app.db.session(write=True) as session, session.begin():
        record = session.execute(table.select().where(table.c.key == "service_ips")).one().value
        now = time.time()
        record = {**record, "fetched": now - fetched_ago if fetched_ago else record["fetched"],
                  "attempted": now - attempted_ago}
        session.execute(update(table).where(table.c.key == "service_ips").values(value=record))


# --- who may call --------------------------------------------------------------------------------

def test_a_listed_address_with_the_secret_is_let_in_and_the_list_is_kept_in_the_database(site, remote):
    assert post(site, "/cache/v3/ping").json["_res"] == "ok"
    assert post(site, "/cache/v3/ping", environ={"REMOTE_ADDR": "2001:db8:0:0::7"}).json["_res"] == "ok"
    assert remote.hits["/ips"] == 1  # fetched once, then read from the database
    service = status_of(site)["callbacks"]["service_ips"]
    assert (service["count"], service["error"], service["url"]) == (2, None, remote.base + "/ips")
    assert service["fetched"] is not None and service["fetched"] == service["attempted"]


def test_an_ipv4_caller_seen_as_an_ipv4_mapped_ipv6_address_is_recognised(site):
    assert post(site, "/cache/v3/ping", environ={"REMOTE_ADDR": f"::ffff:{SERVICE_ADDRESS}"}).json["_res"] == "ok"


def test_an_unlisted_caller_is_refused_and_the_list_is_fetched_again_at_most_every_ten_minutes(site, remote):
    assert_rest_error(post(site, "/cache/v3/ping", environ=OUTSIDER, status=401), "rest_forbidden", 401)
    assert remote.hits["/ips"] == 1  # no list yet: fetched, and the caller is not on it
    remote.serve("/ips", [SERVICE_ADDRESS, "198.51.100.1"], content_type="application/json")
    for _ in range(3):
        assert_rest_error(post(site, "/cache/v3/ping", environ=OUTSIDER, status=401), "rest_forbidden", 401)
    assert remote.hits["/ips"] == 1  # tried less than ten minutes ago: not again
    age_address_list(site, attempted_ago=601)
    assert post(site, "/cache/v3/ping", environ=OUTSIDER).json["_res"] == "ok"
    assert remote.hits["/ips"] == 2
    assert status_of(site)["callbacks"]["service_ips"]["count"] == 2


def test_the_list_is_fetched_again_when_it_is_older_than_three_days(site, remote):
    post(site, "/cache/v3/ping")
    age_address_list(site, fetched_ago=3 * DAY - 60, attempted_ago=3 * DAY - 60)
    post(site, "/cache/v3/ping")
    assert remote.hits["/ips"] == 1
    age_address_list(site, fetched_ago=3 * DAY + 60, attempted_ago=3 * DAY + 60)
    remote.serve("/ips", ["192.0.2.44"], content_type="application/json")  # the service moved
    assert_rest_error(post(site, "/cache/v3/ping", status=401), "rest_forbidden", 401)
    assert remote.hits["/ips"] == 2


def test_a_list_that_cannot_be_loaded_keeps_the_stored_one(site, remote):
    post(site, "/cache/v3/ping")
    for status, body in ((500, b"down"), (200, b"<html>maintenance</html>"), (200, b'["not an address"]'),
                         (200, b'{"a": 1}')):
        remote.serve("/ips", body, status, "application/json")
        age_address_list(site, fetched_ago=4 * DAY, attempted_ago=4 * DAY)
        assert post(site, "/cache/v3/ping").json["_res"] == "ok"  # the old list still lets the service in
        service = status_of(site)["callbacks"]["service_ips"]
        assert service["count"] == 2 and service["error"]
    assert remote.hits["/ips"] == 5


@pytest.mark.parametrize("status, body", [(404, b"[]"), (200, b"[]"), (200, b"null"), (200, b"x" * (600 * 1024))])
def test_without_a_usable_list_every_caller_is_refused(service_app, remote, status, body):
    app = service_app()
    remote.serve("/ips", body, status, "application/json")
    assert_rest_error(post(app, "/cache/v3/ping", status=401), "rest_forbidden", 401)
    app.admin = create_test_user(app, "administrator")
    service = status_of(app)["callbacks"]["service_ips"]
    assert (service["count"], service["fetched"]) == (0, None) and service["attempted"] and service["error"]


def test_the_list_is_fetched_through_the_outbound_guard(service_app, remote):
    app = service_app(allow_private_targets=False)  # the list is on 127.0.0.1: a private target
    assert_rest_error(post(app, "/cache/v3/ping", status=401), "rest_forbidden", 401)
    assert "/ips" not in remote.hits
    app.admin = create_test_user(app, "administrator")
    assert "private" in status_of(app)["callbacks"]["service_ips"]["error"]


def test_with_a_secret_configured_both_the_address_and_the_secret_are_needed(site, remote):
    for headers in ({}, {"X-Cache-Secret": "guess"}, {"X-Cache-Secret": SECRET + "x"}):
        assert_rest_error(post(site, "/cache/v3/ping", headers=headers, status=401), "rest_forbidden", 401)
    assert "/ips" not in remote.hits  # a caller without the secret never makes the site fetch the list
    assert_rest_error(post(site, "/cache/v3/ping", environ=OUTSIDER, status=401), "rest_forbidden", 401)
    admin = client_as(site, site.admin)
    response = admin.post(REST + "/cache/v3/ping", headers=SIGNED, extra_environ=OUTSIDER, status=403)
    assert_rest_error(response, "rest_forbidden", 403)
    assert status_of(site)["callbacks"]["secret_required"] is True


def test_without_a_secret_the_address_list_alone_decides(service_app):
    app = service_app(callback_secret="")
    assert post(app, "/cache/v3/ping", headers={}).json["_res"] == "ok"
    assert post(app, "/cache/v3/ping", headers={"X-Cache-Secret": "anything"}).json["_res"] == "ok"
    assert_rest_error(post(app, "/cache/v3/ping", headers={}, environ=OUTSIDER, status=401), "rest_forbidden", 401)


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_caller(service_app):
    forwarded = {"REMOTE_ADDR": "10.0.0.5", "HTTP_X_FORWARDED_FOR": f"192.0.2.200, {SERVICE_ADDRESS}"}
    trusting = service_app(extra={"trusted_proxies": ["10.0.0.0/8"]})
    assert post(trusting, "/cache/v3/ping", environ=forwarded).json["_res"] == "ok"
    spoofed = {"REMOTE_ADDR": "10.0.0.5", "HTTP_X_FORWARDED_FOR": f"{SERVICE_ADDRESS}, 192.0.2.200"}
    assert_rest_error(post(trusting, "/cache/v3/ping", environ=spoofed, status=401), "rest_forbidden", 401)
    not_trusting = service_app()
    assert_rest_error(post(not_trusting, "/cache/v3/ping", environ=forwarded, status=401), "rest_forbidden", 401)


def test_an_outsider_is_refused_before_the_payload_is_looked_at(site):
    response = post(site, "/cache/v3/cdn_status", {"qc_activated": "sideways"}, environ=OUTSIDER, status=401)
    assert_rest_error(response, "rest_forbidden", 401)
    assert_rest_error(post(site, "/cache/v1/notify_img", {"data": "x" * 10}, json=True, environ=OUTSIDER, status=401),
                      "rest_forbidden", 401)


# --- cache/v3 ---------------------------------------------------------------------------------

def test_ip_validate_exchanges_proofs_of_the_secret(site):
    response = post(site, "/cache/v3/ip_validate", {"hash": sign("ip_validate:service").hex()})
    assert response.json == {"hash": sign("ip_validate:site").hex(), "_res": "ok"}
    assert "no-store" in response.headers["Cache-Control"]
    assert post(site, "/cache/v3/ip_validate").json == err("lack_of_params")
    assert post(site, "/cache/v3/ip_validate", {"hash": ""}).json == err("lack_of_params")
    for wrong in ("0" * 64, "short", sign("ip_validate:site").hex()):
        assert post(site, "/cache/v3/ip_validate", {"hash": wrong}).json == err("err_hash")
    assert post(site, "/cache/v3/ip_validate", {"hash": [1, 2]}, json=True).json == err("err_hash")


def test_ip_validate_without_a_secret_cannot_be_satisfied(service_app):
    app = service_app(callback_secret="")
    response = post(app, "/cache/v3/ip_validate", {"hash": hashlib.sha256(b"").hexdigest()}, headers={})
    assert (response.status_int, response.json) == (200, err("err_hash"))
    assert "no-store" not in response.headers.get("Cache-Control", "")


def test_wp_rest_echo_signs_fresh_timestamps_only(site):
    now = int(time.time())
    signature = base64.b64encode(sign(f"echo:service:{now}")).decode()
    expected = {"signature_b64": base64.b64encode(sign(f"echo:site:{now}")).decode(), "_res": "ok"}
    assert post(site, "/cache/v3/wp_rest_echo", {"wpapi_ts": now, "wpapi_signature_b64": signature}, json=True).json \
        == expected
    assert post(site, "/cache/v3/wp_rest_echo", {"wpapi_ts": str(now), "wpapi_signature_b64": signature}).json \
        == expected  # as a form, the time is digits
    failed = err("Data validation from WPAPI REST Echo failed")
    for ts, sig in ((now, base64.b64encode(b"x" * 32).decode()), (now, "not base64!"), (now + 1, signature),
                    ("soon", signature), (-now, signature)):
        assert post(site, "/cache/v3/wp_rest_echo", {"wpapi_ts": ts, "wpapi_signature_b64": sig}, json=True).json \
            == failed, (ts, sig)
    old = now - 3 * DAY
    old_signature = base64.b64encode(sign(f"echo:service:{old}")).decode()
    assert post(site, "/cache/v3/wp_rest_echo", {"wpapi_ts": old, "wpapi_signature_b64": old_signature},
                json=True).json == err("Echo data expired")
    for body in ({"wpapi_ts": now}, {"wpapi_signature_b64": signature}, {"wpapi_ts": 0, "wpapi_signature_b64": signature}):
        assert post(site, "/cache/v3/wp_rest_echo", body, json=True).json == err("No echo data")


def test_ping_answers_the_real_plugins_keys_with_this_sites_values(site):
    body = post(site, "/cache/v3/ping?funcs[]=content_saved&funcs[]=no_such_hook&classes[]=example"
                "&consts[]=cache/v3&consts[]=spam/v1").json
    assert body["_res"] == "ok" and list(body)[-1] == "_res"
    assert (body["v_cache"], body["v_cache_db"]) == ("0.1.0", 1)
    assert body["v_php"] == platform.python_version()  # the runtime's version, where PHP's would be
    assert body["v_wp"] == metadata.version("sitehost")  # the platform's version, where WordPress's would be
    assert "v_python" not in body and "v_sitehost" not in body
    assert body["site_url"] == "http://school.test" and body["home_url"] == "http://school.test"
    assert (body["content_saved"], body["no_such_hook"], body["example"]) == ("y", "n", "y")
    assert (body["cache/v3"], body["spam/v1"]) == ("y", "n")
    assert post(site, "/cache/v3/ping", {"funcs": ["v_php"]}, json=True).json["v_php"] == "n"  # as the real one


def test_ping_with_too_many_or_odd_names_is_answered_in_the_envelope(site):
    too_many = {"funcs": [f"f{index}" for index in range(51)]}
    assert post(site, "/cache/v3/ping", too_many, json=True).json == err("Invalid parameter(s): funcs")
    assert post(site, "/cache/v3/ping", {"consts": ["a b"]}, json=True).json == err("Invalid parameter(s): consts")
    assert post(site, "/cache/v3/ping", {"classes": "x" * 300}, json=True).json == err("Invalid parameter(s): classes")


def test_cdn_status_is_recorded(site):
    url = "/cache/v3/cdn_status"
    assert post(site, url, {"qc_activated": "cdn"}).json == {"qc_activated": "cdn", "_res": "ok"}
    assert status_of(site)["cdn"]["cdn_enabled"] is True
    post(site, url, {"qc_activated": "linked"})
    cdn = status_of(site)["cdn"]
    assert (cdn["status"], cdn["cdn_enabled"]) == ("linked", True)
    post(site, url, {"qc_activated": "deleted"})
    assert status_of(site)["cdn"]["cdn_enabled"] is False
    for body in ({"qc_activated": "maybe"}, {}, {"qc_activated": ["cdn"]}):
        response = post(site, url, body, json=True)
        assert (response.status_int, response.json) == (200, err("lack_of_params"))
    assert status_of(site)["cdn"]["status"] == "deleted"


def test_err_domains_only_for_this_site(site):
    url = "/cache/v3/err_domains"
    assert post(site, url, {"alias": "www.school.test", "main_domain": "school.test"}).json == {"_res": "ok"}
    assert [entry["alias"] for entry in status_of(site)["err_domains"]] == ["www.school.test"]
    assert post(site, url, {"alias": "a.other.test", "main_domain": "other.test"}).json \
        == err("Not an alias req from here")
    assert post(site, url, {"alias": "bad host!", "main_domain": "school.test"}).json \
        == err("Invalid parameter(s): alias")
    for body in ({"alias": "www.school.test"}, {"main_domain": "school.test"}, {"alias": "", "main_domain": "school.test"}):
        assert post(site, url, body).json == err("lack_of_param")
    assert len(status_of(site)["err_domains"]) == 1


# --- cache/v1 callbacks --------------------------------------------------------------------------

def image_payload(status="notified", server="https://node7.images.test"):
    return {"server": server, "status": status, "data": {
        "11": {"id": 40, "src_size": 120000, "ori": 1, "ori_md5": MD5, "ori_reduced": 30000, "webp": 1,
               "webp_reduced": 50000, "extra": "ignored"},
        "12": {"id": 41, "file_id": 2, "src_size": 8000, "ori_reduced": 1000},
    }}


def test_notify_img_stores_results_that_check_img_and_status_show(site):
    assert post(site, "/cache/v1/notify_img", image_payload(), json=True).json == {"count": 2, "_res": "ok"}
    checked = post(site, "/cache/v1/check_img", {"data": 40}).json
    assert checked["_res"] == "ok"
    assert checked["data"]["img_count"] == 1
    assert checked["data"]["optm_summary"] == {"images": 2, "bytes_saved": 31000}
    assert checked["data"]["img_data"][0] == {
        "id": "11", "file_id": 0, "optm_status": "notified", "src_size": 120000, "server_info": "node7.images.test",
        "ori_reduced": 30000, "webp_reduced": 50000, "avif_reduced": 0}
    assert status_of(site)["images"] == {"count": 2, "bytes_saved": {"original": 31000, "webp": 50000, "avif": 0}}
    dropped = post(site, "/cache/v1/notify_img", {**image_payload("err_fetch"), "data": {"11": {"id": 40}}}, json=True)
    assert dropped.json == {"count": 1, "_res": "ok"}
    assert status_of(site)["images"]["count"] == 1


@pytest.mark.parametrize("change, code", [
    ({"data": {}}, "no notified data"),
    ({"data": None}, "no notified data"),
    ({"data": [1, 2]}, "no notified data"),
    ({"server": ""}, "no/wrong server"),
    ({"server": "http://evil.example/"}, "no/wrong server"),
    ({"server": ["node7.images.test"]}, "no/wrong server"),
    ({"status": ""}, "no status"),
    ({"status": "Not A Status"}, "Invalid parameter(s): status"),
    ({"data": {"11": {"id": 40, "src_size": -1}}}, "Invalid parameter(s): data"),
    ({"data": {"abc": {"id": 40}}}, "Invalid parameter(s): data"),
])
def test_notify_img_refusals_use_the_real_codes_and_store_nothing(service_app, change, code):
    app = service_app(image_servers=["images.test"])
    app.admin = create_test_user(app, "administrator")
    response = post(app, "/cache/v1/notify_img", {**image_payload(), **change}, json=True)
    assert (response.status_int, response.json) == (200, err(code))
    assert status_of(app)["images"]["count"] == 0


def test_notify_img_checks_in_the_real_plugins_order(site):
    assert post(site, "/cache/v1/notify_img", {}, json=True).json == err("no notified data")
    assert post(site, "/cache/v1/notify_img", {"data": {"1": {"id": 1}}}, json=True).json == err("no/wrong server")
    assert post(site, "/cache/v1/notify_img", {"data": {"1": {"id": 1}}, "server": "n.images.test"}, json=True).json \
        == err("no status")


def test_check_img_of_an_unknown_attachment_is_empty(site):
    body = post(site, "/cache/v1/check_img", {"data": 5}).json
    assert body["_res"] == "ok" and body["data"]["img_count"] == 0 and body["data"]["img_data"] == []
    assert post(site, "/cache/v1/check_img", {"data": "x"}).json == err("Invalid parameter(s): data")
    assert post(site, "/cache/v1/check_img", {"data": 2 ** 40}, json=True).json == err("Invalid parameter(s): data")
    assert post(site, "/cache/v1/check_img").json == err("lack_of_params")


@pytest.mark.parametrize("kind", ["ccss", "ucss", "vpi"])
def test_notify_page_results_are_stored_per_queue_key(site, kind):
    url = f"/cache/v1/notify_{kind}"
    items = [{"request_url": "http://school.test/news/", "queue_k": "news", f"data_{kind}": "body{margin:0}"},
             {"request_url": "http://school.test/", "queue_k": "home", f"data_{kind}": "h1{color:red}"}]
    assert post(site, url, {"data": items}, json=True).json == {"count": 2, "_res": "ok"}
    post(site, url, {"data": items[:1]}, json=True)
    assert status_of(site)["page_optimizations"][kind] == 2
    bad = [{"request_url": "not a url", "queue_k": "x", f"data_{kind}": ""}]
    assert post(site, url, {"data": bad}, json=True).json == err("Invalid parameter(s): data")
    for body in ({}, {"data": []}, {"data": {"a": 1}}):
        assert post(site, url, body, json=True).json == err("no notified data")
    assert status_of(site)["page_optimizations"][kind] == 2


# --- declared args ---------------------------------------------------------------------------

CALLBACK_ARGS = {
    "/cache/v1/toggle_crawler_state": {"crawler_id"}, "/cache/v1/notify_img": {"server", "status", "data"},
    "/cache/v1/notify_ccss": {"data"}, "/cache/v1/notify_ucss": {"data"}, "/cache/v1/notify_vpi": {"data"},
    "/cache/v1/check_img": {"data"}, "/cache/v3/ip_validate": {"hash"},
    "/cache/v3/wp_rest_echo": {"wpapi_ts", "wpapi_signature_b64"}, "/cache/v3/ping": {"funcs", "classes", "consts"},
    "/cache/v3/cdn_status": {"qc_activated"}, "/cache/v3/err_domains": {"alias", "main_domain"},
}


def test_every_cache_route_with_a_payload_documents_it_in_discovery_and_openapi(site):
    routes = site.client.get(REST + "/").json["routes"]
    document = site.client.get("/openapi.json").json
    for path, names in CALLBACK_ARGS.items():
        args = routes[path]["endpoints"][0]["args"]
        assert set(args) == names, path
        assert not any(arg.get("required") for arg in args.values()), path  # the handler answers a missing one
        operation = document["paths"][REST + path]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
        assert set(body) == names, path
    image_row = routes["/cache/v1/notify_img"]["endpoints"][0]["args"]["data"]
    assert image_row["maxProperties"] == 1000 and image_row["additionalProperties"]["properties"]["id"]["minimum"] == 1
    assert "/cache/v1/guest/sync" in routes and routes["/cache/v1/guest/sync"]["methods"] == ["GET"]


def test_a_payload_of_the_wrong_type_is_answered_in_the_envelope_and_changes_nothing(site):
    response = post(site, "/cache/v3/cdn_status", {"qc_activated": 5}, json=True)
    assert (response.status_int, response.json) == (200, err("lack_of_params"))
    response = post(site, "/cache/v1/check_img", {"data": "many"}, json=True)
    assert (response.status_int, response.json) == (200, err("Invalid parameter(s): data"))
    assert status_of(site)["cdn"]["status"] is None
