"""One token signer for every plugin: `app.signer(purpose)`.

A Signer holds one of the site's secrets (host.site_secrets: random, made once per site, the same
in every process) and one purpose. `sign`/`unsign` make and check URL-safe tokens with
itsdangerous (a timestamp inside, the age checked on use, the signature compared in constant time,
the salt `sitehost.<purpose>` so a token made for one purpose is refused by every other).
`digest`/`matches` give a keyed SHA-256 of a text (a cookie value, an erased address, a daily
nonce) and compare one in constant time. `Signer(key, purpose)` also takes a key the site shares
with a service (a webhook's secret), whose signatures are such digests.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

MAX_TOKEN_LENGTH = 1000  # longer text is never a token worth decoding


class TokenInvalid(Exception):
    """Not a token signed for this purpose (altered, made for another use, or not ours)."""


class TokenExpired(TokenInvalid):
    """A token signed for this purpose, older than its use allows."""


class Signer:
    """Signs and checks tokens and digests of one purpose with one site secret."""

    def __init__(self, key: bytes, purpose: str):
        self.purpose = purpose
        self._key = key
        self._serializer = URLSafeTimedSerializer(key, salt=f"sitehost.{purpose}")

    def sign(self, value: Any) -> str:
        """A URL-safe token carrying `value` (anything JSON can hold) and the time it was made."""
        return self._serializer.dumps(value)

    def unsign(self, token: Any, max_age: int, max_length: int = MAX_TOKEN_LENGTH) -> Any:
        """The value of a token signed for this purpose at most `max_age` seconds ago; TokenExpired when
        older, TokenInvalid for anything else (not a string, too long, altered, another purpose's)."""
        if not isinstance(token, str) or not token or len(token) > max_length:
            raise TokenInvalid()
        try:
            return self._serializer.loads(token, max_age=max_age)
        except SignatureExpired:
            raise TokenExpired() from None
        except BadSignature:
            raise TokenInvalid() from None

    def digest(self, text: str | bytes) -> str:
        """HMAC-SHA256 of `text` under the key, hex: the same text gives the same digest in every process.
        The key alone separates purposes here: put in `text` what it stands for ("ip:" + address)."""
        message = text.encode("utf-8") if isinstance(text, str) else text
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    @staticmethod
    def matches(given: Any, expected: str) -> bool:
        """Whether `given` is `expected`, compared in constant time (False for anything not a string)."""
        return isinstance(given, str) and hmac.compare_digest(given.encode("utf-8", "replace"),
                                                              expected.encode("utf-8"))
