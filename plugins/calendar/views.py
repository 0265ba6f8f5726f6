"""Calendar views a visitor browses: the month grid, the list and the day, as HTML.

The same markup serves two ways: as plain pages (`/events/`, the month of today;
`/events/month/YYYY-MM/` (`/events/month/`: the current month), `/events/list/` with `?page=N`, `/events/day/YYYY-MM-DD/`) and as
`{html}` from `cal/views/v2/html`, which re-renders the view a front-end URL (`u`) names, so a
page can swap views without a reload (assets/calendar.js does, when scripts run). Navigation
links are plain view URLs either way.

The markup is templates/public/views.html, rendered through the site theme (`host.theme.render`), so an
operator's `public/views.html` in `[site] templates_dir` replaces it.

Views show what anyone may read: published events (a password-protected one shows its title and time
only), read through an anonymous request whatever the viewer, so nothing a signed-in viewer may see is
ever kept or shown to another. Times are in the calendar's time zone and weeks
start on the calendar's first day (the setup wizard's choices; else the site's zone and Monday),
see onboarding.preferences, kept per calendar version (view_state). A rendered view is kept per (site,
view, date, calendar version, today) for a minute: every calendar write, and every save of the
preferences, bumps the version. The plain pages are also offered to the response cache
(`Page(cacheable=True)`, a minute at most) for visitors without a cookie or credentials.
"""

from __future__ import annotations

import calendar as month_names
import contextlib
import datetime
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator
from urllib.parse import urlencode, urlsplit

import nh3
from markupsafe import Markup
from sqlalchemy import and_, or_, select

from host import theme
from host import HtmlView, not_found, Page, PageAnswer, PageRequest, RestRequest

from . import linked, recurrence, state, times
from .names import EVENT, REWRITES, VENUE
from .onboarding import Preferences, preferences
from .settings import settings_of
from .tables import tables
from .view_tokens import make_token

VIEWS = ("month", "list", "day")
LIST_PAGE_SIZE = 20
MAX_LIST_PAGE = 100
MAX_VIEW_EVENTS = 2000  # events one view reads at most (a month of 2,000 events shows the first ones)
KEPT_SECONDS = 60
RENDERED_KEPT = 128
ASSETS = Path(__file__).parent / "assets"
MONTH_PATH = re.compile(r"^/events/month/(\d{4})-(\d{2})/?$")
DAY_PATH = re.compile(r"^/events/day/(\d{4})-(\d{2})-(\d{2})/?$")
LIST_PATH = re.compile(r"^/events/list/?$")
HOME_PATH = re.compile(r"^/events/?$")
THIS_MONTH_PATH = re.compile(r"^/events/month/?$")  # the month view without a month: the current one


class ViewUrlError(ValueError):
    """A URL that names no calendar view."""


@dataclass(frozen=True)
class ViewRequest:
    view: str  # month, list or day
    day: datetime.date  # month: its first day; day: the day; list: the first day listed
    page: int = 1
    search: str = ""

    def path(self) -> str:
        if self.view == "month":
            return f"/events/month/{self.day:%Y-%m}/"
        if self.view == "day":
            return f"/events/day/{self.day:%Y-%m-%d}/"
        query = {"start": f"{self.day:%Y-%m-%d}"}
        if self.page > 1:
            query["page"] = str(self.page)
        return "/events/list/?" + urlencode(query)


@dataclass
class Entry:
    """One occurrence of one event, as a view shows it."""

    event_id: int
    title: str
    start: datetime.datetime  # local, site zone
    end: datetime.datetime
    all_day: bool
    venue: str
    summary: str  # plain text
    protected: bool
    occurrence: str  # the RECURRENCE-ID key of a repeating event's occurrence, "" otherwise
    slug: str = ""  # the event's page is /event/<slug>/

    @property
    def anchor(self) -> str:
        return f"event-{self.event_id}" + (f"-{self.occurrence}" if self.occurrence else "")


# --- reading a view's URL ------------------------------------------------------------------------

