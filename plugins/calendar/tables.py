"""The calendar's own tables: the event fields that are not post fields, indexed for the list's filters.

Events, venues and organizers are posts of the content store (app.content); `cal_events`
holds one row per event with its times in UTC and the flags the list filters on, and
`cal_event_links` the venues and organizers an event names, in order. `status` repeats the
post's stored status so the default list is one indexed walk of this table; the plugin keeps
it in step on every write (its own routes, and `content_saved` for writes through core/v2).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Index, Integer, String, Table, Text, exists, literal_column, select

EVENTS = "cal_events"
LINKS = "cal_event_links"
STATE = "cal_state"
RECURRENCE = "cal_event_recurrence"
OVERRIDES = "cal_event_overrides"
IMPORTS = "cal_imports"
OPTIONS = "cal_options"
KEYS = "cal_keys"
STATE_ROW = 1


def define_tables(metadata) -> None:
    events = Table(
        EVENTS, metadata,
        Column("post_id", Integer, primary_key=True, autoincrement=False),
        Column("status", String(40), nullable=False),
        Column("parent", Integer, nullable=False, default=0),
        Column("published_utc", DateTime, nullable=True),  # the post's date_gmt: when `future` turns `publish`
        Column("start_utc", DateTime, nullable=False),
        Column("end_utc", DateTime, nullable=False),
        Column("timezone", String(64), nullable=False),
        Column("all_day", Boolean, nullable=False, default=False),
        Column("featured", Boolean, nullable=False, default=False),
        Column("sticky", Boolean, nullable=False, default=False),
        Column("hide_from_listings", Boolean, nullable=False, default=False),
        Column("show_map", Boolean, nullable=False, default=True),
        Column("show_map_link", Boolean, nullable=False, default=True),
        Column("cost", String(255), nullable=False, default=""),
        Column("currency_symbol", String(10), nullable=False, default=""),
        Column("currency_code", String(3), nullable=False, default=""),
        Column("currency_position", String(10), nullable=False, default="prefix"),
        Column("website", String(2000), nullable=False, default=""),
        Column("custom_fields", Text, nullable=False, default="{}"),  # JSON {name: {label, value}}
        Column("global_id_lineage", Text, nullable=False, default="[]"),  # JSON list, filled by imports
    )
    # The list walks (status, start) in order from (window start - the longest event) and stops at
    # the page; end and hide_from_listings ride in the index, so neither the walk nor the count
    # of a window reads the table.
    Index("cal_events_status_start", events.c.status, events.c.start_utc, events.c.post_id, events.c.end_utc,
          events.c.hide_from_listings)
    links = Table(
        LINKS, metadata,
        Column("event_id", Integer, primary_key=True, autoincrement=False),
        Column("kind", String(10), primary_key=True),  # "venue" or "organizer"
        Column("linked_id", Integer, primary_key=True, autoincrement=False),
        Column("position", Integer, nullable=False, default=0),
    )
    Index("cal_event_links_linked", links.c.linked_id, links.c.kind, links.c.event_id)
    # An event that repeats has one row here: `rule` is an RFC 5545 RRULE value without its name
    # ("FREQ=WEEKLY;BYDAY=MO;UNTIL=20260717T230000Z"), `exdates` a JSON list of the excluded
    # occurrence starts in UTC ISO 8601. The event's own start and end are the first occurrence.
    # A table of its own, not cal_events columns, so sites made before recurrence get it at start-up.
    Table(RECURRENCE, metadata,
          Column("event_id", Integer, primary_key=True, autoincrement=False),
          Column("rule", Text, nullable=False),
          Column("exdates", Text, nullable=False, default="[]"))
    # One row per changed occurrence of a repeating event (an iCalendar RECURRENCE-ID override):
    # `original_utc` is the occurrence's start as the rule gives it (its RECURRENCE-ID), `start_utc`
    # and `end_utc` where it happens now, `cancelled` an occurrence that does not happen. `title`,
    # `description` and `location` are the override's own texts, NULL where it has none (the
    # series' then show); `venue_id` is the venue its location names. A table of its own, like
    # cal_event_recurrence, so existing sites get it at start-up.
    Table(OVERRIDES, metadata,
          Column("event_id", Integer, primary_key=True, autoincrement=False),
          Column("original_utc", DateTime, primary_key=True),
          Column("start_utc", DateTime, nullable=False),
          Column("end_utc", DateTime, nullable=False),
          Column("cancelled", Boolean, nullable=False, default=False),
          Column("title", Text, nullable=True),
          Column("description", Text, nullable=True),
          Column("location", String(500), nullable=True),
          Column("venue_id", Integer, nullable=True))
    # One row per import record (a cal_import post, whose status is its cal-ea-* state): what an
    # import service or `sitehost calendar import` reports, and the one-time hash of the next batch.
    Table(IMPORTS, metadata,
          Column("post_id", Integer, primary_key=True, autoincrement=False),
          Column("import_id", String(64), nullable=False, unique=True),
          Column("origin", String(20), nullable=False, default="ics"),  # "ics" (file or URL) or "service"
          Column("source", String(2000), nullable=False, default=""),
          Column("next_batch_hash", String(64), nullable=True),  # None: no batch is expected
          Column("percentage_complete", Integer, nullable=False, default=0),
          Column("interval_s", Integer, nullable=False, default=10),
          Column("total_events", Integer, nullable=False, default=0),
          Column("activity", Text, nullable=False, default="{}"),  # JSON {created, updated, skipped, failed}
          Column("message", Text, nullable=False, default=""),
          Column("message_slug", String(100), nullable=False, default=""),
          Column("updated_utc", DateTime, nullable=True))
    # Calendar-wide options as JSON values by name: the onboarding wizard's progress and settings
    # (and, on sites made before the host's site secrets, the wizard's key "signing_key": keys.py).
    Table(OPTIONS, metadata,
          Column("name", String(64), primary_key=True),
          Column("value", Text, nullable=False, default="{}"))
    # Where versions before the host's site secrets kept the view tokens' key (row "views"): read
    # once, when the host store has none yet, so tokens handed out before keep working (keys.py).
    Table(KEYS, metadata,
          Column("name", String(40), primary_key=True),
          Column("value", String(200), nullable=False))
    # One row: `version` goes up with every write to the calendar's tables (list totals are kept
    # per version, in every server process); `longest_s` bounds event durations, so the list's
    # walk can start at (window start - longest event) instead of at the first event ever.
    Table(STATE, metadata,
          Column("id", Integer, primary_key=True, autoincrement=False),
          Column("version", Integer, nullable=False, default=0),
          Column("longest_s", Integer, nullable=False, default=0))


def tables(app) -> dict:
    names = app.db.metadata.tables
    return {"events": names[EVENTS], "links": names[LINKS], "state": names[STATE], "recurrence": names[RECURRENCE],
            "overrides": names[OVERRIDES],
            "imports": names[IMPORTS], "options": names[OPTIONS], "keys": names[KEYS]}


def linked_to(events, links, kind: str, linked_ids):
    """The clause "the event names one of `linked_ids` as its `kind`": one primary-key probe per event.

    The list walks its window of events in start order and stops at the page, so probing
    each event's links is cheapest at every size. Written as a plain EXISTS, PostgreSQL turns it
    into a join, and right after a bulk load of events (an import; statistics not yet
    refreshed) it believed both tables held one row and read every link of the venue once per
    event in the window: 60 ms at 10,000 events, seconds at 100,000. OFFSET 0 keeps the
    subquery a per-row probe (PostgreSQL does not flatten a subquery with an OFFSET) whatever
    the statistics say; SQLite runs it as the correlated probe it always was.
    """
    probe = select(literal_column("1")).where(links.c.event_id == events.c.post_id, links.c.kind == kind,
                                              links.c.linked_id.in_(linked_ids))
    return exists(probe.offset(literal_column("0")))
