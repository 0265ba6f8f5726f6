"""Submissions per client address per minute, and autoreplies per recipient per day: the host's rate
limiter (host.ratelimit), counted in the database so every worker and node shares them.

A read refuses an address that used up its minute before any work is done; the submission's own
write transaction then counts one (refusing, and rolling the submission back, past the limit), so
the limit holds exactly even when several requests passed the read at the same moment.
"""

from __future__ import annotations

import email.utils
import hashlib

from host import RestError
from host.ratelimit import RateLimit, retry_after, take

SUBMISSIONS_SCOPE, AUTOREPLIES_SCOPE = "forms.submissions", "forms.autoreplies"
MINUTE, DAY = 60, 86400


def _refusal(seconds: int) -> RestError:
    return RestError("forms_rate_limited", f"Too many submissions from your address; try again in {seconds} "
                     "seconds.", 429, {"retry_after": seconds}, headers={"Retry-After": str(seconds)})


def precheck(app, session, address: str, limit: int) -> None:
    """Refuse (429) an address that used up this minute's submissions: a read, no lock taken."""
    if limit <= 0:
        return
    wait = retry_after(app, session, RateLimit(SUBMISSIONS_SCOPE, limit, MINUTE), address[:64])
    if wait:
        raise _refusal(wait)


def count_submission(app, session, address: str, limit: int) -> None:
    """Count one submission from `address` in the submission's own write transaction; 429 past `limit`."""
    if limit <= 0:
        return
    wait = take(app, session, RateLimit(SUBMISSIONS_SCOPE, limit, MINUTE), address[:64])
    if wait:
        raise _refusal(wait)


def recipient_key(address: str) -> str:
    """The digest an autoreply's recipient is counted under: case and a +tag do not make another address."""
    local, _, domain = email.utils.parseaddr(address)[1].strip().lower().rpartition("@")
    return hashlib.sha256(f"{local.split('+', 1)[0]}@{domain}".encode("utf-8")).hexdigest()


def take_autoreply(app, session, address: str, limit: int) -> bool:
    """Count one autoreply to `address` in the submission's write transaction; False past `limit` a day.

    Autoreplies go to whatever address a visitor types: without a limit per recipient, a form
    is a relay that mails anyone the visitor's text from the school's server.
    """
    if limit <= 0:
        return False
    return take(app, session, RateLimit(AUTOREPLIES_SCOPE, limit, DAY), recipient_key(address)) == 0
