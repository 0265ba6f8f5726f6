"""calx/v2/onboarding: the administrator's first-run wizard (§5), and the calendar's display preferences.

The wizard's progress and the settings it collects live in `cal_options` (rows "wizard" and
"preferences"). `preferences(app)` is what the rest of the calendar (the views) reads: the
effective time zone, date format and first day of the week, falling back to the site's.

action_nonce: a token the host's signer "calendar.wizard" signs (keys.py),
naming the administrator it was issued to; it is good for NONCE_SECONDS. An administrator gets one from `GET calx/v2/onboarding/wizard`, which also answers
the stored progress and settings. A token of another user, an old or a forged one: 403
`cal_invalid_nonce`, and nothing is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from marshmallow import Schema, fields, validate
from sqlalchemy import insert, select, update

from host import RestError, Route, forbidden, invalid_param
from host.args import JsonSchemaField
from host.signing import TokenInvalid

from . import places, state, times
from .keys import wizard_signer
from .names import ORGANIZER, VENUE
from .tables import tables

NAMESPACE = "calx/v2/onboarding"
NONCE_SECONDS = 12 * 3600
MAX_NONCE = 300
MAX_TABS = 10  # the wizard has 6 tabs (0 welcome, 1 settings, ..., 5 organizer and venue); room to grow
SETTINGS_TAB, PLACES_TAB = 1, 5
VIEWS = ("month", "list", "day")
DEFAULT_DATE_FORMAT = "F j, Y"
DEFAULT_WEEK_START = 1  # Monday, as the site settings default to
WIZARD_OPTION, PREFERENCES_OPTION = "wizard", "preferences"


# --- options ---------------------------------------------------------------------------------

def read_option(session, app, name: str, default):
    options = tables(app)["options"]
    text = session.execute(select(options.c.value).where(options.c.name == name)).scalar_one_or_none()
    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def write_option(session, app, name: str, value) -> None:
    options = tables(app)["options"]
    text = json.dumps(value, sort_keys=True)
    if session.execute(select(options.c.name).where(options.c.name == name)).first() is None:
        session.execute(insert(options).values(name=name, value=text))
    else:
        session.execute(update(options).where(options.c.name == name).values(value=text))
    if name == PREFERENCES_OPTION:  # the views and feeds kept per calendar version show them: renew those
        state.changed(session, app)


# --- preferences (what the views read) -----------------------------------------------------------

@dataclass(frozen=True)
class Preferences:
    timezone: str  # IANA name
    date_format: str  # PHP-style, as core's settings ("F j, Y")
    week_start: int  # 0 Sunday ... 6 Saturday
    views: tuple[str, ...]  # the views a visitor may pick


def preferences(app, session=None) -> Preferences:
    """The calendar's effective time zone, date format and week start: the wizard's, else the site's."""
    if session is None:
        with app.db.session() as own:
            stored = read_option(own, app, PREFERENCES_OPTION, {})
    else:
        stored = read_option(session, app, PREFERENCES_OPTION, {})
    zone = stored.get("timezone_string") or app.settings.site.get("timezone_string") or "UTC"
    return Preferences(timezone=zone if times.is_zone(zone) else "UTC",
                       date_format=stored.get("date_format") or DEFAULT_DATE_FORMAT,
                       week_start=int(stored.get("start_of_week", DEFAULT_WEEK_START)),
                       views=tuple(stored.get("views") or VIEWS))


# --- nonce -----------------------------------------------------------------------------------

def issue_nonce(app, user_id: int) -> str:
    return wizard_signer(app).sign({"user": user_id})


def nonce_is_valid(app, token: str, user_id: int) -> bool:
    try:
        data = wizard_signer(app).unsign(token, NONCE_SECONDS, MAX_NONCE)
    except TokenInvalid:
        return False
    return isinstance(data, dict) and data.get("user") == user_id


# --- route -----------------------------------------------------------------------------------

