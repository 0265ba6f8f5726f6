"""Users: list and create users; per user change the role, reset the password, unlock, delete
with reassignment, and see and revoke their application passwords (host.auth.users, the
service core's users routes use too). The pages are templates/users.html and user.html, the notices
templates/users_notice.html (shared with the profile page).
"""

from __future__ import annotations

import secrets

from markupsafe import Markup
from sqlalchemy import func, select

from ..auth import ratelimit
from ..auth import users as user_service
from ..auth.roles import ROLES
from ..answer import PageAnswer
from .framework import AdminRequest

ACTIONS = ("create", "role", "reset-password", "unlock", "delete", "revoke")
ROLE_OPTIONS = [(role, role.title()) for role in ROLES]
MAX_LOGIN_CHARS = 60
MAX_EMAIL_CHARS = 100
MIN_PASSWORD_CHARS = 8


def users_page(page: AdminRequest):
    if page.subpath:
        return user_detail(page)
    status = 200
    if page.method == "POST":
        status = create(page)
    return PageAnswer(user_list(page), status)


# --- the list and creating ----------------------------------------------------------------

def failure_counts(app, session) -> dict[int, int]:
    """Recent failed sign-ins per user account (what `unlock` forgets)."""
    failures = ratelimit.events_table(app)
    rows = session.execute(select(failures.c.subject, func.count()).where(
        failures.c.scope == ratelimit.ACCOUNT_SCOPE, failures.c.subject.startswith("user:"))
        .group_by(failures.c.subject)).all()
    return {int(subject[5:]): count for subject, count in rows if subject[5:].isdigit()}


def user_list(page: AdminRequest) -> Markup:
    """Every user, and the form that adds one (templates/users.html)."""
    app = page.app
    with app.db.session() as session:
        users = user_service.list_users(app, session)
        failures = failure_counts(app, session)
        passwords = user_service.tables(app)["application_passwords"]
        counts = dict(session.execute(select(passwords.c.user_id, func.count()).group_by(passwords.c.user_id)).all())
    return page.render("users.html", users=users, failures=failures, password_counts=counts, role_options=ROLE_OPTIONS,
                       min_password_chars=MIN_PASSWORD_CHARS)


def notice(page: AdminRequest, done: str, kind: str = "success", **context) -> None:
    """A notice of this page or the profile page, from templates/users_notice.html."""
    page.notice(page.render("users_notice.html", done=done, **context), kind)


def _check_password(page: AdminRequest, name: str, required: bool) -> str:
    password = page.form.get(name, "")
    if not password and required:
        page.error(name, "Enter a password.")
    elif password and len(password) < MIN_PASSWORD_CHARS:
        page.error(name, f"Use at least {MIN_PASSWORD_CHARS} characters.")
    return password


def create(page: AdminRequest) -> int:
    if not page.user.can("create_users"):
        notice(page, "may-not-create", "error")
        return 403
    login = page.form.get("login", "").strip()
    email = page.form.get("email", "").strip()
    role = page.form.get("role", "")
    if not login:
        page.error("login", "Enter a login.")
    elif len(login) > MAX_LOGIN_CHARS:
        page.error("login", f"Use at most {MAX_LOGIN_CHARS} characters.")
    if not email:
        page.error("email", "Enter an email address.")
    elif len(email) > MAX_EMAIL_CHARS or "@" not in email.strip("@") or any(char.isspace() for char in email):
        page.error("email", "Enter an email address such as name@school.example.")
    if role not in ROLES:
        page.error("role", "Choose one of the roles.")
    password = _check_password(page, "password", required=False)
    if page.field_errors:
        return 400
    generated = not password
    password = password or secrets.token_urlsafe(12)
    try:
        with page.app.db.session(write=True) as session, session.begin():
            user = user_service.create_user(page.app, session, login, email, role, password)
    except user_service.UserError as error:
        page.error(error.field if error.field in ("login", "email", "role") else "login", error.message.capitalize())
        return 400
    notice(page, "created", "secret" if generated else "success", user=user, password=password if generated else "")
    page.form.clear()  # an empty form for the next user
    return 201


# --- one user -------------------------------------------------------------------------------

