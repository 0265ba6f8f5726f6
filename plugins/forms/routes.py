"""forms/v1: form management, the public schema and refill helpers, and the submissions list.

Every refusal is 403 `forms_forbidden`, anonymous callers included, as the real plugin answers
(its routes declare `anonymous_refusal=403`); a missing form is 404 `forms_not_found` on every
route. Only the schema route publishes a `schema` in OPTIONS: the real plugin registers none for
the others, so theirs stay in the OpenAPI document only (`show_schema=False`).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select

from host import RestError, RestResponse, Route

from . import properties as props
from . import render, rules, store, template
from .feedback import feedback
from .schemas import (
    FeedbackBody, FeedbackResultSchema, FeedbackSchemaSchema, FormIdArgs, FormListArgs, FormSchema, FormSummarySchema,
    FormUpdateArgs, FormWriteArgs, SubmissionListArgs,
)
from .settings import settings_of

NAMESPACE = "forms/v1"
ITEM = r"/contact-forms/(?P<id>[\d]+)"
DEFAULT_LOCALE = "en_US"
REFUSAL = 403  # the real plugin's explicit status for every refusal, signed in or not


# --- permissions --------------------------------------------------------------------------

def _needs(capability: str, message: str) -> dict[str, Any]:
    """The Route keywords of a plain capability check, refused as the real plugin refuses (403 forms_forbidden)."""
    return {"capability": capability, "refusal": ("forms_forbidden", message)}


READ_FORMS = _needs("edit_posts", "You are not allowed to access contact forms.")
CREATE_FORM = _needs("publish_pages", "You are not allowed to create a contact form.")
EDIT_FORM = _needs("publish_pages", "You are not allowed to access the requested contact form.")
DELETE_FORM = _needs("publish_pages", "You are not allowed to delete this contact form.")
READ_SUBMISSIONS = _needs("manage_options", "You are not allowed to read form submissions.")


# --- shapes ---------------------------------------------------------------------------------

def _not_found() -> RestError:
    return RestError("forms_not_found", "The requested contact form was not found.", 404)


def _item(form_id: int | None, slug: str, title: str, locale: str, properties: dict[str, Any],
          parsed: template.ParsedTemplate) -> dict[str, Any]:
    return {"id": form_id, "slug": slug, "title": title, "locale": locale,
            "properties": props.shape(properties, parsed)}


def _config_errors(errors: dict[str, Any]) -> Any:
    return errors if errors else []


def _load(request) -> store.Form:
    form = store.load(request, request.params["id"])
    if form is None:
        raise _not_found()
    return form


# --- handlers -------------------------------------------------------------------------------

def list_forms(request):
    params = request.params
    items = store.list_forms(request, params.get("search") or "")
    key = params["orderby"].lower()
    sort_key = {"id": lambda item: item["id"], "title": lambda item: (item["title"].lower(), item["id"]),
                "slug": lambda item: (item["slug"], item["id"]),
                "date": lambda item: (str(item["date"]), item["id"]),
                "modified": lambda item: (str(item["modified"]), item["id"])}[key]
    items.sort(key=sort_key, reverse=params["order"].lower() == "desc")
    items = items[params["offset"]:]
    if params["per_page"] > 0:
        items = items[:params["per_page"]]
    return [{name: item[name] for name in ("id", "hash", "slug", "title", "locale")} for item in items]


def _sent_properties(params: dict[str, Any]) -> dict[str, Any]:
    return {key: params[key] for key in props.PROPERTY_KEYS if key in params}


def create_form(request):
    params = request.params
    if "id" in params:
        raise RestError("forms_post_exists", "Cannot create existing contact form.", 400)
    return create_from(request, params)


def create_from(request, params: dict[str, Any]) -> dict[str, Any]:
    """Create a form from validated FormWriteArgs (the REST route and the admin page's "Add form")."""
    properties = props.merge(props.defaults(), _sent_properties(params))
    if "mail" not in params:
        properties["mail"]["active"] = True
    parsed = template.parse(properties.get("form", ""))
    errors = props.config_errors(properties, parsed)
    title = params.get("title") or "Untitled"
    locale = params.get("locale") or DEFAULT_LOCALE
    form_id = None
    slug = ""
    if params["context"] != "dry-run":
        try:
            form_id = store.create(request, title, locale, properties, errors, params.get("status") or "publish")
        except ValueError as error:
            raise RestError("forms_cannot_save", f"There was an error saving the contact form: {error}", 500) from None
        slug = request.app.content.get(request, form_id)["slug"]
    return {**_item(form_id, slug, title, locale, properties, parsed), "config_errors": _config_errors(errors)}


def get_form(request):
    form = _load(request)
    return _item(form.id, form.slug, form.title, form.locale, form.properties, form.parsed)


def edited(form: store.Form, params: dict[str, Any]) -> tuple[dict[str, Any], template.ParsedTemplate, dict]:
    """The form's properties with validated FormUpdateArgs applied, its parsed template and config errors."""
    properties = props.merge(form.properties, _sent_properties(params))
    parsed = template.parse(properties.get("form", ""))
    return properties, parsed, props.config_errors(properties, parsed)


def update_form(request):
    return update_from(request, _load(request), request.params)


def update_from(request, form: store.Form, params: dict[str, Any]) -> dict[str, Any]:
    """Save (or with context=dry-run only check) validated FormUpdateArgs: the REST route and the admin editor."""
    properties, parsed, errors = edited(form, params)
    title = params.get("title", form.title)
    locale = params.get("locale") or form.locale
    if params["context"] != "dry-run":
        try:
            store.save(request, form, title, locale, properties, errors, params.get("status"))
        except (ValueError, LookupError) as error:
            raise RestError("forms_cannot_save", f"There was an error saving the contact form: {error}", 500) from None
    return {**_item(form.id, form.slug, title, locale, properties, parsed), "config_errors": _config_errors(errors)}


def delete_form(request):
    form = _load(request)
    try:
        store.remove(request, form)
    except LookupError:
        raise RestError("forms_cannot_delete", "There was an error deleting the contact form.", 500) from None
    return {"deleted": True}


def feedback_schema(request):
    form = _load(request)
    return {"version": rules.SCHEMA_VERSION, "locale": form.locale,
            "rules": rules.schema_rules(form, settings_of(request.app).max_file_bytes)}


def refill(request):
    form = _load(request)
    return render.refill(request.app, form) or []


def list_submissions(request):
    params, app = request.params, request.app
    table = app.db.metadata.tables["forms_submissions"]
    conditions = []
    if params.get("form"):
        conditions.append(table.c.form_id == params["form"])
    if params.get("status"):
        conditions.append(table.c.status == params["status"])
    query = select(table).where(*conditions).order_by(table.c.id.desc())
    total = request.session.execute(select(func.count()).select_from(table).where(*conditions)).scalar_one()
    rows = request.session.execute(query.limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"]))
    rows = list(rows.mappings())
    states = app.mail.states([outbox_id for row in rows for outbox_id in json.loads(row["mail_ids"])])
    items = [submission_data(row, states) for row in rows]
    return RestResponse.collection(request, items, total, params["per_page"], params["page"])


def submission_data(row, states: dict[int, dict[str, Any]]) -> dict[str, Any]:
    outbox = []
    for outbox_id in json.loads(row["mail_ids"]):
        found = states.get(outbox_id)
        if found is not None:
            outbox.append({"id": outbox_id, "status": found["status"], "attempts": found["attempts"],
                           "to": found["recipients"], "last_error": found["last_error"]})
    return {
        "id": row["id"], "form": row["form_id"], "date_gmt": row["created_at"].isoformat(timespec="seconds"),
        "status": row["status"], "posted_data_hash": row["posted_data_hash"], "unit_tag": row["unit_tag"],
        "container_post": row["container_post"], "remote_ip": row["remote_ip"], "user_agent": row["user_agent"],
        "user": row["user_id"], "guid": row["guid"], "fields": json.loads(row["fields"]),
        "files": [{key: item[key] for key in ("field", "name", "content_type", "size")}
                  for item in json.loads(row["files"])],
        "invalid_fields": json.loads(row["invalid_fields"]), "spam_log": json.loads(row["spam_log"]), "mail": outbox,
    }


def routes() -> list[Route]:
    guarded = {"anonymous_refusal": REFUSAL}
    shown_only_in_openapi = {"show_schema": False}
    return [
        Route(NAMESPACE, "/contact-forms", "GET", list_forms, args=FormListArgs, **READ_FORMS,
              schema=FormSummarySchema, title="contact-form", **guarded, **shown_only_in_openapi),
        Route(NAMESPACE, "/contact-forms", "POST", create_form, args=FormWriteArgs, **CREATE_FORM,
              **guarded),
        Route(NAMESPACE, ITEM, "GET", get_form, args=FormIdArgs, **EDIT_FORM, schema=FormSchema,
              title="contact-form", **guarded, **shown_only_in_openapi),
        Route(NAMESPACE, ITEM, ("POST", "PUT", "PATCH"), update_form, args=FormUpdateArgs, **EDIT_FORM,
              **guarded),
        Route(NAMESPACE, ITEM, "DELETE", delete_form, args=FormIdArgs, **DELETE_FORM, **guarded),
        Route(NAMESPACE, ITEM + "/feedback", "POST", feedback, args=FormIdArgs, schema=FeedbackResultSchema,
              title="contact-form-feedback", multipart_body=FeedbackBody, **shown_only_in_openapi),
        Route(NAMESPACE, ITEM + "/feedback/schema", "GET", feedback_schema, args=FormIdArgs,
              schema=FeedbackSchemaSchema, title="contact-form-schema", cacheable=True),
        Route(NAMESPACE, ITEM + "/refill", "GET", refill, args=FormIdArgs, title="contact-form-refill",
              uncacheable="picks new quiz questions for each visitor, so one answer must not serve the next"),
        Route(NAMESPACE, "/submissions", "GET", list_submissions, args=SubmissionListArgs,
              **READ_SUBMISSIONS, title="form-submission", **guarded),
    ]
