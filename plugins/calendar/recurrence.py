"""Repeating events: the `recurrence` field of cal/events/v1, its checks, and occurrences inside a window.

A repeating event keeps one row in `cal_event_recurrence` (tables.py): `rule`, an RFC 5545 RRULE
value without its name, and `exdates`, the excluded occurrence starts in UTC ISO 8601. The event's
own start and end are its first occurrence; every occurrence lasts as long. Occurrences are
expanded by dateutil's rrule on the event's local wall times, each then placed in its zone, so
time-zone changes (09:00 London stays 09:00 in summer and winter), EXDATE and UNTIL follow RFC 5545.

Every walk is bounded by date range and by iterations (`walk`): dateutil yields only matches, so a
rule that never matches (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) would walk day by day to the year
9999 inside one call. A rule with no occurrence within HORIZON_YEARS is refused on write; a stored
one (written before that check, or by an import) costs one bounded walk. A series is walked once
per content and kept in the process (`series_of`), so a read costs the same whatever the rule.

An occurrence is addressed by its event id and its start in UTC, written as in iCalendar's
RECURRENCE-ID (`20300617T080000Z`): `GET cal/events/v1/events/{id}/occurrences/{start}`.

An occurrence can be changed on its own (iCalendar's RECURRENCE-ID overrides, written by imports):
`cal_event_overrides` holds, per changed occurrence, the start the rule gives it and where it
happens now (its own start and end, title, description and venue), or that it is cancelled. A
changed occurrence leaves the series' regular starts and is listed at its own time (a cancelled one
not at all, as RFC 5545 calendars show STATUS:CANCELLED instances); an override whose original
start is no occurrence of the rule (the rule was edited since) is not shown.
"""

from __future__ import annotations

import bisect
import datetime
import json

import icalendar
from dateutil import rrule as dateutil_rrule
from sqlalchemy import delete, insert, select, update

from host import invalid_param

from . import common, state, times
from .tables import tables

ALLOWED_FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
# Parts that would multiply occurrences within a day (a "weekly" rule that fires every minute).
REFUSED_PARTS = ("BYSECOND", "BYMINUTE", "BYHOUR")
MAX_RULE_LENGTH = 500
MAX_EXDATES = 500
MAX_OVERRIDES = 500  # changed occurrences kept per event
MAX_COUNT = 1000  # COUNT above this is refused
MAX_INTERVAL = 1000
HORIZON_YEARS = 10  # UNTIL at most this far after the first start; rules without an end repeat forever
MAX_OCCURRENCES = 1000  # occurrences of one event expanded for one window (a daily event over 24 months: 731)
# A series is walked from its start to HORIZON_YEARS past today (or past its start, if later), and
# never over more than WALK_YEARS: an event that began in year 1 does not cost two thousand years.
WALK_YEARS = 60
SERIES_KEPT = 256  # series kept per process (a daily one over its walk is at most ~22,000 starts)
OCCURRENCE_FORMAT = "%Y%m%dT%H%M%SZ"
# The JSON list's start_date and end_date bounds (listing.window): each bounds one side of an
# occurrence, as the real calendar's repository does (filter_by_starts_on_or_after, ...ends_on_or_before).
STARTS_FROM, ENDS_BY = "starts_on_or_after", "ends_on_or_before"


class RecurrenceError(ValueError):
    """A rule or excluded date a site refuses (the message says why)."""


# --- the stored row ----------------------------------------------------------------------------

def exdate_text(utc: datetime.datetime) -> str:
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_exdate(text: str) -> datetime.datetime:
    """A stored excluded start (UTC ISO 8601, with or without Z) as naive UTC."""
    parsed = datetime.datetime.fromisoformat(text)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(times.UTC).replace(tzinfo=None)
    return parsed


def rows_of(session, app, event_ids: list[int]) -> dict[int, dict]:
    """{event_id: {rule, exdates: [naive UTC], overrides: {original start: override row}}} for the
    repeating events among `event_ids`."""
    table = tables(app)["recurrence"]
    if not event_ids:
        return {}
    found = {}
    for row in session.execute(select(table).where(table.c.event_id.in_(event_ids))).all():
        try:
            exdates = [parse_exdate(text) for text in json.loads(row.exdates or "[]")]
        except (ValueError, TypeError):
            exdates = []
        found[row.event_id] = {"rule": row.rule, "exdates": exdates, "overrides": {}}
    if found:
        changed = tables(app)["overrides"]
        for row in session.execute(select(changed).where(changed.c.event_id.in_(list(found)))).all():
            found[row.event_id]["overrides"][row.original_utc] = dict(row._mapping)
    return found


