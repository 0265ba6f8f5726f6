"""Signed, expiring links (itsdangerous) and the keyed hash of erased addresses.

Both use the site's newsletter key: random, made on the first start and kept in
`newsletter_keys`, so every server process signs and checks with the same one. A token names
the subscriber, its random `nonce` (erasing the subscriber voids every link it was sent) and
what it does; itsdangerous signs it with a timestamp and checks the age when it is used.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from host.stash import StashKey

from .tables import KEYS, table

KEY_NAME = "signing"
CONFIRM = "confirm"
UNSUBSCRIBE = "unsubscribe"
SALTS = {CONFIRM: "sitehost.newsletter.confirm", UNSUBSCRIBE: "sitehost.newsletter.unsubscribe"}
MAX_TOKEN_LENGTH = 400  # ours are ~100 characters; anything longer is not worth decoding

SITE_KEY = StashKey[str]("newsletter.site_key")


class TokenInvalid(Exception):
    """Not a token we signed (or not for this use)."""


class TokenExpired(Exception):
    """A token we signed, older than its use allows."""


@dataclass(frozen=True)
class Token:
    subscriber_id: int
    nonce: str
    list_id: int | None  # unsubscribe: one list; None: every list of the subscriber


def load_site_key(app) -> str:
    """The site's key, made once per database; several processes starting together agree on one."""
    keys = table(app, KEYS)
    with app.db.session(write=True) as session:
        value = session.execute(select(keys.c.value).where(keys.c.name == KEY_NAME)).scalar_one_or_none()
        if value is None:
            try:
                with session.begin_nested():
                    session.execute(insert(keys).values(name=KEY_NAME, value=secrets.token_urlsafe(32)))
            except IntegrityError:
                pass  # another process made it first
            value = session.execute(select(keys.c.value).where(keys.c.name == KEY_NAME)).scalar_one()
        session.commit()
    app.stash[SITE_KEY] = value
    return value


def _serializer(app, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(app.stash[SITE_KEY], salt=SALTS[purpose])


def make_token(app, purpose: str, subscriber_id: int, nonce: str, list_id: int | None = None) -> str:
    return _serializer(app, purpose).dumps([subscriber_id, nonce, list_id])


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
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[0], int) and isinstance(data[1], str)
            and (data[2] is None or isinstance(data[2], int))):
        raise TokenInvalid()
    return Token(data[0], data[1], data[2])


def email_hash(app, email_key: str) -> str:
    """Keyed SHA-256 of a lower-cased address: an erased address is recognised, never readable again."""
    return hmac.new(app.stash[SITE_KEY].encode(), email_key.encode(), hashlib.sha256).hexdigest()


def same_nonce(stored: str, given: str) -> bool:
    return hmac.compare_digest(stored.encode(), given.encode())
