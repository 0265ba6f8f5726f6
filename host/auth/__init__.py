"""Authentication: application passwords over HTTP Basic, for every REST request.

An essential part of the host (never disabled). Users, roles and capabilities live in
host.auth.users; plugins reach them through `request.user.can(...)` and the functions
there, never through the tables directly.
"""

from __future__ import annotations

import base64
import binascii

import pluggy

from ..rest.response import RestError
from . import users as user_service

hookimpl = pluggy.HookimplMarker("sitehost")

AUTHORIZE_PATH = "/authorize-application"


@hookimpl
def register_authentication(app):
    return {"application-passwords": {"endpoints": {"authorization": "{site_url}" + AUTHORIZE_PATH}}}


@hookimpl
def authenticate(app, request):
    """HTTP Basic with a login (or email) and an application password; None when no header."""
    credentials = basic_credentials(request.header("authorization"))
    if credentials is None:
        return None
    identifier, password = credentials
    with app.db.session() as session:
        user = user_service.find_user(app, session, identifier)
        if user is None:
            if "@" in identifier:
                raise RestError("invalid_email", "<strong>Error:</strong> Unknown email address. "
                                "Check again or try your username.", 401)
            raise RestError("invalid_username", "<strong>Error:</strong> Unknown username. "
                            "Check again or try your email address.", 401)
        record = user_service.match_application_password(app, session, user.id, password)
        if record is None:
            raise RestError("incorrect_password", "The provided password is an invalid application password.", 401)
    if record["last_used"] is None or user_service.utcnow() - record["last_used"] >= user_service.LAST_USED_INTERVAL:
        with app.db.session(write=True) as session, session.begin():
            user_service.record_application_password_use(app, session, record, request.remote_addr)
    user.application_password_uuid = record["uuid"]
    request.application_password = record
    return user


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
