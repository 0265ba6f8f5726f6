"""Imports: iCalendar files and URLs (`sitehost calendar import`) and import-service batches, by UID.

An import runs under an import record: a `cal_import` post whose status is its state
(cal-ea-pending while batches are expected, then cal-ea-success or cal-ea-failed) and a
`cal_imports` row with its import_id, the one-time hash of the next batch, the percentage done,
the interval before the next batch and the activity (created, updated, skipped, failed).

Each event is written through cal/events/v1's own create and update handlers (the same checks
and storage as a client's write), in the import's transaction. An event is found again by its
UID: the import records `ical?uid=<UID>` in the event's `global_id_lineage`, so importing the
same file twice creates nothing the second time (unchanged events are counted as skipped). An
event whose status is `cal-ignored` is left alone (skipped); `sitehost calendar ignore ID` marks
one. RRULE and EXDATE go to `cal_event_recurrence` as tables.py documents, RECURRENCE-ID overrides
(a moved, retitled or cancelled occurrence) to `cal_event_overrides` beside them.

What an import cannot represent (RDATE, RANGE=THISANDFUTURE, to-do and journal components, an override whose
series is missing, ...) is never dropped silently: each is named in the activity's
`unsupported_items` and counted in `unsupported`, which the command prints, the import service's
batch answer carries and the import record keeps. The rest of the entry is imported.
"""

from __future__ import annotations

import datetime
import hmac
import html
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import nh3
from sqlalchemy import delete, insert, select, update

from host import RestError, RestRequest, invalid_param
from host.outbound import Limits, fetch
from host.content import service_request

from . import event_routes, recurrence, state, times
from .events import default_row, rows_of
from .names import CATEGORY, EVENT, IGNORED, IMPORT, VENUE
from .schemas import EventCreateArgs, EventUpdateArgs
from .settings import settings_of
from .tables import tables

MAX_EVENTS = 20_000  # VEVENTs one file may hold
MAX_TEXT = 100_000
MAX_UID = 500
MAX_CATEGORIES = 20  # category names kept per event
MAX_UNSUPPORTED_NAMED = 100  # unsupported parts named on an import record (all are counted)
# Top-level components an import reads; any other (to-dos, journals, free/busy ...) is named as unsupported.
READ_COMPONENTS = ("VEVENT", "VTIMEZONE")
LINEAGE_PREFIX = "ical?uid="
DEFAULT_INTERVAL, MAX_INTERVAL = 10, 600  # §4.1: seconds before the next batch
PENDING, SUCCESS, FAILED = "cal-ea-pending", "cal-ea-success", "cal-ea-failed"
STATE_STATUSES = {"success": SUCCESS, "failed": FAILED, "pending": PENDING}


class ImportFailed(Exception):
    """The source could not be read or parsed (the message says why)."""


@dataclass
class EventData:
    """One event as an import knows it, before it is written."""

    uid: str
    title: str
    start_local: datetime.datetime  # naive wall time in `timezone`
    end_local: datetime.datetime
    timezone: str
    all_day: bool = False
    description: str = ""
    website: str = ""
    location: str = ""
    categories: tuple[str, ...] = ()  # CATEGORIES names, found or created as event categories
    rule: str | None = None  # RRULE value without "RRULE:"
    exdates: list[str] = field(default_factory=list)  # UTC ISO 8601 starts
    overrides: list["OverrideData"] = field(default_factory=list)  # RECURRENCE-ID components of the series
    problem: str = ""  # set when the entry cannot be imported (counted as failed)
    unsupported: list[str] = field(default_factory=list)  # parts it cannot represent (named, counted)
    report_only: bool = False  # nothing to write: an entry carrying only `unsupported` names


@dataclass
class OverrideData:
    """One changed occurrence of a series (a RECURRENCE-ID component), times in naive UTC."""

    original_utc: datetime.datetime
    start_utc: datetime.datetime
    end_utc: datetime.datetime
    cancelled: bool = False
    title: str | None = None  # None: the component has no SUMMARY (the series' shows)
    description: str | None = None
    location: str | None = None
    unsupported: list[str] = field(default_factory=list)  # parts of the component it cannot keep (RDATE, ...)

    def row(self, venue_id: int | None) -> dict:
        return {"original_utc": self.original_utc, "start_utc": self.start_utc, "end_utc": self.end_utc,
                "cancelled": self.cancelled, "title": self.title, "description": self.description,
                "location": self.location, "venue_id": venue_id}


