"""The mails the newsletter sends (confirmation, "already subscribed" note, unsubscribe link, mailing),
each with its one-click unsubscribe.

Every mail carries `List-Unsubscribe: <URL>` and `List-Unsubscribe-Post:
List-Unsubscribe=One-Click` (RFC 8058): a mail client POSTs `List-Unsubscribe=One-Click` to
that URL and the address is off the list at once; the same URL is in the text for people.
Mails go through the host's mail service (`app.mail.send`, its durable outbox), written in
the caller's transaction so a rolled-back sign-up sends nothing.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from host.mail import Message

from .settings import settings_of
from .tokens import CONFIRM, UNSUBSCRIBE, make_token

CONFIRM_PATH = "/newsletter/confirm"
UNSUBSCRIBE_PATH = "/newsletter/unsubscribe"


def confirm_url(app, site_url: str, subscriber) -> str:
    token = make_token(app, CONFIRM, subscriber.id, subscriber.nonce)
    return f"{site_url}{CONFIRM_PATH}?{urlencode({'token': token})}"


def unsubscribe_url(app, site_url: str, subscriber, list_ids: int | list[int] | None) -> str:
    token = make_token(app, UNSUBSCRIBE, subscriber.id, subscriber.nonce, list_ids)
    return f"{site_url}{UNSUBSCRIBE_PATH}?{urlencode({'token': token})}"


def _headers(unsubscribe: str, list_id: int | None, site_url: str) -> dict[str, str]:
    host = _ascii_host(site_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]) or "localhost"
    headers = {"List-Unsubscribe": f"<{_ascii_uri(unsubscribe)}>",
               "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    if list_id is not None:
        headers["List-Id"] = f"<list-{list_id}.newsletter.{host}>"
    return headers


def _ascii_host(host: str) -> str:
    """A host name as mail headers carry it: ASCII (IDNA for an internationalised name)."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return quote(host, safe="")


def _ascii_uri(url: str) -> str:
    """A URI header takes ASCII only (no encoded-words): an IDNA host, anything else percent-encoded."""
    if url.isascii():
        return url
    parts = urlsplit(url)
    netloc = parts.netloc
    if not netloc.isascii():
        user, at, host_port = netloc.rpartition("@")
        host, colon, port = host_port.partition(":")
        netloc = f"{quote(user, safe=':%')}{at}{_ascii_host(host)}{colon}{port}"
    return urlunsplit((parts.scheme, netloc, *(quote(part, safe="/?&=%:@!$'()*+,;~") for part in
                                               (parts.path, parts.query, parts.fragment))))


def _greeting(fields: dict) -> str:
    name = str((fields or {}).get("FNAME") or "").strip()
    return f"Hello {name}," if name else "Hello,"


def confirmation_message(app, site_url: str, subscriber, list_names: list[str]) -> Message:
    site = app.settings.site.get("name", "") or "our school"
    unsubscribe = unsubscribe_url(app, site_url, subscriber, None)
    fields = subscriber.pending_fields if subscriber.pending_fields is not None else subscriber.fields
    asked = (f"Someone, hopefully you, asked to receive these newsletters from {site}:\n"
             + "".join(f"  - {name}\n" for name in list_names)) if list_names else (
        f"Someone, hopefully you, asked to change your details for the newsletters of {site}.\n")
    text = (f"{_greeting(fields)}\n\n{asked}"
            f"\nTo confirm, follow this link:\n{confirm_url(app, site_url, subscriber)}\n\n"
            f"If you did not ask for this, ignore this email and nothing will be sent to you, "
            f"or cancel the request here:\n{unsubscribe}\n")
    return Message(to=[subscriber.email], subject=f"Please confirm your subscription to {site}", text=text,
                   sender=settings_of(app).sender or None, headers=_headers(unsubscribe, None, site_url))


def already_subscribed_message(app, site_url: str, subscriber, list_names: list[str]) -> Message:
    """A sign-up that changes nothing still gets a mail: the form answers every address alike, so
    the inbox is where a subscriber learns that they were already on these lists."""
    site = app.settings.site.get("name", "") or "our school"
    unsubscribe = unsubscribe_url(app, site_url, subscriber, None)
    text = (f"{_greeting(subscriber.fields)}\n\nSomeone, hopefully you, asked to receive these newsletters from {site}:\n"
            + "".join(f"  - {name}\n" for name in list_names)
            + "\nThis address is already signed up for them, so nothing has changed and there is nothing to do.\n\n"
            f"To stop receiving our newsletters, follow this link:\n{unsubscribe}\n")
    return Message(to=[subscriber.email], subject=f"You are already subscribed to {site}", text=text,
                   sender=settings_of(app).sender or None, headers=_headers(unsubscribe, None, site_url))


def unsubscribe_request_message(app, site_url: str, subscriber, list_ids: list[int], list_names: list[str]) -> Message:
    """An unsubscribe form only asks: the link in this mail, used from the subscriber's own inbox, acts."""
    site = app.settings.site.get("name", "") or "our school"
    unsubscribe = unsubscribe_url(app, site_url, subscriber, list_ids)
    text = (f"{_greeting(subscriber.fields)}\n\nSomeone, hopefully you, asked to stop receiving these newsletters "
            f"from {site}:\n" + "".join(f"  - {name}\n" for name in list_names)
            + f"\nTo unsubscribe, follow this link and press the button:\n{unsubscribe}\n\n"
            "If you did not ask for this, ignore this email: your subscription stays as it is.\n")
    return Message(to=[subscriber.email], subject=f"Unsubscribe from {site}", text=text,
                   sender=settings_of(app).sender or None, headers=_headers(unsubscribe, None, site_url))


def mailing_message(app, site_url: str, recipient, list_id: int, list_name: str, subject: str,
                    body: str) -> Message:
    unsubscribe = unsubscribe_url(app, site_url, recipient, list_id)
    text = (f"{body.rstrip()}\n\n-- \nYou receive this email because you subscribed to {list_name}.\n"
            f"Unsubscribe with one click: {unsubscribe}\n")
    return Message(to=[recipient.email], subject=subject, text=text, sender=settings_of(app).sender or None,
                   headers=_headers(unsubscribe, list_id, site_url))
