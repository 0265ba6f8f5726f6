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
import json
import re
import secrets
import string
import uuid as uuid_module
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import String, bindparam, case, cast, delete, func, insert, literal, literal_column, or_, select, update

from .. import slug_family
from . import ratelimit
from .models import utcnow as utcnow  # where the tables are; read here by host.auth.sessions
from .roles import ROLE_CAPABILITIES, ROLES

APP_PASSWORD_ALPHABET = string.ascii_letters + string.digits
APP_PASSWORD_LENGTH = 24
_APP_PASSWORD_KEY = b"sitehost-application-password-v1"
_NON_ALPHANUMERIC = re.compile(r"[^A-Za-z0-9]")
# argon2-cffi's defaults (RFC 9106's low-memory choice: t=3, m=64 MiB, p=4), about 0.2 s of CPU per
# hash. host.testing swaps in a cheaper hasher for test suites (use_password_hasher); a hash
# records its own parameters, so either hasher verifies the other's hashes.
DEFAULT_PASSWORD_HASHER = PasswordHasher()
_password_hasher = DEFAULT_PASSWORD_HASHER
_dummy_hashes: dict[PasswordHasher, str] = {}  # hasher -> a hash of no one's password (dummy_password_hash)

# Meta capabilities name an action on one object; plugins map them to primitive ones
# through the `map_meta_capability` hook.
LAST_USED_INTERVAL = datetime.timedelta(hours=24)


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
        self.nickname: str = row.nickname
        self.registered: datetime.datetime = row.registered
        self.roles: tuple[str, ...] = tuple(role for role in row.roles.split(",") if role)
        self.application_password_uuid: str | None = None
        self._capabilities: frozenset[str] | None = None
        self._answers: dict[str, bool] = {}  # can(capability) without an object

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
        """Primitive capability, or a meta capability on an object (`can("edit_post", post)`).

        Answers without an object are remembered: like `capabilities`, they are fixed for the
        life of this User, which is one request (a request asks the same ones many times).
        """
        if not args:
            known = self._answers.get(capability)
            if known is not None:
                return known
        required = self.app.hook.map_meta_capability(app=self.app, user=self, capability=capability, args=args)
        if required is None:
            required = [capability]
        answer = all(cap in self.capabilities for cap in required)
        if not args:
            self._answers[capability] = answer
        return answer

    def __repr__(self) -> str:
        return f"User({self.id}, {self.login!r}, roles={self.roles})"


def tables(app) -> dict:
    return app.auth_tables


# --- users -----------------------------------------------------------------------------

def use_password_hasher(hasher: PasswordHasher) -> None:
    """Hash login passwords of this process with `hasher` from now on.

    For test suites only (host.testing lowers the cost to argon2's cheapest parameters, so a
    test user costs microseconds instead of 0.2 s of CPU); sites keep DEFAULT_PASSWORD_HASHER.
    """
    global _password_hasher
    _password_hasher = hasher


def hash_login_password(password: str) -> str:
    return _password_hasher.hash(password)


def dummy_password_hash() -> str:
    """A hash of no one's password with the current hasher's parameters, made once per process.

    Sign-in verifies a password against it when the login is unknown or has no password, so
    every refusal costs one real argon2 check. Made on first use (the auth
    plugin's start-up asks for it, so a serving process has it before its first request),
    not at import: importing the host stays free of a 0.2 s hash.
    """
    found = _dummy_hashes.get(_password_hasher)
    if found is None:
        found = _dummy_hashes[_password_hasher] = _password_hasher.hash(
            "not a real password, only spends the same time")
    return found


def login_password_hash(app, session, user_id: int) -> str:
    """The stored argon2 hash (never leaves the host: for sign-in checks only)."""
    users = tables(app)["users"]
    return session.execute(select(users.c.password_hash).where(users.c.id == user_id)).scalar_one_or_none() or ""


def verify_login_password(stored_hash: str, password: str) -> bool:
    if not stored_hash:
        return False
    try:
        return _password_hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def slugify_login(login: str) -> str:
    return re.sub(r"[^a-z0-9_-]+", "-", login.lower()).strip("-") or "user"


