"""API keys for outside apps (a timetable app, a parents' portal): issue, list, revoke, verify.

A key is a pair: the public `key_...` and the `secret_...` shown once when it is issued. Only a
keyed BLAKE2b digest of the secret is stored, as the host stores application passwords: the
secret is 256 random bits, so a slow hash would add nothing but latency to every call. Calls
send `Authorization: Basic base64(key:secret)`; a key signs its caller in as the user it was
issued to, for lms/v1 routes only, and its `permission` level is checked by the routes (the
read routes need a level that includes reading). Wrong secrets count as failed sign-ins in the
host's lock-out (per key and per address), exactly as wrong application passwords do.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import secrets
from typing import Any

from sqlalchemy import bindparam, delete, insert, literal_column, select, update

from host import RestError
from host import basic_credentials, client_address
from host.auth import users as user_service
from host.ratelimit import sign_in as ratelimit

from .permissions import PERMISSIONS
from .tables import API_KEYS, table

NAMESPACE_PREFIX = "/lms/v1"
KEY_PREFIX, SECRET_PREFIX = "key_", "secret_"
READING = frozenset({"read", "read_write", "all"})
_DIGEST_KEY = b"sitehost-lms-api-key-v1"
LAST_USED_INTERVAL = datetime.timedelta(hours=1)
# Verified keys kept in process: (key, client address, digest of the secret) -> (commit mark, until, row).
KEPT_SECONDS = 10.0
KEPT_ENTRIES = 1024


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def hash_secret(secret: str) -> str:
    return hashlib.blake2b(secret.encode("utf-8"), key=_DIGEST_KEY, digest_size=32).hexdigest()


def public_record(row: Any) -> dict:
    """A key as listings show it: never the secret or its hash."""
    return {"id": row.id, "user_id": row.user_id, "key": row.key, "permission": row.permission,
            "description": row.description, "created": row.created.isoformat(),
            "last_used": row.last_used.isoformat() if row.last_used else None}


def create_key(app, session, user_id: int, permission: str, description: str = "") -> tuple[dict, str]:
    """Issue a key for `user_id`: (its public record, the secret, which is never shown again)."""
    if permission not in PERMISSIONS:
        raise ValueError(f"permission must be one of {', '.join(PERMISSIONS)}")
    key = KEY_PREFIX + secrets.token_hex(16)
    secret = SECRET_PREFIX + secrets.token_hex(32)
    keys = table(app, API_KEYS)
    new_id = session.execute(insert(keys).values(
        user_id=user_id, key=key, secret_hash=hash_secret(secret), permission=permission,
        description=description, created=utcnow(), last_used=None)).inserted_primary_key[0]
    row = session.execute(select(keys).where(keys.c.id == new_id)).one()
    return public_record(row), secret


def list_keys(app, session, user_id: int | None = None) -> list[dict]:
    keys = table(app, API_KEYS)
    query = select(keys).order_by(keys.c.id)
    if user_id is not None:
        query = query.where(keys.c.user_id == user_id)
    return [public_record(row) for row in session.execute(query)]


def revoke_key(app, session, key_id: int) -> dict | None:
    """Delete a key for good; its record as it was, or None when there is no such key."""
    keys = table(app, API_KEYS)
    row = session.execute(select(keys).where(keys.c.id == key_id)).first()
    if row is None:
        return None
    session.execute(delete(keys).where(keys.c.id == key_id))
    return public_record(row)


def _refused() -> RestError:
    return RestError("rest_forbidden", "Sorry, you are not allowed to do that.", 401)


def authenticate(app, request):
    """The key's user when an lms/v1 request sends `key_...:secret` over Basic; None otherwise.

    Anything else (no header, an application password, another namespace) is left to the
    host's authentication. A wrong or unknown pair is refused with 401 rest_forbidden and
    counted by the sign-in lock-out, so guessing secrets is as slow as guessing passwords.
    """
    path = request.path
    if not (path == NAMESPACE_PREFIX or path.startswith(NAMESPACE_PREFIX + "/")):
        return None
    credentials = basic_credentials(request.header("authorization"))
    if credentials is None or not credentials[0].startswith(KEY_PREFIX):
        return None
    key, secret = credentials
    address = client_address(app, request.environ)
    # A verified key is kept while nothing was committed to the database since it was checked
    # (host Database.commit_mark): a revoked key, a changed user and every failure the lock-out
    # records are commits, so they take effect at the next call as before (app.kept "lms.kept_sign_ins").
    mark = app.db.commit_mark()
    kept_sign_ins = app.kept("lms.kept_sign_ins", KEPT_ENTRIES, KEPT_SECONDS)
    kept_key = (key, address, hash_secret(secret)) if mark is not None else None
    if kept_key is not None:
        kept = kept_sign_ins.get(kept_key, mark)
        if kept is not None:
            return _signed_in(app, request, kept)
    keys = table(app, API_KEYS)
    users = user_service.tables(app)["users"]
    account = "lms-api-key:" + key[:80].lower()
    failures = ratelimit.events_table(app)
    # The key with its user's row and the sign-in failures of this key, this address and the pair,
    # in one prepared statement (this runs on every call of an outside app). It answers one row
    # for an unknown key too (its columns NULL), so both cost the same.
    lookup = app.db.prepared("lms.api_key_with_user_and_failures", lambda: select(
        users, keys.c.id.label("lms_key_id"), keys.c.secret_hash.label("lms_secret_hash"),
        keys.c.permission.label("lms_permission"), keys.c.last_used.label("lms_last_used"),
        *ratelimit.failure_count_columns(failures, bindparam("rate_account"), bindparam("rate_pair")))
        .select_from(select(literal_column("1").label("one")).subquery("one_row")
                     .outerjoin(keys, keys.c.key == bindparam("key"))
                     .outerjoin(users, users.c.id == keys.c.user_id)))
    pair = ratelimit.pair_subject_suffix(address)
    with app.db.read_connection() as connection:
        found = connection.execute(lookup, {
            "key": key[:80] if len(key) <= 80 else "", "rate_account": account[:ratelimit.SUBJECT_LENGTH],
            "rate_pair": (account + pair)[:ratelimit.SUBJECT_LENGTH], **ratelimit.failure_count_params(app, address),
        }).one()
        counts = (found.rate_account, found.rate_address, found.rate_pair)
        row = found if len(key) <= 80 and found.lms_key_id is not None and found.id is not None else None
        # Hash even when the key is unknown, so the answer takes as long either way.
        matches = hmac.compare_digest(row.lms_secret_hash if row is not None else "", hash_secret(secret))
        try:
            recent_failures = ratelimit.check_counted(app, account, address, counts, connection)
        except ratelimit.TooManyAttempts as refused:
            if not matches:
                ratelimit.record_failure(app, account, address, slow=False)
            raise refused.rest_error() from None
    if row is None or not matches:
        ratelimit.record_failure(app, account, address)
        raise _refused()
    if recent_failures:
        ratelimit.clear_failures(app, account, address)  # a commit: the entry below is stale at once
    if kept_key is not None:
        kept_sign_ins.put(kept_key, mark, row)
    return _signed_in(app, request, row)


def _signed_in(app, request, row):
    """The key's user for this request (the key's last use noted at most hourly)."""
    now = utcnow()
    if row.lms_last_used is None or now - row.lms_last_used >= LAST_USED_INTERVAL:
        keys = table(app, API_KEYS)
        with app.db.session(write=True) as session, session.begin():
            session.execute(update(keys).where(keys.c.id == row.lms_key_id).values(last_used=now))
    request.state.lms_api_key = {"id": row.lms_key_id, "permission": row.lms_permission}
    return user_service.User(app, row)


def api_key_of(request) -> dict | None:
    """The key this request signed in with ({id, permission}), or None (application password, anonymous)."""
    return request.state.get("lms_api_key")