def user_detail(page: AdminRequest):
    app = page.app
    user_id = int(page.subpath) if page.subpath.isdigit() and len(page.subpath) < 12 else 0
    with app.db.session() as session:
        user = user_service.get_user(app, session, user_id) if user_id else None
    if user is None:
        notice(page, "no-such-user", "error")
        return PageAnswer(page.render("user.html", user=None), 404)
    status = 200
    if page.method == "POST":
        handler = {"role": change_role, "reset-password": reset_password, "unlock": unlock, "delete": delete,
                   "revoke": revoke}.get(page.action)
        if handler is None:
            return PageAnswer(page.render("users_notice.html", done="wrong-form"), 400)
        result = handler(page, user)
        if isinstance(result, PageAnswer):
            return result
        status = result
        with app.db.session() as session:
            user = user_service.get_user(app, session, user.id)
    return PageAnswer(detail_html(page, user), status)


def detail_html(page: AdminRequest, user) -> Markup:
    app = page.app
    with app.db.session() as session:
        passwords = user_service.list_application_passwords(app, session, user.id)
        failures = failure_counts(app, session).get(user.id, 0)
        others = [other for other in user_service.list_users(app, session) if other.id != user.id]
        authored = user_service.authored_count(app, session, user.id)
    reassign_options = [("", "Nobody (only when they wrote nothing)")] + [
        (str(other.id), f"{other.login} ({other.display_name})") for other in others]
    return page.render("user.html", user=user, failures=failures, authored=authored, role_options=ROLE_OPTIONS,
                       reassign_options=reassign_options, passwords=shown_passwords(passwords))


def shown_passwords(passwords: list[dict]) -> list[dict]:
    """Application passwords as templates/app_passwords.html shows them (dates in UTC)."""
    return [{"name": record["name"], "uuid": record["uuid"], "created": _when(record["created"]),
             "last_used": _when(record["last_used"]), "last_ip": record["last_ip"]} for record in passwords]


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else ""


def change_role(page: AdminRequest, user) -> int:
    role = page.form.get("role", "")
    if not page.user.can("promote_user", user.id):
        notice(page, "may-not-change-roles", "error")
        return 403
    if role not in ROLES:
        page.error("role", "Choose one of the roles.")
        return 400
    if user.id == page.user.id and role != "administrator":
        page.error("role", "You cannot take the administrator role from yourself; ask another administrator.")
        return 400
    with page.app.db.session(write=True) as session, session.begin():
        user_service.update_user(page.app, session, user.id, {"roles": [role]})
    notice(page, "role-changed", user=user, role=role)
    return 200


def reset_password(page: AdminRequest, user) -> int:
    if not page.user.can("edit_user", user.id):
        notice(page, "may-not-change", "error")
        return 403
    password = secrets.token_urlsafe(12)
    with page.app.db.session(write=True) as session, session.begin():
        user_service.update_user(page.app, session, user.id, {"password": password})
    notice(page, "password-reset", "secret", user=user, password=password)
    return 200


def unlock(page: AdminRequest, user) -> int:
    if not page.user.can("edit_user", user.id):
        notice(page, "may-not-change", "error")
        return 403
    with page.app.db.session(write=True) as session, session.begin():
        forgotten = failure_counts(page.app, session).get(user.id, 0)
        ratelimit.unlock_account(page.app, session, user.id)
    notice(page, "unlocked", user=user, forgotten=forgotten)
    return 200


def delete(page: AdminRequest, user):
    if not page.user.can("delete_user", user.id):
        notice(page, "may-not-delete", "error")
        return 403
    if user.id == page.user.id:
        page.error("reassign", "You cannot delete your own account here.")
        return 400
    reassign = page.form.get("reassign", "")
    target = None
    if reassign:
        with page.app.db.session() as session:
            other = user_service.get_user(page.app, session, int(reassign)) if reassign.isdigit() and len(reassign) < 12 else None
        if other is None or other.id == user.id:
            page.error("reassign", "Choose another existing user.")
            return 400
        target = other.id
    try:
        with page.app.db.session(write=True) as session, session.begin():
            user_service.delete_user(page.app, session, user.id, target)
    except user_service.UserError:
        page.error("reassign", f"{user.login} has written content: choose who takes it over.")
        return 400
    notice(page, "deleted", user=user)
    return PageAnswer(user_list(page), 200)


def revoke(page: AdminRequest, user) -> int:
    if not page.user.can("delete_app_password", user.id):
        notice(page, "may-not-change", "error")
        return 403
    uuid = page.form.get("uuid", "")
    with page.app.db.session(write=True) as session, session.begin():
        record = user_service.get_application_password(page.app, session, user.id, uuid) if len(uuid) <= 64 else None
        if record is not None:
            user_service.delete_application_password(page.app, session, user.id, uuid)
    if record is None:
        notice(page, "app-password-missing", "error")
        return 404
    notice(page, "app-password-revoked", name=record["name"])
    return 200
