"""Sign-up limits per client address and per email address: the host's rate limiter (host.ratelimit).

The events are the host's `rate_events` rows, so every server process sharing the database sees
the same counts. They are counted inside the sign-up's own transaction, so two processes never
both take the last slot (host.ratelimit says how).

- per address: `address_limit` accepted sign-ups per `address_window_seconds`; one more
  answers 429 (`rate_limited`). Addresses in `exempt_addresses` are not counted.
- per email: `email_limit` mails (confirmations, "already subscribed" notes, unsubscribe links)
  per `email_window_seconds`; a request beyond it is accepted (a sign-up's data kept) but sends
  no further mail, so nobody can flood a family's inbox.
  The email is counted under its keyed hash, never in clear.
"""

from __future__ import annotations

from host import RestError, client_address as host_client_address
from host.ratelimit import RateLimit, take

from .settings import settings_of
from .tokens import email_hash

ADDRESS_SCOPE, EMAIL_SCOPE = "newsletter.address", "newsletter.email"


def client_address(app, environ) -> str:
    """The client's address by the host's rule (X-Forwarded-For only from `trusted_proxies`), at most 100 characters."""
    return host_client_address(app, environ)[:100]


def check_address(app, session, address: str, message: str) -> None:
    """Count one sign-up from `address`, or raise 429 when its window is full."""
    settings = settings_of(app)
    if address in settings.exempt_addresses:
        return
    rule = RateLimit(ADDRESS_SCOPE, settings.address_limit, settings.address_window_seconds)
    retry = take(app, session, rule, (address or "-")[:100])
    if retry:
        raise RestError("rate_limited", message, 429, {"retry_after": retry}, headers={"Retry-After": str(retry)})


def take_email_slot(app, session, email_key: str) -> bool:
    """Whether one more mail may go to this address now (and count it if so)."""
    settings = settings_of(app)
    rule = RateLimit(EMAIL_SCOPE, settings.email_limit, settings.email_window_seconds)
    return take(app, session, rule, email_hash(app, email_key)) == 0
