"""The calendar's public pages: an event, a venue, an organizer, an event category or tag.

Each page reads what it shows through the calendar's own REST routes as an anonymous visitor,
so the routes' checks decide what is public, and every visitor sees the same page: the pages are
`Page(cacheable=True)`, kept by the response cache (host.page_cache, the cache plugin) for visitors
without a cookie or credentials, dropped when content, terms or the calendar's preferences change,
and kept at most KEEP_SECONDS (an event that is over leaves the upcoming lists within a minute).
A protected event's password form is `no-store`, never kept. a missing, draft, pending, private or trashed item answers the site's 404 page (which
never names it), and a password-protected event asks for its password (a form that posts to the
page itself). Templates (templates/public/) render through the site theme, so a file of the same
name in the operator's `[site] templates_dir` (`public/event.html` ...) wins. The addresses are the
reference calendar's: `/event/<slug>/` (`?ical=1`: the event as an `.ics` file), `/venue/<slug>/`,
`/organizer/<slug>/`, `/events/category/<slug>/`, `/events/tag/<slug>/`. A repeating event's
occurrences share the `url` of their series (its page says that it repeats and lists its next
dates). Venues, organizers and terms list their upcoming events (those not yet over), PER_PAGE a page.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
from urllib.parse import quote, urlencode

import nh3
from markupsafe import Markup

from host import HtmlView, Page, PageAnswer, PageRequest, not_found, theme

from . import common, recurrence, times
from .names import CATEGORY, EVENT, NAMESPACE, ORGANIZER, REWRITES, TAG, VENUE
from .ical import CONTENT_TYPE, build_calendar
from .events import rows_of as event_rows
from .views import anonymous_reader, calendar_zone

PER_PAGE = 10
NEXT_DATES = 5  # occurrences a repeating event's page lists
MAX_PAGE = 1000  # a page number past this is no page (bounds the list's offset)
MAX_SLUG = 200
MAX_PASSWORD = 255
STYLESHEET = "/static/calendar/calendar-pages.css"
OSM_SEARCH = "https://www.openstreetmap.org/search"
VENUE_ADDRESS = ("address", "city", "stateprovince", "state", "province", "zip", "country")
PLACE_FIELDS = (*VENUE_ADDRESS, "venue", "organizer", "phone", "website", "email", "url", "description")
TERMS = {CATEGORY: ("categories", "Event category"), TAG: ("tags", "Event tag")}
KEEP_SECONDS = 60.0  # at most this long in the response cache: "upcoming" moves with the clock
PAGE_HEADERS = (("Cache-Control", "public, no-cache"),)  # browsers revalidate (ETag) on each visit


def pages() -> list[Page]:
    read = ("GET", "HEAD")
    cached = {"cacheable": True, "keep_seconds": KEEP_SECONDS}  # through the response cache (module docstring)
    return [Page(f"/{REWRITES[EVENT]}/<slug>/", (*read, "POST"), event_page, name="calendar-event-page", **cached),
            Page(f"/{REWRITES[VENUE]}/<slug>/", read, place_page(VENUE), name="calendar-venue-page", **cached),
            Page(f"/{REWRITES[ORGANIZER]}/<slug>/", read, place_page(ORGANIZER), name="calendar-organizer-page",
                 **cached),
            Page(f"/{REWRITES[CATEGORY]}/<slug>/", read, term_page(CATEGORY), name="calendar-category-page", **cached),
            Page(f"/{REWRITES[TAG]}/<slug>/", read, term_page(TAG), name="calendar-tag-page", **cached)]


class _Missing(Exception):
    """Raised where a page finds nothing to show (a bad slug or page number, an unknown event): its
    handler answers the site's 404 (`_or_not_found`)."""


def _or_not_found(handler):
    """`handler`, answering the site's 404 (host.not_found) where it raised _Missing."""
    @functools.wraps(handler)
    def answering(app, request: PageRequest, **url_params):
        try:
            return handler(app, request, **url_params)
        except _Missing:
            return not_found()
    return answering


def answer(app, request: PageRequest, build):
    """What `build(reader)` answers, read as an anonymous visitor: an HtmlView in the site layout; anything
    else (an .ics file, the password form) as it is."""
    with anonymous_reader(app, app.rest_base_url(request.environ)) as reader:
        view = build(reader)
    if not isinstance(view, HtmlView):
        return view
    return app.render_view(dataclasses.replace(view, headers=view.headers + PAGE_HEADERS))


