"""Settings: the site settings of the REST route core/v2/settings, as an editable form.

The page reads the route's values with GET and its writable settings (type, enum, limits,
description) from OPTIONS, as the signed-in user, and saves the changed values with POST;
it never imports the core plugin. The route validates: its 400 rest_invalid_param names each
bad setting in data.params, and the page shows that message beside the field with the
submitted values kept (the route checks every value before writing any, so nothing changed).
The page is templates/settings.html, its notices templates/settings_notice.html.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ..answer import PageAnswer
from .framework import AdminRequest

ACTIONS = ("save",)
SETTINGS_NAMESPACE = "core/v2"
SETTINGS_ROUTE = f"/{SETTINGS_NAMESPACE}/settings"
FORM_MARKER = "settings_form"  # sent by the full form: an unticked checkbox then means false
LABELS = {  # WordPress's names for the settings on its General and Reading screens
    "title": "Site title", "description": "Tagline", "url": "Site address (URL)",
    "email": "Administration email address", "timezone": "Timezone", "date_format": "Date format",
    "time_format": "Time format", "start_of_week": "Week starts on (0 is Sunday)", "language": "Site language",
    "use_smilies": "Show emoticons as graphics", "default_category": "Default post category (ID)",
    "default_post_format": "Default post format", "posts_per_page": "Blog pages show at most",
    "show_on_front": "Your homepage displays", "page_on_front": "Homepage (page ID)",
    "page_for_posts": "Posts page (page ID)", "default_ping_status": "Link notifications on new posts",
    "default_comment_status": "Comments on new posts",
    "moderation_notify": "Email me whenever a comment is held for moderation", "site_logo": "Site logo (media ID)",
    "site_icon": "Site icon (media ID)",
}
INPUT_KINDS = {"email": "email", "uri": "url"}
# Kept by the REST route for clients that send them, but nothing here acts on them: sitehost draws no
# emoticons and sends no pingbacks, so an operator is not offered a switch that does nothing.
INERT_SETTINGS = frozenset({"use_smilies", "default_ping_status"})


def settings_page(page: AdminRequest):
    if not page.has_namespace(SETTINGS_NAMESPACE):
        if page.method == "POST":
            page.notice(page.render("settings_notice.html", done="core-disabled"), "error")
            return PageAnswer("", 409)
        return page.render("settings.html", unavailable=True)
    schema = page.rest("OPTIONS", SETTINGS_ROUTE)
    current = page.rest("GET", SETTINGS_ROUTE)
    if not (schema.ok and current.ok and isinstance(current.data, dict)):
        status = current.status if not current.ok else schema.status
        page.notice(page.render("settings_notice.html", done="unreadable", status=status), "error")
        return PageAnswer("", 502)
    writable = writable_settings(schema.data)
    values = current.data
    status = 200
    if page.method == "POST":
        status, values = save(page, writable, values)
    return PageAnswer(settings_form(page, writable, values), status)


def writable_settings(options: Any) -> dict[str, dict]:
    """Each setting the route's POST accepts, with its JSON schema (from the OPTIONS answer)."""
    if not isinstance(options, dict):
        return {}
    for endpoint in options.get("endpoints", []):
        if "POST" in endpoint.get("methods", []) and isinstance(endpoint.get("args"), dict):
            return {name: arg for name, arg in endpoint["args"].items()
                    if isinstance(arg, dict) and name not in INERT_SETTINGS}
    return {}


def setting_type(schema: dict) -> str:
    """The setting's type without "null" (null only resets it to its default)."""
    kinds = schema.get("type", "string")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    return next((kind for kind in kinds if kind != "null"), "string")


def as_text(value: Any, kind: str) -> str:
    """A value as its form field shows it."""
    if kind == "boolean":
        return "1" if value else ""
    return "" if value is None else str(value)


# --- saving ----------------------------------------------------------------------------------

def submitted_changes(page: AdminRequest, writable: dict[str, dict], values: dict) -> dict[str, Any]:
    """The settings whose submitted value differs from the current one, as the REST body sends them.

    A field the form did not send is left alone; an empty number field sends null (the
    default again); other values go as typed, so the route reports a wrong type itself.
    """
    changes: dict[str, Any] = {}
    full_form = page.form.get(FORM_MARKER) == "1"
    for name, schema in writable.items():
        kind = setting_type(schema)
        current = values.get(name)
        if kind == "boolean":
            if full_form and (page.form.get(name) == "1") != bool(current):
                changes[name] = page.form.get(name) == "1"
            continue
        if name not in page.form:
            continue
        typed = page.form[name].strip() if kind in ("integer", "number") else page.form[name]
        if typed == as_text(current, kind):
            continue
        changes[name] = None if typed == "" and kind in ("integer", "number") else typed
    return changes