def view_state(reader) -> tuple[int, Preferences]:
    """(calendar version, the calendar's preferences) of this view request, read once per request.

    The preferences (the setup wizard's, onboarding.preferences) are kept in app.stash per calendar
    version, so a view costs no read of them: saving them bumps the version in the same transaction
    (onboarding.write_option), and every process reads the version on each request, so the next
    view anywhere shows the new ones. The version is read before the preferences: a save committed
    between the two reads is then kept under the older version, read again on the next request.
    """
    found = reader.state.get("calendar_view_state")
    if found is None:
        app = reader.app
        version, _longest = state.read(reader.session, app)
        found = (version, app.kept("calendar.views.preferences", 1).get_or_build(
            "preferences", version, lambda: preferences(app, reader.session)))
        reader.state.calendar_view_state = found
    return found


def calendar_zone(reader):
    """The calendar's time zone: the setup wizard's choice, else the site's."""
    return times.zone(view_state(reader)[1].timezone)


def today(reader) -> datetime.date:
    return times.to_local(times.utcnow(), calendar_zone(reader)).date()


def _date(year: str, month: str, day: str = "01") -> datetime.date:
    try:
        value = datetime.date(int(year), int(month), int(day))
    except ValueError:
        raise ViewUrlError("The URL names a date that does not exist.") from None
    if not 1900 <= value.year <= 2200:
        raise ViewUrlError("The calendar shows the years 1900 to 2200.")
    return value


def parse_view_url(reader, path: str, query: dict, view: str | None = None) -> ViewRequest:
    """The view a front-end path names (`view` switches to another view of the same date)."""
    app = reader.app
    prefix = urlsplit(app.settings.site.get("home") or app.settings.site.get("url") or "").path.rstrip("/")
    if prefix and path.startswith(prefix + "/"):
        path = path[len(prefix):]
    search = (query.get("search") or "")[:200]
    if HOME_PATH.match(path) or THIS_MONTH_PATH.match(path):
        found = ViewRequest("month", today(reader).replace(day=1), search=search)
    elif match := MONTH_PATH.match(path):
        found = ViewRequest("month", _date(*match.groups()), search=search)
    elif match := DAY_PATH.match(path):
        found = ViewRequest("day", _date(*match.groups()), search=search)
    elif LIST_PATH.match(path):
        start = today(reader)
        if query.get("start"):
            parts = query["start"].split("-")
            if len(parts) != 3 or not all(part.isdigit() for part in parts):
                raise ViewUrlError("start is a date written YYYY-MM-DD.")
            start = _date(*parts)
        page = query.get("page") or "1"
        if not page.isdigit() or not 1 <= int(page) <= MAX_LIST_PAGE:
            raise ViewUrlError(f"page is a number from 1 to {MAX_LIST_PAGE}.")
        found = ViewRequest("list", start, int(page), search=search)
    else:
        raise ViewUrlError("The URL is not one of the calendar's views (/events/...).")
    if view and view != found.view:
        if view not in VIEWS:
            raise ViewUrlError(f"view is one of {', '.join(VIEWS)}.")
        now = today(reader)
        day = found.day if found.view != "month" or (found.day.year, found.day.month) != (now.year, now.month) \
            else now
        found = ViewRequest(view, day.replace(day=1) if view == "month" else day, search=found.search)
    return found


# --- the events of a window ------------------------------------------------------------------------

@contextlib.contextmanager
def anonymous_reader(app, base_url: str) -> Iterator:
    """An internal request of an anonymous visitor: a view reads through it whoever asks."""
    reader = RestRequest(app, "GET", "/", [], {}, internal=True, base_url=base_url)
    try:
        yield reader
    finally:
        reader.finish(success=True)


