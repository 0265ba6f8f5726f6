"""Browser sessions for the site's own pages, stored server-side in `auth_sessions`.

The cookie carries a random token; the table keeps its SHA-256, the user, the session's
CSRF token and an expiry. Sessions authenticate HTML pages only (the authorize page),
never REST requests, which use application passwords.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import secrets

from sqlalchemy import delete, insert, select

from .users import User, get_user, tables, utcnow

SESSION_COOKIE = "sitehost_session"
# Signed-out forms use a double-submit token: a random cookie that the form must echo.
FORM_COOKIE = "sitehost_form"
SESSION_LIFETIME = datetime.timedelta(days=2)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def tokens_match(expected: str | None, given: str | None) -> bool:
    return bool(expected) and bool(given) and hmac.compare_digest(str(expected), str(given))


def start_session(app, user_id: int) -> tuple[str, str]:
    """Create a session for `user_id`; returns (cookie token, CSRF token). Prunes expired sessions."""
    table = tables(app)["auth_sessions"]
    token, csrf = new_token(), new_token()
    now = utcnow()
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.expires < now))
        session.execute(insert(table).values(token_hash=_digest(token), user_id=user_id, csrf_token=csrf,
                                             created=now, expires=now + SESSION_LIFETIME))
    return token, csrf


def load_session(app, token: str | None) -> tuple[User, str] | None:
    """(user, CSRF token) of a live session, or None."""
    if not token:
        return None
    table = tables(app)["auth_sessions"]
    with app.db.session() as session:
        row = session.execute(select(table).where(table.c.token_hash == _digest(token))).first()
        if row is None or row.expires <= utcnow():
            return None
        user = get_user(app, session, row.user_id)
    return (user, row.csrf_token) if user is not None else None


def end_session(app, token: str | None) -> None:
    if not token:
        return
    table = tables(app)["auth_sessions"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.token_hash == _digest(token)))


def cookie_header(name: str, value: str, secure: bool, max_age: int | None) -> str:
    """A Set-Cookie value: HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS; max_age 0 deletes."""
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