# --- the event ---------------------------------------------------------------------------------

@_or_not_found
def event_page(app, request: PageRequest, slug: str):
    """GET /event/<slug>/ (POST: the password of a protected event; `?ical=1`: the event as .ics)."""
    _check_slug(slug)
    password = ""
    if request.method == "POST":
        password = request.form.get("post_password", "")[:MAX_PASSWORD]

    def build(reader):
        query = {"password": password} if password else {}
        # REST on purpose: this plugin's own route's answer (checks, password, paging, errors).
        reply = reader.internal_get(f"/{NAMESPACE}/events/by-slug/{quote(slug, safe='')}", **query)
        code = reply.data.get("code") if isinstance(reply.data, dict) else None
        if code == "event-password-protected":
            return _password_form(app, request, slug, wrong=bool(password))
        if not reply.ok:
            raise _Missing
        event = reply.data
        if request.query_text("ical") == "1":
            return _ical_file(reader, event)
        upcoming = next_dates(reader, _site(app, request), event) if event.get("recurrence") else []
        return _event_view(app, request, event, password, upcoming)

    return answer(app, request, build)


def next_dates(reader, site: str, event: dict) -> list[dict]:
    """The next NEXT_DATES occurrences of a repeating event that are not over yet (one under way counts),
    changed ones at their own times and cancelled ones left out, each {"when", "key", "url", "rest_url"}:
    its dates in the site's zone, its RECURRENCE-ID key, its place in the calendar's day view (the anchor
    the views give that occurrence) and the occurrence's REST address, as the events list links it."""
    row = event_rows(reader, [event["id"]]).get(event["id"])
    series = recurrence.rows_of(reader.session, reader.app, [event["id"]]).get(event["id"])
    if row is None or series is None:
        return []
    zone, view_zone = reader.app.timezone(), calendar_zone(reader)
    own_zone = times.zone(event["timezone"]) if times.is_zone(event.get("timezone") or "") else times.UTC
    found = []
    for start, end, _original in recurrence.occurrences(reader.app, row, series, times.utcnow(), None)[:NEXT_DATES]:
        key = recurrence.occurrence_key(start)
        shown = {**event, "utc_start_date": times.text(start), "utc_end_date": times.text(end),  # as `when` reads them
                 "start_date": times.text(times.to_local(start, own_zone)),
                 "end_date": times.text(times.to_local(end, own_zone))}
        day = times.to_local(start, own_zone if event.get("all_day") else view_zone).date()
        found.append({"when": when(shown, zone), "key": key,
                      "url": f"{site}/events/day/{day:%Y-%m-%d}/#event-{event['id']}-{key}",
                      "rest_url": common.rest_url(reader, f"events/{event['id']}/occurrences/{key}")})
    return found


def _event_view(app, request: PageRequest, event: dict, password: str, upcoming: list[dict]) -> HtmlView:
    site = _site(app, request)
    terms = {taxonomy: [{"name": term["name"], "url": f"{site}/{REWRITES[taxonomy]}/{term['slug']}/"}
                        for term in event[TERMS[taxonomy][0]]] for taxonomy in TERMS}
    context = {"event": event, "when": when(event, app.timezone()), "description": _html(event["description"]),
               "categories": terms[CATEGORY], "tags": terms[TAG],
               "venues": [_filled(venue) for venue in _as_list(event.get("venue"))],
               "organizers": [_filled(organizer) for organizer in _as_list(event.get("organizer"))],
               "ical_url": f"{event['url']}?ical=1" if not password else "", "map_url": map_url,
               "address_lines": address_lines, "events_url": f"{site}/events/", "next_dates": upcoming}
    head = _render(app, "public/event_head.html", {"stylesheet": _stylesheet(app, request), "event": event,
                                                   "json_ld": _json_for_script(event.get("json_ld"))})
    return _view(event["title"], _render(app, "public/event.html", context), event, EVENT, head)


def _password_form(app, request: PageRequest, slug: str, wrong: bool):
    body = _render(app, "public/password.html", {
        "action": f"{_site(app, request)}/{REWRITES[EVENT]}/{quote(slug)}/", "wrong": wrong})
    view = HtmlView("Protected event", body, status=403 if wrong else 200,
                    head_html=_head(app, request), headers=(("Cache-Control", "no-store"),))
    return app.render_view(view)