def save_overrides(session, app, event_id: int, overrides: list[dict]) -> None:
    """Replace the event's changed occurrences by `overrides` (rows without event_id)."""
    table = tables(app)["overrides"]
    session.execute(delete(table).where(table.c.event_id == event_id))
    if overrides:
        session.execute(insert(table), [{**override, "event_id": event_id} for override in overrides])
    state.changed(session, app)


def recurring_ids(session, app) -> set[int]:
    table = tables(app)["recurrence"]
    return set(session.execute(select(table.c.event_id)).scalars())


def save(request, event_id: int, value: dict | None) -> None:
    """Store (or, for None, remove) the checked `{rule, exdates}` of an event."""
    table = tables(request.app)["recurrence"]
    session = request.session
    state.changed(session, request.app)
    if value is None:  # no longer repeating: no occurrence is left to change
        session.execute(delete(table).where(table.c.event_id == event_id))
        overrides = tables(request.app)["overrides"]
        session.execute(delete(overrides).where(overrides.c.event_id == event_id))
        return
    values = {"rule": value["rule"], "exdates": json.dumps([exdate_text(moment) for moment in value["exdates"]])}
    if session.execute(select(table.c.event_id).where(table.c.event_id == event_id)).first() is None:
        session.execute(insert(table).values(event_id=event_id, **values))
    else:
        session.execute(update(table).where(table.c.event_id == event_id).values(**values))


# --- checking what a client sends --------------------------------------------------------------

def check_rule(rule: str, start_utc: datetime.datetime, all_day: bool, tz) -> str:
    """The RRULE value normalized by icalendar, or RecurrenceError; UNTIL is kept in UTC."""
    if not isinstance(rule, str) or not rule.strip() or len(rule) > MAX_RULE_LENGTH:
        raise RecurrenceError(f"The rule must be an RRULE value of at most {MAX_RULE_LENGTH} characters.")
    text = rule.strip()
    if text.upper().startswith("RRULE:"):
        text = text[6:]
    try:
        parsed = icalendar.vRecur.from_ical(text)
    except (ValueError, TypeError, KeyError):
        raise RecurrenceError("The rule is not an RFC 5545 RRULE value (such as FREQ=WEEKLY;BYDAY=MO;COUNT=10).") \
            from None
    frequency = (parsed.get("FREQ") or [None])[0]
    if frequency not in ALLOWED_FREQUENCIES:
        raise RecurrenceError(f"FREQ must be one of {', '.join(ALLOWED_FREQUENCIES)}.")
    for part in REFUSED_PARTS:
        if part in parsed:
            raise RecurrenceError(f"{part} is not supported: an event repeats at most once a day.")
    if "COUNT" in parsed and "UNTIL" in parsed:
        raise RecurrenceError("A rule has COUNT or UNTIL, not both.")
    count = (parsed.get("COUNT") or [None])[0]
    if count is not None and not 1 <= int(count) <= MAX_COUNT:
        raise RecurrenceError(f"COUNT must be from 1 to {MAX_COUNT}.")
    interval = (parsed.get("INTERVAL") or [1])[0]
    if not 1 <= int(interval) <= MAX_INTERVAL:
        raise RecurrenceError(f"INTERVAL must be from 1 to {MAX_INTERVAL}.")
    if "UNTIL" in parsed:
        until = parsed["UNTIL"][0]
        if isinstance(until, datetime.datetime):
            until_utc = until.astimezone(times.UTC).replace(tzinfo=None) if until.tzinfo else times.to_utc(until, tz)
        else:  # a DATE: the end of that day in the event's zone
            until_utc = times.to_utc(datetime.datetime.combine(until, datetime.time(23, 59, 59)), tz)
        if until_utc < start_utc:
            raise RecurrenceError("UNTIL is before the event's start.")
        if until_utc > start_utc + datetime.timedelta(days=366 * HORIZON_YEARS):
            raise RecurrenceError(f"UNTIL is more than {HORIZON_YEARS} years after the event's start.")
        parsed["UNTIL"] = [until_utc.replace(tzinfo=datetime.timezone.utc)]
    try:
        normalized = parsed.to_ical().decode()
        start_local = _wall_start(start_utc, all_day, tz)
        found = walk(normalized, start_local, start_local + datetime.timedelta(days=366 * HORIZON_YEARS), tz,
                     first_only=True)
    except (ValueError, TypeError) as error:
        raise RecurrenceError(f"The rule cannot be used: {error}.") from None
    if not found:
        raise RecurrenceError(f"The rule {text} has no occurrence within {HORIZON_YEARS} years "
                              "of the event's start.")
    return normalized


