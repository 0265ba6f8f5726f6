"""Users, their capabilities, and application passwords: the host API that plugins call.

Login passwords use argon2 (slow on purpose: they are chosen by people). Application
passwords are 24 random characters from 62 symbols (about 143 bits), so a keyed BLAKE2b
digest is enough to store them and keeps every authenticated API request fast; this is
the same trade-off the reference system makes.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import re
import secrets
import string
import uuid as uuid_module
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, insert, select, update

from .roles import ROLE_CAPABILITIES, ROLES

APP_PASSWORD_ALPHABET = string.ascii_letters + string.digits
APP_PASSWORD_LENGTH = 24
_APP_PASSWORD_KEY = b"sitehost-application-password-v1"
_NON_ALPHANUMERIC = re.compile(r"[^A-Za-z0-9]")
_password_hasher = PasswordHasher()

# Meta capabilities name an action on one object; plugins map them to primitive ones
# through the `map_meta_capability` hook.
LAST_USED_INTERVAL = datetime.timedelta(hours=24)


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


class User:
    """A signed-in user. `can()` answers capability questions, per object when given one."""

    is_authenticated = True

    def __init__(self, app, row: Any):
        self.app = app
        self.id: int = row.id
        self.login: str = row.login
        self.email: str = row.email
        self.display_name: str = row.display_name
        self.slug: str = row.slug
        self.url: str = row.url
        self.description: str = row.description
        self.first_name: str = row.first_name
        self.last_name: str = row.last_name
        self.registered: datetime.datetime = row.registered
        self.roles: tuple[str, ...] = tuple(role for role in row.roles.split(",") if role)
        self.application_password_uuid: str | None = None
        self._capabilities: frozenset[str] | None = None

    @property
    def capabilities(self) -> frozenset[str]:
        if self._capabilities is None:
            caps: set[str] = set()
            for role in self.roles:
                caps |= ROLE_CAPABILITIES.get(role, frozenset())
            for capability, roles in self.app.registry.capabilities.items():
                if set(roles) & set(self.roles):
                    caps.add(capability)
            self._capabilities = frozenset(caps)
        return self._capabilities

    def can(self, capability: str, *args: Any) -> bool:
        """Primitive capability, or a meta capability on an object (`can("edit_post", post)`)."""
        required = self.app.hook.map_meta_capability(app=self.app, user=self, capability=capability, args=args)
        if required is None:
            required = [capability]
        return all(cap in self.capabilities for cap in required)

    def __repr__(self) -> str:
        return f"User({self.id}, {self.login!r}, roles={self.roles})"


def tables(app) -> dict:
    return app.auth_tables


# --- users -----------------------------------------------------------------------------

def hash_login_password(password: str) -> str:
    return _password_hasher.hash(password)


def verify_login_password(stored_hash: str, password: str) -> bool:
    if not stored_hash:
        return False
    try:
        return _password_hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def slugify_login(login: str) -> str:
    return re.sub(r"[^a-z0-9_-]+", "-", login.lower()).strip("-") or "user"


def create_user(app, session, login: str, email: str, role: str = "subscriber", password: str | None = None,
                display_name: str = "", **extra: Any) -> User:
    """Insert a user; raises ValueError with a clear message for a bad role or a taken login/email."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    users = tables(app)["users"]
    taken = session.execute(select(users.c.login, users.c.email).where(
        (func.lower(users.c.login) == login.lower()) | (func.lower(users.c.email) == email.lower()))).first()
    if taken is not None:
        which = "login" if taken.login.lower() == login.lower() else "email"
        raise ValueError(f"a user with that {which} already exists")
    values = {
        "login": login, "email": email, "display_name": display_name or login, "slug": slugify_login(login),
        "roles": role, "password_hash": hash_login_password(password) if password else "",
        "registered": utcnow(),
    }
    values.update(extra)
    user_id = session.execute(insert(users).values(**values)).inserted_primary_key[0]
    return get_user(app, session, user_id)


