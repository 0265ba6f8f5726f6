"""lms/v1/ecommerce-webhook[/{payment_method}]: payments for paid courses arrive here.

Every event is verified before anything is read from it: Stripe's with the `stripe` package's
own check (signature over the timestamp and raw body, constant-time comparison, timestamp
tolerance into the past) and ours of the tolerance into the future, which the package leaves
open; any other method's with an HMAC-SHA256 of the raw body under its secret from
`[plugins.lms] webhook_secrets`, compared in constant time. A bad or missing signature gets
400 and writes nothing. Each verified event is recorded once by (provider, event id): a replay
changes nothing and answers 200. A completed checkout enrols the buyer, a full refund cancels
that enrolment, and any other event type is recorded as ignored and logged. A completed checkout
whose buyer has no account but names an email address is kept as a pending enrolment
(pending.py), granted when that address registers or an operator assigns it.

A payment enrols only when its amount and currency are the course's price (`lms_price` in
`[plugins.lms] currency`). Any other payment is recorded as `refused`, logged as a warning and
listed at lms/v1/payment-events; it answers 200 (code `lms_payment_refused`) rather than an
error: the provider delivered a genuine event, and an error status would only make it retry
the same refused event for days (Stripe retries for three).
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from decimal import Decimal

import stripe
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from host import RestError, Route
from host.auth import users as user_service
from host.signing import Signer

from . import pending
from .apikeys import utcnow
from .catalogue import as_id, course_price, find_course
from .enrolments import enrol, revoke
from .schemas import NoArgs
from .settings import settings_of
from .tables import EVENTS, table

log = logging.getLogger("sitehost.lms.webhook")
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
METHOD_NAME = re.compile(r"^[a-z0-9_-]{1,40}$")
SIGNATURE_HEADER = "x-webhook-signature"
PAID_EVENTS = {"checkout.session.completed", "checkout.session.async_payment_succeeded"}
GENERIC_PAID, GENERIC_REFUNDED = "payment.completed", "payment.refunded"


@dataclass
class Payment:
    """What one verified event says, whatever the provider."""

    event_id: str
    type: str
    action: str  # "enrol", "refund" or "ignore"
    course_id: int | None = None
    user_id: int | None = None
    email: str = ""
    amount: int | None = None
    currency: str = ""
    reference: str = ""


def _refuse(code: str, message: str, status: int = 400) -> RestError:
    return RestError(code, message, status)


def payment_method(request) -> str:
    method = request.url_params.get("payment_method") or request.raw_param("payment_method")
    if method is None or method == "":
        raise _refuse("lms_webhook_no_method", "Name the payment method: ecommerce-webhook/{payment_method}.")
    if not isinstance(method, str) or not METHOD_NAME.match(method):
        raise _refuse("lms_webhook_invalid_method", "A payment method is 1 to 40 lowercase letters, digits, _ or -.")
    return method


def receive(request):
    method = payment_method(request)
    settings = settings_of(request.app)
    body = request.body or b""
    if len(body) > settings.max_webhook_bytes:
        raise _refuse("lms_webhook_too_large", f"The event is larger than {settings.max_webhook_bytes} bytes.", 413)
    payment = _stripe_event(request, body, settings) if method == "stripe" else _hmac_event(request, method, body,
                                                                                           settings)
    return _record(request, method, payment)


# --- verification ---------------------------------------------------------------------------------

def _stripe_event(request, body: bytes, settings) -> Payment:
    if not settings.stripe_webhook_secret:
        raise _refuse("lms_webhook_not_configured", "Stripe payments are not configured on this site.")
    header = request.header("stripe-signature")
    try:
        stripe.Webhook.construct_event(body, header, settings.stripe_webhook_secret,
                                       tolerance=settings.webhook_tolerance)
    except (stripe.SignatureVerificationError, ValueError, UnicodeDecodeError):
        raise _refuse("lms_webhook_invalid_signature", "The event's signature does not verify.") from None
    signed_at = _stripe_timestamp(header)
    if signed_at > time.time() + settings.webhook_tolerance:
        # The package bounds only the past: a signature dated ahead would stay valid until then.
        log.warning("Stripe event refused: its signature is dated %d s ahead of this server's clock",
                    signed_at - int(time.time()))
        raise _refuse("lms_webhook_invalid_signature", "The event's signature does not verify.")
    event = _json_object(body)
    obj = ((event.get("data") or {}).get("object") or {}) if isinstance(event.get("data"), dict) else {}
    if not isinstance(obj, dict):
        obj = {}
    payment = Payment(event_id=_text(event.get("id")), type=_text(event.get("type")), action="ignore")
    if payment.type in PAID_EVENTS:
        metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        details = obj.get("customer_details") if isinstance(obj.get("customer_details"), dict) else {}
        paid = obj.get("payment_status") in ("paid", "no_payment_required")
        payment.action = "enrol" if paid else "ignore"
        payment.course_id = as_id(metadata.get("course_id"))
        payment.user_id = as_id(metadata.get("user_id")) or as_id(obj.get("client_reference_id"))
        payment.email = _text(obj.get("customer_email") or details.get("email"))
        payment.amount = obj.get("amount_total") if isinstance(obj.get("amount_total"), int) else None
        payment.currency = _text(obj.get("currency"))[:10]
        payment.reference = _text(obj.get("payment_intent") or obj.get("id"))
    elif payment.type == "charge.refunded":
        payment.reference = _text(obj.get("payment_intent"))
        payment.action = "refund" if obj.get("refunded") is True else "ignore"  # partial refunds keep the place
        payment.amount = obj.get("amount_refunded") if isinstance(obj.get("amount_refunded"), int) else None
        payment.currency = _text(obj.get("currency"))[:10]
    return payment


def _stripe_timestamp(header: str) -> int:
    """The `t=` of a Stripe-Signature header the `stripe` package has just verified, read as the
    package reads it (its first `t` item; the package keeps its parser private)."""
    items = [item.split("=", 2) for item in header.split(",")]
    return int([item[1] for item in items if item[0] == "t"][0])


def _hmac_event(request, method: str, body: bytes, settings) -> Payment:
    secret = settings.webhook_secrets.get(method)
    if not secret:
        raise _refuse("lms_webhook_not_configured", f"The payment method {method!r} is not configured on this site.")
    given = (request.header(SIGNATURE_HEADER) or "").strip()
    if given.startswith("sha256="):
        given = given[7:]
    if not Signer.matches(given.lower(), Signer(secret.encode("utf-8"), f"lms.{method}").digest(body)):
        raise _refuse("lms_webhook_invalid_signature", "The event's signature does not verify.")
    event = _json_object(body)
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    payment = Payment(event_id=_text(event.get("id")), type=_text(event.get("type")), action="ignore")
    payment.course_id = as_id(data.get("course_id"))
    payment.user_id = as_id(data.get("user_id"))
    payment.email = _text(data.get("email"))
    payment.amount = data.get("amount") if isinstance(data.get("amount"), int) else None
    payment.currency = _text(data.get("currency"))[:10]
    payment.reference = _text(data.get("reference"))
    payment.action = {GENERIC_PAID: "enrol", GENERIC_REFUNDED: "refund"}.get(payment.type, "ignore")
    return payment


def _json_object(body: bytes) -> dict:
    try:
        event = json.loads(body)
    except ValueError:
        raise _refuse("lms_webhook_invalid_event", "The event is not JSON.") from None
    if not isinstance(event, dict) or not _text(event.get("id")):
        raise _refuse("lms_webhook_invalid_event", "The event has no id.")
    return event


def _text(value) -> str:
    return value[:255] if isinstance(value, str) else ""


# --- recording --------------------------------------------------------------------------------------

def _record(request, provider: str, payment: Payment) -> dict:
    events = table(request.app, EVENTS)
    session = request.session
    previous = session.execute(select(events.c.outcome).where(
        events.c.provider == provider, events.c.event_id == payment.event_id)).first()
    if previous is not None:
        return _answer(payment, previous.outcome, replayed=True)
    user_id = _buyer(request, payment)
    outcome, course_id = "ignored", payment.course_id or 0
    if payment.action == "enrol":
        course = find_course(request, payment.course_id)
        mismatch = _price_mismatch(request.app, course, payment) if course is not None else ""
        if course is None or (user_id is None and not payment.email):
            outcome = "unmatched"
            log.warning("payment event %s (%s) names no known course or buyer: course %s, user %s",
                        payment.event_id, provider, payment.course_id, user_id)
        elif mismatch:
            outcome = "refused"
            log.warning("payment event %s (%s) refused, no enrolment: %s (course %s, user %s)",
                        payment.event_id, provider, mismatch, course["id"], user_id)
        elif user_id is None:  # paid by an address without an account: kept until it registers
            pending.keep(request.app, session, provider, payment, course["id"])
            outcome = "pending"
            log.warning("payment event %s (%s) kept as a pending enrolment: no account has its address (course %s)",
                        payment.event_id, provider, course["id"])
        else:
            enrol(request, course["id"], user_id, provider, payment.event_id)
            outcome = "enrolled"
    elif payment.action == "refund":
        outcome, course_id, user_id = _refund(request, provider, payment, user_id)
    else:
        log.info("payment event %s of type %r (%s) ignored", payment.event_id, payment.type, provider)
    try:
        with session.begin_nested():
            session.execute(events.insert().values(
                provider=provider, event_id=payment.event_id, type=payment.type[:100], outcome=outcome,
                course_id=course_id or 0, user_id=user_id or 0, amount=payment.amount, currency=payment.currency,
                reference=payment.reference, received=utcnow()))
    except IntegrityError:  # the same event delivered twice at once: the other delivery recorded it
        raise RestError("lms_webhook_in_progress", "This event is being processed; retry later.", 409) from None
    return _answer(payment, outcome, replayed=False)


def _price_mismatch(app, course: dict, payment: Payment) -> str:
    """Why the payment does not buy the course ("" when its amount and currency are the course's price).

    Amounts arrive in the currency's smallest unit (pence); the price is stored in whole units
    (60 or 12.5), so both are compared as exact decimals. A discount code lowers what is paid, so
    such a payment is refused too: the operator sees it and enrols by hand.
    """
    settings = settings_of(app)
    price, currency = course_price(course), settings.currency
    paid_currency = payment.currency.upper()
    if paid_currency != currency:
        return f"paid in {paid_currency or 'no currency'}, the course is priced in {currency}"
    if payment.amount is None:
        return "the event names no amount"
    digits = settings.currency_digits
    paid = Decimal(payment.amount).scaleb(-digits)
    if paid != price:
        return f"paid {paid:.{digits}f} {currency}, the course costs {price:.{digits}f} {currency}"
    return ""


def _buyer(request, payment: Payment) -> int | None:
    if payment.user_id is not None:
        user = user_service.get_user(request.app, request.session, payment.user_id)
        if user is not None:
            return user.id
    if payment.email:
        user = user_service.find_user(request.app, request.session, payment.email)
        if user is not None and user.email.lower() == payment.email.lower():
            return user.id
    return None


def _refund(request, provider: str, payment: Payment, user_id: int | None) -> tuple[str, int, int | None]:
    """Cancel the enrolment the refunded payment made: found by the payment's reference, or (for
    methods that name them) by course and buyer."""
    events = table(request.app, EVENTS)
    paid = None
    if payment.reference:
        paid = request.session.execute(select(events).where(
            events.c.provider == provider, events.c.reference == payment.reference,
            events.c.outcome == "enrolled").order_by(events.c.id.desc())).first()
    if paid is None:
        kept = pending.refund(request.app, request.session, provider, payment.reference)
        if kept is not None:  # refunded before anyone claimed it: nobody to cancel
            return "refunded", kept.course_id, None
    course_id = paid.course_id if paid is not None else payment.course_id
    buyer = paid.user_id if paid is not None else user_id
    if not course_id or not buyer or not revoke(request, course_id, buyer):
        log.warning("refund event %s (%s) matches no enrolment", payment.event_id, provider)
        return "unmatched", course_id or 0, buyer
    return "refunded", course_id, buyer


def _answer(payment: Payment, outcome: str, replayed: bool) -> dict:
    message = "Event already processed" if replayed else "Event processed"
    code = "success"
    if outcome == "refused":  # still 200: see the module's docstring
        code = "lms_payment_refused"
        message += ": payment refused, its amount or currency is not the course's price"
    elif outcome == "pending":
        message += ": no account has the buyer's address, the enrolment waits until it registers"
    return {"code": code, "message": message,
            "data": {"event_id": payment.event_id, "type": payment.type, "outcome": outcome, "replayed": replayed}}


# A GET here is a payment provider's check of the endpoint, answered for that caller: never kept.
WEBHOOK_UNCACHEABLE = "a payment provider's call, answered for that caller"


def routes(namespace: str) -> list[Route]:
    return [
        Route(namespace, "/ecommerce-webhook", METHODS, receive, args=NoArgs, uncacheable=WEBHOOK_UNCACHEABLE),
        Route(namespace, r"/ecommerce-webhook/(?P<payment_method>[a-z0-9_-]+)", METHODS, receive, args=NoArgs,
              uncacheable=WEBHOOK_UNCACHEABLE),
    ]



