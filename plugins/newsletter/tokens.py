"""Signed, expiring links and the keyed hash of erased addresses, by the host's signer (app.signer).

Both use the site's newsletter key, the host's site secret "newsletter.signing": random, made
on the first start, the same in every server process. Sites made before that store existed kept
the key in `newsletter_keys`; the host store adopts it, so links in mail already sent still work
and erased addresses are still recognised. A token names the subscriber, its random `nonce`
(erasing the subscriber voids every link it was sent) and what it does; the signer stamps it with
the time and checks the age when it is used. The purposes' salts ("sitehost.newsletter.confirm",
"sitehost.newsletter.unsubscribe") are the ones links were always signed with.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from host.signing import Signer, TokenInvalid

from .tables import KEYS, table

SECRET_NAME = "newsletter.signing"  # of app.site_secret
KEY_NAME = "signing"  # its row in newsletter_keys, where versions before the host's store kept it
CONFIRM = "confirm"
UNSUBSCRIBE = "unsubscribe"
MAX_TOKEN_LISTS = 50  # an unsubscribe link names at most a form's lists (schemas.MAX_FORM_LISTS)

@dataclass(frozen=True)
class Token:
    subscriber_id: int
    nonce: str
    list_ids: tuple[int, ...] | None  # unsubscribe: these lists; None: every list of the subscriber


def signer(app, purpose: str = CONFIRM) -> Signer:
    """The newsletter's signer of `purpose`, on the site's newsletter key (adopting the `newsletter_keys` row)."""
    return app.signer(f"newsletter.{purpose}", SECRET_NAME, adopt=lambda session: _key_kept_before(app, session))


def _key_kept_before(app, session) -> str | None:
    """The key earlier versions made in `newsletter_keys`: links in mail already sent are signed with it."""
    keys = table(app, KEYS)
    return session.execute(select(keys.c.value).where(keys.c.name == KEY_NAME)).scalar_one_or_none()


def make_token(app, purpose: str, subscriber_id: int, nonce: str, list_ids: int | list[int] | None = None) -> str:
    """One list stays a bare number (the shape of every link mailed before), several a list."""
    if isinstance(list_ids, list) and len(list_ids) == 1:
        list_ids = list_ids[0]
    return signer(app, purpose).sign([subscriber_id, nonce, list_ids])


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
    data = signer(app, purpose).unsign(token, max_age)
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[0], int) and isinstance(data[1], str)):
        raise TokenInvalid()
    return Token(data[0], data[1], _list_ids(data[2]))


def email_hash(app, email_key: str) -> str:
    """Keyed SHA-256 of a lower-cased address: an erased address is recognised, never readable again."""
    return signer(app).digest(email_key)


def address_hash(app, ip: str) -> str:
    """Keyed SHA-256 of a client's IP address for consent records ("" when there is none): evidence
    that matches a known address without keeping it readable."""
    return signer(app).digest("ip:" + ip) if ip else ""


def same_nonce(stored: str, given: str) -> bool:
    return Signer.matches(given, stored)
