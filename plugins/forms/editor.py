"""/admin/forms: the list of forms ("Add form", delete) and /admin/forms/ID, the form editor.

The editor posts every property at once; its values are checked by FormUpdateArgs, the schema of
the REST write, and saved by routes.update_from, the REST write's own code, so a form saved here
is exactly what PUT forms/v1/contact-forms/ID would store. Schema errors answer 400 with each
field marked; configuration problems (a tag that does not parse, a recipient that is no address)
are saved and shown beside their fields, as the reference's editor shows them. "Preview" renders
the edited template as a visitor sees it and saves nothing.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any

from marshmallow import ValidationError
from markupsafe import Markup

from host import PageAnswer, RestError, RestRequest, redirect

from . import properties as props
from . import render, routes, store
from .schemas import FormUpdateArgs, FormWriteArgs

ACTIONS = ("create", "delete", "save", "preview")
FORM_ID = re.compile(r"^[1-9][0-9]{0,9}$")
MAX_ID = 2**31 - 1  # the ids' column type: a larger number is no form (and must not reach the database)
MAILS = ("mail", "mail_2")
MAIL_TEXTS = ("recipient", "sender", "subject", "additional_headers", "body", "attachments")
MAIL_FLAGS = ("active", "use_html", "exclude_blank")
TEXTS = ("title", "locale", "status", "form", "additional_settings")
MESSAGE_LABELS = {
    "mail_sent_ok": "The message was sent", "mail_sent_ng": "The message could not be sent",
    "validation_error": "Some fields need attention", "spam": "The message looked like spam",
    "accept_terms": "The terms were not accepted", "invalid_required": "A required field is empty",
    "invalid_too_long": "A value is too long", "invalid_too_short": "A value is too short",
    "upload_failed": "A file could not be uploaded", "upload_file_type_invalid": "A file's type is not accepted",
    "upload_file_too_large": "A file is too large", "upload_failed_php_error": "A file was not received",
    "invalid_date": "A date is not valid", "date_too_early": "A date is too early",
    "date_too_late": "A date is too late",
    "invalid_number": "A number is not valid", "number_too_small": "A number is too small",
    "number_too_large": "A number is too large", "quiz_answer_not_correct": "A quiz answer is wrong",
    "invalid_email": "An email address is not valid", "invalid_url": "A web address is not valid",
    "invalid_tel": "A telephone number is not valid", "captcha_not_match": "A code does not match",
}


@contextmanager
def rest_request(page, write: bool = False):
    """A RestRequest as the signed-in user, for the content service and the plugin's own modules.

    Writes commit when the block ends without an error and roll back otherwise.
    """
    request = RestRequest(page.app, "POST" if write else "GET", "/", [], {}, environ=page.environ,
                          base_url=page.app.rest_base_url(page.environ), remote_addr=page.client_address)
    request.user = page.user
    success = False
    try:
        yield request
        success = True
    finally:
        request.finish(success=success)


def forms_page(page):
    if page.subpath == "":
        return list_page(page)
    if form_id_of(page.subpath):
        return editor_page(page, form_id_of(page.subpath))
    return PageAnswer(page.render("forms_notice.html", done="no-such-page"), 404)


def form_id_of(text: str) -> int | None:
    """The id a path segment or field names, or None when it cannot be one."""
    return int(text) if FORM_ID.match(text) and int(text) <= MAX_ID else None


# --- the list -------------------------------------------------------------------------------

def list_page(page):
    status = 200
    if page.method == "POST":
        if page.action == "create":
            created = create(page)
            if created is not None:
                return created
            status = 400
        elif page.action == "delete":
            status = delete(page)
        else:
            page.notice(page.render("forms_notice.html", done="open-form"), "error")
            status = 400
    with rest_request(page) as request:
        forms = [{**form, "modified": minutes(form["modified"])} for form in store.list_forms(request)]
    return PageAnswer(page.render("forms_admin_list.html", forms=forms,
                                   can_read_submissions=page.user.can("manage_options")), status)


def minutes(value: Any) -> str:
    """A stored date to the minute ("2026-12-06 08:15"), whether the database gave text or a datetime."""
    text = value.isoformat() if hasattr(value, "isoformat") else str(value or "")
    return text[:16].replace("T", " ")


def create(page) -> PageAnswer | None:
    """Add a form with the default template and mail; to its editor (303), or None after a field error."""
    title = page.form.get("title", "").strip()
    if not title:
        page.error("title", "Give the form a title.")
        return None
    try:
        params = FormWriteArgs().load({"title": title})
    except ValidationError as error:
        page.error("title", " ".join(error.messages.get("title", ["This title cannot be used."])))
        return None
    with rest_request(page, write=True) as request:
        item = routes.create_from(request, params)
    return redirect(page.url(item["id"]) + "?created=1", 303, {"Cache-Control": "no-store"})


def delete(page) -> int:
    """Delete the form named by `form_id` (its stored submissions stay, as the reference's Flamingo keeps them)."""
    form_id = page.form.get("form_id", "")
    with rest_request(page, write=True) as request:
        form = store.load(request, form_id_of(form_id)) if form_id_of(form_id) else None
        if form is None:
            page.notice(page.render("forms_notice.html", done="nothing-deleted"), "error")
            return 404
        try:
            store.remove(request, form)
        except LookupError:
            page.notice(page.render("forms_notice.html", done="not-deleted"), "error")
            return 409
    page.notice(page.render("forms_notice.html", done="deleted", title=form.title))
    return 200


# --- the editor -----------------------------------------------------------------------------

def editor_page(page, form_id: int):
    with rest_request(page) as request:
        form = store.load(request, form_id)
    if form is None:
        return PageAnswer(page.render("forms_notice.html", done="no-such-form"), 404)
    context: dict[str, Any] = {"preview": None, "problems": form.config_errors}
    status = 200
    if page.method == "GET" and page.query_text("created"):
        page.notice(page.render("forms_notice.html", done="added"))
    if page.method == "POST":
        status = post_editor(page, form, context)
    return PageAnswer(editor_html(page, form, context), status)


def post_editor(page, form: store.Form, context: dict[str, Any]) -> int:
    if page.action not in ("save", "preview"):
        page.notice(page.render("forms_notice.html", done="list-action"), "error")
        return 400
    sent = posted(page)
    page.form.update(flat_values(sent))  # redisplay what was typed, uncut
    try:
        params = FormUpdateArgs().load({**sent, "id": form.id,
                                        "context": "dry-run" if page.action == "preview" else "save"})
    except ValidationError as error:
        for name, message in field_errors(error.messages):
            page.error(name, message)
        return 400
    if page.action == "preview":
        show_preview(page, form, params, context)
        return 200
    try:
        with rest_request(page, write=True) as request:
            saved = routes.update_from(request, form, params)
    except RestError as error:
        page.notice(page.render("forms_notice.html", done="not-saved", reason=error.message), "error")
        return 409
    context["problems"] = saved["config_errors"] or {}
    count = sum(len(found) for found in context["problems"].values())
    page.notice(page.render("forms_notice.html", done="saved", problems=count), "success" if not count else "error")
    return 200


def show_preview(page, form: store.Form, params: dict[str, Any], context: dict[str, Any]) -> None:
    properties, parsed, problems = routes.edited(form, params)
    edited = store.Form(id=form.id, title=params.get("title", form.title), slug=form.slug,
                        status=params.get("status") or form.status, hash=form.hash,
                        locale=params.get("locale") or form.locale, properties=properties, config_errors=problems,
                        version=form.version, parsed=parsed)
    context["preview"] = render.render_form(page.app, edited, **render.addresses(
        page.app.site_url(page.environ), page.app.rest_base_url(page.environ), form.id))
    context["problems"] = problems
    page.notice(page.render("forms_notice.html", done="preview"), "status")


def posted(page) -> dict[str, Any]:
    """The editor's fields as FormUpdateArgs expects them (read uncut: a template may be long)."""
    raw = page.uncut_form

    def text(name: str) -> str:
        return str(raw.get(name, ""))

    sent: dict[str, Any] = {name: text(name) for name in TEXTS if name != "locale"}
    if text("locale"):
        sent["locale"] = text("locale")
    for key in MAILS:
        mail: dict[str, Any] = {name: text(f"{key}-{name}") for name in MAIL_TEXTS}
        mail.update({flag: raw.get(f"{key}-{flag}") == "1" for flag in MAIL_FLAGS})
        sent[key] = mail
    sent["messages"] = {key: text(f"message-{key}") for key in props.DEFAULT_MESSAGES}
    return sent


def flat_values(sent: dict[str, Any]) -> dict[str, str]:
    """The editor's field names with what was typed (checkboxes as "1" or "")."""
    values = {name: sent[name] for name in TEXTS if name in sent}
    for key in MAILS:
        for name, value in sent[key].items():
            values[f"{key}-{name}"] = ("1" if value else "") if isinstance(value, bool) else value
    values.update({f"message-{key}": value for key, value in sent["messages"].items()})
    return values


def field_errors(messages: Any) -> list[tuple[str, str]]:
    """(editor field name, message) of marshmallow's nested error messages."""
    found: list[tuple[str, str]] = []
    for name, value in (messages.items() if isinstance(messages, dict) else []):
        if name in MAILS and isinstance(value, dict):
            found.extend((f"{name}-{inner}", " ".join(map(str, text))) for inner, text in value.items())
        elif name == "messages" and isinstance(value, dict):
            found.extend((f"message-{inner}", " ".join(map(str, text))) for inner, text in value.items())
        else:  # the editor sends only its own fields, so every other key is one of TEXTS
            found.append((name, " ".join(map(str, value)) if isinstance(value, list) else str(value)))
    return found


def stored_values(form: store.Form) -> dict[str, str]:
    """The editor's field names with the form's saved values."""
    values = {"title": form.title, "locale": form.locale, "status": form.status,
              "form": form.properties.get("form", ""),
              "additional_settings": form.properties.get("additional_settings", "")}
    for key in MAILS:
        mail = form.properties.get(key) or {}
        values.update({f"{key}-{name}": str(mail.get(name) or "") for name in MAIL_TEXTS})
        values.update({f"{key}-{flag}": "1" if mail.get(flag) else "" for flag in MAIL_FLAGS})
    values.update({f"message-{key}": form.message(key) for key in props.DEFAULT_MESSAGES})
    return values


def problems_by_field(problems: dict[str, list[dict[str, str]]]) -> dict[str, list[str]]:
    """Configuration problems keyed by editor field (`mail.sender` is the field `mail-sender`)."""
    found: dict[str, list[str]] = {}
    for path, items in (problems or {}).items():
        name = path.replace(".", "-", 1)
        found.setdefault(name, []).extend(str(item.get("message", "")) for item in items)
    return found


def editor_html(page, form: store.Form, context: dict[str, Any]) -> Markup:
    return page.render("forms_admin_editor.html", form=form, values=stored_values(form),
                       problems=problems_by_field(context["problems"]), preview=context["preview"],
                       messages=[(key, MESSAGE_LABELS.get(key, key)) for key in props.DEFAULT_MESSAGES],
                       mails=(("mail", "Mail"), ("mail_2", "Mail (2)")),
                       can_read_submissions=page.user.can("manage_options"))