@dataclass
class Activity:
    created: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    unsupported: int = 0
    unsupported_items: list[str] = field(default_factory=list)  # the first MAX_UNSUPPORTED_NAMED names

    def as_dict(self) -> dict:
        return {"created": self.created, "updated": self.updated, "skipped": self.skipped, "failed": self.failed,
                "unsupported": self.unsupported, "unsupported_items": list(self.unsupported_items)}

    def merge(self, other: dict) -> None:
        for name in ("created", "updated", "skipped", "failed", "unsupported"):
            setattr(self, name, getattr(self, name) + int(other.get(name, 0)))
        self.note_names(other.get("unsupported_items") or [])

    def note_unsupported(self, names: list[str]) -> None:
        self.unsupported += len(names)
        self.note_names(names)

    def note_names(self, names: list[str]) -> None:
        room = MAX_UNSUPPORTED_NAMED - len(self.unsupported_items)
        self.unsupported_items.extend(str(name)[:500] for name in names[:max(room, 0)])


# --- reading a source ---------------------------------------------------------------------------

def read_source(app, source: str) -> bytes:
    """The bytes of a file path or an http(s) URL, within the calendar's import limits."""
    config = settings_of(app)
    if source.lower().startswith(("http://", "https://")):
        limits = Limits(timeout_seconds=config.import_timeout_seconds, max_response_bytes=config.import_max_bytes,
                        allow_private_targets=config.import_allow_private_targets, user_agent="sitehost calendar import")
        try:
            return fetch(source, limits, accept="text/calendar, */*", code_prefix="calendar_import").body
        except RestError as error:
            raise ImportFailed(f"{source}: {error.message} ({error.code})") from None
    path = Path(source)
    if not path.is_file():
        raise ImportFailed(f"{source}: no such file (give an .ics file or an http(s) URL)")
    if path.stat().st_size > config.import_max_bytes:
        raise ImportFailed(f"{source}: larger than {config.import_max_bytes} bytes (import_max_bytes)")
    return path.read_bytes()


def _zone_name(value, fallback: str) -> str:
    """The IANA name of an aware datetime's zone (UTC for Z times); `fallback` when it has none we know."""
    tz = value.tzinfo
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)
    if key and times.is_zone(key):
        return key
    if tz is not None and value.utcoffset() == datetime.timedelta(0) and (str(tz) in ("UTC", "UTC+00:00")):
        return "UTC"
    return fallback