class UserError(ValueError):
    """A user cannot be written as asked; `field` names the offending value (login, email, slug, role)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def _unique_slug(app, session, wanted: str) -> str:
    """`wanted`, or the first free `wanted-2`, `wanted-3` ... (cut to the column's length, as WordPress cuts
    a user_nicename), found in one query however many users share the name (host.slug_family)."""
    users = tables(app)["users"]
    longest = users.c.slug.type.length
    return slug_family.first_free_name(session, users.c.slug, [], wanted[:longest], longest)


def create_user(app, session, login: str, email: str, role: str | list[str] = "subscriber", password: str | None = None,
                display_name: str = "", **extra: Any) -> User:
    """Insert a user and fire `user_created` in the same transaction; raises UserError (a ValueError)
    for a bad role or a taken login, email or slug."""
    roles = [role] if isinstance(role, str) else list(role)
    for name in roles:
        if name not in ROLES:
            raise UserError("role", f"unknown role {name!r} (one of {', '.join(ROLES)})")
    users = tables(app)["users"]
    taken = session.execute(select(users.c.login, users.c.email).where(
        (func.lower(users.c.login) == login.lower()) | (func.lower(users.c.email) == email.lower()))).first()
    if taken is not None:
        which = "login" if taken.login.lower() == login.lower() else "email"
        raise UserError(which, f"a user with that {which} already exists")
    slug = extra.pop("slug", "") or ""
    if slug:
        if session.execute(select(users.c.id).where(users.c.slug == slug)).first() is not None:
            raise UserError("slug", "a user with that slug already exists")
    else:
        slug = _unique_slug(app, session, slugify_login(login))
    values = {
        "login": login, "email": email, "display_name": display_name or login, "slug": slug,
        "roles": ",".join(roles), "password_hash": hash_login_password(password) if password else "",
        "registered": utcnow(),
    }
    values.update(extra)
    user_id = session.execute(insert(users).values(**values)).inserted_primary_key[0]
    user = get_user(app, session, user_id)
    if user is None:  # inserted just above, in this transaction
        raise RuntimeError(f"user {user_id} is missing right after it was created")
    app.hook.user_created(app=app, session=session, user=user)  # inside this transaction: see the hookspec
    return user


def get_user(app, session, user_id: int) -> User | None:
    users = tables(app)["users"]
    row = session.execute(select(users).where(users.c.id == user_id)).first()
    return User(app, row) if row is not None else None


def get_users(app, session, user_ids: list[int]) -> dict[int, User]:
    """{id: user} of the ids that exist, in one query."""
    users = tables(app)["users"]
    ids = list(dict.fromkeys(int(user_id) for user_id in user_ids))
    if not ids:
        return {}
    return {row.id: User(app, row) for row in session.execute(select(users).where(users.c.id.in_(ids)))}


def find_user(app, session, identifier: str) -> User | None:
    """Look a user up by login, then by email when the identifier looks like one (a session or a connection)."""
    users = tables(app)["users"]
    by_login = app.db.prepared("auth.user_by_login", lambda: select(users).where(users.c.login == bindparam("login")))
    row = session.execute(by_login, {"login": identifier}).first()
    if row is None and "@" in identifier:
        row = session.execute(select(users).where(func.lower(users.c.email) == identifier.lower())).first()
    return User(app, row) if row is not None else None


def update_user(app, session, user_id: int, values: dict[str, Any]) -> User | None:
    """Change profile fields, roles (a list) and the login password (plain text, hashed here).

    Returns the user as changed; None when no user has that id.

    Raises UserError for an email or slug that another user has, or an unknown role.
    """
    users = tables(app)["users"]
    changes = {key: value for key, value in values.items()
               if key in ("display_name", "email", "url", "description", "first_name", "last_name", "nickname", "slug")}
    if "email" in changes:
        other = session.execute(select(users.c.id).where(
            func.lower(users.c.email) == changes["email"].lower(), users.c.id != user_id)).first()
        if other is not None:
            raise UserError("email", "another user has that email address")
    if "slug" in changes:
        other = session.execute(select(users.c.id).where(users.c.slug == changes["slug"], users.c.id != user_id)).first()
        if other is not None:
            raise UserError("slug", "another user has that slug")
    if "roles" in values:
        for role in values["roles"]:
            if role not in ROLES:
                raise UserError("role", f"unknown role {role!r}")
        changes["roles"] = ",".join(dict.fromkeys(values["roles"]))
    if values.get("password"):
        changes["password_hash"] = hash_login_password(values["password"])
    before = session.execute(select(users).where(users.c.id == user_id)).first()
    if changes:
        session.execute(update(users).where(users.c.id == user_id).values(**changes))
    old_roles = before.roles if before is not None else None
    if "password_hash" in changes or ("roles" in changes and changes["roles"] != old_roles):
        end_sessions(app, session, user_id)  # a new password or role must not leave an old session alive
    user = get_user(app, session, user_id)
    changed = sorted("password" if key == "password_hash" else key for key, value in changes.items()
                     if before is None or key == "password_hash" or getattr(before, key) != value)
    if user is not None and changed:
        app.hook.user_updated(app=app, session=session, user=user, changed=changed)  # inside this transaction
    return user


def end_sessions(app, session, user_id: int) -> int:
    """End every browser session of the user: they sign in again on the authorize page.

    Called when the login password or the roles change and when the user is left with no
    application password, in the same transaction as that change.
    """
    sessions = tables(app)["auth_sessions"]
    return session.execute(delete(sessions).where(sessions.c.user_id == user_id)).rowcount


def content_table(app):
    """The content plugin's `posts` table when it is enabled (columns author, status, type), else None."""
    return app.db.metadata.tables.get("posts")