def check(request, value, start_utc: datetime.datetime, all_day: bool, tz) -> dict | None:
    """The `recurrence` field a client sent, checked: {rule, exdates: [naive UTC]}, or None to stop repeating."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("rule"), str):
        raise invalid_param({"recurrence": "recurrence is null or {rule, exdates}."})
    try:
        rule = check_rule(value["rule"], start_utc, all_day, tz)
    except RecurrenceError as error:
        raise invalid_param({"recurrence": str(error)}) from None
    sent = value.get("exdates") or []
    if not isinstance(sent, list) or len(sent) > MAX_EXDATES:
        raise invalid_param({"recurrence": f"exdates is a list of at most {MAX_EXDATES} dates."})
    exdates = []
    for text in sent:
        try:
            local = times.parse_text(text, tz)
        except ValueError:
            raise invalid_param({"recurrence": f"{str(text)[:64]!r} in exdates is not a date."}) from None
        if all_day:
            local = times.start_of_day(local)
        exdates.append(times.to_utc(local, tz))
    return {"rule": rule, "exdates": sorted(set(exdates))}


def apply(request, event_id: int) -> None:
    """After an event's row is written: store the `recurrence` the request sent (checked against that row)."""
    if not request.has_param("recurrence"):
        return
    events = tables(request.app)["events"]
    row = request.session.execute(select(events).where(events.c.post_id == event_id)).first()
    if row is None:
        return
    tz = times.zone(row.timezone) if times.is_zone(row.timezone) else times.UTC
    save(request, event_id, check(request, request.params.get("recurrence"), row.start_utc, row.all_day, tz))


def annotate(request, shaped_events: list[dict], rows: dict[int, dict]) -> None:
    """Add `recurrence` ({rule, exdates} or null) to event objects."""
    found = rows_of(request.session, request.app, [data["id"] for data in shaped_events])
    for data in shaped_events:
        row = rows.get(data["id"])
        zone_name = row["timezone"] if row else data.get("timezone") or "UTC"
        tz = times.zone(zone_name) if times.is_zone(zone_name) else times.UTC
        data["recurrence"] = shaped(found.get(data["id"]), tz)


def shaped(value: dict | None, tz) -> dict | None:
    """The `recurrence` field as the event object shows it: exdates in the event's zone."""
    if value is None:
        return None
    return {"rule": value["rule"],
            "exdates": [times.text(times.to_local(moment, tz).replace(tzinfo=None)) for moment in value["exdates"]]}


# --- occurrences -------------------------------------------------------------------------------

def _moment(utc: datetime.datetime, all_day: bool, tz):
    local = times.to_local(utc, tz)
    return local.date() if all_day else local


def vevent(uid: str, start_utc, end_utc, all_day: bool, tz, rule: str | None, exdates: list) -> icalendar.Event:
    """The VEVENT timing of an event: DTSTART/DTEND in its zone (DATE values when all day), RRULE, EXDATE."""
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("dtstart", _moment(start_utc, all_day, tz))
    if all_day:  # DTEND of a DATE event is the day after its last day (RFC 5545 3.6.1)
        event.add("dtend", times.to_local(end_utc, tz).date() + datetime.timedelta(days=1))
    else:
        event.add("dtend", _moment(end_utc, all_day, tz))
    if rule:
        recur = icalendar.vRecur.from_ical(rule)
        if all_day and "UNTIL" in recur:  # with DATE starts, UNTIL is a DATE too
            until = recur["UNTIL"][0]
            if isinstance(until, datetime.datetime):
                recur["UNTIL"] = [(until.astimezone(tz) if until.tzinfo else until).date()]
        event.add("rrule", recur)
        if exdates:
            event.add("exdate", [_moment(moment, all_day, tz) for moment in exdates])
    return event


class _WalkTooLong(Exception):
    """A bounded walk reached its last month."""


