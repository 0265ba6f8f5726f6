"""Brute-force protection for sign-in: failed attempts counted per login and per client address.

The counts live in the `sign_in_failures` table, so every server process sharing the
database sees the same numbers. After `slow_after` failures within `window_seconds` each
further failure is answered `slow_seconds` late; after `max_failures` (per login) or
`max_failures_per_address` (per address) the login or address is refused with 429
`too_many_sign_in_attempts` for `lockout_seconds`. A correct password does not lift a
lock-out (that would defeat it), and a successful sign-in is never slowed; it clears
the failures of that login. Limits come from the `[auth]` table of sitehost.toml.
"""

from __future__ import annotations

import datetime
import math
import time
from dataclasses import dataclass, fields

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select

from ..config import ConfigError
from ..rest.response import RestError
from .users import tables, utcnow

LOGIN_SCOPE = "login"
ADDRESS_SCOPE = "ip"


@dataclass(frozen=True)
class SignInLimits:
    max_failures: int = 10
    max_failures_per_address: int = 50  # several people may share one school address
    window_seconds: int = 900
    lockout_seconds: int = 900
    slow_after: int = 5
    slow_seconds: float = 1.0

    @classmethod
    def from_settings(cls, settings) -> "SignInLimits":
        table = settings.extra.get("auth", {})
        if not isinstance(table, dict):
            raise ConfigError("[auth] must be a table")
        values = {}
        for spec in fields(cls):
            if spec.name not in table:
                continue
            value = table[spec.name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ConfigError(f"[auth] {spec.name} must be a number of at least 0, not {value!r}")
            if spec.name.startswith("max_") and value < 1:
                raise ConfigError(f"[auth] {spec.name} must be at least 1")
            values[spec.name] = value if spec.name == "slow_seconds" else int(value)
        return cls(**values)


class TooManyAttempts(Exception):
    """Sign-in refused during a lock-out; `retry_after` in whole seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"retry after {retry_after} seconds")
        self.retry_after = retry_after

    def rest_error(self) -> RestError:
        return RestError(
            "too_many_sign_in_attempts",
            f"Too many failed sign-in attempts. Try again in {describe_wait(self.retry_after)}.",
            429, {"retry_after": self.retry_after}, headers={"Retry-After": str(self.retry_after)})


def describe_wait(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def normalize_login(identifier: str) -> str:
    return identifier.strip().lower()[:200]


def limits(app) -> SignInLimits:
    cached = getattr(app, "_sign_in_limits", None)
    if cached is None:
        cached = SignInLimits.from_settings(app.settings)
        app._sign_in_limits = cached
    return cached


def _subjects(identifier: str, address: str) -> list[tuple[str, str]]:
    subjects = [(LOGIN_SCOPE, normalize_login(identifier))]
    if address:
        subjects.append((ADDRESS_SCOPE, address[:200]))
    return subjects


def _recent(session, table, scope: str, subject: str, since: datetime.datetime):
    """(count, latest failure) for one subject since `since`."""
    return session.execute(select(func.count(), func.max(table.c.failed_at)).where(
        table.c.scope == scope, table.c.subject == subject, table.c.failed_at >= since)).one()


def check_allowed(app, identifier: str, address: str, connection=None) -> int:
    """Raise TooManyAttempts while the login or the address is locked out; else the login's recent failures.

    Runs on every authenticated request, so both subjects are read by ONE prepared statement
    over the (scope, subject, failed_at) index, on `connection` when the caller has one open
    (the request's authentication reads), else on a plain connection of its own.
    """
    rules = limits(app)
    now = utcnow()
    subjects = _subjects(identifier, address)
    params = {"since": now - datetime.timedelta(seconds=rules.window_seconds)}
    for index, (_scope, subject) in enumerate(subjects):
        params[f"subject_{index}"] = subject
    statement = _failures_statement(app, tuple(scope for scope, _subject in subjects))
    if connection is None:
        with app.db.engine.connect() as own:
            found = {scope: (count, latest) for scope, count, latest in own.execute(statement, params)}
    else:
        found = {scope: (count, latest) for scope, count, latest in connection.execute(statement, params)}
    wait = 0
    for scope, _subject in subjects:
        count, latest = found.get(scope, (0, None))
        threshold = rules.max_failures if scope == LOGIN_SCOPE else rules.max_failures_per_address
        if count >= threshold and latest is not None:
            remaining = (latest + datetime.timedelta(seconds=rules.lockout_seconds) - now).total_seconds()
            wait = max(wait, math.ceil(remaining))
    if wait > 0:
        raise TooManyAttempts(wait)
    return found.get(LOGIN_SCOPE, (0, None))[0]


def _failures_statement(app, scopes: tuple[str, ...]):
    """(scope, failures, latest) per scope since :since, for :subject_0 (, :subject_1) of `scopes`."""
    table = tables(app)["sign_in_failures"]
    return app.db.prepared("auth.sign_in_failures:" + ",".join(scopes), lambda: (
        select(table.c.scope, func.count(), func.max(table.c.failed_at))
        .where(or_(*[and_(table.c.scope == scope, table.c.subject == bindparam(f"subject_{index}"))
                     for index, scope in enumerate(scopes)]),
               table.c.failed_at >= bindparam("since"))
        .group_by(table.c.scope)))


def record_failure(app, identifier: str, address: str) -> None:
    """Count one failed attempt (committed at once), prune old rows, and slow the caller when due."""
    rules = limits(app)
    table = tables(app)["sign_in_failures"]
    now = utcnow()
    keep_since = now - datetime.timedelta(seconds=max(rules.window_seconds, rules.lockout_seconds))
    subjects = _subjects(identifier, address)
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(table), [{"scope": scope, "subject": subject, "failed_at": now}
                                        for scope, subject in subjects])
        session.execute(delete(table).where(table.c.failed_at < keep_since))
        scope, subject = subjects[0]
        count, _latest = _recent(session, table, scope, subject, now - datetime.timedelta(seconds=rules.window_seconds))
    if rules.slow_seconds and count > rules.slow_after:
        time.sleep(rules.slow_seconds)


def clear_failures(app, identifier: str) -> None:
    """A successful sign-in forgets the failures of that login (not of the address)."""
    table = tables(app)["sign_in_failures"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.scope == LOGIN_SCOPE, table.c.subject == normalize_login(identifier)))