def entries_between(reader, start_local: datetime.datetime, end_local: datetime.datetime,
                    search: str = "") -> list[Entry]:
    """Published occurrences overlapping [start, end] (local wall times of the site), in start order."""
    app = reader.app
    tz = calendar_zone(reader)
    start_utc, end_utc = times.to_utc(start_local, tz), times.to_utc(end_local, tz)
    events = tables(app)["events"]
    now = times.utcnow()
    _version, longest = state.read(reader.session, app)
    published = or_(events.c.status == "publish", and_(events.c.status == "future", events.c.published_utc <= now))
    recurring = recurrence.recurring_ids(reader.session, app)
    base = [published, events.c.hide_from_listings.is_(False)]
    if search:
        base.append(events.c.post_id.in_(app.content.matching_ids(reader, EVENT, search=search)))
    single = select(events).where(*base, events.c.end_utc >= start_utc,
                                  events.c.start_utc >= start_utc - datetime.timedelta(seconds=longest),
                                  events.c.start_utc <= end_utc)
    if recurring:
        single = single.where(events.c.post_id.not_in(recurring))
    rows = [dict(row._mapping) for row in reader.session.execute(
        single.order_by(events.c.start_utc, events.c.post_id).limit(MAX_VIEW_EVENTS)).all()]
    found: list[tuple[dict, datetime.datetime, datetime.datetime, str, dict | None]] = [
        (row, row["start_utc"], row["end_utc"], "", None) for row in rows]
    if recurring:
        series_rows = reader.session.execute(select(events).where(
            *base, events.c.post_id.in_(recurring), events.c.start_utc <= end_utc)).all()
        series = recurrence.rows_of(reader.session, app, [row.post_id for row in series_rows])
        for row in series_rows:
            row = dict(row._mapping)
            overrides = series[row["post_id"]]["overrides"]
            for start, end, original in recurrence.occurrences(app, row, series[row["post_id"]], start_utc, end_utc):
                found.append((row, start, end, recurrence.occurrence_key(start), overrides.get(original)))
        found.sort(key=lambda entry: (entry[1], entry[0]["post_id"]))
        found = found[:MAX_VIEW_EVENTS]
    ids = list(dict.fromkeys(row["post_id"] for row, *_rest in found))
    items = app.content.get_many(reader, ids, EVENT)
    links = linked.links_of(reader, ids)
    venues = linked.linked_items(reader, [v for link in links.values() for v in link["venue"]]
                                 + [override["venue_id"] for *_rest, override in found
                                    if override and override["venue_id"]], VENUE)
    entries = []
    for row, start, end, key, override in found:
        item = items.get(row["post_id"])
        if item is None or item["status"] != "publish":
            continue
        protected = bool(item["password"])
        title, venue_ids, text = item["title"], links.get(item["id"], {}).get("venue", []), \
            item["excerpt"] or item["content"]
        if override is not None:  # a changed occurrence shows its own texts where it has them
            title = override["title"] if override["title"] is not None else title
            venue_ids = venue_ids if override["location"] is None else [override["venue_id"]]
            text = text if override["description"] is None else override["description"]
        venue_names = [venues[venue_id]["title"] for venue_id in venue_ids if venue_id in venues]
        summary = "" if protected else _plain(text, 240)
        entries.append(Entry(item["id"], _plain(title, 300) or "(untitled)",
                             times.to_local(start, tz).replace(tzinfo=None),
                             times.to_local(end, tz).replace(tzinfo=None), bool(row["all_day"]),
                             "" if protected else _plain(", ".join(venue_names), 300), summary, protected, key,
                             item["slug"]))
    return entries


def _plain(text: str, limit: int) -> str:
    """Stored HTML as plain text (the template escapes it), cut at `limit` characters on a word."""
    cleaned = " ".join(html.unescape(nh3.clean(text or "", tags=set())).split())
    if len(cleaned) > limit:
        cleaned = cleaned[:limit].rsplit(" ", 1)[0] + "…"
    return cleaned


# --- rendering ---------------------------------------------------------------------------------