class _BoundedRule(dateutil_rrule.rrule):
    """dateutil's rrule whose walk stops after `months` months, whether it found matches or not.

    dateutil yields only matches, so nothing outside its generator can stop a walk that finds none.
    The walk rebuilds its masks once per month it enters (once per period for YEARLY and MONTHLY)
    and reads `_byeaster` each time: counting those reads bounds the walk by iterations. Only the
    cost shows whether it still does (a bounded walk and one to the year 9999 answer alike): the
    benchmark's calendar-events-rules line, with five never-matching rules stored, is its guard.
    """

    _reads_left: int | None = None  # unbounded while dateutil's __init__ sets the rule up

    def __init__(self, months: int, **kwargs):
        super().__init__(**kwargs)
        self._reads_left = months + 3  # the walk's set-up and first rebuild read it too

    @property
    def _byeaster(self):
        if self._reads_left is not None:
            self._reads_left -= 1
            if self._reads_left < 0:
                raise _WalkTooLong
        return self._byeaster_value

    @_byeaster.setter
    def _byeaster(self, value):
        self._byeaster_value = value


def _wall_start(start_utc: datetime.datetime, all_day: bool, tz) -> datetime.datetime:
    """The series' DTSTART as a naive wall time in its zone (midnight for all-day events)."""
    local = times.to_local(start_utc, tz).replace(tzinfo=None)
    return datetime.datetime.combine(local.date(), datetime.time()) if all_day else local


def _until_wall(recur, tz) -> datetime.datetime | None:
    """A rule's UNTIL as a naive wall time in the event's zone (a DATE: the end of that day)."""
    until = (recur.get("UNTIL") or [None])[0]
    if until is None:
        return None
    if isinstance(until, datetime.datetime):
        if until.tzinfo is None:
            return until
        return times.to_local(until.astimezone(times.UTC).replace(tzinfo=None), tz).replace(tzinfo=None)
    return datetime.datetime.combine(until, datetime.time(23, 59, 59))


def walk(rule: str, start_local: datetime.datetime, last_local: datetime.datetime, tz,
         first_only: bool = False) -> list[datetime.datetime]:
    """The rule's matches from `start_local` to `last_local` (naive wall times in `tz`), in order.

    Bounded by date range (nothing past `last_local` or UNTIL) and by iterations (the months between
    the two), so a rule that matches nothing costs at most that many months of dateutil's walk.
    DTSTART itself is here only when the rule matches it. ValueError for a rule dateutil cannot read.
    """
    recur = icalendar.vRecur.from_ical(rule)
    until = _until_wall(recur, tz)
    if until is not None:
        last_local = min(last_local, until)
        del recur["UNTIL"]
    if last_local < start_local:
        return []
    parsed = dateutil_rrule.rrulestr(recur.to_ical().decode(), dtstart=start_local)
    months = (last_local.year - start_local.year) * 12 + last_local.month - start_local.month + 1
    # The same rule, bounded (the arguments dateutil's own rrule.replace passes).
    bounded = _BoundedRule(months, freq=parsed._freq, dtstart=start_local, interval=parsed._interval,
                           wkst=parsed._wkst, count=parsed._count,
                           until=last_local if parsed._count is None else None, **parsed._original_rule)
    found = []
    try:
        for moment in bounded:
            if moment > last_local:
                break
            found.append(moment)
            if first_only:
                break
    except _WalkTooLong:
        pass
    return found


def _series_starts(row: dict, recurrence: dict, today: datetime.date) -> tuple[list, tuple] | None:
    """(regular starts, changed originals) of a series over its walk; None for a rule not to expand.

    Regular starts are the occurrence starts (naive UTC, sorted) the rule gives and no override
    changed; changed originals the sorted rule-given starts an override moved or cancelled.
    RFC 5545: DTSTART is the first occurrence whether or not the rule matches it; EXDATEs are left out.
    """
    tz = times.zone(row["timezone"]) if times.is_zone(row["timezone"]) else times.UTC
    start_local = _wall_start(row["start_utc"], bool(row["all_day"]), tz)
    today_local = datetime.datetime.combine(today, datetime.time())
    last_local = min(max(start_local, today_local) + datetime.timedelta(days=366 * HORIZON_YEARS),
                     start_local + datetime.timedelta(days=366 * WALK_YEARS))
    try:
        matches = walk(recurrence["rule"], start_local, last_local, tz)
        until = _until_wall(icalendar.vRecur.from_ical(recurrence["rule"]), tz)
    except (ValueError, TypeError, KeyError):
        return None
    moments = matches if until is not None and until < start_local else [start_local, *matches]
    excluded = set(recurrence["exdates"])
    starts = sorted({times.to_utc(moment, tz) for moment in moments} - excluded)
    overridden = recurrence.get("overrides") or {}
    if not overridden:
        return starts, ()
    present = set(starts)
    changed = tuple(sorted(original for original in overridden if original in present))
    gone = set(changed)
    return [start for start in starts if start not in gone], changed


