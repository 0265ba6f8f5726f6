"""Brute-force protection for sign-in: failures counted per account, per client address and per pair.

The failures are events of the host's rate limiter (the `rate_events` table, host.ratelimit, under
the scopes `signin.account`, `signin.ip` and `signin.pair`), so every server process and node sharing
the database sees the same numbers. What is particular to sign-in is what is read from them: Locks fall on the failing *source*, never on the account
(ten failures from anywhere used to lock the administrator out, their valid
application password included):

- an address with `max_failures_per_address` failures within `window_seconds` is refused
  for `lockout_seconds`, whatever account it names;
- an (account, address) pair with `max_failures` failures is refused for `lockout_seconds`;
  while the account is under attack (`max_failures` failures on it from all addresses
  together), a pair is refused after `slow_after` failures instead;
- a sign-in from an address without failures is never refused, so the account's owner (and
  any valid application password) still gets in during an attack from elsewhere.

The account is the user (by id) whether the login or the email was typed; an unknown
identifier counts under its lower-cased text. Refused attempts are counted too, so a loop
keeps only its own source locked. After `slow_after` failures on a pair, each further failure
is answered `slow_seconds` late. A successful sign-in clears that account's failures from
that address. Operators lift locks with `sitehost user unlock LOGIN` or `--address IP`
(unlock_account / unlock_address). Limits come from the `[auth]` table of sitehost.toml.
"""

from __future__ import annotations

import datetime
import math
import time
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select

from ..config import AUTH_DEFAULTS, AuthSettings, checked_table
from ..rest.response import RestError
from .models import utcnow

ACCOUNT_SCOPE = "signin.account"
ADDRESS_SCOPE = "signin.ip"
PAIR_SCOPE = "signin.pair"
SCOPES = (ACCOUNT_SCOPE, ADDRESS_SCOPE, PAIR_SCOPE)
SUBJECT_LENGTH = 200


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
        """The limits of the `[auth]` table, checked by host.config.AuthSettings (one ConfigError naming
        every bad key; load_settings checked a sitehost.toml already, this covers Settings made in code)."""
        table = auth_table(settings)
        return cls(**{spec.name: table[spec.name] for spec in fields(cls)})


def auth_table(settings) -> dict[str, Any]:
    """The `[auth]` table with its defaults, every key checked (host.config.AuthSettings)."""
    table = checked_table(AuthSettings(), settings.extra.get("auth"), "auth", settings.environment.get("auth"))
    return {**AUTH_DEFAULTS, **AuthSettings().load(table)}


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
    return identifier.strip().lower()[:SUBJECT_LENGTH]


def account_subject(user, identifier: str) -> str:
    """The account a sign-in names: the user's id (login and email alike), else the typed text."""
    return f"user:{user.id}" if user is not None else "name:" + normalize_login(identifier)


def events_table(app):
    """The host rate limiter's events, where sign-in failures are counted."""
    return app.host_tables["rate_events"]


def limits(app) -> SignInLimits:
    """The app's sign-in limits: its settings are frozen for its life, so they are kept without a version."""
    return app.kept("auth.limits", 1).get_or_build("limits", (), lambda: SignInLimits.from_settings(app.settings))


def _subjects(account: str, address: str) -> list[tuple[str, str]]:
    address = address or "-"  # a WSGI server that gives no address: all such requests are one source
    return [(ACCOUNT_SCOPE, account[:SUBJECT_LENGTH]), (ADDRESS_SCOPE, address[:SUBJECT_LENGTH]),
            (PAIR_SCOPE, f"{account}|{address}"[:SUBJECT_LENGTH])]


def check_allowed(app, account: str, address: str, connection=None) -> int:
    """Raise TooManyAttempts while this address, or this address for this account, is locked out;
    else return the pair's recent failures (0: nothing to clear on success).

    Runs on every authenticated request, so the three subjects are read by ONE prepared
    statement over the (scope, subject, at) index, on `connection` when the caller has
    one open (the request's authentication reads), else on a plain connection of its own.
    """
    rules = limits(app)
    now = utcnow()
    subjects = _subjects(account, address)
    params: dict[str, datetime.datetime | str] = {"since": now - datetime.timedelta(seconds=rules.window_seconds)}
    for index, (_scope, subject) in enumerate(subjects):
        params[f"subject_{index}"] = subject
    statement = _failures_statement(app, tuple(scope for scope, _subject in subjects))
    if connection is None:
        with app.db.read_connection() as own:
            found = {scope: (count, latest) for scope, count, latest in own.execute(statement, params)}
    else:
        found = {scope: (count, latest) for scope, count, latest in connection.execute(statement, params)}
    under_attack = found.get(ACCOUNT_SCOPE, (0, None))[0] >= rules.max_failures
    thresholds = {ADDRESS_SCOPE: rules.max_failures_per_address,
                  PAIR_SCOPE: min(rules.slow_after, rules.max_failures) if under_attack else rules.max_failures}
    wait = 0
    for scope, threshold in thresholds.items():
        count, latest = found.get(scope, (0, None))
        if count >= max(threshold, 1) and latest is not None:
            remaining = (latest + datetime.timedelta(seconds=rules.lockout_seconds) - now).total_seconds()
            wait = max(wait, math.ceil(remaining))
    if wait > 0:
        raise TooManyAttempts(wait)
    return found.get(PAIR_SCOPE, (0, None))[0]


