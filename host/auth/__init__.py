"""Authentication: application passwords over HTTP Basic, for every REST request.

An essential part of the host (never disabled). Users, roles and capabilities live in
host.auth.users; plugins reach them through `request.user.can(...)` and the functions
there, never through the tables directly. This module also maps the per-user meta
capabilities, serves the authorize page (host.auth.pages), installs the first
administrator and adds the `user` and `app-password` commands (host.auth.cli).
"""

from __future__ import annotations

import base64
import binascii
import secrets


from ..registry import Page
from ..hookspecs import hookimpl
from ..rest.response import RestError
from .cli import app_password_group, user_group
from . import ratelimit


# Meta capabilities on one user (args[0] is the user id) and the primitive ones they need.
# Editing yourself needs nothing beyond being signed in; everything else needs the *_users cap.
USER_META_CAPABILITIES = {
    "edit_user": "edit_users", "delete_user": "delete_users", "promote_user": "promote_users",
    "remove_user": "remove_users",
}
# Managing a user's application passwords is allowed to whoever may edit that user.
APP_PASSWORD_META_CAPABILITIES = {
    "create_app_password", "list_app_passwords", "read_app_password", "edit_app_password",
    "delete_app_passwords", "delete_app_password",
}


@hookimpl
def startup(app):
    """A wrong `[auth]` table stops the start with a ConfigError naming the setting.

    Also makes the sign-in's dummy password hash now, so no request pays for it.
    """
    from . import users as user_service

    ratelimit.limits(app)
    user_service.dummy_password_hash()


@hookimpl
def map_meta_capability(app, user, capability, args):
    if capability in APP_PASSWORD_META_CAPABILITIES:
        capability = "edit_user"
    if capability not in USER_META_CAPABILITIES:
        return None
    if capability == "edit_user" and args and _as_int(args[0]) == user.id:
        return []
    return [USER_META_CAPABILITIES[capability]]


def _as_int(value) -> int | None:
    try:
        return int(getattr(value, "id", value))
    except (TypeError, ValueError):
        return None


@hookimpl
def register_pages(app):
    from . import pages
    from .pages import AUTHORIZE_PATH

    return [Page(AUTHORIZE_PATH, ("GET", "POST"), pages.authorize_page, name="authorize-application")]


@hookimpl
def site_installed(app, session):
    """The first administrator, with a random login password and an application password, printed once."""
    from sqlalchemy import select
    from . import users as user_service

    users = user_service.tables(app)["users"]
    if any("administrator" in row.roles.split(",") for row in session.execute(select(users.c.roles))):
        return ["an administrator exists already; no new one was created"]
    config = ratelimit.auth_table(app.settings)
    login, email = config["admin_login"], config["admin_email"]
    login_password = secrets.token_urlsafe(18)
    user = user_service.create_user(app, session, login, email, "administrator", login_password)
    app_password, _record = user_service.create_application_password(app, session, user.id, "sitehost install")
    return [
        f"administrator created: login {login!r}, email {email!r}",
        f"login password (for the authorize page; shown once): {login_password}",
        f"application password (HTTP Basic for the REST API; shown once): {app_password}",
    ]


@hookimpl
def register_commands(cli):
    cli.add_command(user_group)
    cli.add_command(app_password_group)


@hookimpl
def register_authentication(app):
    from .pages import AUTHORIZE_PATH

    return {"application-passwords": {"endpoints": {"authorization": "{site_url}" + AUTHORIZE_PATH}}}


# A verified sign-in is kept in process while nothing at all was committed to the database since
# it was checked (Database.commit_mark), for at most SIGN_IN_KEEP_SECONDS. See `authenticate`.
SIGN_IN_KEEP_SECONDS = 10.0
SIGN_IN_ENTRIES = 1024


@hookimpl
def authenticate(app, request):
    """HTTP Basic with a login (or email) and an application password; None when no header.

    A successful sign-in is kept per (identifier, client address, keyed digest of the password),
    with the database's commit mark read before it was checked. The next request with the same
    credentials from the same address is signed in from it only while the mark is unchanged, i.e.
    nothing was committed since by any process: revoking the password, changing the user and every
    failure the rate limiter records are commits, so each takes effect at the next request as
    before. A wrong password never matches a kept entry (only successes are kept) and goes the
    whole way, its failure counted. Failure counts only fall with time, so a source that was
    allowed stays allowed until something is committed. Elsewhere than on an SQLite file (no
    commit mark) every request is checked in the database.
    """
    from . import pages, ratelimit
    from . import users as user_service

    credentials = basic_credentials(request.header("authorization"))
    if credentials is None:
        return None
    identifier, password = credentials
    address = pages.client_address(app, request.environ)
    mark = app.db.commit_mark()
    signed_in = app.kept("auth.signed_in", SIGN_IN_ENTRIES, SIGN_IN_KEEP_SECONDS)
    kept_key = None
    if mark is not None:
        kept_key = (identifier, address, user_service.hash_application_password(
            user_service.normalize_application_password(password)))
        kept = signed_in.get(kept_key, mark)
        if kept is not None:
            kept_user, kept_record = kept
            return _signed_in(app, request, _fresh_user(kept_user), kept_record)
    # The user with their passwords and the failure counts of this source: one prepared read on
    # a plain connection (an email address: two more). Only this address's failures can refuse
    # it (ratelimit's docstring).
    refusal = None
    with app.db.read_connection() as connection:
        user, record, counts = user_service.find_application_password(app, connection, identifier, password, address)
        account = ratelimit.account_subject(user, identifier)
        try:
            recent_failures = ratelimit.check_allowed(app, account, address, connection) if counts is None \
                else ratelimit.check_counted(app, account, address, counts, connection)
        except ratelimit.TooManyAttempts as refused:
            refusal = refused
    if refusal is not None:
        if record is None:  # a guess made during the lock-out still counts against its source
            ratelimit.record_failure(app, account, address, slow=False)
        raise refusal.rest_error()
    if user is None or record is None:
        ratelimit.record_failure(app, account, address)
        # One answer whether or not the login exists: WordPress's invalid_username and
        # invalid_email tell an outsider which logins are real. README, Differences from WordPress.
        raise RestError("incorrect_password", "The provided password is an invalid application password.", 401)
    if recent_failures:
        ratelimit.clear_failures(app, account, address)  # a commit: this entry is stale at once, as it should be
    if kept_key is not None:
        signed_in.put(kept_key, mark, (_fresh_user(user), record))
    return _signed_in(app, request, user, record)


def _signed_in(app, request, user, record: dict):
    """`user`, signed in with the application password `record` (its last use noted once a day)."""
    from . import users as user_service

    if record["last_used"] is None or user_service.utcnow() - record["last_used"] >= user_service.LAST_USED_INTERVAL:
        with app.db.session(write=True) as session, session.begin():
            user_service.record_application_password_use(app, session, record, request.remote_addr)
    user.application_password_uuid = record["uuid"]
    request.application_password = {key: value for key, value in record.items() if key != "password_hash"}
    return user


def _fresh_user(user):
    """A copy of a kept User for one request: its remembered answers and password uuid are per request."""
    copied = object.__new__(type(user))
    copied.__dict__.update(user.__dict__)
    copied._answers = {}
    copied.application_password_uuid = None
    return copied


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """(identifier, password) from an `Authorization: Basic ...` header, or None."""
    if not header or header[:6].lower() != "basic ":
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if ":" not in decoded:
        return None
    identifier, password = decoded.split(":", 1)
    return identifier, password