def _series(app, row: dict, recurrence: dict) -> tuple[list, tuple] | None:
    """`_series_starts` (None for a rule not to expand), walked once per series content and day in this process."""
    today = times.utcnow().date()
    version = (row["start_utc"], row["end_utc"], row["timezone"], bool(row["all_day"]), recurrence["rule"],
               tuple(recurrence["exdates"]), tuple(sorted(recurrence.get("overrides") or ())), today)
    kept = app.kept("calendar.series", SERIES_KEPT)
    # In a 1-tuple: None (not expanded) is an answer too.
    return kept.get_or_build(row["post_id"], version, lambda: (
        _series_starts(row, recurrence, today) if expandable(recurrence["rule"]) else None,))[0]


def walk_series(row: dict, recurrence: dict) -> list[datetime.datetime] | None:
    """Every occurrence start (naive UTC, sorted) the rule gives, EXDATEs left out, overrides ignored;
    None for a rule not to expand. `row` needs start_utc, timezone and all_day."""
    if not expandable(recurrence["rule"]):
        return None
    found = _series_starts(row, {**recurrence, "overrides": {}}, times.utcnow().date())
    return None if found is None else found[0]


def series_of(app, row: dict, recurrence: dict) -> list[datetime.datetime] | None:
    """The series' regular starts (those no override changed); None for a rule not to expand."""
    found = _series(app, row, recurrence)
    return None if found is None else found[0]


def changed_originals(app, row: dict, recurrence: dict) -> tuple:
    """The rule-given starts of the series' changed occurrences (overrides of starts the rule no longer
    gives are left out), sorted."""
    found = _series(app, row, recurrence)
    return () if found is None else found[1]


def meets(bounds: dict, start: datetime.datetime, end: datetime.datetime) -> bool:
    """Whether one occurrence (start, end) meets a window's `bounds`, as occurrence_slice reads them."""
    checks = {"start": lambda edge: end >= edge, "end": lambda edge: start <= edge,
              STARTS_FROM: lambda edge: start >= edge, ENDS_BY: lambda edge: end <= edge,
              "starts_before": lambda edge: start <= edge, "starts_after": lambda edge: start > edge,
              "ends_before": lambda edge: end <= edge, "ends_after": lambda edge: end > edge}
    return all(check(bounds[name]) for name, check in checks.items() if name in bounds)


def changed_occurrences(app, row: dict, recurrence: dict, bounds: dict) -> list[tuple]:
    """(start, end, original start) of the series' moved or retitled occurrences meeting `bounds`,
    in start order (cancelled ones are not occurrences any more)."""
    found = _series(app, row, recurrence)
    if found is None:
        return []
    overrides = recurrence.get("overrides") or {}
    moved = [(overrides[original]["start_utc"], overrides[original]["end_utc"], original) for original in found[1]
             if not overrides[original]["cancelled"]]
    return sorted(entry for entry in moved if meets(bounds, entry[0], entry[1]))


def _earlier(moment: datetime.datetime, duration: datetime.timedelta) -> datetime.datetime:
    try:
        return moment - duration
    except OverflowError:
        return datetime.datetime.min


def occurrence_slice(app, row: dict, recurrence: dict, bounds: dict) -> tuple[list, int, int]:
    """(starts, low, high): the event's occurrences meeting a list's date `bounds` are starts[low:high].

    Every bound is one on the start, since each occurrence lasts as long: a window costs two binary
    searches of the series, whatever its rule. The window (start, end) keeps its first MAX_OCCURRENCES.
    `start`/`end` select occurrences overlapping them (the views); the JSON list's own window is
    `starts_on_or_after`/`ends_on_or_before`, each bounding one side of an occurrence.
    """
    starts = series_of(app, row, recurrence)
    if starts is None:  # a rule this site would refuse (an import's): its first occurrence
        starts = [row["start_utc"]]
    duration = row["end_utc"] - row["start_utc"]
    low = bisect.bisect_left(starts, _earlier(bounds["start"], duration)) if "start" in bounds else 0
    high = bisect.bisect_right(starts, bounds["end"]) if "end" in bounds else len(starts)
    if STARTS_FROM in bounds:  # the JSON list's start_date and end_date (listing.py)
        low = max(low, bisect.bisect_left(starts, bounds[STARTS_FROM]))
    if ENDS_BY in bounds:
        high = min(high, bisect.bisect_right(starts, _earlier(bounds[ENDS_BY], duration)))
    high = max(low, min(high, low + MAX_OCCURRENCES))
    for name, shift, is_upper in (("starts_before", None, True), ("starts_after", None, False),
                                  ("ends_before", duration, True), ("ends_after", duration, False)):
        if name in bounds:
            edge = bounds[name] if shift is None else _earlier(bounds[name], shift)
            found = bisect.bisect_right(starts, edge, low, high)
            low, high = (low, found) if is_upper else (found, high)
    return starts, low, high