def _day_label(day: datetime.date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def _switch(current: ViewRequest, site: str, day: datetime.date) -> list[dict]:
    links = {"month": ViewRequest("month", day.replace(day=1)), "list": ViewRequest("list", day),
             "day": ViewRequest("day", day)}
    return [{"name": name.capitalize(), "url": site + target.path(), "current": name == current.view}
            for name, target in links.items()]


def _nav(site: str, previous: ViewRequest | None, previous_text: str, heading: str, next_: ViewRequest | None,
         next_text: str, today_view: ViewRequest) -> dict:
    return {"heading": heading, "today": site + today_view.path(),
            "previous": {"url": site + previous.path(), "text": previous_text} if previous is not None else None,
            "next": {"url": site + next_.path(), "text": next_text} if next_ is not None else None}


def _event_link(site: str, entry: Entry) -> str:
    """Where the month grid sends an event: its day's view, at the event."""
    return f"{site}/events/day/{entry.start:%Y-%m-%d}/#{entry.anchor}"


def _event_page_link(site: str, entry: Entry) -> str:
    """The event's own page (every occurrence of a repeating one shows its series' page)."""
    if entry.slug:
        return f"{site}/{REWRITES[EVENT]}/{entry.slug}/"
    return _event_link(site, entry)


def _listed(site: str, entries: list[Entry]) -> list[dict]:
    return [{"entry": entry, "url": _event_page_link(site, entry)} for entry in entries]


def month_context(reader, site: str, view: ViewRequest) -> dict:
    first = view.day.replace(day=1)
    # The wizard's week start (start_of_week: 0 Sunday, 1 Monday, ...) as a Python weekday.
    week_first = (view_state(reader)[1].week_start - 1) % 7
    week_last = (week_first + 6) % 7
    grid_start = first - datetime.timedelta(days=(first.weekday() - week_first) % 7)
    last = first.replace(day=month_names.monthrange(first.year, first.month)[1])
    grid_end = last + datetime.timedelta(days=(week_last - last.weekday()) % 7)
    entries = entries_between(reader, datetime.datetime.combine(grid_start, datetime.time()),
                              datetime.datetime.combine(grid_end, datetime.time(23, 59, 59)), view.search)
    by_day: dict[datetime.date, list[Entry]] = {}
    for entry in entries:
        day = max(entry.start.date(), grid_start)
        while day <= min(entry.end.date(), grid_end):
            by_day.setdefault(day, []).append(entry)
            day += datetime.timedelta(days=1)
    now = today(reader)
    previous = ViewRequest("month", (first - datetime.timedelta(days=1)).replace(day=1), search=view.search)
    following = ViewRequest("month", last + datetime.timedelta(days=1), search=view.search)
    heading = f"{first:%B %Y}"
    weeks: list[list[dict]] = []
    day = grid_start
    while day <= grid_end:
        if day.weekday() == week_first:
            weeks.append([])
        listed = by_day.get(day, [])
        classes = ["cal-day", *(["cal-other"] if day.month != first.month else []),
                   *(["cal-is-today"] if day == now else []), *([] if listed else ["cal-empty"])]
        count = f", {len(listed)} event{'s' if len(listed) != 1 else ''}" if listed else ""
        weeks[-1].append({
            "classes": " ".join(classes), "today": day == now, "url": f"{site}/events/day/{day:%Y-%m-%d}/",
            "label": f"{_day_label(day)}{count}", "weekday": f"{day:%a}", "number": day.day,
            "events": [{"url": _event_link(site, entry), "title": entry.title,
                        "time": "All day" if entry.all_day or entry.start.date() != day else f"{entry.start:%H:%M}"}
                       for entry in listed]})
        day += datetime.timedelta(days=1)
    return {"links": _switch(view, site, first if (now.year, now.month) != (first.year, first.month) else now),
            "nav": _nav(site, previous, "Previous month", heading, following, "Next month",
                        ViewRequest("month", now.replace(day=1))),
            "weekdays": [{"name": month_names.day_name[weekday], "abbr": month_names.day_abbr[weekday]}
                         for weekday in ((week_first + offset) % 7 for offset in range(7))],
            "weeks": weeks, "nothing": "" if entries else f"No events in {heading}."}


def list_context(reader, site: str, view: ViewRequest) -> dict:
    start = datetime.datetime.combine(view.day, datetime.time())
    end = times.end_of_day(times.months_ahead(start, settings_of(reader.app).list_months))
    entries = entries_between(reader, start, end, view.search)
    offset = (view.page - 1) * LIST_PAGE_SIZE
    shown = entries[offset:offset + LIST_PAGE_SIZE]
    now = today(reader)
    previous = ViewRequest("list", view.day, view.page - 1, view.search) if view.page > 1 else None
    following = ViewRequest("list", view.day, view.page + 1, view.search) \
        if offset + LIST_PAGE_SIZE < len(entries) and view.page < MAX_LIST_PAGE else None
    heading = "Upcoming events" if view.day == now else f"Events from {_day_label(view.day)}"
    months: list[dict] = []
    for item in _listed(site, shown):
        month = f"{item['entry'].start:%B %Y}"
        if not months or months[-1]["heading"] != month:
            months.append({"heading": month, "items": []})
        months[-1]["items"].append(item)
    return {"links": _switch(view, site, view.day),
            "nav": _nav(site, previous, "Earlier events", heading, following, "Later events", ViewRequest("list", now)),
            "months": months, "nothing": "" if shown else "There are no upcoming events."}


def day_context(reader, site: str, view: ViewRequest) -> dict:
    start = datetime.datetime.combine(view.day, datetime.time())
    entries = entries_between(reader, start, times.end_of_day(start), view.search)
    now = today(reader)
    previous = ViewRequest("day", view.day - datetime.timedelta(days=1), search=view.search)
    following = ViewRequest("day", view.day + datetime.timedelta(days=1), search=view.search)
    return {"links": _switch(view, site, view.day),
            "nav": _nav(site, previous, "Previous day", _day_label(view.day), following, "Next day",
                        ViewRequest("day", now)),
            "items": _listed(site, entries), "nothing": "" if entries else f"No events on {_day_label(view.day)}."}


CONTEXTS = {"month": month_context, "list": list_context, "day": day_context}


def render(reader, site: str, view: ViewRequest) -> str:
    """The view's markup (without tokens), kept per (site, view, calendar version, today) for a minute.
    templates/public/views.html renders it through the site theme (the operator's copy of that file wins)."""
    app = reader.app
    version, _preferences = view_state(reader)
    kept = app.kept("calendar.views.rendered", RENDERED_KEPT, KEPT_SECONDS)
    kept_version = (version, today(reader))
    found = kept.get((site, view), kept_version)
    if found is not None:
        return found
    context = {"view": view.view, "view_url": site + view.path(), "site": site,
               **CONTEXTS[view.view](reader, site, view)}
    body = str(theme.render(app, __package__, "public/views.html", context))
    kept.put((site, view), kept_version, body)
    return body


def tokens_block(app, user_id: int, extra: dict | None = None) -> str:
    """Fresh view tokens (and the view's URL state) for the page's script, as §3 embeds them."""
    data = {"tvn1": make_token(app, user_id), "tvn2": make_token(app, 0), **(extra or {})}
    text = Markup(json.dumps(data).replace("<", "\\u003c"))  # JSON that cannot close the script block
    return str(theme.render(app, __package__, "public/tokens.html", {"tokens": text}))


# --- the plain pages -----------------------------------------------------------------------------

def _html_response(app, request: PageRequest, title: str, body: str, status: int = 200):
    """A view in the site's layout, as every public page is (`render_view`)."""
    head = theme.render(app, __package__, "public/view_head.html", {"site": request.site_url})
    return app.render_view(HtmlView(title, body, status=status, head_html=head, headers=(("Cache-Control", "no-cache"),)))


def view_page(app, request: PageRequest, **_url_params):
    """GET /events/...: the view its path names, in the site layout, with fresh view tokens."""
    query = dict(request.query_pairs)
    site = request.site_url
    with anonymous_reader(app, app.rest_base_url(request.environ)) as reader:
        try:
            view = parse_view_url(reader, request.path, query)
        except ViewUrlError as error:
            return _html_response(app, request, "Events", theme.render(app, __package__, "public/view_page.html",
                                                              {"message": str(error)}), 404)
        body = render(reader, site, view)
    user = request.user
    return _html_response(app, request, "Events", theme.render(app, __package__, "public/view_page.html", {
        "message": "", "rest": app.rest_base_url(request.environ) + "/cal/views/v2/html", "body": Markup(body),
        "tokens": Markup(tokens_block(app, user.id))}))


def asset(app, request: PageRequest, name):
    types = {"calendar.css": "text/css; charset=utf-8", "calendar.js": "text/javascript; charset=utf-8"}
    if name not in types:
        return not_found()
    body = (ASSETS / name).read_text(encoding="utf-8")
    return PageAnswer(body, content_type=types[name], headers={"Cache-Control": "public, max-age=3600"})


def pages():
    methods = ("GET", "HEAD")
    # Anonymous views through the response cache, a minute at most (today's date moves on); the
    # anonymous view token they carry is valid for a day, so a kept page's token still works.
    views = [("/events", "calendar-events-bare"), ("/events/", "calendar-events"), ("/events/list", "calendar-list-bare"),
             ("/events/list/", "calendar-list"), ("/events/month/", "calendar-this-month"),
             ("/events/month", "calendar-this-month-bare"), ("/events/month/<month>/", "calendar-month"),
             ("/events/month/<month>", "calendar-month-bare"), ("/events/day/<day>/", "calendar-day"),
             ("/events/day/<day>", "calendar-day-bare")]
    return [*(Page(path, methods, view_page, name=name, cacheable=True, keep_seconds=KEPT_SECONDS)
              for path, name in views),
            Page("/events/assets/<name>", methods, asset, name="calendar-assets")]
