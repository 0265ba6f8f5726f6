"""The tvn1/tvn2 tokens of cal/views/v2 (§3): signed, time-limited, per visitor.

`tvn1` belongs to the visitor the page was rendered for (their user id), `tvn2` to any anonymous
visitor (user 0), so a page rendered for a signed-in user and kept by a cache still works for
visitors. The host's signer signs `[user id]` with a timestamp (itsdangerous: HMAC-SHA1 over the site's
calendar key, compared in constant time) and refuses tokens older than a day, as WordPress nonces last.
The key is the site secret "calendar.views" (keys.py): random, the same in every process.
"""

from __future__ import annotations

from host.signing import TokenInvalid

from .keys import views_signer

MAX_AGE = 24 * 3600
MAX_TOKEN_LENGTH = 200


def make_token(app, user_id: int) -> str:
    return views_signer(app).sign([int(user_id)])


def token_user(app, token) -> int | None:
    """The user id a token was made for, or None when it is not ours, altered or expired."""
    try:
        data = views_signer(app).unsign(token, MAX_AGE, MAX_TOKEN_LENGTH)
    except TokenInvalid:  # TokenExpired is a TokenInvalid
        return None
    if not isinstance(data, list) or len(data) != 1 or not isinstance(data[0], int):
        return None
    return data[0]


def valid_pair(app, user_id: int, tvn1, tvn2) -> bool:
    """§3: one of the two must be valid: tvn1 for this visitor, or tvn2 for anonymous visitors."""
    return token_user(app, tvn1) == user_id or token_user(app, tvn2) == 0