def failure_count_columns(table, account_subject, pair_subject) -> list:
    """Three scalar subqueries (failures since :rate_since of the account, of :rate_address and of
    the pair), labelled rate_account, rate_address and rate_pair, for a sign-in look-up to select
    with its row: a successful sign-in then reads its limits in the same statement. The subjects
    are SQL expressions (bound values, or built from the looked-up row's columns)."""
    def failures(scope: str, subject, label: str):
        return (select(func.count()).select_from(table)
                .where(table.c.scope == scope, table.c.subject == subject, table.c.at >= bindparam("rate_since"))
                .scalar_subquery().label(label))

    return [failures(ACCOUNT_SCOPE, account_subject, "rate_account"),
            failures(ADDRESS_SCOPE, bindparam("rate_address"), "rate_address"),
            failures(PAIR_SCOPE, pair_subject, "rate_pair")]


def failure_count_params(app, address: str) -> dict:
    """The bound values `failure_count_columns` needs (besides the subjects the caller binds)."""
    return {"rate_since": utcnow() - datetime.timedelta(seconds=limits(app).window_seconds),
            "rate_address": _subjects("", address)[1][1]}


def pair_subject_suffix(address: str) -> str:
    """What follows the account in the pair's subject ("|address"); the whole is cut to SUBJECT_LENGTH."""
    return "|" + (address or "-")


def check_counted(app, account: str, address: str, counts: tuple[int, int, int], connection=None) -> int:
    """`check_allowed` for counts read with the sign-in look-up (account, address, pair): under every
    threshold, the pair's failures at once; at or over one, `check_allowed` reads the latest
    failure and raises TooManyAttempts while the lock-out lasts."""
    rules = limits(app)
    account_failures, address_failures, pair_failures = (int(count or 0) for count in counts)
    pair_threshold = min(rules.slow_after, rules.max_failures) if account_failures >= rules.max_failures \
        else rules.max_failures
    if address_failures >= max(rules.max_failures_per_address, 1) or pair_failures >= max(pair_threshold, 1):
        return check_allowed(app, account, address, connection)
    return pair_failures


def _failures_statement(app, scopes: tuple[str, ...]):
    """(scope, failures, latest) per scope since :since, for :subject_0 (, :subject_1 ...) of `scopes`."""
    table = events_table(app)
    return app.db.prepared("auth.sign_in_failures:" + ",".join(scopes), lambda: (
        select(table.c.scope, func.count(), func.max(table.c.at))
        .where(or_(*[and_(table.c.scope == scope, table.c.subject == bindparam(f"subject_{index}"))
                     for index, scope in enumerate(scopes)]),
               table.c.at >= bindparam("since"))
        .group_by(table.c.scope)))


def record_failure(app, account: str, address: str, slow: bool = True) -> None:
    """Count one failed (or refused) attempt, committed at once; prune old rows; slow the caller when due."""
    rules = limits(app)
    table = events_table(app)
    now = utcnow()
    keep_since = now - datetime.timedelta(seconds=max(rules.window_seconds, rules.lockout_seconds))
    subjects = _subjects(account, address)
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(table), [{"scope": scope, "subject": subject, "at": now}
                                        for scope, subject in subjects])
        session.execute(delete(table).where(table.c.scope.in_(SCOPES), table.c.at < keep_since))
        scope, subject = subjects[-1]  # the pair
        count, _latest = session.execute(select(func.count(), func.max(table.c.at)).where(
            table.c.scope == scope, table.c.subject == subject,
            table.c.at >= now - datetime.timedelta(seconds=rules.window_seconds))).one()
    if slow and rules.slow_seconds and count > rules.slow_after:
        time.sleep(rules.slow_seconds)


def clear_failures(app, account: str, address: str) -> None:
    """A successful sign-in forgets this account's failures from this address (not the address's own)."""
    table = events_table(app)
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.scope == PAIR_SCOPE, table.c.subject == _subjects(account, address)[-1][1]))


def unlock_account(app, session, user_id: int) -> int:
    """Forget every failure on the account, from every address (`sitehost user unlock LOGIN`)."""
    table = events_table(app)
    account = f"user:{user_id}"
    return session.execute(delete(table).where(or_(
        and_(table.c.scope == ACCOUNT_SCOPE, table.c.subject == account),
        and_(table.c.scope == PAIR_SCOPE, table.c.subject.startswith(account + "|", autoescape=True))))).rowcount


def unlock_address(app, session, address: str) -> int:
    """Forget every failure from the address (`sitehost user unlock --address IP`)."""
    table = events_table(app)
    return session.execute(delete(table).where(or_(
        and_(table.c.scope == ADDRESS_SCOPE, table.c.subject == address),
        and_(table.c.scope == PAIR_SCOPE, table.c.subject.endswith("|" + address, autoescape=True))))).rowcount
