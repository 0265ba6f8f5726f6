"""The calendar's benchmark: the default event list, a venue's date window, the month view, the public
events list page and the feed.

`prepare` creates venues, organizers, a category and one event over REST (so the write path and
the check run against real routes), then bulk-loads as many events as the run's size (1,000,
10,000, 100,000) into the served database: REST would need hours for 100,000. The events are
spread over four years around today, so about half fall in the list's default window (yesterday to
24 months ahead); every venue hosts a twentieth of them. The month view's scenario adds 200 events
in one month 30 months ahead (past the list's default window), and the feed's exports the four
years of fixtures as iCalendar (1,000 events at the 1,000 size).
"""

from __future__ import annotations

import datetime
import json

from tests.benchmarks.plugins import Budget
from tests.benchmarks.scenarios import Context, Scenario, Unavailable, expect, fetch
from tests.benchmarks.wrk import lua_string

API = "/cal/events/v1"
VENUES = 20
SPAN_DAYS = 4 * 365
CHUNK = 5000


def _admin(context: Context) -> dict:
    return {"Authorization": context.admin_authorization}


def prepare(context: Context) -> None:
    status, _headers, body = fetch(context.rest + f"{API}/venues?per_page=1")
    expect(status, 200, body, "venues list")
    if body["total"] >= VENUES:
        return  # this served database was prepared already (the same server runs several scenarios)
    venues = []
    for number in range(VENUES):
        status, _headers, venue = fetch(context.rest + f"{API}/venues", "POST",
                                        {"venue": f"Venue {number + 1}", "city": "Riverside"}, _admin(context))
        expect(status, 201, venue, "create venue")
        venues.append(venue["id"])
    status, _headers, organizer = fetch(context.rest + f"{API}/organizers", "POST",
                                        {"organizer": "PE department"}, _admin(context))
    expect(status, 201, organizer, "create organizer")
    status, _headers, first = fetch(context.rest + f"{API}/events", "POST", {
        "title": "Opening fixture", "status": "publish", "start_date": "tomorrow", "end_date": "tomorrow",
        "all_day": True, "venue": [venues[0]], "organizer": [organizer["id"]]}, _admin(context))
    expect(status, 201, first, "create event")
    _bulk_events(context, venues, organizer["id"], context.seeded.posts - 1)


