"""POST newsletter/v1/form: the sign-up (and unsubscribe) pipeline, done inside the route.

The reference's contract (§12): 404 `not_found` when the request carries no
`_newsletter_form_id`; 400 with the first error's key and that key's text (as the form words
it); 200 `true` on success. The outcome key and its text also travel in the headers
`X-Newsletter-Result` and `X-Newsletter-Message` (percent-encoded UTF-8), so a page can show
the form's own words without a second request.

Who is on a list is nobody's business but the subscriber's: once the address passed the checks,
the answer is the same for every address (a sign-up form: `subscribed`; an unsubscribe form:
`unsubscribe_requested`) and what differs goes to that address's inbox: a confirmation mail, an
"already subscribed" note, or a link that unsubscribes. Nothing a confirmed subscriber agreed to
changes before a click in their own inbox.

Order of the checks (the first failing one answers):
1. the form has at least one list (with list choice, one the visitor ticked): `no_lists_selected`;
2. `_newsletter_honeypot` empty, `_newsletter_timestamp` at least 2 seconds old: `spam`;
3. the `check_spam` hook (type "signup"): `spam` (a judge that raises counts as no opinion, logged);
4. EMAIL valid by email-validator (DNS only with `check_deliverability`): `invalid_email`;
5. the form's required merge fields present: `required_field_missing`;
6. the per-address limit: 429 `rate_limited`;
then the subscription is recorded as pending and a confirmation mail is queued (an unsubscribe
form: a mail with the unsubscribe link), within the per-email limit, all in the request's
transaction.
"""

from __future__ import annotations

import logging
import math
import time
from urllib.parse import quote

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import bindparam, select

from host import RestError, RestResponse
from host.text import sanitize_text_field

from . import mailer, ratelimit, store
from .messages import messages_of
from .settings import settings_of
from .tables import FORMS, table

log = logging.getLogger("sitehost.newsletter")

PREFIX = "_newsletter_"
FORM_ID = PREFIX + "form_id"
HONEYPOT = PREFIX + "honeypot"
TIMESTAMP = PREFIX + "timestamp"
LISTS_FIELD = PREFIX + "lists"
MIN_SECONDS = 2.0
# A sign-up form on another site reads these too: the route exposes them (Route.expose_headers).
RESULT_HEADERS = ("X-Newsletter-Result", "X-Newsletter-Message")
MAX_EMAIL_LENGTH = 320
MAX_VALUE_LENGTH = 500  # one merge field's value; longer is cut


def submitted_values(request) -> dict:
    """The request's parameters, names of merge fields in upper case: query < form < JSON."""
    values: dict = {}
    sources = [request.query, request.form]
    if isinstance(request.json, dict):
        sources.append(request.json)
    for source in sources:
        for name, value in source.items():  # as many as the host's body limit lets through
            key = name if name.startswith(PREFIX) else name.upper()
            values[key] = value
    return values


def _text(value) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float, str)):
        return str(value).strip()[:MAX_VALUE_LENGTH]
    return ""


def _list_choice(value) -> set[int]:
    items = value if isinstance(value, list) else str(value).split(",") if isinstance(value, (str, int)) else []
    chosen = set()
    for item in items[:100]:
        try:
            chosen.add(int(str(item).strip()))
        except ValueError:
            continue
    return chosen


def _elapsed(value) -> float | None:
    """Seconds since the form's timestamp, or None when it is missing or not a time."""
    try:
        stamp = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    if not math.isfinite(stamp):
        return None
    return time.time() - stamp


def _ask_spam_judges(app, submission: dict):
    """The check_spam verdict; a judge that fails is logged and counts as no opinion.

    The honeypot and timestamp have passed by then and the address must still confirm, so a
    broken spam plugin should not shut the school's sign-up form.
    """
    try:
        return app.hook.check_spam(app=app, submission=submission)
    except Exception:
        log.exception("newsletter: a check_spam implementation failed; the sign-up goes on without its verdict")
        return None


def load_form(app, connection, raw_id):
    try:
        form_id = int(str(raw_id).strip())
    except (TypeError, ValueError):
        form_id = None
    forms = table(app, FORMS)
    row = None if form_id is None or not 0 < form_id < 2**31 else connection.execute(app.db.prepared(
        "newsletter.form_by_id", lambda: select(forms).where(forms.c.id == bindparam("form_id"))),
        {"form_id": form_id}).first()
    if row is None:
        raise RestError("not_found", "Resource does not exist.", 404)
    return row