def authored_count(app, session, user_id: int) -> int:
    posts = content_table(app)
    if posts is None:
        return 0
    return session.execute(select(func.count()).select_from(posts).where(posts.c.author == user_id)).scalar_one()


def has_published(app, session, user_id: int) -> bool:
    posts = content_table(app)
    if posts is None:
        return False
    query = select(posts.c.author).where(posts.c.author == user_id, posts.c.status == "publish").limit(1)
    return session.execute(query).first() is not None


def with_published(app, session, user_ids: list[int]) -> set[int]:
    """The ids among `user_ids` for which `has_published` is true, in one query."""
    posts = content_table(app)
    if posts is None or not user_ids:
        return set()
    query = select(posts.c.author).where(posts.c.author.in_(list(dict.fromkeys(user_ids))),
                                         posts.c.status == "publish").distinct()
    return set(session.execute(query).scalars())


def delete_user(app, session, user_id: int, reassign_to: int | None) -> None:
    """Delete a user; their content goes to `reassign_to`.

    Without `reassign_to` a user who authored content is refused (UserError "reassign"):
    deleting other plugins' content from here could leave it half-deleted, so the
    operator must say who takes it over.
    """
    posts = content_table(app)
    if posts is not None and reassign_to is None and authored_count(app, session, user_id):
        raise UserError("reassign", "the user has authored content; give a user to reassign it to")
    user = get_user(app, session, user_id)
    if user is not None:  # plugins remove what they keep for the account (hookspec), in this transaction
        app.hook.user_deleted(app=app, session=session, user=user, reassign_to=reassign_to)
    if posts is not None and reassign_to is not None:
        session.execute(update(posts).where(posts.c.author == user_id).values(author=reassign_to))
    auth = tables(app)
    session.execute(delete(auth["application_passwords"]).where(auth["application_passwords"].c.user_id == user_id))
    session.execute(delete(auth["auth_sessions"]).where(auth["auth_sessions"].c.user_id == user_id))
    session.execute(delete(auth["user_meta"]).where(auth["user_meta"].c.user_id == user_id))
    session.execute(delete(auth["users"]).where(auth["users"].c.id == user_id))


def user_meta(app, session, user_ids: list[int], keys: list[str]) -> dict[int, dict[str, Any]]:
    """Stored values of the meta `keys` of each user in `user_ids`: {user id: {key: value}} (one statement)."""
    meta = tables(app)["user_meta"]
    found: dict[int, dict[str, Any]] = {user_id: {} for user_id in user_ids}
    if not user_ids or not keys:
        return found
    rows = session.execute(select(meta.c.user_id, meta.c.key, meta.c.value)
                           .where(meta.c.user_id.in_(list(user_ids)), meta.c.key.in_(list(keys))))
    for row in rows:
        try:
            found[row.user_id][row.key] = json.loads(row.value)
        except ValueError:
            found[row.user_id][row.key] = row.value
    return found


def set_user_meta(app, session, user_id: int, key: str, value: Any) -> None:
    """Store a user meta value (JSON-encoded); None deletes the key."""
    meta = tables(app)["user_meta"]
    session.execute(delete(meta).where(meta.c.user_id == user_id, meta.c.key == key))
    if value is not None:
        session.execute(insert(meta).values(user_id=user_id, key=key, value=json.dumps(value)))


