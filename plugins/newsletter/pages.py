"""The pages the links in newsletter mails open: /newsletter/confirm and /newsletter/unsubscribe.

Both act at once, on GET (a person following the link) and on POST (RFC 8058: a mail client
POSTs `List-Unsubscribe=One-Click` to the List-Unsubscribe URL), and answer a short HTML page.
A forged or altered token answers 400, an expired one 410, each with a page saying what to do;
a token of a subscriber that was erased answers 404.
"""

from __future__ import annotations

import html

import bottle
from sqlalchemy import select

from . import store
from .ratelimit import client_address
from .settings import settings_of
from .tables import LISTS, table
from .tokens import CONFIRM, UNSUBSCRIBE, TokenExpired, TokenInvalid, read_token, same_nonce


def _page(app, title: str, text: str, status: int = 200) -> bottle.HTTPResponse:
    body = app.render_html_page(title, f"<p>{html.escape(text)}</p>")
    return bottle.HTTPResponse(body, status, headers={
        "Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-store", "X-Robots-Tag": "noindex"})


def _token_param(request) -> str:
    token = request.query.get("token") or ""
    if not token and request.method == "POST":
        try:
            token = request.forms.get("token") or ""
        except Exception:  # an unreadable body: the query is the only place a token can be
            token = ""
    return token[:1000]


def _read(app, request, purpose: str, max_age: int):
    """(token, None) or (None, the error page)."""
    try:
        return read_token(app, purpose, _token_param(request), max_age), None
    except TokenExpired:
        again = ("sign up again on our website" if purpose == CONFIRM
                 else "use the unsubscribe link of a more recent email, or write to the school office")
        return None, _page(app, "This link has expired", f"This link is too old to use. Please {again}.", 410)
    except TokenInvalid:
        return None, _page(app, "This link is not valid",
                           "This link is incomplete or was changed. Please copy the whole link from the email.", 400)


def _subscriber(app, session, token):
    row = store.find_by_id(app, session, token.subscriber_id)
    if row is None or not same_nonce(row.nonce, token.nonce):
        return None
    return row


def confirm_page(app, request):
    token, refusal = _read(app, request, CONFIRM, settings_of(app).confirm_max_age_seconds)
    if refusal is not None:
        return refusal
    with app.db.session(write=True) as session, session.begin():
        subscriber = _subscriber(app, session, token)
        if subscriber is None:
            return _page(app, "Subscription not found",
                         "We have no sign-up for this link any more. You can sign up again on our website.", 404)
        confirmed = store.confirm(app, session, subscriber, client_address(app, request.environ))
        statuses = store.statuses_of(app, session, subscriber.id)
    if confirmed:
        return _page(app, "Subscription confirmed", "Thank you! Your subscription is confirmed.")
    if store.CONFIRMED in statuses.values():
        return _page(app, "Already confirmed", "Your subscription was already confirmed. Nothing more to do.")
    return _page(app, "Nothing to confirm", "This sign-up was cancelled. You can sign up again on our website.")


def unsubscribe_page(app, request):
    token, refusal = _read(app, request, UNSUBSCRIBE, settings_of(app).unsubscribe_max_age_seconds)
    if refusal is not None:
        return refusal
    with app.db.session(write=True) as session, session.begin():
        subscriber = _subscriber(app, session, token)
        if subscriber is None:
            return _page(app, "Unsubscribed", "This address is not on our lists any more.")
        ended = store.unsubscribe(app, session, subscriber.id, None if token.list_id is None else [token.list_id])
        name = None
        if token.list_id is not None:
            lists = table(app, LISTS)
            name = session.execute(select(lists.c.name).where(lists.c.id == token.list_id)).scalar_one_or_none()
    where = f" from {name}" if name else ""
    if ended:
        return _page(app, "Unsubscribed", f"You have been unsubscribed{where}. You will not receive these emails any more.")
    return _page(app, "Unsubscribed", f"You were already unsubscribed{where}. Nothing more to do.")