def submit_form(request):
    app = request.app
    address = ratelimit.client_address(app, request.environ)
    values = submitted_values(request)
    if FORM_ID not in values:
        raise RestError("not_found", "Resource does not exist.", 404)
    # The checks read on a plain connection: only a sign-up that passes them opens the request's
    # write transaction (on SQLite, the write lock), so refused ones never queue behind writers.
    with app.db.engine.connect() as connection:
        form = load_form(app, connection, values[FORM_ID])
        names = store.list_names(app, connection, [int(item) for item in form.lists or []])
    messages = messages_of(form.messages)

    def refuse(key: str):
        return RestError(key, messages[key], 400)

    list_ids = sorted(names)
    if form.list_choice and LISTS_FIELD in values:
        chosen = _list_choice(values[LISTS_FIELD])
        list_ids = [list_id for list_id in list_ids if list_id in chosen]
    if not list_ids:
        raise refuse("no_lists_selected")
    honeypot = values.get(HONEYPOT)
    elapsed = _elapsed(values.get(TIMESTAMP))
    if (honeypot not in (None, "")) or elapsed is None or elapsed < MIN_SECONDS:
        raise refuse("spam")
    # Merge fields are one-line text (names mostly) that admin screens and mails show: no markup.
    fields = {field["tag"]: sanitize_text_field(_text(values.get(field["tag"]))) for field in form.fields or []
              if field["tag"] != "EMAIL"}
    raw_email = _text(values.get("EMAIL"))
    verdict = _ask_spam_judges(app, {
        "type": "signup",
        "author": " ".join(part for part in (fields.get("FNAME", ""), fields.get("LNAME", "")) if part),
        "email": raw_email,
        "content": "\n".join(f"{tag}: {value}" for tag, value in fields.items() if value and tag not in ("FNAME", "LNAME")),
        "ip": address,
        "user_agent": request.header("user-agent", "") or "",
        "guid": f"{app.site_address(request.session)}{app.settings.rest_prefix}/newsletter/v1/forms/{form.id}",
        "honeypot": "" if honeypot is None else _text(honeypot) or str(honeypot)[:MAX_VALUE_LENGTH],
        "elapsed_seconds": round(elapsed, 3),
    })
    if isinstance(verdict, dict) and verdict.get("spam"):
        raise refuse("spam")
    if not raw_email or len(raw_email) > MAX_EMAIL_LENGTH:
        raise refuse("invalid_email")
    try:
        checked = validate_email(raw_email, check_deliverability=settings_of(app).check_deliverability)
    except EmailNotValidError:
        raise refuse("invalid_email") from None
    email = checked.normalized
    if form.action == "subscribe":
        for field in form.fields or []:
            if field.get("required") and field["tag"] != "EMAIL" and not fields.get(field["tag"]):
                raise refuse("required_field_missing")
    ratelimit.check_address(app, request.session, address, messages["rate_limited"])
    if form.action == "unsubscribe":
        _request_unsubscribe(request, email.lower(), list_ids, names)
        key = "unsubscribe_requested"
    else:
        _subscribe(request, form, email, fields, list_ids, address, names)
        key = "subscribed"
    return RestResponse(True, 200, {"X-Newsletter-Result": key, "X-Newsletter-Message": quote(messages[key])})


def _subscribe(request, form, email: str, fields: dict, list_ids: list[int], address: str,
               names: dict[int, str]) -> None:
    app, session = request.app, request.session
    email_key = email.lower()
    fields = {tag: value for tag, value in fields.items() if value}
    asked = ", ".join(sorted((names[list_id] for list_id in list_ids), key=str.lower))
    result = store.sign_up(app, session, email, email_key, fields, list_ids, f"form {form.id}: {form.title}",
                           address, consent_text=f"Signed up with the form {form.title!r} to receive: {asked}")
    if not ratelimit.take_email_slot(app, session, email_key):
        return
    if result.needs_mail:
        requested = sorted((names[list_id] for list_id in result.requested), key=str.lower)
        # Links with live tokens: on the site's address, never the Host header the sign-up came with.
        message = mailer.confirmation_message(app, app.site_address(session), result.subscriber, requested)
    else:  # already on every list asked for: the answer does not say so, the mail does
        asked = sorted((names[list_id] for list_id in list_ids), key=str.lower)
        message = mailer.already_subscribed_message(app, app.site_address(session), result.subscriber, asked)
    app.mail.send(message, session=session)


def _request_unsubscribe(request, email_key: str, list_ids: list[int], names: dict[int, str]) -> None:
    """Mail the subscriber a link that ends the form's subscriptions they still have; change nothing now."""
    app, session = request.app, request.session
    subscriber = store.find_by_email(app, session, email_key)
    if subscriber is None:
        return
    statuses = store.statuses_of(app, session, subscriber.id)
    active = [list_id for list_id in list_ids if statuses.get(list_id) in (store.PENDING, store.CONFIRMED)]
    if not active or not ratelimit.take_email_slot(app, session, email_key):
        return
    message = mailer.unsubscribe_request_message(app, app.site_address(session), subscriber, active,
                                                 sorted((names[list_id] for list_id in active), key=str.lower))
    app.mail.send(message, session=session)