def _place(name_field: str, meta: tuple[str, ...]) -> fields.Field:
    properties = {name_field: {"type": "string", "maxLength": 500}, "id": {"type": "integer", "minimum": 1},
                  "description": {"type": "string", "maxLength": 10_000},
                  **{key: {"type": "string", "maxLength": 500} for key in meta}}

    return JsonSchemaField({"type": "object", "properties": properties, "additionalProperties": False,
                            "description": f"The first {name_field}: its fields, or {{id}} of an existing one."})


class WizardArgs(Schema):
    action_nonce = fields.String(required=True, validate=validate.Length(min=1, max=MAX_NONCE), metadata={
        "description": "The wizard's token (GET calx/v2/onboarding/wizard gives one to an administrator)."})
    begun = fields.Boolean(metadata={"description": "The wizard was started (marks tab 0 completed)."})
    finished = fields.Boolean(metadata={"description": "The wizard was finished (implies begun)."})
    currentTab = fields.Integer(validate=validate.Range(min=0, max=MAX_TABS - 1),  # noqa: N815 (wire name)
                                metadata={"description": "The tab the administrator is on."})
    completedTabs = fields.List(fields.Integer(validate=validate.Range(min=0, max=MAX_TABS - 1)),  # noqa: N815
                                validate=validate.Length(max=MAX_TABS), metadata={"description": "Tabs completed."})
    skippedTabs = fields.List(fields.Integer(validate=validate.Range(min=0, max=MAX_TABS - 1)),  # noqa: N815
                              validate=validate.Length(max=MAX_TABS), metadata={"description": "Tabs skipped."})
    calEnableViews = fields.List(fields.String(validate=validate.OneOf(VIEWS)),  # noqa: N815
                                 validate=validate.Length(min=1, max=len(VIEWS)),
                                 metadata={"description": "The calendar views visitors may pick."})
    currency = fields.String(validate=validate.Regexp(r"^[A-Z]{3}$"),
                             metadata={"description": "ISO 4217 code of event costs (kept with the settings)."})
    date_format = fields.String(validate=validate.Length(min=1, max=50),
                                metadata={"description": "Date format of the calendar (PHP style, F j, Y)."})
    timezone_string = fields.String(validate=validate.Length(min=1, max=64),
                                    metadata={"description": "IANA time zone of the calendar."})
    start_of_week = fields.Integer(validate=validate.Range(min=0, max=6),
                                   metadata={"description": "First day of the week (0 Sunday ... 6 Saturday)."})
    organizer = _place("organizer", ("phone", "website", "email"))
    venue = _place("venue", ("address", "city", "country", "province", "state", "zip", "phone", "website"))


class WizardReadArgs(Schema):
    pass


def can_manage(request) -> bool:
    """manage_options, as a callback and not `capability=`: the wizard's POST also answers 403 to an
    administrator whose nonce is stale, so it is not a route that answers by the capability alone."""
    if not request.user.can("manage_options"):
        raise forbidden(request.user)
    return True


def _progress(stored: dict, params: dict, sent) -> dict:
    """§5's progress rules: completed wins over skipped; begun completes tab 0; the current tab counts."""
    progress = {"begun": bool(stored.get("begun")), "finished": bool(stored.get("finished")),
                "currentTab": int(stored.get("currentTab", 0)),
                "completedTabs": list(stored.get("completedTabs", [])), "skippedTabs": list(stored.get("skippedTabs", []))}
    for name in ("begun", "finished", "currentTab", "completedTabs", "skippedTabs"):
        if sent(name) and params.get(name) is not None:
            progress[name] = params[name]
    if progress["finished"]:
        progress["begun"] = True
    completed = list(progress["completedTabs"])
    if progress["begun"]:
        completed.append(0)
    if progress["currentTab"] not in progress["skippedTabs"]:
        completed.append(progress["currentTab"])
    completed = sorted(set(completed))
    progress["completedTabs"] = completed
    progress["skippedTabs"] = sorted(set(progress["skippedTabs"]) - set(completed))
    return progress


