"""Your profile (every signed-in user): change your password, create and revoke your application passwords."""

from __future__ import annotations

from ..auth import users as user_service
from ..auth.pages import clean_name
from .framework import AdminAnswer, AdminRequest, escape, hidden, table
from .users_page import MIN_PASSWORD_CHARS, _when

ACTIONS = ("change-password", "create-app-password", "revoke-app-password")


def profile_page(page: AdminRequest):
    status = 200
    if page.method == "POST":
        status = {"change-password": change_password, "create-app-password": create_app_password,
                  "revoke-app-password": revoke_app_password}[page.action](page)
    return AdminAnswer(profile_html(page), status)


def change_password(page: AdminRequest) -> int:
    current = page.form.get("current_password", "")
    new = page.form.get("new_password", "")
    again = page.form.get("confirm_password", "")
    with page.app.db.session() as session:
        stored = user_service.login_password_hash(page.app, session, page.user.id)
    if not current:
        page.error("current_password", "Enter your current password.")
    elif not stored or not user_service.verify_login_password(stored, current):
        page.error("current_password", "This is not your current password.")
    if len(new) < MIN_PASSWORD_CHARS:
        page.error("new_password", f"Use at least {MIN_PASSWORD_CHARS} characters.")
    elif new != again:
        page.error("confirm_password", "The two new passwords differ.")
    if page.field_errors:
        return 400
    with page.app.db.session(write=True) as session, session.begin():
        user_service.update_user(page.app, session, page.user.id, {"password": new})
    page.notice("<p>Your password was changed. Your other browser sessions have ended; "
                "<a href=\"/admin/sign-in\">sign in</a> again with the new password.</p>")
    return 200


def create_app_password(page: AdminRequest) -> int:
    name = clean_name(page.form.get("name", ""))
    if not name:
        page.error("name", "Give the application password a name (the app or device that will use it).")
        return 400
    with page.app.db.session(write=True) as session, session.begin():
        password, _record = user_service.create_application_password(page.app, session, page.user.id, name)
    page.notice(f"<p>Your new application password for <strong>{escape(name)}</strong>, shown only now:</p>"
                f"<p><kbd class=\"secret new-application-password\">{escape(password)}</kbd></p>"
                "<p>Copy it into the application now; it cannot be shown again.</p>", "secret")
    page.form.pop("name", None)
    return 201


def revoke_app_password(page: AdminRequest) -> int:
    uuid = page.form.get("uuid", "")
    with page.app.db.session(write=True) as session, session.begin():
        record = user_service.get_application_password(page.app, session, page.user.id, uuid) if len(uuid) <= 64 else None
        if record is not None:
            user_service.delete_application_password(page.app, session, page.user.id, uuid)
    if record is None:
        page.notice("<p>That application password does not exist (already revoked?).</p>", "error")
        return 404
    page.notice(f"<p>Application password <strong>{escape(record['name'])}</strong> revoked.</p>")
    return 200


def profile_html(page: AdminRequest) -> str:
    user = page.user
    with page.app.db.session() as session:
        passwords = user_service.list_application_passwords(page.app, session, user.id)
    password_fields = (
        hidden("username", user.login).replace("type=\"hidden\"", "type=\"hidden\" autocomplete=\"username\"")
        + page.field("current_password", "Current password", kind="password", required=True,
                     autocomplete="current-password")
        + page.field("new_password", "New password", kind="password", required=True, autocomplete="new-password",
                     help_text=f"At least {MIN_PASSWORD_CHARS} characters.")
        + page.field("confirm_password", "New password again", kind="password", required=True,
                     autocomplete="new-password"))
    rows = [[escape(record["name"]), escape(_when(record["created"])), escape(_when(record["last_used"]) or "never"),
             escape(record["last_ip"] or "–"),
             page.form_html("revoke-app-password", hidden("uuid", record["uuid"]), "Revoke", danger=True, inline=True,
                            label=f"Revoke {record['name']}", detail=record["name"])]
            for record in passwords]
    return (f"<section aria-labelledby=\"you\"><h2 id=\"you\">{escape(user.login)}</h2><dl class=\"facts\">"
            f"<dt>Name</dt><dd>{escape(user.display_name)}</dd><dt>Email</dt><dd>{escape(user.email)}</dd>"
            f"<dt>Role</dt><dd>{escape(', '.join(user.roles) or 'none')}</dd></dl></section>"
            "<section aria-labelledby=\"password-heading\"><h2 id=\"password-heading\">Change your password</h2>"
            + page.form_html("change-password", password_fields, "Change password") + "</section>"
            "<section aria-labelledby=\"app-heading\"><h2 id=\"app-heading\">Your application passwords</h2>"
            "<p>Apps and scripts use these with HTTP Basic authentication instead of your password.</p>"
            + (table(["Name", "Created", "Last used", "Last address", ""], rows) if rows
               else "<p>You have no application passwords.</p>")
            + "<h3>New application password</h3>"
            + page.form_html("create-app-password", page.field("name", "Name", required=True,
                                                               help_text="The app or device that will use it."),
                             "Create application password")
            + "</section>")
