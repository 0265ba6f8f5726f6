"""a paid Stripe checkout from an address without an account is kept as a pending
enrolment, listed at lms/v1/pending-enrolments, granted when the address registers or when an
operator assigns it, and a resent event stays idempotent. Events are signed with stripe's own helper."""

from __future__ import annotations

from host.testing import assert_rest_error, create_test_user

from .test_webhook import API, checkout_event, enrolments, send_stripe, shop  # noqa: F401 (the fixture)

PENDING = f"{API}/pending-enrolments"


def pending_list(app, **query):
    return app.client.get(PENDING, query, headers=app.admin.headers, status=200)


def events(app):
    return app.client.get(f"{API}/payment-events", headers=app.admin.headers, status=200).json


def test_a_checkout_from_an_unknown_address_is_kept_and_a_resend_changes_nothing(shop):
    payload = checkout_event("evt_new", shop.course, email="New.Parent@Families.test", reference="pi_new")
    answer = send_stripe(shop, payload).json
    assert answer["code"] == "success" and answer["data"]["outcome"] == "pending"
    assert "waits until it registers" in answer["message"]
    listed = pending_list(shop)
    assert listed.headers["X-WP-Total"] == "1"
    [row] = listed.json
    assert {key: row[key] for key in ("provider", "event_id", "course_id", "email", "reference", "amount", "currency",
                                      "status", "user_id")} == {
        "provider": "stripe", "event_id": "evt_new", "course_id": shop.course, "email": "New.Parent@Families.test",
        "reference": "pi_new", "amount": 4500, "currency": "gbp", "status": "pending", "user_id": 0}
    replay = send_stripe(shop, payload).json
    assert replay["data"] == {"event_id": "evt_new", "type": "checkout.session.completed", "outcome": "pending",
                              "replayed": True}
    assert replay["message"].startswith("Event already processed")
    assert pending_list(shop).json == listed.json and enrolments(shop) == []


def test_registering_the_address_grants_the_enrolment_in_the_same_transaction(shop):
    send_stripe(shop, checkout_event("evt_reg", shop.course, email="late@families.test", reference="pi_reg"))
    created = shop.client.post_json("/wp-json/core/v2/users", {
        "username": "late", "email": "LATE@families.test", "password": "a long enough password"},
        headers=shop.admin.headers, status=201).json
    assert [(row["course_id"], row["user_id"], row["status"], row["event_id"]) for row in enrolments(shop)] == [
        (shop.course, created["id"], "completed", "evt_reg")]
    [row] = pending_list(shop).json
    assert (row["status"], row["user_id"], row["granted_by"]) == ("granted", created["id"], "registration")
    assert row["resolved"] is not None
    assert [event["outcome"] for event in events(shop)] == ["enrolled"]  # so a refund finds it
    assert pending_list(shop, status="pending").json == []
    # a resend after the grant still changes nothing
    replay = send_stripe(shop, checkout_event("evt_reg", shop.course, email="late@families.test",
                                              reference="pi_reg")).json
    assert replay["data"]["replayed"] is True and len(enrolments(shop)) == 1
    # and the refund of that payment cancels the enrolment it became
    refund = {"id": "evt_reg_refund", "object": "event", "type": "charge.refunded", "data": {"object": {
        "payment_intent": "pi_reg", "refunded": True, "amount_refunded": 4500, "currency": "gbp"}}}
    import json
    assert send_stripe(shop, json.dumps(refund)).json["data"]["outcome"] == "refunded"
    assert enrolments(shop)[0]["status"] == "cancelled"


def test_an_operator_assigns_a_pending_payment_to_an_existing_user(shop):
    send_stripe(shop, checkout_event("evt_op", shop.course, email="grandma@elsewhere.test", reference="pi_op"))
    [row] = pending_list(shop).json
    url = f"{PENDING}/{row['id']}/assign"
    assert_rest_error(shop.client.post_json(url, {"user": shop.parent.id}, status=401), "rest_forbidden", 401)
    editor = create_test_user(shop, "editor")
    assert_rest_error(shop.client.post_json(url, {"user": shop.parent.id}, headers=editor.headers, status=403),
                      "rest_forbidden", 403)
    assert_rest_error(shop.client.post_json(url, {}, headers=shop.admin.headers, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(shop.client.post_json(url, {"user": 999999}, headers=shop.admin.headers, status=400),
                      "rest_user_invalid_id", 400)
    assert_rest_error(shop.client.post_json(f"{PENDING}/{row['id'] + 1000}/assign", {"user": shop.parent.id},
                                            headers=shop.admin.headers, status=404),
                      "lms_pending_enrolment_not_found", 404)
    assert pending_list(shop).json[0]["status"] == "pending" and enrolments(shop) == []
    granted = shop.client.post_json(url, {"user": shop.parent.id}, headers=shop.admin.headers, status=200).json
    assert (granted["status"], granted["user_id"]) == ("granted", shop.parent.id)
    assert granted["granted_by"] == f"operator {shop.admin.login}"
    assert [(row["user_id"], row["status"]) for row in enrolments(shop)] == [(shop.parent.id, "completed")]
    again = create_test_user(shop, "subscriber")
    assert_rest_error(shop.client.post_json(url, {"user": again.id}, headers=shop.admin.headers, status=409),
                      "lms_pending_enrolment_resolved", 409)
    assert len(enrolments(shop)) == 1


def test_a_refund_before_anyone_claims_it_closes_the_pending_payment(shop):
    import json

    send_stripe(shop, checkout_event("evt_gone", shop.course, email="gone@families.test", reference="pi_gone"))
    refund = {"id": "evt_gone_refund", "object": "event", "type": "charge.refunded", "data": {"object": {
        "payment_intent": "pi_gone", "refunded": True, "amount_refunded": 4500, "currency": "gbp"}}}
    assert send_stripe(shop, json.dumps(refund)).json["data"]["outcome"] == "refunded"
    assert pending_list(shop).json[0]["status"] == "refunded"
    create_test_user(shop, "subscriber", email="gone@families.test")  # registering now grants nothing
    assert enrolments(shop) == []


def test_a_wrong_price_from_an_unknown_address_is_refused_not_kept(shop):
    answer = send_stripe(shop, checkout_event("evt_cheap", shop.course, email="cheap@families.test",
                                              amount=100)).json
    assert answer["data"]["outcome"] == "refused" and pending_list(shop).json == []


def test_the_pending_list_filters_pages_and_refuses_api_keys_and_bad_values(shop, issue_key):
    for number in range(3):
        send_stripe(shop, checkout_event(f"evt_{number}", shop.course, email=f"p{number}@families.test",
                                         reference=f"pi_{number}"))
    page = pending_list(shop, per_page=2, page=2)
    assert page.headers["X-WP-Total"] == "3" and page.headers["X-WP-TotalPages"] == "2"
    assert [row["event_id"] for row in page.json] == ["evt_0"]
    assert len(pending_list(shop, course=shop.course).json) == 3
    assert pending_list(shop, course=shop.course + 1000).json == []
    assert pending_list(shop, status="granted").json == []
    for query in ({"status": "lost"}, {"per_page": 101}, {"course": 0}):
        assert_rest_error(shop.client.get(PENDING, query, headers=shop.admin.headers, status=400),
                          "rest_invalid_param", 400)
    key = issue_key(shop, shop.admin, "all")
    assert_rest_error(shop.client.get(PENDING, headers=key, status=403), "rest_forbidden", 403)
    assert_rest_error(shop.client.get(PENDING, status=401), "rest_forbidden", 401)