def _utc_iso(value, zone_name: str) -> str:
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=times.zone(zone_name))
        moment = value.astimezone(times.UTC)
    else:
        moment = datetime.datetime.combine(value, datetime.time(), times.zone(zone_name)).astimezone(times.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_local(value, zone_name: str) -> datetime.datetime:
    """A DTSTART/DTEND value as naive wall time in `zone_name`."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(times.zone(zone_name))
        return value.replace(tzinfo=None, microsecond=0)
    return datetime.datetime.combine(value, datetime.time())


def _exdates(component, zone_name: str) -> list[str]:
    found = component.get("EXDATE")
    if found is None:
        return []
    groups = found if isinstance(found, list) else [found]
    values = [entry.dt for group in groups for entry in getattr(group, "dts", [])]
    return sorted({_utc_iso(value, zone_name) for value in values})[:1000]


def _category_names(component) -> tuple[str, ...]:
    """The names of every CATEGORIES property (a VEVENT may carry several), trimmed and bounded."""
    found = component.get("CATEGORIES")
    properties = found if isinstance(found, list) else [found] if found is not None else []
    names: dict[str, None] = {}
    for prop in properties:
        for name in getattr(prop, "cats", []):
            name = str(name).strip()[:200]
            if name and len(names) < MAX_CATEGORIES:
                names.setdefault(name, None)
    return tuple(names)


def event_from_component(component, site_zone: str) -> EventData:
    """An EventData from a VEVENT (problem set when it cannot be imported)."""
    uid = str(component.get("UID") or "").strip()[:MAX_UID]
    title = str(component.get("SUMMARY") or "").strip()[:500] or "(untitled event)"
    blank = EventData(uid=uid, title=title, start_local=datetime.datetime(2000, 1, 1),
                      end_local=datetime.datetime(2000, 1, 1), timezone=site_zone)
    if not uid:
        blank.problem = "no UID"
        return blank
    start_prop = component.get("DTSTART")
    if start_prop is None:
        blank.problem = f"{uid}: no DTSTART"
        return blank
    try:
        start = component.decoded("DTSTART")
        if component.get("DTEND") is not None:
            end = component.decoded("DTEND")
        elif component.get("DURATION") is not None:
            end = start + component.decoded("DURATION")
        else:
            end = start + (datetime.timedelta(days=1) if not isinstance(start, datetime.datetime) else
                           datetime.timedelta(0))
    except (ValueError, TypeError, KeyError) as error:
        blank.problem = f"{uid}: unreadable date ({error})"
        return blank
    all_day = not isinstance(start, datetime.datetime)
    zone_name = site_zone if all_day or start.tzinfo is None else _zone_name(start, site_zone)
    start_local = _as_local(start, zone_name)
    if all_day:
        end_date = end if not isinstance(end, datetime.datetime) else end.date()
        last = max(end_date - datetime.timedelta(days=1), start)  # DTEND of a DATE event is exclusive
        end_local = datetime.datetime.combine(last, datetime.time(23, 59, 59))
    else:
        end_local = _as_local(end, zone_name) if not isinstance(end, datetime.datetime) or end.tzinfo is None \
            else _as_local(end, zone_name)
    if end_local < start_local:
        blank.problem = f"{uid}: ends before it starts"
        return blank
    rule = component.get("RRULE")
    unsupported = _unsupported_parts(component, uid)
    if isinstance(rule, list):  # RFC 5545 allows one; the first is kept
        unsupported.append(f"{uid}: {len(rule) - 1} RRULE beyond the first (one rule per event)")
        rule = rule[0]
    url = str(component.get("URL") or "").strip()
    return EventData(uid=uid, title=title, start_local=start_local, end_local=end_local, timezone=zone_name,
                     all_day=all_day, description=str(component.get("DESCRIPTION") or "")[:MAX_TEXT],
                     website=url if url.lower().startswith(("http://", "https://")) and len(url) <= 2000 else "",
                     location=str(component.get("LOCATION") or "").strip()[:500],
                     categories=_category_names(component),
                     rule=rule.to_ical().decode() if rule is not None else None,
                     exdates=_exdates(component, zone_name), unsupported=unsupported)


def _unsupported_parts(component, uid: str) -> list[str]:
    """Names of what a VEVENT holds that an event cannot keep: RDATE, EXRULE, alarms."""
    found = []
    for name, what in (("RDATE", "extra dates (RDATE)"), ("EXRULE", "an exclusion rule (EXRULE)")):
        value = component.get(name)
        if value is not None:
            values = value if isinstance(value, list) else [value]
            periods = any(prop.params.get("VALUE") == "PERIOD" for prop in values)
            found.append(f"{uid}: {what}{' with PERIOD values' if periods else ''} not imported")
    alarms = [sub for sub in component.subcomponents if sub.name == "VALARM"]
    if alarms:
        found.append(f"{uid}: {len(alarms)} VALARM (reminders) not imported")
    return found


def _as_utc(value, zone_name: str) -> datetime.datetime:
    """A DATE or DATE-TIME value (floating ones in `zone_name`) as naive UTC."""
    return datetime.datetime.strptime(_utc_iso(value, zone_name), "%Y-%m-%dT%H:%M:%SZ")


def _override_of(component, master: EventData) -> OverrideData | str:
    """A RECURRENCE-ID component of `master`'s series as an OverrideData, or why it cannot be one."""
    uid = master.uid
    prop = component.get("RECURRENCE-ID")
    if isinstance(prop, list):
        return f"{uid}: an override with {len(prop)} RECURRENCE-IDs (one occurrence each) not imported"
    if str(prop.params.get("RANGE", "")).upper() == "THISANDFUTURE":
        return f"{uid}: an override with RANGE=THISANDFUTURE (changes every later occurrence) not imported"
    try:
        original = _as_utc(component.decoded("RECURRENCE-ID"), master.timezone)
    except (ValueError, TypeError, KeyError) as error:
        return f"{uid}: an override with an unreadable RECURRENCE-ID ({error}) not imported"
    key = recurrence.occurrence_key(original)
    if master.problem or master.report_only:
        return f"{uid}: the override of {key} not imported (its series could not be imported)"
    if not master.rule:
        return f"{uid}: the override of {key} not imported (the event does not repeat)"
    if component.get("DTSTART") is None:  # RFC 5545: the instance keeps its start
        component.add("DTSTART", component.decoded("RECURRENCE-ID"))
    timing = event_from_component(component, master.timezone)
    if timing.problem:
        return f"{uid}: the override of {key} not imported ({timing.problem.removeprefix(uid + ': ')})"
    if timing.all_day != master.all_day:
        return f"{uid}: the override of {key} not imported (it changes the occurrence to or from all day)"
    tz = times.zone(timing.timezone)
    cancelled = str(component.get("STATUS") or "").upper() == "CANCELLED"
    return OverrideData(original_utc=original, start_utc=times.to_utc(timing.start_local, tz),
                        end_utc=times.to_utc(timing.end_local, tz), cancelled=cancelled,
                        unsupported=[note.replace(f"{uid}: ", f"{uid}: the override of {key}: ", 1)
                                     for note in timing.unsupported],
                        title=str(component["SUMMARY"]).strip()[:500] if "SUMMARY" in component else None,
                        description=str(component["DESCRIPTION"])[:MAX_TEXT] if "DESCRIPTION" in component else None,
                        location=str(component["LOCATION"]).strip()[:500] if "LOCATION" in component else None)


def _series_starts(master: EventData) -> set[datetime.datetime] | None:
    """The occurrence starts (naive UTC) of `master`'s series; None when its rule is not expanded."""
    if not master.rule or not recurrence.expandable(master.rule):
        return None
    tz = times.zone(master.timezone)
    start = times.to_utc(master.start_local, tz)
    row = {"post_id": 0, "start_utc": start, "end_utc": start, "timezone": master.timezone,
           "all_day": master.all_day}
    series = {"rule": master.rule, "exdates": [recurrence.parse_exdate(text) for text in master.exdates]}
    starts = recurrence.walk_series(row, series)
    return None if starts is None else set(starts)


def _attach_overrides(master: EventData, components: list) -> list[str]:
    """Set `master.overrides` from its RECURRENCE-ID components; answers the names of those it cannot keep."""
    unsupported = []
    starts = _series_starts(master) if master.rule and not master.problem else None
    if master.rule and not master.problem and starts is None:
        unsupported.append(f"{master.uid}: its rule {master.rule[:100]} is listed as its first occurrence only")
    kept: dict[datetime.datetime, OverrideData] = {}
    for component in components:
        found = _override_of(component, master)
        if isinstance(found, str):
            unsupported.append(found)
        elif starts is None or found.original_utc not in starts:
            unsupported.append(f"{master.uid}: the override of {recurrence.occurrence_key(found.original_utc)} "
                               "not imported (no occurrence of the series starts then)")
        elif len(kept) >= recurrence.MAX_OVERRIDES and found.original_utc not in kept:
            unsupported.append(f"{master.uid}: the override of {recurrence.occurrence_key(found.original_utc)} "
                               f"not imported (more than {recurrence.MAX_OVERRIDES} changed occurrences)")
        else:
            kept[found.original_utc] = found
            unsupported.extend(found.unsupported)
    master.overrides = sorted(kept.values(), key=lambda override: override.original_utc)
    return unsupported


def _other_component(component) -> str:
    uid = str(component.get("UID") or "").strip()[:MAX_UID]
    summary = str(component.get("SUMMARY") or "").strip()[:100]
    label = " ".join(part for part in (repr(summary) if summary else "", f"({uid})" if uid else "") if part)
    return f"{component.name} {label}".strip() + ": not imported (the calendar holds events only)"


def parse_calendar(data: bytes, site_zone: str) -> list[EventData]:
    """The VEVENTs of an iCalendar text, each series with its RECURRENCE-ID overrides; what cannot be
    represented is named on the entries (`unsupported`), in entries of its own when no event carries it."""
    import icalendar

    try:
        calendar = icalendar.Calendar.from_ical(data)
    except (ValueError, IndexError, KeyError) as error:
        raise ImportFailed(f"not an iCalendar file ({error})") from None
    found: list[EventData] = []
    masters: dict[str, EventData] = {}
    overrides: dict[str, list] = {}
    others = []
    components = calendar.walk("VEVENT") if calendar.name == "VEVENT" else calendar.subcomponents
    if sum(1 for component in components if component.name == "VEVENT") > MAX_EVENTS:
        raise ImportFailed(f"more than {MAX_EVENTS} events in one file")
    for component in components:
        if component.name not in READ_COMPONENTS:
            others.append(_other_component(component))
        elif component.name == "VEVENT" and component.get("RECURRENCE-ID") is not None:
            uid = str(component.get("UID") or "").strip()[:MAX_UID]
            overrides.setdefault(uid, []).append(component)
        elif component.name == "VEVENT":
            entry = event_from_component(component, site_zone)
            found.append(entry)
            masters.setdefault(entry.uid, entry)
    for uid, components_of_uid in overrides.items():
        master = masters.get(uid)
        if master is None:
            others.extend(f"{uid or '(no UID)'}: the override of {_recurrence_id_text(component)} not imported "
                          "(the file has no event with its UID)" for component in components_of_uid)
        else:
            master.unsupported.extend(_attach_overrides(master, components_of_uid))
    for master in found:  # a repeating event without overrides: its rule may still be one not expanded
        if master.uid not in overrides and master.rule and not master.problem and \
                not recurrence.expandable(master.rule):
            master.unsupported.append(f"{master.uid}: its rule {master.rule[:100]} is listed as its first "
                                      "occurrence only")
    if others:
        found.append(EventData(uid="", title="", start_local=datetime.datetime(2000, 1, 1),
                               end_local=datetime.datetime(2000, 1, 1), timezone=site_zone, unsupported=others,
                               report_only=True))
    return found


def _recurrence_id_text(component) -> str:
    try:
        return str(component.get("RECURRENCE-ID").to_ical().decode())[:40]
    except (AttributeError, ValueError, TypeError):
        return "an occurrence"


# --- import records --------------------------------------------------------------------------------

def new_hash() -> str:
    return secrets.token_hex(16)


def open_import(request, origin: str, source: str) -> dict:
    """A pending import record (a cal_import post and its row); answers {post_id, import_id, batch_hash}."""
    item = request.app.content.create(request, IMPORT, title=source[:500] or origin, status=PENDING)
    record = {"post_id": item["id"], "import_id": secrets.token_hex(12), "origin": origin, "source": source[:2000],
              "next_batch_hash": new_hash(), "percentage_complete": 0, "interval_s": DEFAULT_INTERVAL,
              "total_events": 0, "activity": "{}", "message": "", "message_slug": "", "updated_utc": times.utcnow()}
    request.session.execute(insert(tables(request.app)["imports"]).values(**record))
    return {"post_id": item["id"], "import_id": record["import_id"], "batch_hash": record["next_batch_hash"]}


def find_record(session, app, import_id: str) -> dict | None:
    imports = tables(app)["imports"]
    row = session.execute(select(imports).where(imports.c.import_id == import_id)).first()
    return dict(row._mapping) if row is not None else None


def pending_record(request, import_id: str, batch_hash: str) -> tuple[dict, dict]:
    """§4: the record must be pending and the hash its stored next one (constant time); else 400."""
    record = find_record(request.session, request.app, import_id)
    item = request.app.content.get(request, record["post_id"]) if record is not None else None
    if record is None or item is None or item["stored_status"] != PENDING:
        raise invalid_param({"import_id": "No pending import has this id."})
    stored = record["next_batch_hash"] or ""
    if not stored or not hmac.compare_digest(stored.encode(), str(batch_hash).encode()):
        raise invalid_param({"batch_hash": "This is not the hash of the import's next batch."})
    return record, item


def update_record(request, record: dict, status: str | None = None, **values) -> None:
    imports = tables(request.app)["imports"]
    request.session.execute(update(imports).where(imports.c.post_id == record["post_id"])
                            .values(updated_utc=times.utcnow(), **values))
    if status is not None:
        request.app.content.update(request, record["post_id"], status=status)


def clamp_interval(value) -> int:
    """§4.1: 10 seconds unless more is asked, at most 600; 10 or less gives 10."""
    try:
        seconds = int(value) if value is not None else DEFAULT_INTERVAL
    except (TypeError, ValueError):
        seconds = DEFAULT_INTERVAL
    return min(max(seconds, DEFAULT_INTERVAL), MAX_INTERVAL)


def list_records(session, app, content_get, limit: int = 200) -> list[dict]:
    imports = tables(app)["imports"]
    rows = session.execute(select(imports).order_by(imports.c.post_id.desc()).limit(limit)).all()
    answer = []
    for row in rows:
        item = content_get(row.post_id)
        answer.append({"import_id": row.import_id, "status": item["stored_status"] if item else "missing",
                       "origin": row.origin, "source": row.source, "percentage_complete": row.percentage_complete,
                       "interval": row.interval_s, "total_events": row.total_events,
                       "activity": json.loads(row.activity or "{}"), "message": row.message,
                       "updated": times.text(row.updated_utc) if row.updated_utc else ""})
    return answer


# --- writing events ---------------------------------------------------------------------------------

def uid_index(session, app) -> dict[str, int]:
    """{UID: event id} of every imported event (one read of the lineage column per batch)."""
    events = tables(app)["events"]
    rows = session.execute(select(events.c.post_id, events.c.global_id_lineage)
                           .where(events.c.global_id_lineage != "[]")).all()
    found = {}
    for row in rows:
        try:
            lineage = json.loads(row.global_id_lineage or "[]")
        except ValueError:
            continue
        for entry in lineage if isinstance(lineage, list) else []:
            if isinstance(entry, str) and entry.startswith(LINEAGE_PREFIX):
                found[entry[len(LINEAGE_PREFIX):]] = row.post_id
    return found


def _sub_request(parent, schema, body: dict, event_id: int | None = None) -> RestRequest:
    """A request for cal/events/v1's handlers sharing the parent's user, transaction and after-commit list."""
    sub = RestRequest(parent.app, "POST", "/", [], {}, base_url=parent.base_url, internal=True)
    sub.user = parent.user
    sub._session = parent.session
    sub._after_commit = parent._after_commit
    sub.json = dict(body)
    if event_id is not None:
        sub.url_params = {"id": str(event_id)}
        sub.json["id"] = event_id
    sub.params = schema().load(sub.json, partial=event_id is not None)
    return sub


def _venue_id(request, name: str, cache: dict) -> int | None:
    if not name:
        return None
    if name in cache:
        return cache[name]
    content = request.app.content
    ids = [row[0] for row in request.session.execute(
        content.matching_ids(request, VENUE, status=["publish"], search=name[:200], order="id").limit(50)).all()]
    items = content.get_many(request, ids, VENUE)
    match = next((item_id for item_id in ids if item_id in items and items[item_id]["title"].strip() == name), None)
    if match is None:
        match = content.create(request, VENUE, title=name, status="publish")["id"]
    cache[name] = match
    return match


def _category_ids(request, data: EventData) -> list[int]:
    if not data.categories:
        return []
    found = request.app.content.terms(request, CATEGORY, names=data.categories, create=True)
    return sorted(term["id"] for term in found)


def _unchanged(request, current: dict, row: dict | None, data: EventData, venue: int | None, repeating,
               categories: list[int], overrides: list[dict]) -> bool:
    if row is None:
        return False
    if sorted(term_id for term_id, _slug in current.get("terms", {}).get(CATEGORY, [])) != categories:
        return False
    tz = times.zone(data.timezone)
    start_utc, end_utc = times.to_utc(data.start_local, tz), times.to_utc(data.end_local, tz)
    links = tables(request.app)["links"]
    venues = [r[0] for r in request.session.execute(select(links.c.linked_id).where(
        links.c.event_id == current["id"], links.c.kind == "venue")).all()]
    return (current["title"] == data.title and current["content"] == data.description
            and row["start_utc"] == start_utc and row["end_utc"] == end_utc and row["timezone"] == data.timezone
            and bool(row["all_day"]) == data.all_day and (row["website"] or "") == data.website
            and venues == ([venue] if venue else []) and repeating == (data.rule, data.exdates)
            and _stored_overrides(request, current["id"]) == overrides)


def _stored_overrides(request, event_id: int) -> list[dict]:
    table = tables(request.app)["overrides"]
    rows = request.session.execute(select(table).where(table.c.event_id == event_id)
                                   .order_by(table.c.original_utc)).all()
    return [{name: value for name, value in row._mapping.items() if name != "event_id"} for row in rows]


def _override_rows(request, data: EventData, venues: dict) -> list[dict]:
    """The rows of `data`'s changed occurrences: each location's venue found (or made) as the event's is,
    texts kept as the importing user may write them (markup stripped without unfiltered_html)."""
    if not data.rule:
        return []
    trusted = request.user is None or request.user.can("unfiltered_html")

    def text(value):
        return value if value is None or trusted else html.unescape(nh3.clean(value, tags=set()))
    rows = []
    for override in data.overrides:
        row = override.row(_venue_id(request, override.location, venues) if override.location else None)
        row.update(title=text(row["title"]), description=text(row["description"]))
        rows.append(row)
    return rows


def _recurrence_of(request, event_id: int):
    table = tables(request.app)["recurrence"]
    row = request.session.execute(select(table).where(table.c.event_id == event_id)).first()
    return (row.rule, json.loads(row.exdates or "[]")) if row is not None else (None, [])


def _write_recurrence(request, event_id: int, data: EventData) -> None:
    table = tables(request.app)["recurrence"]
    request.session.execute(delete(table).where(table.c.event_id == event_id))
    if data.rule:
        request.session.execute(insert(table).values(event_id=event_id, rule=data.rule,
                                                     exdates=json.dumps(data.exdates)))
    state.changed(request.session, request.app)


def _write_lineage(request, event_id: int, uid: str) -> None:
    events = tables(request.app)["events"]
    current = request.session.execute(select(events.c.global_id_lineage).where(events.c.post_id == event_id)).scalar()
    try:
        lineage = json.loads(current or "[]")
    except ValueError:
        lineage = []
    entry = LINEAGE_PREFIX + uid
    if entry not in lineage:
        lineage = [entry for entry in lineage if not str(entry).startswith(LINEAGE_PREFIX)] + [entry]
        request.session.execute(update(events).where(events.c.post_id == event_id)
                                .values(global_id_lineage=json.dumps(lineage)))


def write_event(request, data: EventData, known: dict[str, int], venues: dict, activity: Activity) -> None:
    """Create or update one event by UID, in a savepoint: a failure leaves nothing half-written."""
    activity.note_unsupported(data.unsupported)
    if data.report_only:
        return
    if data.problem:
        activity.failed += 1
        activity.errors.append(data.problem)
        return
    existing_id = known.get(data.uid)
    current = request.app.content.get(request, existing_id, EVENT) if existing_id else None
    if current is not None and current["stored_status"] == IGNORED:
        activity.skipped += 1
        return
    kept_callbacks = len(request._after_commit)
    try:
        with request.session.begin_nested():
            venue = _venue_id(request, data.location, venues)
            categories = _category_ids(request, data)
            overrides = _override_rows(request, data, venues)
            body = {"title": data.title, "description": data.description, "timezone": data.timezone,
                    "all_day": data.all_day, "start_date": times.text(data.start_local),
                    "end_date": times.text(data.end_local), "website": data.website or None,
                    "venue": [venue] if venue else []}
            if current is None:
                body["status"] = "publish"
                created = event_routes.create_event(_sub_request(request, EventCreateArgs, body))
                event_id = created.data["id"]
                activity.created += 1
            else:
                row = rows_of(request, [current["id"]]).get(current["id"])
                if _unchanged(request, current, row, data, venue, _recurrence_of(request, current["id"]),
                              categories, overrides):
                    activity.skipped += 1
                    return
                if current["stored_status"] == "trash":
                    body["status"] = current.get("pre_trash_status") or "publish"
                event_routes.update_event(_sub_request(request, EventUpdateArgs, body, current["id"]))
                event_id = current["id"]
                activity.updated += 1
            if categories != sorted(term_id for term_id, _slug in (current or {}).get("terms", {}).get(CATEGORY, [])):
                # Written on this transaction's session: cal/events/v1's own check of category ids
                # reads through a request of its own, which cannot see terms this import just made.
                request.app.content.update(request, event_id, terms={CATEGORY: categories})
            _write_lineage(request, event_id, data.uid)
            _write_recurrence(request, event_id, data)
            recurrence.save_overrides(request.session, request.app, event_id, overrides)
            known[data.uid] = event_id
    except RestError as error:
        del request._after_commit[kept_callbacks:]
        activity.failed += 1
        activity.errors.append(f"{data.uid}: {error.message} {error.data.get('params', '') if error.data else ''}")


def mark_ignored(request, event_id: int, ignored: bool = True) -> dict:
    """Mark an event `cal-ignored` (imports leave it alone, lists never show it), or back to draft."""
    item = request.app.content.get(request, event_id, EVENT)
    if item is None:
        raise LookupError(f"there is no event {event_id}")
    status = IGNORED if ignored else "draft"
    updated = request.app.content.update(request, event_id, status=status)
    events = tables(request.app)["events"]
    if request.session.execute(select(events.c.post_id).where(events.c.post_id == event_id)).first() is None:
        request.session.execute(insert(events).values(**{**default_row(request, updated), "status": status}))
    else:
        request.session.execute(update(events).where(events.c.post_id == event_id).values(status=status))
    state.changed(request.session, request.app)
    return updated


# --- a whole import in batches ------------------------------------------------------------------------

def run_batches(app, user, source: str, entries: list[EventData], batch_size: int,
                on_progress: Callable[[int], None] = lambda done: None,
                request_factory: Callable | None = None) -> tuple[str, Activity]:
    """Import `entries` under a new import record, one transaction per batch (rotating its hash).

    Answers (import_id, activity). A failure that stops the import marks the record failed.
    """
    def in_transaction(work):
        with app.db.session(write=True) as session:
            request = service_request(app, session, user)
            answer = work(request)
            session.commit()
        callbacks, request._after_commit = request._after_commit, []
        for callback in callbacks:
            callback()
        return answer

    opened = in_transaction(lambda request: open_import(request, "ics", source))
    activity = Activity()
    venues: dict = {}
    total = len(entries)
    batches = [entries[start:start + batch_size] for start in range(0, total, batch_size)] or [[]]
    try:
        for number, batch in enumerate(batches, start=1):
            def work(request, batch=batch, number=number):
                record = find_record(request.session, app, opened["import_id"])
                known = uid_index(request.session, app)
                for data in batch:
                    write_event(request, data, known, venues, activity)
                finished = number == len(batches)
                done = min(number * batch_size, total)
                update_record(request, record, status=SUCCESS if finished else None,
                              next_batch_hash=None if finished else new_hash(),
                              percentage_complete=100 if finished else int(done * 100 / max(total, 1)),
                              interval_s=DEFAULT_INTERVAL, total_events=total,
                              activity=json.dumps(activity.as_dict()),
                              message="; ".join(activity.errors[:20])[:5000])
                return done
            on_progress(in_transaction(work) if batch else 0)
    except Exception as error:  # recorded on the import record, then raised for the caller to report
        reason = str(error)[:5000]

        def fail(request):
            record = find_record(request.session, app, opened["import_id"])
            update_record(request, record, status=FAILED, next_batch_hash=None,
                          activity=json.dumps(activity.as_dict()), message=reason,
                          message_slug="import-stopped")
        in_transaction(fail)
        raise
    return opened["import_id"], activity


def import_source(app, user, source: str, on_start: Callable[[int], None] = lambda total: None,
                  on_progress: Callable[[int], None] = lambda done: None) -> tuple[str, Activity]:
    """Read, parse and import `source` (a file or URL); ImportFailed when it cannot be read."""
    return import_data(app, user, read_source(app, source), source, on_start, on_progress)


def import_data(app, user, data: bytes, source: str, on_start: Callable[[int], None] = lambda total: None,
                on_progress: Callable[[int], None] = lambda done: None) -> tuple[str, Activity]:
    """Parse and import iCalendar `data` already read (an upload); `source` names it on the record."""
    entries = parse_calendar(data, app.settings.site.get("timezone_string") or "UTC")
    on_start(len(entries))
    return import_entries(app, user, source, entries, on_progress)


def read_entries(app, source: str) -> list[EventData]:
    """Read and parse `source` (a file or URL) before anything is written or drawn; ImportFailed when it
    cannot be read or is no calendar (`sitehost calendar import` draws its bar afterwards)."""
    return parse_calendar(read_source(app, source), app.settings.site.get("timezone_string") or "UTC")


def import_entries(app, user, source: str, entries: list[EventData],
                   on_progress: Callable[[int], None] = lambda done: None) -> tuple[str, Activity]:
    """Import the parsed `entries` of `source` in batches under one import record."""
    return run_batches(app, user, source, entries, settings_of(app).import_batch_size, on_progress)


def entries_from_items(items: Iterable[dict], site_zone: str) -> list[EventData]:
    """Event items of an import-service batch (§4.1 `events`) as EventData (see aggregator.EventItem)."""
    found = []
    for item in items:
        zone_name = item.get("timezone") or site_zone
        data = EventData(uid=item["uid"], title=item["title"], start_local=datetime.datetime(2000, 1, 1),
                         end_local=datetime.datetime(2000, 1, 1), timezone=zone_name,
                         all_day=bool(item.get("all_day")), description=item.get("description") or "",
                         website=item.get("website") or "", location=item.get("location") or "",
                         rule=item.get("rrule") or None)
        try:
            tz = times.zone(zone_name)
            data.start_local = times.parse_text(item["start_date"], tz)
            data.end_local = times.parse_text(item["end_date"], tz)
            data.exdates = sorted({_utc_iso(times.parse_text(text, tz), zone_name) for text in item.get("exdates") or []})
        except ValueError as error:
            data.problem = f"{data.uid}: {error}"
        if data.rule and not data.problem and not recurrence.expandable(data.rule):
            data.unsupported.append(f"{data.uid}: its rule {data.rule[:100]} is listed as its first occurrence only")
        found.append(data)
    return found
