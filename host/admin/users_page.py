"""Users: list and create users; per user change the role, reset the password, unlock, delete
with reassignment, and see and revoke their application passwords (host.auth.users, the
service core's users routes use too).
"""

from __future__ import annotations

import secrets

from sqlalchemy import func, select

from ..auth import ratelimit
from ..auth import users as user_service
from ..auth.roles import ROLES
from .framework import AdminAnswer, AdminRequest, escape, hidden, table

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
    return AdminAnswer(user_list(page) + create_form(page), status)


# --- the list and creating ----------------------------------------------------------------

def failure_counts(app, session) -> dict[int, int]:
    """Recent failed sign-ins per user account (what `unlock` forgets)."""
    failures = ratelimit.events_table(app)
    rows = session.execute(select(failures.c.subject, func.count()).where(
        failures.c.scope == ratelimit.ACCOUNT_SCOPE, failures.c.subject.startswith("user:"))
        .group_by(failures.c.subject)).all()
    return {int(subject[5:]): count for subject, count in rows if subject[5:].isdigit()}


def user_list(page: AdminRequest) -> str:
    app = page.app
    with app.db.session() as session:
        users = user_service.list_users(app, session)
        failures = failure_counts(app, session)
        passwords = user_service.tables(app)["application_passwords"]
        counts = dict(session.execute(select(passwords.c.user_id, func.count()).group_by(passwords.c.user_id)).all())
    rows = [[f"<a href=\"{escape(page.url(user.id))}\">{escape(user.login)}</a>", escape(user.display_name),
             escape(user.email), escape(", ".join(user.roles) or "none"), str(counts.get(user.id, 0)),
             f"<span class=\"status status-critical\">{failures[user.id]}</span>" if failures.get(user.id) else "0"]
            for user in users]
    return ("<h2>All users</h2>" + table(["Login", "Name", "Email", "Role", "Application passwords",
                                          "Failed sign-ins"], rows))


def create_form(page: AdminRequest) -> str:
    fields = (page.field("login", "Login", required=True, autocomplete="off")
              + page.field("email", "Email address", kind="email", required=True, autocomplete="off")
              + page.field("role", "Role", value="subscriber", options=ROLE_OPTIONS)
              + page.field("password", "Password", kind="password", autocomplete="new-password",
                           help_text=f"At least {MIN_PASSWORD_CHARS} characters. Leave empty to have one made "
                                     "up and shown once."))
    return ("<section aria-labelledby=\"create-heading\"><h2 id=\"create-heading\">Add a user</h2>"
            + page.form_html("create", fields, "Add user", url=page.url()) + "</section>")


def _check_password(page: AdminRequest, name: str, required: bool) -> str:
    password = page.form.get(name, "")
    if not password and required:
        page.error(name, "Enter a password.")
    elif password and len(password) < MIN_PASSWORD_CHARS:
        page.error(name, f"Use at least {MIN_PASSWORD_CHARS} characters.")
    return password


def create(page: AdminRequest) -> int:
    if not page.user.can("create_users"):
        page.notice("<p>You may not create users.</p>", "error")
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
    shown = (f" Their password, shown only now: <kbd class=\"secret\">{escape(password)}</kbd>" if generated else "")
    page.notice(f"<p>User <a href=\"{escape(page.url(user.id))}\">{escape(user.login)}</a> added.{shown}</p>",
                "secret" if generated else "success")
    page.form.clear()  # an empty form for the next user
    return 201


# --- one user -------------------------------------------------------------------------------

def user_detail(page: AdminRequest):
    app = page.app
    user_id = int(page.subpath) if page.subpath.isdigit() and len(page.subpath) < 12 else 0
    with app.db.session() as session:
        user = user_service.get_user(app, session, user_id) if user_id else None
    if user is None:
        page.notice("<p>There is no such user.</p>", "error")
        return AdminAnswer(f"<p><a href=\"{escape(page.url())}\">All users</a></p>", 404)
    status = 200
    if page.method == "POST":
        handler = {"role": change_role, "reset-password": reset_password, "unlock": unlock, "delete": delete,
                   "revoke": revoke}.get(page.action)
        if handler is None:
            return AdminAnswer("<p>This form does not belong here.</p>", 400)
        result = handler(page, user)
        if isinstance(result, AdminAnswer):
            return result
        status = result
        with app.db.session() as session:
            user = user_service.get_user(app, session, user.id)
    return AdminAnswer(detail_html(page, user), status)