def _bulk_events(context: Context, venues: list[int], organizer: int, count: int,
                 first_start: datetime.datetime | None = None, span_days: float = SPAN_DAYS,
                 name: str = "Fixture") -> None:
    from sqlalchemy import MetaData, func, insert, select, update

    from host.db import Database  # the host's engine: its SQLite functions serve the search index's triggers

    database = Database(context.database_url or f"sqlite:///{context.database}")
    postgres = database.engine.dialect.name == "postgresql"
    engine = database.engine.execution_options(sitehost_write=True)
    metadata = MetaData()
    metadata.reflect(engine, only=["posts", "cal_events", "cal_event_links", "cal_state"])
    posts, events, links, state = (metadata.tables[name] for name in
                                   ("posts", "cal_events", "cal_event_links", "cal_state"))
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    first_start = first_start or now - datetime.timedelta(days=SPAN_DAYS // 2)
    step = datetime.timedelta(seconds=span_days * 86400 / max(count, 1))
    with engine.begin() as connection:
        author = connection.execute(select(posts.c.author).where(posts.c.type == "cal_event")).scalar()
        first_id = (connection.execute(select(func.max(posts.c.id))).scalar() or 0) + 1
        for chunk_start in range(0, count, CHUNK):
            numbers = range(chunk_start, min(count, chunk_start + CHUNK))
            post_rows, event_rows, link_rows = [], [], []
            for number in numbers:
                post_id = first_id + number
                start = first_start + step * number
                start = start.replace(hour=15, minute=45, second=0) if name == "Fixture" else start.replace(second=0)
                title = f"{name} {number + 1}: Year {7 + number % 5} v Hillcrest"
                post_rows.append({"id": post_id, "type": "cal_event", "status": "publish",
                                  "slug": f"{name.lower()}-{number}",
                                  "title": title, "content": "<p>Home fixture. Supporters welcome.</p>",
                                  "excerpt": "", "author": author, "parent": 0, "menu_order": 0, "password": "",
                                  "comment_status": "closed", "ping_status": "closed", "format": "", "template": "",
                                  "sticky": False, "featured_media": 0, "date": now, "date_gmt": now,
                                  "modified": now, "modified_gmt": now, "guid": "", "mime_type": "",
                                  "pre_trash_status": "", "file": "", "alt_text": ""})
                event_rows.append({"post_id": post_id, "status": "publish", "parent": 0, "published_utc": now,
                                   "start_utc": start, "end_utc": start + datetime.timedelta(hours=1, minutes=15),
                                   "timezone": "Europe/London", "all_day": False, "featured": number % 50 == 0,
                                   "sticky": False, "hide_from_listings": False, "show_map": True,
                                   "show_map_link": True, "cost": "", "currency_symbol": "£", "currency_code": "GBP",
                                   "currency_position": "prefix", "website": "", "custom_fields": "{}",
                                   "global_id_lineage": "[]"})
                link_rows.append({"event_id": post_id, "kind": "venue", "linked_id": venues[number % len(venues)],
                                  "position": 0})
                if number % 3 == 0:
                    link_rows.append({"event_id": post_id, "kind": "organizer", "linked_id": organizer, "position": 0})
            connection.execute(insert(posts), [_only(posts, row) for row in post_rows])
            connection.execute(insert(events), event_rows)
            connection.execute(insert(links), link_rows)
        larger = func.greatest if postgres else func.max  # SQLite's two-argument max
        connection.execute(update(state).values(version=state.c.version + 1,
                                                longest_s=larger(state.c.longest_s, 86400)))
        if postgres:  # explicit ids leave the sequence behind
            connection.exec_driver_sql("SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT max(id) FROM posts))")
    if not postgres:
        raw = database.engine.raw_connection()  # fold the bulk load into the database file, as a quiet site has it
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()
    database.engine.dispose()


def _only(table, row: dict) -> dict:
    return {name: value for name, value in row.items() if name in table.c}


def _window(context: Context) -> tuple[str, str]:
    first = datetime.date.today() + datetime.timedelta(days=30)
    return first.isoformat(), (first + datetime.timedelta(days=30)).isoformat()


def _venue_path(context: Context) -> str:
    status, _headers, body = fetch(context.rest + f"{API}/venues?per_page=1&search=Venue+2")
    expect(status, 200, body, "venues list")
    if not body.get("venues"):
        raise Unavailable("no venue to filter by")
    start, end = _window(context)
    return f"{API}/events?venue={body['venues'][0]['id']}&start_date={start}&end_date={end}"


def _lua_get(path_of):
    def lua(context: Context) -> str:
        return f'wrk.method = "GET"\nwrk.path = {lua_string(context.rest_path + path_of(context))}\n'
    return lua


def _check(path_of, minimum: int):
    def check(context: Context) -> None:
        path = path_of(context)
        status, headers, body = fetch(context.rest + path)
        expect(status, 200, body, path)
        total = int(headers.get("X-CAL-Total") or -1)
        if total < minimum or not isinstance(body, dict) or len(body.get("events", [])) != min(10, total):
            raise Unavailable(f"{path}: X-CAL-Total {total}, {len(body.get('events', [])) if isinstance(body, dict) else body!r} events")
        json.dumps(body)
    return check


# --- the month view and the iCalendar export ----------------------------------------

MONTH_EVENTS = 200
FEED_EVENTS = 1000


def _far_month(context: Context) -> datetime.date:
    """A month past the list's default window (30 months ahead), so the other scenarios keep their counts."""
    return (datetime.date.today() + datetime.timedelta(days=915)).replace(day=1)


def prepare_month(context: Context) -> None:
    prepare(context)
    month = _far_month(context)
    following = (month + datetime.timedelta(days=32)).replace(day=1)
    status, headers, body = fetch(context.rest + f"{API}/events?start_date={month}&end_date={following}"
                                                 "&strict_dates=true&per_page=1")
    expect(status, 200, body, "events of the month")
    if int(headers.get("X-CAL-Total") or 0) >= MONTH_EVENTS:
        return
    status, _headers, venues = fetch(context.rest + f"{API}/venues?per_page=5")
    expect(status, 200, venues, "venues")
    status, _headers, organizers = fetch(context.rest + f"{API}/organizers?per_page=1")
    expect(status, 200, organizers, "organizers")
    start = datetime.datetime.combine(month, datetime.time(8, 0))
    _bulk_events(context, [venue["id"] for venue in venues["venues"]], organizers["organizers"][0]["id"],
                 MONTH_EVENTS, first_start=start, span_days=27, name="Club")


def _month_path(context: Context) -> str:
    return f"/events/month/{_far_month(context):%Y-%m}/"


def _lua_month(context: Context) -> str:
    return f'wrk.method = "GET"\nwrk.path = {lua_string(_site_path(context) + _month_path(context))}\n'


def _site_path(context: Context) -> str:
    return context.rest_path[: -len("/wp-json")] if context.rest_path.endswith("/wp-json") else ""


def _check_month(context: Context) -> None:
    import urllib.request

    site = context.rest[: -len(context.rest_path)] if context.rest_path != "/" else context.rest
    with urllib.request.urlopen(site + _site_path(context) + _month_path(context), timeout=120) as response:
        html = response.read().decode()
    shown = html.count("> Club ")
    if response.status != 200 or shown < MONTH_EVENTS:
        raise Unavailable(f"the month view: HTTP {response.status}, {shown} of {MONTH_EVENTS} events shown")


LIST_PAGE = "/events/list/"
LIST_PAGE_EVENTS = 20  # the list view's page (plugins/calendar/views.py LIST_PAGE_SIZE)


def _lua_list_page(context: Context) -> str:
    return f'wrk.method = "GET"\nwrk.path = {lua_string(_site_path(context) + LIST_PAGE)}\n'


def _check_list_page(context: Context) -> None:
    """The public events list (from today) shows a full page of the bulk-loaded fixtures."""
    import urllib.request

    site = context.rest[: -len(context.rest_path)] if context.rest_path != "/" else context.rest
    with urllib.request.urlopen(site + _site_path(context) + LIST_PAGE, timeout=120) as response:
        html = response.read().decode()
    shown = html.count('<article class="cal-event"')
    if response.status != 200 or shown < LIST_PAGE_EVENTS:
        raise Unavailable(f"the events list page: HTTP {response.status}, {shown} of {LIST_PAGE_EVENTS} events shown")


def _feed_path(context: Context) -> str:
    """The iCalendar export of the bulk-loaded fixtures' window: 1,000 events at the 1,000 size."""
    today = datetime.date.today()
    start = today - datetime.timedelta(days=SPAN_DAYS // 2 + 1)
    return f"{API}/events.ics?start_date={start}&end_date={start + datetime.timedelta(days=SPAN_DAYS + 2)}"


def _check_feed(context: Context) -> None:
    import urllib.request

    import icalendar

    with urllib.request.urlopen(context.rest + _feed_path(context), timeout=300) as response:
        raw = response.read()
    events = icalendar.Calendar.from_ical(raw).walk("VEVENT")
    if response.status != 200 or len(events) < min(FEED_EVENTS, context.seeded.posts):
        raise Unavailable(f"the iCalendar export: HTTP {response.status}, {len(events)} events")


# --- repeating events whose rules never match or repeat daily (security round three) ---------------

RULE_EVENTS = 10
NEVER_MATCHING = ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", "FREQ=WEEKLY;BYMONTH=4;BYMONTHDAY=31",
                  "FREQ=MONTHLY;BYMONTH=6;BYMONTHDAY=31", "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=31",
                  "FREQ=DAILY;BYMONTH=9;BYMONTHDAY=-31")
HUGE = ("FREQ=DAILY", "FREQ=DAILY;INTERVAL=1", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU",
        "FREQ=MONTHLY;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28",
        "FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,4,7,10,13,16,19,22,25,28")


def prepare_rules(context: Context) -> None:
    """Ten repeating events in the default window: five rules that never match, stored in the table as
    rules written before the API refused them (or by an import) are, and five endless ones over REST."""
    from sqlalchemy import MetaData, insert, update

    from host.db import Database

    prepare(context)
    status, _headers, body = fetch(context.rest + f"{API}/events?search=Rule+fixture&per_page=1")
    expect(status, 200, body, "rule fixtures")
    if body["total"] >= RULE_EVENTS:
        return
    stored = []
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    for number, rule in enumerate(NEVER_MATCHING + HUGE):
        fields = {"title": f"Rule fixture {number + 1}", "status": "publish",
                  "start_date": f"{tomorrow} 18:00", "end_date": f"{tomorrow} 19:00"}
        if rule in HUGE:
            fields["recurrence"] = {"rule": rule}
        status, _headers, event = fetch(context.rest + f"{API}/events", "POST", fields, _admin(context))
        expect(status, 201, event, "create repeating event")
        if rule in NEVER_MATCHING:
            stored.append({"event_id": event["id"], "rule": rule, "exdates": "[]"})
    database = Database(context.database_url or f"sqlite:///{context.database}")
    engine = database.engine.execution_options(sitehost_write=True)
    metadata = MetaData()
    metadata.reflect(engine, only=["cal_event_recurrence", "cal_state"])
    with engine.begin() as connection:
        connection.execute(insert(metadata.tables["cal_event_recurrence"]), stored)
        state = metadata.tables["cal_state"]
        connection.execute(update(state).values(version=state.c.version + 1))
    database.engine.dispose()


SCENARIOS = [
    Scenario("calendar-events", "GET cal events (default window, 10)", _lua_get(lambda c: f"{API}/events"),
             _check(lambda c: f"{API}/events", 10), prepare=prepare),
    Scenario("calendar-venue-window", "GET cal events?venue=V in a 30-day window", _lua_get(_venue_path),
             _check(_venue_path, 1), prepare=prepare),
    Scenario("calendar-events-cached", "GET cal events, cache hit", _lua_get(lambda c: f"{API}/events"),
             _check(lambda c: f"{API}/events", 10), cached=True, prepare=prepare),
    Scenario("calendar-month-view", f"HTML month view of {MONTH_EVENTS} events (/events/month/)", _lua_month,
             _check_month, prepare=prepare_month),
    Scenario("calendar-list-page", f"HTML events list page ({LIST_PAGE_EVENTS} events, /events/list/), cache off",
             _lua_list_page, _check_list_page, prepare=prepare),
    Scenario("calendar-ics", f"GET cal events.ics ({FEED_EVENTS} events, anonymous: kept a minute)",
             _lua_get(_feed_path), _check_feed, prepare=prepare),
    # Last of the calendar's: its repeating events stay in the served database for the scenarios after it.
    Scenario("calendar-events-rules", f"GET cal events, {RULE_EVENTS} never-matching or daily rules stored",
             _lua_get(lambda c: f"{API}/events"), _check(lambda c: f"{API}/events", 10), prepare=prepare_rules),
]

BUDGET = [
    Budget("calendar-events", 0.15, "the default event list at 10,000 events, uncached", max_drop=0.30),
    # The budget asks for >= 300 req/s at 1 worker: 0.08 of the ~3,700 req/s hello-world ceiling.
    Budget("calendar-month-view", 0.08, "the month view with 200 events in the month, >= 300 req/s"),
    Budget("calendar-list-page", 0.08, "the public site, part 7: the events list page, cache off"),
    # At most 50 ms of CPU per request at 1 worker is >= 20 req/s: 0.004 of the ~5,300 req/s ceiling.
    Budget("calendar-events-rules", 0.004, "security round three: the default list with ten never-matching or "
                                           "daily rules stored, under 50 ms of CPU per request at 1 worker"),
]