def occurrences(app, row: dict, recurrence: dict, window_start: datetime.datetime | None,
                window_end: datetime.datetime | None) -> list[tuple]:
    """(start, end, original) in naive UTC of the event's occurrences that overlap the window, first
    MAX_OCCURRENCES; `original` is the rule's start of a changed occurrence, None for the others."""
    bounds = {name: value for name, value in (("start", window_start), ("end", window_end)) if value is not None}
    starts, low, high = occurrence_slice(app, row, recurrence, bounds)
    duration = row["end_utc"] - row["start_utc"]
    found = [(start, start + duration, None) for start in starts[low:high]]
    found.extend(changed_occurrences(app, row, recurrence, bounds))
    return sorted(found, key=lambda entry: entry[:2])[:MAX_OCCURRENCES]


def expandable(rule: str) -> bool:
    """Whether a stored rule repeats at most daily and is no longer than the API takes (rules written by
    imports are not checked on the way in; dateutil tests every BY value on every day it walks)."""
    if len(rule) > MAX_RULE_LENGTH:
        return False
    try:
        parsed = icalendar.vRecur.from_ical(rule)
    except (ValueError, TypeError, KeyError):
        return False
    return (parsed.get("FREQ") or [None])[0] in ALLOWED_FREQUENCIES and not any(
        part in parsed for part in REFUSED_PARTS)


def occurrence_key(start_utc: datetime.datetime) -> str:
    return start_utc.strftime(OCCURRENCE_FORMAT)


def parse_occurrence_key(text: str) -> datetime.datetime | None:
    try:
        return datetime.datetime.strptime(text, OCCURRENCE_FORMAT)
    except ValueError:
        return None


def changed_texts(data: dict, override: dict | None, venues: dict) -> dict:
    """What a changed occurrence shows instead of the series' fields: its title, and (unless the
    event is blanked for this caller, §1.2) its description and venue. `venues`: {id: venue object}."""
    if override is None:
        return {}
    changed = {}
    if override["title"] is not None:
        changed["title"] = override["title"].strip()
    if data.get("all_day") is None:  # a protected event blanked for this caller: nothing more shows
        return changed
    if override["description"] is not None:
        changed["description"] = override["description"].strip()
    if override["location"] is not None:
        venue = venues.get(override["venue_id"])
        changed["venue"] = venue if venue is not None else []
    return changed


def as_occurrence(request, data: dict, start: datetime.datetime, end: datetime.datetime,
                  changed: dict | None = None) -> dict:
    """The event object of one occurrence: its own dates, `occurrence` {start, rest_url}, the series' id,
    and the fields a changed occurrence shows (`changed_texts`)."""
    tz = times.zone(data["timezone"]) if times.is_zone(data["timezone"]) else times.UTC
    if changed:
        data = {**data, **changed}
    start_local, end_local = times.to_local(start, tz), times.to_local(end, tz)
    key = occurrence_key(start)
    if isinstance(data.get("json_ld"), dict):
        json_ld = dict(data["json_ld"])
        if data.get("all_day"):
            json_ld.update(startDate=start_local.date().isoformat(), endDate=end_local.date().isoformat())
        else:
            json_ld.update(startDate=start_local.isoformat(), endDate=end_local.isoformat())
        json_ld["name"] = data["title"]
        data = {**data, "json_ld": json_ld}
    return {**data, "start_date": times.text(start_local), "start_date_details": times.details(start_local),
            "end_date": times.text(end_local), "end_date_details": times.details(end_local),
            "utc_start_date": times.text(start), "utc_start_date_details": times.details(start),
            "utc_end_date": times.text(end), "utc_end_date_details": times.details(end),
            "timezone_abbr": start_local.tzname() or "",
            "occurrence": {"start": key,
                           "rest_url": common.rest_url(request, f"events/{data['id']}/occurrences/{key}")}}