def get_user(app, session, user_id: int) -> User | None:
    users = tables(app)["users"]
    row = session.execute(select(users).where(users.c.id == user_id)).first()
    return User(app, row) if row is not None else None


def find_user(app, session, identifier: str) -> User | None:
    """Look a user up by login, then by email when the identifier looks like one."""
    users = tables(app)["users"]
    row = session.execute(select(users).where(users.c.login == identifier)).first()
    if row is None and "@" in identifier:
        row = session.execute(select(users).where(func.lower(users.c.email) == identifier.lower())).first()
    return User(app, row) if row is not None else None


# --- application passwords -------------------------------------------------------------

def generate_application_password() -> str:
    return "".join(secrets.choice(APP_PASSWORD_ALPHABET) for _ in range(APP_PASSWORD_LENGTH))


def display_application_password(password: str) -> str:
    """`abcd EFGH ijkl ...`: groups of four, as the password is shown once."""
    return " ".join(password[index:index + 4] for index in range(0, len(password), 4))


def hash_application_password(password: str) -> str:
    digest = hashlib.blake2b(password.encode(), digest_size=30, key=_APP_PASSWORD_KEY).digest()
    return "$b2$" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def normalize_application_password(password: str) -> str:
    """Every character that is not a letter or digit is ignored (spaces, dashes)."""
    return _NON_ALPHANUMERIC.sub("", password)


def create_application_password(app, session, user_id: int, name: str, app_id: str = "") -> tuple[str, dict]:
    """Create a password for `user_id`; returns (password in display form, record)."""
    password = generate_application_password()
    record = {
        "uuid": str(uuid_module.uuid4()), "user_id": user_id, "app_id": app_id or "", "name": name,
        "password_hash": hash_application_password(password), "created": utcnow(),
        "last_used": None, "last_ip": None,
    }
    session.execute(insert(tables(app)["application_passwords"]).values(**record))
    return display_application_password(password), record


def list_application_passwords(app, session, user_id: int) -> list[dict]:
    passwords = tables(app)["application_passwords"]
    rows = session.execute(select(passwords).where(passwords.c.user_id == user_id)
                           .order_by(passwords.c.created, passwords.c.uuid)).mappings().all()
    return [dict(row) for row in rows]


def get_application_password(app, session, user_id: int, uuid: str) -> dict | None:
    passwords = tables(app)["application_passwords"]
    row = session.execute(select(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid)).mappings().first()
    return dict(row) if row is not None else None


def delete_application_password(app, session, user_id: int, uuid: str) -> bool:
    passwords = tables(app)["application_passwords"]
    result = session.execute(delete(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid))
    return result.rowcount > 0


def delete_all_application_passwords(app, session, user_id: int) -> int:
    passwords = tables(app)["application_passwords"]
    return session.execute(delete(passwords).where(passwords.c.user_id == user_id)).rowcount


def rename_application_password(app, session, user_id: int, uuid: str, name: str) -> None:
    passwords = tables(app)["application_passwords"]
    session.execute(update(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid).values(name=name))


def match_application_password(app, session, user_id: int, password: str) -> dict | None:
    """The record whose hash matches `password`, compared in constant time, or None."""
    candidate = hash_application_password(normalize_application_password(password))
    found = None
    for record in list_application_passwords(app, session, user_id):
        if hmac.compare_digest(record["password_hash"], candidate):
            found = record
    return found


def record_application_password_use(app, session, record: dict, remote_addr: str) -> None:
    """Update last_used / last_ip at most once a day per password (keeps writes off the hot path)."""
    now = utcnow()
    if record["last_used"] is not None and now - record["last_used"] < LAST_USED_INTERVAL:
        return
    passwords = tables(app)["application_passwords"]
    session.execute(update(passwords).where(passwords.c.uuid == record["uuid"])
                    .values(last_used=now, last_ip=remote_addr or None))