def _ical_file(reader, event: dict):
    """The event alone as an iCalendar file, written as the `events/{id}.ics` route writes it."""
    body = build_calendar(reader, [event])
    return PageAnswer(body, content_type=CONTENT_TYPE,
                      headers={"Content-Disposition": f'attachment; filename="{event["slug"]}.ics"'})


# --- venues, organizers and terms ----------------------------------------------------------------

def place_page(post_type: str):
    kind, plural, name_field = {VENUE: ("venue", "venues", "venue"),
                                ORGANIZER: ("organizer", "organizers", "organizer")}[post_type]

    @_or_not_found
    def handler(app, request: PageRequest, slug: str):
        """GET /venue/<slug>/ or /organizer/<slug>/: its details and its upcoming events."""
        _check_slug(slug)
        page = _page_number(request)

        def build(reader) -> HtmlView:
            # REST on purpose: this plugin's own route's answer (checks, password, paging, errors).
            reply = reader.internal_get(f"/{NAMESPACE}/{plural}/by-slug/{quote(slug, safe='')}")
            if not reply.ok:
                raise _Missing
            place = {**_filled(reply.data), "rest_url": f"{reader.base_url}/{NAMESPACE}/{plural}/{reply.data['id']}"}
            listed = _upcoming(reader, page, **{kind: [place["id"]]})
            context = {"kind": kind, "place": place, "description": _html(place.get("description", "")),
                       "address_lines": address_lines, "map_url": map_url,
                       **_listing(app, request, place["url"], page, listed)}
            head = _head(app, request)
            return _view(place[name_field], _render(app, f"public/{kind}.html", context), place, post_type, head)

        return answer(app, request, build)

    handler.__name__ = f"{kind}_page"
    return handler


def term_page(taxonomy: str):
    plural, label = TERMS[taxonomy]

    @_or_not_found
    def handler(app, request: PageRequest, slug: str):
        """GET /events/category/<slug>/ or /events/tag/<slug>/: the term's upcoming events."""
        _check_slug(slug)
        page = _page_number(request)

        def build(reader) -> HtmlView:
            # REST on purpose: this plugin's own route's answer (checks, password, paging, errors).
            reply = reader.internal_get(f"/{NAMESPACE}/{plural}", slug=slug, per_page=1)
            found = reply.data.get(plural, []) if reply.ok and isinstance(reply.data, dict) else []
            if not found:
                raise _Missing
            term = found[0]
            listed = _upcoming(reader, page, **{plural: [term["id"]]})
            context = {"term": term, "label": label, "description": _html(term.get("description", "")),
                       **_listing(app, request, term["url"], page, listed)}
            head = _head(app, request)
            item = {"id": term["id"], "type": taxonomy, "link": term["url"], "rest_url": term["urls"]["self"],
                    "title": term["name"], "taxonomy": taxonomy}
            return HtmlView(f"{label}: {term['name']}", str(_render(app, "public/term.html", context)), item=item,
                            head_html=str(head))

        return answer(app, request, build)

    handler.__name__ = f"{plural}_page"
    return handler


def _upcoming(reader, page: int, **filters) -> dict:
    """Events not over yet (in progress or to come), in start order; a page past the end is a 404."""
    now = times.text(times.to_local(times.utcnow(), reader.app.timezone()))
    # REST on purpose: this plugin's own route's answer (checks, password, paging, errors). strict_dates:
    # `ends_after` to the second (else the list reads it as the whole day, and today's later events would be missing).
    reply = reader.internal_get(f"/{NAMESPACE}/events", ends_after=now, start_date="1970-01-01", strict_dates=True,
                                page=page, per_page=PER_PAGE, **filters)
    data = reply.data if reply.ok and isinstance(reply.data, dict) else {}
    events, total_pages = data.get("events", []), int(data.get("total_pages") or 0)
    if page > 1 and page > total_pages:
        raise _Missing
    return {"events": events, "total": int(data.get("total") or 0), "total_pages": total_pages}


def _listing(app, request: PageRequest, url: str, page: int, listed: dict) -> dict:
    zone = app.timezone()

    def page_url(number: int) -> str:
        return url + (f"?{urlencode({'page': number})}" if number > 1 else "")

    return {"events": [{"event": event, "when": when(event, zone)} for event in listed["events"]],
            "events_url": _site(app, request) + "/events/",
            "total": listed["total"], "page": page,
            "previous_url": page_url(page - 1) if page > 1 else "",
            "next_url": page_url(page + 1) if page < listed["total_pages"] else ""}


# --- dates, places, markup -----------------------------------------------------------------------

