"""The Calendar admin page: import an .ics file or a feed's URL, see each import's summary, and set the
calendar's display settings (those the setup wizard asks for).

Imports run through the same code as `sitehost calendar import` (imports.import_data / import_source:
the outbound guard for URLs, the size limit, events matched by UID so a second run creates nothing
twice) and leave the same import record, which `sitehost calendar imports` lists too. The settings are
saved through the wizard's own route (calx/v2/onboarding/wizard) as the signed-in administrator, so
they are checked in one place.
"""

from __future__ import annotations

from typing import Any

from host import AdminPage, PageAnswer
from host.admin import AdminRequest
from host.content import service_request
from host.text import sanitize_text_field

from .imports import ImportFailed, find_record, import_data, import_source, list_records
from .onboarding import NAMESPACE as WIZARD_NAMESPACE, PREFERENCES_OPTION, SETTINGS_TAB, VIEWS, read_option
from .settings import settings_of

ACTIONS = ("upload", "import-url", "import-again", "settings")
WIZARD_ROUTE = f"/{WIZARD_NAMESPACE}/wizard"
MAX_URL = 2000
MAX_NAME = 200
PAST_IMPORTS_SHOWN = 50
WEEK_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
COUNT_NAMES = ("created", "updated", "skipped", "failed", "unsupported")


def admin_pages() -> list[AdminPage]:
    return [AdminPage("Calendar", "calendar", calendar_page, capability="manage_options", actions=ACTIONS)]


def calendar_page(page: AdminRequest):
    status, summary, typed_url = 200, None, ""
    if page.method == "POST":
        status, summary = {"upload": upload, "import-url": import_url, "import-again": import_again,
                           "settings": save_settings}[page.action](page)
        if page.action != "settings":  # the settings form shows what is stored, not another form's fields
            typed_url = page.form.get("feed_url", "") if status != 200 else ""
            page.form.clear()
    return PageAnswer(page.render("calendar_admin.html", summary=summary, imports=past_imports(page),
                                   typed_url=typed_url,
                                   settings=current_settings(page), week_days=[(str(number), name) for number, name in enumerate(WEEK_DAYS)],
                                   views=VIEWS, max_bytes=settings_of(page.app).import_max_bytes), status)


# --- imports -------------------------------------------------------------------------------------

def _finished(page: AdminRequest, import_id: str, activity) -> tuple[int, dict]:
    """The summary of the import that just ran, as the list of past imports shows it."""
    with page.app.db.session() as session:
        record = find_record(session, page.app, import_id)
    counts = activity.as_dict()
    page.notice(page.render("calendar_notice.html", done="imported", counts=[(name, counts[name]) for name in COUNT_NAMES]),
                "error" if activity.failed else "success")
    problems = [*activity.errors[:50], *(f"not representable here: {name}" for name in activity.unsupported_items)]
    return (200, {"import_id": import_id, "source": record["source"] if record else "",
                  "counts": {name: counts[name] for name in COUNT_NAMES}, "problems": problems})


def upload(page: AdminRequest) -> tuple[int, Any]:
    limit = settings_of(page.app).import_max_bytes
    sent = page.files.get("ics_file")
    if sent is None or not sent.raw_filename:
        page.error("ics_file", "Choose an .ics file to import.")
        return 400, None
    data = sent.file.read(limit + 1)
    if len(data) > limit:
        page.error("ics_file", f"The file is larger than {limit:,} bytes, the import limit (import_max_bytes).")
        return 400, None
    name = sanitize_text_field(str(sent.filename or "calendar.ics"))[:MAX_NAME]
    try:
        import_id, activity = import_data(page.app, page.user, data, f"upload: {name}")
    except ImportFailed as refused:
        page.error("ics_file", f"This file cannot be imported: {refused}.")
        return 400, None
    return _finished(page, import_id, activity)


def _is_feed_url(value: str) -> bool:
    return value.lower().startswith(("http://", "https://")) and len(value) <= MAX_URL and " " not in value