def _place_step(request, kind: str, stored: dict, messages: list[str]) -> None:
    """Create the first venue / organizer once: a repeated step finds the one it made."""
    label = kind.capitalize()
    sent = request.params.get(kind)
    if not sent:
        messages.append(f"No {kind} data sent. Step skipped.")
        return
    if sent.get("id"):
        found = request.app.content.get(request, int(sent["id"]), VENUE if kind == "venue" else ORGANIZER)
        if found is None:
            raise invalid_param({kind: f"{sent['id']} is not the id of a {kind}."})
        stored[f"{kind}_id"] = found["id"]
        messages.append(f"Existing {kind}. Step skipped.")
        return
    made = stored.get(f"{kind}_id")
    if made and (current := request.app.content.get(request, int(made))) is not None \
            and current["stored_status"] != "trash":
        messages.append(f"{label} already created. Step skipped.")
        return
    if not (sent.get(kind) or "").strip():
        raise invalid_param({kind: f"A {kind} needs its name ({kind})."})
    stored[f"{kind}_id"] = places.create_inline(request, kind, {**sent, "status": "publish"})
    messages.append(f"{label} created.")


def save_wizard(request):
    app, params, sent = request.app, request.params, request.has_param
    if not nonce_is_valid(app, params["action_nonce"], request.user.id):
        raise RestError("cal_invalid_nonce", "The wizard's nonce is invalid or has expired.", 403)
    if sent("timezone_string") and params.get("timezone_string") and not times.is_zone(params["timezone_string"]):
        raise invalid_param({"timezone_string": "Not an IANA time zone (such as Europe/London)."})
    session = request.session
    stored = read_option(session, app, WIZARD_OPTION, {})
    progress = _progress(stored, params, sent)
    last_sent = dict(stored.get("last_sent", {}))
    last_sent.update({name: value for name, value in (request.json or {}).items()
                      if name in WizardArgs._declared_fields and name != "action_nonce"} if isinstance(
                          request.json, dict) else {})
    messages: list[str] = []
    if progress["currentTab"] >= SETTINGS_TAB:
        wanted = read_option(session, app, PREFERENCES_OPTION, {})
        before = dict(wanted)
        for name in ("date_format", "timezone_string", "start_of_week", "currency"):
            if sent(name) and params.get(name) is not None:
                wanted[name] = params[name]
        if sent("calEnableViews") and params.get("calEnableViews"):
            wanted["views"] = list(dict.fromkeys(params["calEnableViews"]))
        if wanted != before:
            write_option(session, app, PREFERENCES_OPTION, wanted)
            # The calendar's pages show dates in these: the response cache keeps none from before.
            request.after_commit(lambda: app.hook.site_settings_changed(app=app, keys=[f"calendar.{PREFERENCES_OPTION}"]))
            messages.append("Settings saved.")
        else:
            messages.append("Settings unchanged.")
    if progress["currentTab"] >= PLACES_TAB:
        for kind in ("organizer", "venue"):
            _place_step(request, kind, stored, messages)
    record = {**progress, "last_sent": last_sent, **{key: stored[key] for key in ("venue_id", "organizer_id")
                                                      if key in stored}}
    write_option(session, app, WIZARD_OPTION, record)
    return {"success": True, "message": messages}


def read_wizard(request):
    app = request.app
    stored = read_option(request.session, app, WIZARD_OPTION, {})
    chosen = preferences(app, request.session)
    return {"action_nonce": issue_nonce(app, request.user.id), "expires_in": NONCE_SECONDS,
            "progress": {key: stored.get(key, default) for key, default in (
                ("begun", False), ("finished", False), ("currentTab", 0), ("completedTabs", []),
                ("skippedTabs", []), ("venue_id", None), ("organizer_id", None))},
            "settings": {"timezone_string": chosen.timezone, "date_format": chosen.date_format,
                         "start_of_week": chosen.week_start, "calEnableViews": list(chosen.views)}}


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, "/wizard", "POST", save_wizard, args=WizardArgs, permission=can_manage, title="wizard"),
        Route(NAMESPACE, "/wizard", "GET", read_wizard, args=WizardReadArgs, permission=can_manage,
              title="wizard"),
    ]