def when(event: dict, zone: datetime.tzinfo) -> dict:
    """The event's dates as the page shows them: in the site's zone (an all-day event keeps its own
    calendar days), one line for a one-day event, start and end days for a longer one."""
    if event.get("all_day"):
        start = datetime.datetime.strptime(event["start_date"], times.FORMAT)
        end = datetime.datetime.strptime(event["end_date"], times.FORMAT)
        if start.date() == end.date():
            text = f"{_day(start)} (all day)"
        else:
            text = f"{_day(start)} to {_day(end)} (all day)"
        return {"text": text, "start": start.date().isoformat(), "end": end.date().isoformat()}
    start = times.to_local(datetime.datetime.strptime(event["utc_start_date"], times.FORMAT), zone)
    end = times.to_local(datetime.datetime.strptime(event["utc_end_date"], times.FORMAT), zone)
    if start.date() == end.date():
        text = f"{_day(start)}, {_time(start)} to {_time(end)}"
    else:
        text = f"{_day(start)}, {_time(start)} to {_day(end)}, {_time(end)}"
    abbreviation = start.tzname() or ""
    return {"text": f"{text} ({abbreviation})" if abbreviation else text,
            "start": start.isoformat(), "end": end.isoformat()}


def _day(moment: datetime.datetime) -> str:
    return f"{moment:%A} {moment.day} {moment:%B %Y}"


def _time(moment: datetime.datetime) -> str:
    return f"{moment.hour % 12 or 12}:{moment:%M}{'am' if moment.hour < 12 else 'pm'}"


def address_lines(place: dict) -> list[str]:
    region = place.get("stateprovince") or place.get("state") or place.get("province") or ""
    lines = [place.get("address", ""), " ".join(part for part in (place.get("city", ""), region) if part),
             place.get("zip", ""), place.get("country", "")]
    return [line for line in lines if line]


def map_url(place: dict) -> str:
    """An OpenStreetMap search for the venue (no third-party embed on our pages), or "" without an address."""
    if place.get("geo_lat") is not None and place.get("geo_lng") is not None:
        return f"https://www.openstreetmap.org/?{urlencode({'mlat': place['geo_lat'], 'mlon': place['geo_lng']})}"
    lines = address_lines(place)
    if not lines:
        return ""
    return f"{OSM_SEARCH}?{urlencode({'query': ', '.join([place.get('venue', ''), *lines]).strip(', ')})}"


def _html(text: str) -> Markup:
    """Stored rich text, with only the markup the content service allows anyway (never a script)."""
    return Markup(nh3.clean(text or ""))


def _json_for_script(data) -> Markup:
    """JSON to embed in a `<script type="application/ld+json">`: `<`, `>` and `&` escaped, so `</script>`
    inside a title cannot end the element."""
    if not data:
        return Markup("")
    text = json.dumps(data, ensure_ascii=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def _filled(place: dict) -> dict:
    """A venue or organizer as the REST answer has it, with the fields it leaves out when empty."""
    return {**dict.fromkeys(PLACE_FIELDS, ""), "image": False, **place}


def _as_list(value) -> list:
    if not value:
        return []
    return value if isinstance(value, list) else [value]


def _view(title: str, body: Markup, shaped: dict, post_type: str, head: Markup) -> HtmlView:
    item = {"id": shaped["id"], "type": post_type, "link": shaped["url"], "rest_url": shaped["rest_url"],
            "title": title, "slug": shaped.get("slug", "")}
    return HtmlView(title, str(body), item=item, head_html=str(head))


def _render(app, template: str, context: dict) -> Markup:
    """A template of templates/public/ through the site theme (the operator's copy wins)."""
    return theme.render(app, __package__, template, context)


def _head(app, request: PageRequest) -> Markup:
    return _render(app, "public/head.html", {"stylesheet": _stylesheet(app, request)})


def _site(app, request: PageRequest) -> str:
    return request.site_url


def _stylesheet(app, request: PageRequest) -> str:
    return _site(app, request) + STYLESHEET


def _check_slug(slug: str) -> None:
    if not slug or len(slug) > MAX_SLUG:
        raise _Missing


def _page_number(request: PageRequest) -> int:
    """`?page=N` (1 when absent); anything else than 1..MAX_PAGE is no page of the list."""
    value = request.query_text("page", "1")
    if not value.isdigit() or not 1 <= int(value) <= MAX_PAGE:
        raise _Missing
    return int(value)