def import_url(page: AdminRequest) -> tuple[int, Any]:
    url = page.form.get("feed_url", "").strip()
    if not _is_feed_url(url):
        page.error("feed_url", f"Enter the feed's http:// or https:// address (at most {MAX_URL} characters).")
        return 400, None
    return _run_url(page, url, "feed_url")


def import_again(page: AdminRequest) -> tuple[int, Any]:
    with page.app.db.session() as session:
        record = find_record(session, page.app, page.form.get("import_id", "")[:64])
    if record is None or not _is_feed_url(record["source"]):
        page.notice(page.render("calendar_notice.html", done="no-such-import"), "error")
        return 409, None
    return _run_url(page, record["source"], "")


def _run_url(page: AdminRequest, url: str, field_name: str) -> tuple[int, Any]:
    try:
        import_id, activity = import_source(page.app, page.user, url)
    except ImportFailed as refused:
        message = f"The feed could not be imported: {refused}."
        if field_name:
            page.error(field_name, message)
        else:
            page.notice(page.render("calendar_notice.html", done="feed-failed", message=message), "error")
        return 400, None
    return _finished(page, import_id, activity)


def past_imports(page: AdminRequest) -> list[dict]:
    """The newest import records, each with its counts, problems and whether it can be run again."""
    with page.app.db.session() as session:
        request = service_request(page.app, session, page.user)
        records = list_records(session, page.app, lambda post_id: page.app.content.get(request, post_id),
                               limit=PAST_IMPORTS_SHOWN)
    for record in records:
        activity = record["activity"] if isinstance(record["activity"], dict) else {}
        record["counts"] = {name: int(activity.get(name, 0)) for name in COUNT_NAMES}
        record["problems"] = [part for part in str(record.get("message") or "").split("; ") if part] + [
            f"not representable here: {name}" for name in activity.get("unsupported_items") or []]
        record["again"] = _is_feed_url(record["source"] or "")
    return records


# --- settings ----------------------------------------------------------------------------------

def current_settings(page: AdminRequest) -> dict:
    answer = page.rest("GET", WIZARD_ROUTE)
    shown = dict(answer.data.get("settings", {})) if answer.ok and isinstance(answer.data, dict) else {}
    with page.app.db.session() as session:
        shown["currency"] = read_option(session, page.app, PREFERENCES_OPTION, {}).get(
            "currency", settings_of(page.app).currency_code)
    return shown


def save_settings(page: AdminRequest) -> tuple[int, Any]:
    wizard = page.rest("GET", WIZARD_ROUTE)
    if not wizard.ok or not isinstance(wizard.data, dict):
        page.notice(page.render("calendar_notice.html", done="unreadable", status=wizard.status), "error")
        return 502, None
    form = page.form
    views = [view for view in VIEWS if form.get(f"view_{view}") == "1"]
    start_of_week = form.get("start_of_week", "")
    body = {"action_nonce": wizard.data["action_nonce"],
            # the settings tab, unless the wizard is further on: saving here never moves it back
            "currentTab": max(SETTINGS_TAB, int(wizard.data.get("progress", {}).get("currentTab") or 0)),
            "timezone_string": form.get("timezone_string", "").strip(), "date_format": form.get("date_format", ""),
            "currency": form.get("currency", "").strip().upper(), "calEnableViews": views,
            "start_of_week": int(start_of_week) if start_of_week.isdigit() else start_of_week}
    answer = page.rest("POST", WIZARD_ROUTE, body=body)
    if answer.ok:
        page.notice(page.render("calendar_notice.html", done="saved"))
        page.form.clear()  # show what was stored, not what was typed
        return 200, None
    data = answer.data if isinstance(answer.data, dict) else {}
    params = (data.get("data") or {}).get("params") if isinstance(data.get("data"), dict) else None
    if answer.status == 400 and isinstance(params, dict):
        for name, message in params.items():
            if name == "calEnableViews":
                page.error("views", "Tick at least one view.")
            else:
                page.error(name, str(message))
        return 400, None
    page.notice(page.render("calendar_notice.html", done="refused", status=answer.status,
                            reason=data.get("message", "")), "error")
    return 409, None
