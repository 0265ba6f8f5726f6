"""The tvn1/tvn2 tokens of cal/views/v2 (§3): signed, time-limited, per visitor.

`tvn1` belongs to the visitor the page was rendered for (their user id), `tvn2` to any anonymous
visitor (user 0), so a page rendered for a signed-in user and kept by a cache still works for
visitors. itsdangerous signs `[user id]` with a timestamp (HMAC-SHA1 over the site's calendar
key, compared in constant time) and refuses tokens older than a day, as WordPress nonces last.
The key is the site secret "calendar.views" (keys.py): random, the same in every process.
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeTimedSerializer

from .keys import views_key

SALT = "sitehost.calendar.views"
MAX_AGE = 24 * 3600
MAX_TOKEN_LENGTH = 200


def _serializer(app) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(views_key(app), salt=SALT)


def make_token(app, user_id: int) -> str:
    return _serializer(app).dumps([int(user_id)])


def token_user(app, token) -> int | None:
    """The user id a token was made for, or None when it is not ours, altered or expired."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    try:
        data = _serializer(app).loads(token, max_age=MAX_AGE)
    except BadSignature:  # SignatureExpired is a BadSignature
        return None
    if not isinstance(data, list) or len(data) != 1 or not isinstance(data[0], int):
        return None
    return data[0]


def valid_pair(app, user_id: int, tvn1, tvn2) -> bool:
    """§3: one of the two must be valid: tvn1 for this visitor, or tvn2 for anonymous visitors."""
    return token_user(app, tvn1) == user_id or token_user(app, tvn2) == 0
