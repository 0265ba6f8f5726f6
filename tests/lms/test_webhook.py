"""The payment webhook: real Stripe-signed events (the stripe package's own signing helper, a test
secret, no network), HMAC-signed events of another method, replays, forgeries and refunds."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
import stripe

from host.config import ConfigError
from host.testing import assert_rest_error, create_test_user

API = "/wp-json/lms/v1"
STRIPE_SECRET = "whsec_test_" + "a" * 32
SCHOOL_PAY_SECRET = "school-pay-test-secret-0123456789"


@pytest.fixture
def shop(make_app):
    app = make_app(plugins=["core", "lms"], config={"lms": {
        "stripe_webhook_secret": STRIPE_SECRET, "webhook_secrets": {"school-pay": SCHOOL_PAY_SECRET}}})
    app.admin = create_test_user(app, "administrator")
    app.parent = create_test_user(app, "subscriber", email="parent@families.test")
    app.course = app.client.post_json("/wp-json/core/v2/courses", {
        "title": "GCSE Maths Exam Revision", "status": "publish",
        "meta": {"lms_price_type": "paid", "lms_price": 45}}, headers=app.admin.headers, status=201).json["id"]
    return app


def checkout_event(event_id: str, course_id, *, user_id=None, reference="pi_123", email="", client_reference=None,
                   payment_status="paid", event_type="checkout.session.completed", amount=4500,
                   currency="gbp") -> str:
    metadata = {"course_id": str(course_id)}
    if user_id is not None:
        metadata["user_id"] = str(user_id)
    return json.dumps({"id": event_id, "object": "event", "type": event_type, "data": {"object": {
        "id": "cs_test_1", "object": "checkout.session", "payment_status": payment_status, "amount_total": amount,
        "currency": currency, "payment_intent": reference, "metadata": metadata, "customer_email": email or None,
        "client_reference_id": client_reference}}})


def send_stripe(app, payload: str, secret: str = STRIPE_SECRET, timestamp=None, status=200):
    header = stripe.WebhookSignature.generate_signature_header(payload, secret, timestamp=timestamp)
    return app.client.post(f"{API}/ecommerce-webhook/stripe", payload.encode(), status=status, headers={
        "Content-Type": "application/json", "Stripe-Signature": header}, expect_errors=status >= 400)


def enrolments(app):
    return app.client.get(f"{API}/enrolments", headers=app.admin.headers, status=200).json


def test_a_completed_checkout_enrols_the_buyer_once(shop):
    payload = checkout_event("evt_1", shop.course, user_id=shop.parent.id)
    answer = send_stripe(shop, payload).json
    assert answer == {"code": "success", "message": "Event processed", "data": {
        "event_id": "evt_1", "type": "checkout.session.completed", "outcome": "enrolled", "replayed": False}}
    listed = enrolments(shop)
    assert [(row["course_id"], row["user_id"], row["status"], row["source"]) for row in listed] == [
        (shop.course, shop.parent.id, "completed", "stripe")]
    replay = send_stripe(shop, payload).json  # a replay (re-signed now) changes nothing and answers 200
    assert replay["data"]["replayed"] is True and replay["message"] == "Event already processed"
    assert enrolments(shop) == listed


def test_the_buyer_is_found_by_client_reference_then_email(shop):
    other = create_test_user(shop, "subscriber")
    send_stripe(shop, checkout_event("evt_ref", shop.course, client_reference=str(other.id)))
    send_stripe(shop, checkout_event("evt_mail", shop.course, email="PARENT@families.test", reference="pi_2"))
    assert {row["user_id"] for row in enrolments(shop)} == {other.id, shop.parent.id}
    unknown = send_stripe(shop, checkout_event("evt_nobody", shop.course, email="stranger@else.test")).json
    assert unknown["data"]["outcome"] == "pending" and len(enrolments(shop)) == 2  # kept: test_pending_enrolments
    nobody = send_stripe(shop, checkout_event("evt_no_address", shop.course, reference="pi_3")).json
    assert nobody["data"]["outcome"] == "unmatched" and len(enrolments(shop)) == 2
    unpaid = send_stripe(shop, checkout_event("evt_unpaid", shop.course, user_id=create_test_user(shop, "subscriber").id,
                                              payment_status="unpaid")).json
    assert unpaid["data"]["outcome"] == "ignored" and len(enrolments(shop)) == 2


def test_forged_stale_and_unsigned_events_are_refused_and_change_nothing(shop):
    payload = checkout_event("evt_forged", shop.course, user_id=shop.parent.id)
    body = assert_rest_error(send_stripe(shop, payload, secret="whsec_wrong", status=400),
                             "lms_webhook_invalid_signature", 400)
    assert "whsec" not in json.dumps(body)
    stale = int(time.time()) - 3600
    assert_rest_error(send_stripe(shop, payload, timestamp=stale, status=400), "lms_webhook_invalid_signature", 400)
    header = stripe.WebhookSignature.generate_signature_header(payload, STRIPE_SECRET)
    tampered = payload.replace(str(shop.parent.id), str(shop.admin.id))
    assert_rest_error(shop.client.post(f"{API}/ecommerce-webhook/stripe", tampered.encode(), status=400, headers={
        "Stripe-Signature": header}), "lms_webhook_invalid_signature", 400)
    assert_rest_error(shop.client.post(f"{API}/ecommerce-webhook/stripe", payload.encode(), status=400),
                      "lms_webhook_invalid_signature", 400)
    assert_rest_error(shop.client.get(f"{API}/ecommerce-webhook/stripe", status=400), "lms_webhook_invalid_signature",
                      400)
    assert enrolments(shop) == []
    # after all that, the genuine event still enrols: the refusals recorded nothing
    assert send_stripe(shop, payload).json["data"]["outcome"] == "enrolled"


def test_a_signature_dated_ahead_is_refused(shop):
    """The tolerance bounds the future too: a signature dated an hour ahead would stay valid for an hour."""
    payload = checkout_event("evt_future", shop.course, user_id=shop.parent.id)
    ahead = int(time.time()) + 3600
    assert_rest_error(send_stripe(shop, payload, timestamp=ahead, status=400), "lms_webhook_invalid_signature", 400)
    assert enrolments(shop) == []
    # a clock a minute fast is within the tolerance (300 s), as a minute slow is
    assert send_stripe(shop, payload, timestamp=int(time.time()) + 60).json["data"]["outcome"] == "enrolled"


def payment_events(app, **query):
    return app.client.get(f"{API}/payment-events", query, headers=app.admin.headers, status=200)


def test_a_payment_that_is_not_the_course_price_enrols_no_one_and_is_listed(shop, caplog):
    """£0.01 for a £45 course, or £45 in dollars: refused, logged, stored, listed for the operator,
    and answered 200 so that the provider does not retry a refusal for days."""
    with caplog.at_level("WARNING", logger="sitehost.lms.webhook"):
        cheap = send_stripe(shop, checkout_event("evt_cheap", shop.course, user_id=shop.parent.id, amount=1)).json
    assert cheap["code"] == "lms_payment_refused" and cheap["data"]["outcome"] == "refused"
    assert "evt_cheap" in caplog.text and "paid 0.01 GBP, the course costs 45.00 GBP" in caplog.text
    dollars = send_stripe(shop, checkout_event("evt_usd", shop.course, user_id=shop.parent.id, currency="usd",
                                               reference="pi_usd")).json
    assert dollars["data"]["outcome"] == "refused"
    no_amount = checkout_event("evt_none", shop.course, user_id=shop.parent.id, amount=None, reference="pi_none")
    assert send_stripe(shop, no_amount).json["data"]["outcome"] == "refused"
    replay = send_stripe(shop, checkout_event("evt_cheap", shop.course, user_id=shop.parent.id, amount=1)).json
    assert replay["data"] == {"event_id": "evt_cheap", "type": "checkout.session.completed", "outcome": "refused",
                              "replayed": True}
    assert enrolments(shop) == []
    refused = payment_events(shop, outcome="refused")
    assert refused.headers["X-WP-Total"] == "3"
    assert [(row["event_id"], row["course_id"], row["user_id"], row["amount"], row["currency"])
            for row in refused.json] == [("evt_none", shop.course, shop.parent.id, None, "gbp"),
                                         ("evt_usd", shop.course, shop.parent.id, 4500, "usd"),
                                         ("evt_cheap", shop.course, shop.parent.id, 1, "gbp")]
    # the full price in pounds (any letter case) enrols, and the operator's list shows it beside the refusals
    paid = checkout_event("evt_paid_in_full", shop.course, user_id=shop.parent.id, currency="GBP", reference="pi_ok")
    assert send_stripe(shop, paid).json["data"]["outcome"] == "enrolled"
    assert [row["outcome"] for row in payment_events(shop).json] == ["enrolled", "refused", "refused", "refused"]
    assert payment_events(shop, course=shop.course + 1000).json == []
    assert_rest_error(shop.client.get(f"{API}/payment-events?outcome=lost", headers=shop.admin.headers, status=400),
                      "rest_invalid_param", 400)


def test_other_methods_and_fractional_prices_are_checked_too(shop):
    course = shop.client.post_json("/wp-json/core/v2/courses", {
        "title": "Pottery", "status": "publish", "meta": {"lms_price_type": "paid", "lms_price": 12.5}},
        headers=shop.admin.headers, status=201).json["id"]
    url = f"{API}/ecommerce-webhook/school-pay"

    def pay(event_id, amount, currency="GBP"):
        body = json.dumps({"id": event_id, "type": "payment.completed", "data": {
            "course_id": course, "user_id": shop.parent.id, "amount": amount, "currency": currency,
            "reference": event_id}}).encode()
        return shop.client.post(url, body, headers={"X-Webhook-Signature": sign(body)}, status=200).json

    assert pay("sp-short", 1249)["data"]["outcome"] == "refused"
    assert pay("sp-euro", 1250, "EUR")["data"]["outcome"] == "refused"
    assert enrolments(shop) == []
    assert pay("sp-exact", 1250)["data"]["outcome"] == "enrolled"


def test_the_course_currency_is_a_setting(make_app):
    euro = make_app(plugins=["core", "lms"], config={"lms": {"stripe_webhook_secret": STRIPE_SECRET,
                                                             "currency": "EUR"}})
    admin = create_test_user(euro, "administrator")
    buyer = create_test_user(euro, "subscriber")
    course = euro.client.post_json("/wp-json/core/v2/courses", {
        "title": "Cookery", "status": "publish", "meta": {"lms_price_type": "paid", "lms_price": 30}},
        headers=admin.headers, status=201).json["id"]
    assert send_stripe(euro, checkout_event("evt_gbp", course, user_id=buyer.id, amount=3000)).json["data"][
        "outcome"] == "refused"
    assert send_stripe(euro, checkout_event("evt_eur", course, user_id=buyer.id, amount=3000, currency="eur",
                                            reference="pi_eur")).json["data"]["outcome"] == "enrolled"
    with pytest.raises(ConfigError, match=r"currency = .POUNDS. is not valid; .* not an ISO 4217 currency code"):
        make_app(plugins=["core", "lms"], config={"lms": {"currency": "POUNDS"}})


def test_a_refund_revokes_and_unknown_events_are_logged(shop, caplog):
    send_stripe(shop, checkout_event("evt_paid", shop.course, user_id=shop.parent.id, reference="pi_refund"))
    partial = json.dumps({"id": "evt_partial", "type": "charge.refunded", "data": {"object": {
        "object": "charge", "payment_intent": "pi_refund", "refunded": False, "amount_refunded": 1000}}})
    assert send_stripe(shop, partial).json["data"]["outcome"] == "ignored"
    assert enrolments(shop)[0]["status"] == "completed"
    refund = json.dumps({"id": "evt_refund", "type": "charge.refunded", "data": {"object": {
        "object": "charge", "payment_intent": "pi_refund", "refunded": True, "amount_refunded": 4500}}})
    assert send_stripe(shop, refund).json["data"]["outcome"] == "refunded"
    assert enrolments(shop)[0]["status"] == "cancelled"
    cancelled = shop.client.get(f"{API}/enrolments?status=cancelled", headers=shop.admin.headers)
    assert cancelled.headers["X-WP-Total"] == "1"
    with caplog.at_level("INFO", logger="sitehost.lms.webhook"):
        other = json.dumps({"id": "evt_other", "type": "customer.created", "data": {"object": {}}})
        assert send_stripe(shop, other).json["data"]["outcome"] == "ignored"
    assert "customer.created" in caplog.text


def sign(body: bytes, secret: str = SCHOOL_PAY_SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def test_other_methods_use_an_hmac_of_the_raw_body(shop):
    body = json.dumps({"id": "sp-1001", "type": "payment.completed", "data": {
        "course_id": shop.course, "email": "parent@families.test", "amount": 4500, "currency": "GBP",
        "reference": "order-77"}}).encode()
    url = f"{API}/ecommerce-webhook/school-pay"
    assert_rest_error(shop.client.post(url, body, headers={"X-Webhook-Signature": sign(body, "x" * 32)}, status=400),
                      "lms_webhook_invalid_signature", 400)
    assert_rest_error(shop.client.post(url, body, headers={"X-Webhook-Signature": "é"}, status=400),
                      "lms_webhook_invalid_signature", 400)
    assert enrolments(shop) == []
    answer = shop.client.post(url, body, headers={"X-Webhook-Signature": "sha256=" + sign(body)}, status=200).json
    assert answer["data"]["outcome"] == "enrolled"
    assert shop.client.post(url, body, headers={"X-Webhook-Signature": sign(body)}).json["data"]["replayed"] is True
    # the settings page's form of the address: ?payment_method=
    refund = json.dumps({"id": "sp-1002", "type": "payment.refunded", "data": {"reference": "order-77"}}).encode()
    shop.client.post(f"{API}/ecommerce-webhook?payment_method=school-pay", refund,
                     headers={"X-Webhook-Signature": sign(refund)}, status=200)
    assert enrolments(shop)[0]["status"] == "cancelled"


def test_method_names_and_configuration(shop, make_app):
    assert_rest_error(shop.client.post(f"{API}/ecommerce-webhook", b"{}", status=400), "lms_webhook_no_method", 400)
    assert_rest_error(shop.client.post(f"{API}/ecommerce-webhook/paypal", b"{}", status=400),
                      "lms_webhook_not_configured", 400)
    assert_rest_error(shop.client.post(f"{API}/ecommerce-webhook?payment_method=Bad!", b"{}", status=400),
                      "lms_webhook_invalid_method", 400)
    bare = make_app(plugins=["core", "lms"])
    assert_rest_error(bare.client.post(f"{API}/ecommerce-webhook/stripe", b"{}", status=400),
                      "lms_webhook_not_configured", 400)
    broken = make_app(plugins=["core", "lms"], config={"lms": {"webhook_secrets": {"stripe": "x" * 20}}})
    assert broken.plugin("lms").loaded is False and "stripe_webhook_secret" in broken.plugin("lms").error


def test_enrolments_are_for_administrators_only(shop, issue_key):
    assert_rest_error(shop.client.get(f"{API}/enrolments", status=401), "rest_forbidden", 401)
    assert_rest_error(shop.client.get(f"{API}/enrolments", headers=shop.parent.headers, status=403),
                      "rest_forbidden", 403)
    admin_key = issue_key(shop, shop.admin, "all")
    assert_rest_error(shop.client.get(f"{API}/enrolments", headers=admin_key, status=403), "rest_forbidden", 403)
    assert_rest_error(shop.client.get(f"{API}/payment-events", status=401), "rest_forbidden", 401)
    assert_rest_error(shop.client.get(f"{API}/payment-events", headers=shop.parent.headers, status=403),
                      "rest_forbidden", 403)
    assert_rest_error(shop.client.get(f"{API}/payment-events", headers=admin_key, status=403), "rest_forbidden", 403)
