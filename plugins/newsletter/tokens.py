"""Signed, expiring links (itsdangerous) and the keyed hash of erased addresses.

Both use the site's newsletter key, the host's site secret "newsletter.signing": random, made
on the first start, the same in every server process. Sites made before that store existed kept
the key in `newsletter_keys`; the host store adopts it, so links in mail already sent still work
and erased addresses are still recognised. A token names the subscriber, its random `nonce`
(erasing the subscriber voids every link it was sent) and what it does; itsdangerous signs it
with a timestamp and checks the age when it is used.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import select

from .tables import KEYS, table

SECRET_NAME = "newsletter.signing"  # of app.site_secret
KEY_NAME = "signing"  # its row in newsletter_keys, where versions before the host's store kept it
CONFIRM = "confirm"
UNSUBSCRIBE = "unsubscribe"
SALTS = {CONFIRM: "sitehost.newsletter.confirm", UNSUBSCRIBE: "sitehost.newsletter.unsubscribe"}
MAX_TOKEN_LENGTH = 1000  # ours are ~100 characters (~450 naming 50 lists); anything longer is not worth decoding
MAX_TOKEN_LISTS = 50  # an unsubscribe link names at most a form's lists (schemas.MAX_FORM_LISTS)


class TokenInvalid(Exception):
    """Not a token we signed (or not for this use)."""


class TokenExpired(Exception):
    """A token we signed, older than its use allows."""


@dataclass(frozen=True)
class Token:
    subscriber_id: int
    nonce: str
    list_ids: tuple[int, ...] | None  # unsubscribe: these lists; None: every list of the subscriber


def site_key(app) -> bytes:
    """The site's newsletter key (app.site_secret); a site made before it adopts its `newsletter_keys` row."""
    return app.site_secret(SECRET_NAME, adopt=lambda session: _key_kept_before(app, session))


def _key_kept_before(app, session) -> str | None:
    """The key earlier versions made in `newsletter_keys`: links in mail already sent are signed with it."""
    keys = table(app, KEYS)
    return session.execute(select(keys.c.value).where(keys.c.name == KEY_NAME)).scalar_one_or_none()


def _serializer(app, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(site_key(app), salt=SALTS[purpose])


def make_token(app, purpose: str, subscriber_id: int, nonce: str, list_ids: int | list[int] | None = None) -> str:
    """One list stays a bare number (the shape of every link mailed before), several a list."""
    if isinstance(list_ids, list) and len(list_ids) == 1:
        list_ids = list_ids[0]
    return _serializer(app, purpose).dumps([subscriber_id, nonce, list_ids])


def _list_ids(value) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if (isinstance(value, list) and 0 < len(value) <= MAX_TOKEN_LISTS
            and all(isinstance(item, int) and not isinstance(item, bool) for item in value)):
        return tuple(value)
    raise TokenInvalid()


def read_token(app, purpose: str, token: str, max_age: int) -> Token:
    """The token's content, or TokenInvalid / TokenExpired."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise TokenInvalid()
    try:
        data = _serializer(app, purpose).loads(token, max_age=max_age)
    except SignatureExpired:
        raise TokenExpired() from None
    except BadSignature:
        raise TokenInvalid() from None
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[0], int) and isinstance(data[1], str)):
        raise TokenInvalid()
    return Token(data[0], data[1], _list_ids(data[2]))


def email_hash(app, email_key: str) -> str:
    """Keyed SHA-256 of a lower-cased address: an erased address is recognised, never readable again."""
    return hmac.new(site_key(app), email_key.encode(), hashlib.sha256).hexdigest()


def address_hash(app, ip: str) -> str:
    """Keyed SHA-256 of a client's IP address for consent records ("" when there is none): evidence
    that matches a known address without keeping it readable."""
    return hmac.new(site_key(app), b"ip:" + ip.encode(), hashlib.sha256).hexdigest() if ip else ""


def same_nonce(stored: str, given: str) -> bool:
    return hmac.compare_digest(stored.encode(), given.encode())
