"""The pages the links in newsletter mails open: /newsletter/confirm and /newsletter/unsubscribe.

Only a POST acts. Mail providers' link scanners GET every link of a mail before the person
sees it, so a GET shows a page with one button that POSTs the link's token back (no script:
the site's CSP allows none inline), and changes nothing. RFC 8058's one-click unsubscribe is a
POST of `List-Unsubscribe=One-Click` to the List-Unsubscribe URL: it acts at once, as the button
does. The signed token is the proof of the inbox, so the forms need no other CSRF token: a page
that could post one already holds the power it grants.
A forged or altered token answers 400, an expired one 410, each with a page saying what to do;
a token of a subscriber that was erased answers 404 (confirm) or says there is nothing to end.
The page bodies are templates/newsletter_*.html (Jinja2, autoescaped), rendered through the site theme:
an operator's file of the same name in `[site] templates_dir` wins.
"""

from __future__ import annotations

from sqlalchemy import select

from host import PageAnswer, PageRequest, theme
from host.signing import TokenExpired, TokenInvalid

from . import store
from .ratelimit import client_address
from .settings import settings_of
from .tables import LISTS, table
from .tokens import CONFIRM, UNSUBSCRIBE, read_token, same_nonce


def _page(app, title: str, text: str, status: int = 200) -> PageAnswer:
    return _respond(app, title, theme.render(app, __package__, "newsletter_message.html", {"text": text}), status)


def _button_page(app, request: PageRequest, title: str, text: str, button: str, token: str) -> PageAnswer:
    """What a GET answers while there is something to do: the button that does it."""
    action = request.path.rstrip("/").rsplit("/", 1)[-1]
    body = theme.render(app, __package__, "newsletter_button.html",
                        {"text": text, "action": action, "token": token, "button": button})
    return _respond(app, title, body, 200)


def _respond(app, title: str, body_html: str, status: int) -> PageAnswer:
    body = app.render_html_page(title, body_html)
    return PageAnswer(body, status, content_type="text/html; charset=UTF-8",
                      headers={"Cache-Control": "no-store", "X-Robots-Tag": "noindex"})


def _token_param(request: PageRequest) -> str:
    token = request.query_text("token")
    if not token and request.method == "POST":
        try:
            token = request.form.get("token", "")
        except Exception:  # an unreadable body: the query is the only place a token can be
            token = ""
    return token[:1000]


def _read(app, request: PageRequest, purpose: str, max_age: int):
    """(token text, token, None) or (None, None, the error page)."""
    text = _token_param(request)
    try:
        return text, read_token(app, purpose, text, max_age), None
    except TokenExpired:
        again = ("sign up again on our website" if purpose == CONFIRM
                 else "use the unsubscribe link of a more recent email, or write to the school office")
        return None, None, _page(app, "This link has expired", f"This link is too old to use. Please {again}.", 410)
    except TokenInvalid:
        return None, None, _page(app, "This link is not valid",
                                 "This link is incomplete or was changed. Please copy the whole link from the email.",
                                 400)


def _subscriber(app, session, token):
    row = store.find_by_id(app, session, token.subscriber_id)
    if row is None or not same_nonce(row.nonce, token.nonce):
        return None
    return row


def _acts(request: PageRequest) -> bool:
    """Only a POST changes anything; GET and HEAD (link scanners, previews, people) only look."""
    return request.method == "POST"


def confirm_page(app, request: PageRequest):
    text, token, refusal = _read(app, request, CONFIRM, settings_of(app).confirm_max_age_seconds)
    if refusal is not None:
        return refusal
    acting = _acts(request)
    with app.db.session(write=acting) as session, session.begin():
        subscriber = _subscriber(app, session, token)
        if subscriber is None:
            return _page(app, "Subscription not found",
                         "We have no sign-up for this link any more. You can sign up again on our website.", 404)
        statuses = store.statuses_of(app, session, subscriber.id)
        waiting = store.PENDING in statuses.values() or subscriber.pending_fields is not None
        if not acting and waiting:
            return _button_page(app, request, "Confirm your subscription",
                                "Press the button to confirm your subscription.", "Confirm my subscription", text)
        confirmed = store.confirm(app, session, subscriber, client_address(app, request.environ)) if acting else 0
        if confirmed:
            statuses = store.statuses_of(app, session, subscriber.id)
    if confirmed:
        return _page(app, "Subscription confirmed", "Thank you! Your subscription is confirmed.")
    if store.CONFIRMED in statuses.values():
        return _page(app, "Already confirmed", "Your subscription was already confirmed. Nothing more to do.")
    return _page(app, "Nothing to confirm", "This sign-up was cancelled. You can sign up again on our website.")


def _list_names(app, session, list_ids) -> str:
    """"Whole school and Year 7 parents": the lists a token names, as a page says them."""
    if list_ids is None:
        return ""
    lists = table(app, LISTS)
    names = sorted(session.execute(select(lists.c.name).where(lists.c.id.in_(list_ids))).scalars(), key=str.lower)
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def unsubscribe_page(app, request: PageRequest):
    text, token, refusal = _read(app, request, UNSUBSCRIBE, settings_of(app).unsubscribe_max_age_seconds)
    if refusal is not None:
        return refusal
    acting = _acts(request)
    list_ids = None if token.list_ids is None else list(token.list_ids)
    with app.db.session(write=acting) as session, session.begin():
        subscriber = _subscriber(app, session, token)
        if subscriber is None:
            return _page(app, "Unsubscribed", "This address is not on our lists any more.")
        name = _list_names(app, session, list_ids)
        where = f" from {name}" if name else ""
        if acting:
            ended = store.unsubscribe(app, session, subscriber.id, list_ids)
        else:
            statuses = store.statuses_of(app, session, subscriber.id)
            if any(status != store.UNSUBSCRIBED for list_id, status in statuses.items()
                   if list_ids is None or list_id in list_ids):
                return _button_page(app, request, "Unsubscribe",
                                    f"Press the button to unsubscribe{where}. You will not receive these emails "
                                    "any more.", "Unsubscribe", text)
            ended = 0
    if ended:
        return _page(app, "Unsubscribed", f"You have been unsubscribed{where}. You will not receive these emails any more.")
    return _page(app, "Unsubscribed", f"You were already unsubscribed{where}. Nothing more to do.")