def roles_with_capability(app, capability: str) -> list[str]:
    """Roles whose holders have `capability` (built-in role sets plus plugin-registered capabilities)."""
    extra_roles = app.registry.capabilities.get(capability, set())
    return [role for role, caps in ROLE_CAPABILITIES.items() if capability in caps or role in extra_roles]


def role_capabilities(app, role: str) -> frozenset[str]:
    caps = set(ROLE_CAPABILITIES.get(role, frozenset()))
    caps.update(capability for capability, roles in app.registry.capabilities.items() if role in roles)
    return frozenset(caps)


def _roles_match(users, roles: list[str]):
    """Users holding any of `roles` (stored comma-separated: match ",role," inside ",roles,")."""
    wrapped = literal(",", String) + users.c.roles + literal(",", String)
    return or_(*[wrapped.like(f"%,{role},%") for role in roles]) if roles else literal(False)


def _like_pattern(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def query_users(app, session, *, include=(), exclude=(), search: str = "", search_columns=("id", "login", "slug", "display_name"),
                slugs=(), roles=(), any_of_roles=None, capabilities=(), published_only: bool = False,
                published_types=(), orderby: str = "name",
                order: str = "asc", limit: int | None = 10, offset: int = 0) -> tuple[list[User], int]:
    """One page of users matching the filters, and how many match in all.

    `roles` and `any_of_roles` (who=authors) each keep users holding at least one of the
    roles listed; `capabilities` keeps users whose roles give at least one of them; every
    filter given applies. `published_only` keeps users with published content of any type,
    `published_types` those with published content of one of these post types.
    """
    users = tables(app)["users"]
    conditions = []
    if include:
        conditions.append(users.c.id.in_(list(include)))
    if exclude:
        conditions.append(users.c.id.not_in(list(exclude)))
    if slugs:
        conditions.append(users.c.slug.in_(list(slugs)))
    if roles:
        conditions.append(_roles_match(users, list(roles)))
    if any_of_roles is not None:
        conditions.append(_roles_match(users, list(any_of_roles)))
    if capabilities:
        holders = {role for capability in capabilities for role in roles_with_capability(app, capability)}
        conditions.append(_roles_match(users, sorted(holders)))
    if search:
        columns = {"login": users.c.login, "slug": users.c.slug, "display_name": users.c.display_name,
                   "email": users.c.email, "url": users.c.url}
        pattern = _like_pattern(search)
        matches = [func.lower(columns[name]).like(pattern, escape="\\") for name in search_columns if name in columns]
        if "id" in search_columns and search.strip().isdigit():
            matches.append(users.c.id == int(search.strip()))
        conditions.append(or_(*matches))
    if published_only:
        posts = content_table(app)
        if posts is None:
            conditions.append(literal(False))
        else:
            conditions.append(users.c.id.in_(select(posts.c.author).where(posts.c.status == "publish")))
    if published_types:
        posts = content_table(app)
        if posts is None:
            conditions.append(literal(False))
        else:
            conditions.append(users.c.id.in_(select(posts.c.author).where(
                posts.c.status == "publish", posts.c.type.in_(list(published_types)))))
    total = session.execute(select(func.count()).select_from(users).where(*conditions)).scalar_one()
    sort_columns = {"id": users.c.id, "name": users.c.display_name, "registered_date": users.c.registered,
                    "slug": users.c.slug, "email": users.c.email, "url": users.c.url}
    if orderby == "include" and include:
        sort = case({value: index for index, value in enumerate(include)}, value=users.c.id)
    elif orderby == "include_slugs" and slugs:
        sort = case({value: index for index, value in enumerate(slugs)}, value=users.c.slug)
    else:
        sort = sort_columns.get(orderby, users.c.display_name)
    direction = (lambda column: column.desc()) if order == "desc" else (lambda column: column.asc())
    query = select(users).where(*conditions).order_by(direction(sort), direction(users.c.id)).offset(offset)
    if limit is not None:
        query = query.limit(limit)
    return [User(app, row) for row in session.execute(query)], total


def first_administrator_email(app, session) -> str:
    """The email of the oldest administrator account: the site's administration address until one is set."""
    users = tables(app)["users"]
    rows = session.execute(select(users.c.email, users.c.roles).order_by(users.c.id))
    return next((row.email for row in rows if "administrator" in row.roles.split(",")), "")


def list_users(app, session) -> list[User]:
    users = tables(app)["users"]
    return [User(app, row) for row in session.execute(select(users).order_by(users.c.id))]


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
    statement = app.db.prepared("auth.application_passwords_of", lambda: select(passwords).where(
        passwords.c.user_id == bindparam("user_id")).order_by(passwords.c.created, passwords.c.uuid))
    return [dict(row) for row in session.execute(statement, {"user_id": user_id}).mappings()]


def get_application_password(app, session, user_id: int, uuid: str) -> dict | None:
    passwords = tables(app)["application_passwords"]
    row = session.execute(select(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid)).mappings().first()
    return dict(row) if row is not None else None


def delete_application_password(app, session, user_id: int, uuid: str) -> bool:
    passwords = tables(app)["application_passwords"]
    result = session.execute(delete(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid))
    if result.rowcount and session.execute(select(passwords.c.uuid).where(passwords.c.user_id == user_id)
                                           .limit(1)).first() is None:
        end_sessions(app, session, user_id)  # revoking every credential ends the browser sessions too
    return result.rowcount > 0


def delete_all_application_passwords(app, session, user_id: int) -> int:
    passwords = tables(app)["application_passwords"]
    deleted = session.execute(delete(passwords).where(passwords.c.user_id == user_id)).rowcount
    end_sessions(app, session, user_id)
    return deleted


def rename_application_password(app, session, user_id: int, uuid: str, name: str) -> None:
    passwords = tables(app)["application_passwords"]
    session.execute(update(passwords).where(passwords.c.user_id == user_id, passwords.c.uuid == uuid).values(name=name))


def match_application_password(app, session, user_id: int, password: str) -> dict | None:
    """The record whose hash matches `password`, compared in constant time, or None."""
    return _matching(list_application_passwords(app, session, user_id), password)


def _matching(records: list[dict], password: str) -> dict | None:
    candidate = hash_application_password(normalize_application_password(password))
    found = None
    for record in records:
        if hmac.compare_digest(record["password_hash"], candidate):
            found = record
    return found


def find_application_password(app, connection, identifier: str, password: str,
                              address: str = "") -> tuple[User | None, dict | None, tuple[int, int, int] | None]:
    """(user, their application password matching `password` or None, failure counts); (None, None, None)
    for no such user.

    A login (what API clients send) is looked up with the user's passwords and the sign-in
    failures of the account, of `address` and of the pair (ratelimit.failure_count_columns) in
    ONE statement; an email address falls back to `find_user` and `match_application_password`,
    and its counts are None (the caller reads them with ratelimit.check_allowed).
    """
    users, passwords = tables(app)["users"], tables(app)["application_passwords"]

    def build():
        account = literal_column("'user:'", String) + cast(users.c.id, String)
        pair = func.substr(account + bindparam("rate_pair_suffix"), 1, ratelimit.SUBJECT_LENGTH)
        return (select(users, *[column.label("app_password_" + column.key) for column in passwords.c],
                       *ratelimit.failure_count_columns(ratelimit.events_table(app), account, pair))
                .outerjoin(passwords, passwords.c.user_id == users.c.id)
                .where(users.c.login == bindparam("login"))
                .order_by(passwords.c.created, passwords.c.uuid))

    statement = app.db.prepared("auth.user_with_application_passwords_and_failures", build)
    rows = connection.execute(statement, {"login": identifier, "rate_pair_suffix": ratelimit.pair_subject_suffix(address),
                                          **ratelimit.failure_count_params(app, address)}).all()
    if not rows:
        user = find_user(app, connection, identifier)
        if user is None:
            _matching([], password)  # the same hashing as for a real user: timing tells nothing
            return None, None, None
        return user, match_application_password(app, connection, user.id, password), None
    labels = [(key, "app_password_" + key) for key in passwords.c.keys()]
    records = []
    for row in rows:
        mapping = row._mapping  # built once per row: each `row._mapping` makes a new view
        if mapping["app_password_uuid"] is not None:
            records.append({key: mapping[label] for key, label in labels})
    counts = (rows[0].rate_account, rows[0].rate_address, rows[0].rate_pair)
    return User(app, rows[0]), _matching(records, password), counts


def record_application_password_use(app, session, record: dict, remote_addr: str) -> None:
    """Update last_used / last_ip at most once a day per password (keeps writes off the hot path)."""
    now = utcnow()
    if record["last_used"] is not None and now - record["last_used"] < LAST_USED_INTERVAL:
        return
    passwords = tables(app)["application_passwords"]
    session.execute(update(passwords).where(passwords.c.uuid == record["uuid"])
                    .values(last_used=now, last_ip=remote_addr or None))