def field_message(kind: str, message: str, code: str) -> str:
    """The route's message for a field, in the page's words where the route's are technical."""
    if code == "rest_invalid_type":
        return {"integer": "Enter a whole number.", "number": "Enter a number."}.get(kind, message)
    return message[:1].upper() + message[1:]


def save(page: AdminRequest, writable: dict[str, dict], values: dict) -> tuple[int, dict]:
    changes = submitted_changes(page, writable, values)
    if not changes:
        page.notice(page.render("settings_notice.html", done="unchanged"))
        return 200, values
    answer = page.rest("POST", SETTINGS_ROUTE, body=changes)
    if answer.ok and isinstance(answer.data, dict):
        names = ", ".join(LABELS.get(name, name) for name in changes)
        page.notice(page.render("settings_notice.html", done="saved", names=names))
        page.form.clear()  # show what the route kept, not what was typed
        return 200, answer.data
    data = answer.data if isinstance(answer.data, dict) else {}
    params = (data.get("data") or {}).get("params") if isinstance(data.get("data"), dict) else None
    if answer.status == 400 and isinstance(params, dict):
        details = data["data"].get("details") or {}
        unplaced = []
        for name, message in params.items():
            if name in writable:
                code = (details.get(name) or {}).get("code", "") if isinstance(details.get(name), dict) else ""
                page.error(name, field_message(setting_type(writable[name]), str(message), code))
            else:
                unplaced.append(f"{name}: {message}")
        if unplaced:
            page.notice(page.render("settings_notice.html", done="unplaced", problems="; ".join(unplaced)), "error")
        return 400, values
    reason = data.get("message", "")
    page.notice(page.render("settings_notice.html", done="refused", status=answer.status, reason=reason), "error")
    return (502 if answer.status >= 500 else 409), values


# --- the form --------------------------------------------------------------------------------

def setting_field(name: str, schema: dict, value: Any) -> dict[str, Any]:
    """What `admin/macros.html`'s field needs for a setting of its kind: checkbox, number, select for an enum, or text."""
    kind = setting_type(schema)
    help_text = str(schema.get("description", "")).strip()
    if help_text and help_text[-1] not in ".?!":
        help_text += "."  # some of WordPress's descriptions end without one
    shown = as_text(value, kind)
    field: dict[str, Any] = {
        "name": name, "label": LABELS.get(name, name.replace("_", " ").capitalize()), "value": shown,
        "kind": INPUT_KINDS.get(str(schema.get("format", "")), "text"), "help": help_text, "options": None, "attrs": {}}
    if kind == "boolean":
        return {**field, "kind": "checkbox"}
    enum = [option for option in schema.get("enum") or [] if option is not None]
    if enum:
        options = [(str(option), str(option)) for option in enum]
        if shown not in [option for option, _text in options]:
            options.insert(0, (shown, shown or "(not set)"))
        return {**field, "kind": "select", "options": options}
    if kind in ("integer", "number"):
        limits = {key: schema[key] for key in ("minimum", "maximum") if isinstance(schema.get(key), (int, float))}
        bounds: dict[str, Any] = {"min": limits["minimum"]} if "minimum" in limits else {}
        if "maximum" in limits:
            bounds["max"] = limits["maximum"]
        if kind == "integer":
            bounds["step"] = 1
        extra_help = "Empty: the default."
        if len(limits) == 2:
            extra_help = f"From {limits['minimum']} to {limits['maximum']}. " + extra_help
        return {**field, "kind": "number", "attrs": bounds, "help": f"{help_text} {extra_help}".strip()}
    return field


def settings_form(page: AdminRequest, writable: dict[str, dict], values: dict) -> Markup:
    read_only = [(LABELS.get(name, name), values[name]) for name in values
                 if name not in writable and name not in INERT_SETTINGS]
    return page.render("settings.html", unavailable=False, config=page.app.settings.config_file or "sitehost.toml",
                       form_marker=FORM_MARKER, read_only=read_only,
                       fields=[setting_field(name, schema, values.get(name)) for name, schema in writable.items()])