def detail_html(page: AdminRequest, user) -> str:
    app = page.app
    with app.db.session() as session:
        passwords = user_service.list_application_passwords(app, session, user.id)
        failures = failure_counts(app, session).get(user.id, 0)
        others = [other for other in user_service.list_users(app, session) if other.id != user.id]
        authored = user_service.authored_count(app, session, user.id)
    facts = (f"<p><a href=\"{escape(page.url())}\">&larr; All users</a></p>"
             f"<section aria-labelledby=\"who\"><h2 id=\"who\">{escape(user.login)}</h2><dl class=\"facts\">"
             f"<dt>Name</dt><dd>{escape(user.display_name)}</dd><dt>Email</dt><dd>{escape(user.email)}</dd>"
             f"<dt>Role</dt><dd>{escape(', '.join(user.roles) or 'none')}</dd>"
             f"<dt>Registered</dt><dd>{escape(user.registered.strftime('%Y-%m-%d'))}</dd>"
             f"<dt>Content written</dt><dd>{authored}</dd>"
             f"<dt>Failed sign-ins</dt><dd>{failures}</dd></dl></section>")
    current_role = user.roles[0] if user.roles else ""
    role_form = page.form_html("role", page.field("role", "Role", value=current_role, options=ROLE_OPTIONS),
                               "Change role", inline=True)
    reset_form = page.form_html("reset-password", "", "Reset password", inline=True,
                                label=f"Reset the password of {user.login}")
    unlock_form = page.form_html("unlock", "", "Unlock sign-in", inline=True,
                                 label=f"Forget the failed sign-ins of {user.login}")
    reassign_options = [("", "Nobody (only when they wrote nothing)")] + [
        (str(other.id), f"{other.login} ({other.display_name})") for other in others]
    delete_form = page.form_html("delete", page.field("reassign", "Give their content to", options=reassign_options),
                                 f"Delete {user.login}", danger=True)
    rows = [[escape(record["name"]), escape(_when(record["created"])), escape(_when(record["last_used"]) or "never"),
             escape(record["last_ip"] or "–"),
             page.form_html("revoke", hidden("uuid", record["uuid"]), "Revoke", danger=True, inline=True,
                            label=f"Revoke {record['name']}", detail=record["name"])]
            for record in passwords]
    passwords_html = (table(["Name", "Created", "Last used", "Last address", ""], rows)
                      if rows else "<p>No application passwords.</p>")
    return (facts + "<section aria-labelledby=\"manage\"><h2 id=\"manage\">Manage</h2>" + role_form + reset_form
            + unlock_form + "</section><section aria-labelledby=\"app-passwords\"><h2 id=\"app-passwords\">"
            "Application passwords</h2>" + passwords_html + "</section>"
            "<section aria-labelledby=\"delete-heading\"><h2 id=\"delete-heading\">Delete</h2>" + delete_form
            + "</section>")


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else ""


def change_role(page: AdminRequest, user) -> int:
    role = page.form.get("role", "")
    if not page.user.can("promote_user", user.id):
        page.notice("<p>You may not change roles.</p>", "error")
        return 403
    if role not in ROLES:
        page.error("role", "Choose one of the roles.")
        return 400
    if user.id == page.user.id and role != "administrator":
        page.error("role", "You cannot take the administrator role from yourself; ask another administrator.")
        return 400
    with page.app.db.session(write=True) as session, session.begin():
        user_service.update_user(page.app, session, user.id, {"roles": [role]})
    page.notice(f"<p>{escape(user.login)} is now {escape(role)}.</p>")
    return 200


def reset_password(page: AdminRequest, user) -> int:
    if not page.user.can("edit_user", user.id):
        page.notice("<p>You may not change this user.</p>", "error")
        return 403
    password = secrets.token_urlsafe(12)
    with page.app.db.session(write=True) as session, session.begin():
        user_service.update_user(page.app, session, user.id, {"password": password})
    page.notice(f"<p>New password for {escape(user.login)}, shown only now: <kbd class=\"secret\">{escape(password)}"
                "</kbd></p><p>Their browser sessions have ended.</p>", "secret")
    return 200


def unlock(page: AdminRequest, user) -> int:
    if not page.user.can("edit_user", user.id):
        page.notice("<p>You may not change this user.</p>", "error")
        return 403
    with page.app.db.session(write=True) as session, session.begin():
        forgotten = failure_counts(page.app, session).get(user.id, 0)
        ratelimit.unlock_account(page.app, session, user.id)
    page.notice(f"<p>{forgotten} failed sign-in{'s' if forgotten != 1 else ''} of {escape(user.login)} forgotten.</p>")
    return 200


def delete(page: AdminRequest, user):
    if not page.user.can("delete_user", user.id):
        page.notice("<p>You may not delete users.</p>", "error")
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
    page.notice(f"<p>User {escape(user.login)} deleted.</p>")
    return AdminAnswer(user_list(page) + create_form(page), 200)


def revoke(page: AdminRequest, user) -> int:
    if not page.user.can("delete_app_password", user.id):
        page.notice("<p>You may not change this user.</p>", "error")
        return 403
    uuid = page.form.get("uuid", "")
    with page.app.db.session(write=True) as session, session.begin():
        record = user_service.get_application_password(page.app, session, user.id, uuid) if len(uuid) <= 64 else None
        if record is not None:
            user_service.delete_application_password(page.app, session, user.id, uuid)
    if record is None:
        page.notice("<p>That application password does not exist (already revoked?).</p>", "error")
        return 404
    page.notice(f"<p>Application password <strong>{escape(record['name'])}</strong> revoked.</p>")
    return 200
