"""Your profile (every signed-in user): change your password, create and revoke your application passwords
(templates/profile.html, its notices templates/users_notice.html)."""

from __future__ import annotations

from markupsafe import Markup

from ..auth import users as user_service
from ..auth.pages import clean_name
from ..answer import PageAnswer
from .framework import AdminRequest
from .users_page import MIN_PASSWORD_CHARS, notice, shown_passwords

ACTIONS = ("change-password", "create-app-password", "revoke-app-password")


def profile_page(page: AdminRequest):
    status = 200
    if page.method == "POST":
        status = {"change-password": change_password, "create-app-password": create_app_password,
                  "revoke-app-password": revoke_app_password}[page.action](page)
    return PageAnswer(profile_html(page), status)


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
    notice(page, "password-changed")
    return 200


def create_app_password(page: AdminRequest) -> int:
    name = clean_name(page.form.get("name", ""))
    if not name:
        page.error("name", "Give the application password a name (the app or device that will use it).")
        return 400
    with page.app.db.session(write=True) as session, session.begin():
        password, _record = user_service.create_application_password(page.app, session, page.user.id, name)
    notice(page, "app-password-created", "secret", name=name, password=password)
    page.form.pop("name", None)
    return 201


def revoke_app_password(page: AdminRequest) -> int:
    uuid = page.form.get("uuid", "")
    with page.app.db.session(write=True) as session, session.begin():
        record = user_service.get_application_password(page.app, session, page.user.id, uuid) if len(uuid) <= 64 else None
        if record is not None:
            user_service.delete_application_password(page.app, session, page.user.id, uuid)
    if record is None:
        notice(page, "app-password-missing", "error")
        return 404
    notice(page, "app-password-revoked", name=record["name"])
    return 200


def profile_html(page: AdminRequest) -> Markup:
    with page.app.db.session() as session:
        passwords = user_service.list_application_passwords(page.app, session, page.user.id)
    return page.render("profile.html", passwords=shown_passwords(passwords), min_password_chars=MIN_PASSWORD_CHARS)
