"""The calendar's public pages, as a visitor reaches them from the links the REST answers hand out:
every demo event, venue, organizer, event category and tag; the single event's .ics and JSON-LD;
non-public items answer 404 without their title; a protected event asks for its password."""

from __future__ import annotations

import datetime
import json
import re
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import html5lib
import icalendar
import pytest

from host.testing import client_as, create_test_user

from tests.calendar.helpers import API, LONDON, cached_calendar_site, new_event, new_organizer, new_venue

SITE = "http://school.test"
WIDE = {"start_date": "2000-01-01", "end_date": "2100-01-01", "per_page": 50}
OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$")
JSON_LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def parsed(response):
    """The page parsed as HTML5 (strict: a parse error fails the test)."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.text)


def visit(client, url: str, status: int = 200):
    """GET a link the API handed out (an absolute address of the test site)."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == SITE, url
    response = client.get(parts.path + (f"?{parts.query}" if parts.query else ""), status=status)
    assert response.content_type == "text/html"
    parsed(response)
    return response


def json_ld(response) -> dict:
    found = JSON_LD.findall(response.text)
    assert len(found) == 1
    return json.loads(found[0])


@pytest.fixture(scope="module")
def demo(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    app.install_site(demo=True)
    return app


def every(client, path: str, key: str) -> list[dict]:
    return client.get(f"{API}/{path}", {"per_page": 50, **({} if key != "events" else WIDE)}).json[key]


# --- every public item of the demo ---------------------------------------------------------------

def test_every_demo_event_link_opens_its_page(demo):
    client = demo.client
    events = every(client, "events", "events")
    assert len(events) > 15
    linked = {item["id"]: item["link"] for item in client.get("/wp-json/core/v2/cal_events",
                                                              {"per_page": 100}).json}
    for event in events:
        assert event["url"] == f"{SITE}/event/{event['slug']}/"
        assert linked[event["id"]] == event["url"]  # core/v2's link is the same page
        page = visit(client, event["url"])
        assert f"<h1>{event['title']}</h1>".replace("'", "&#39;") in page.text or event["title"] in page.text
        data = json_ld(page)
        assert data["@type"] == "Event" and data["url"] == event["url"]
        assert data["name"] == event["title"]
        if not event["all_day"]:
            assert OFFSET.match(data["startDate"]) and OFFSET.match(data["endDate"])
        calendar = icalendar.Calendar.from_ical(client.get(urlsplit(event["url"]).path, {"ical": "1"}).body)
        [vevent] = calendar.walk("VEVENT")
        assert str(vevent["SUMMARY"]) == event["title"] and str(vevent["URL"]) == event["url"]


def test_the_parents_evening_page_shows_its_details(demo):
    client = demo.client
    [evening] = [event for event in every(client, "events", "events") if event["title"] == "Year 11 parents' evening"]
    page = visit(client, evening["url"])
    text = page.text
    assert "4:30pm to 7:30pm (G" in text or "4:30pm to 7:30pm (B" in text  # GMT or BST, the site's zone
    assert "Free" in text  # cost 0
    assert "Riverside School main hall" in text and "Mill Lane" in text and "RV1 2AB" in text
    assert "https://www.openstreetmap.org/search?query=Riverside+School+main+hall%2C+Mill+Lane" in text
    assert 'href="mailto:office@riverside.example"' in text and "01234 567890" in text
    assert f'href="{SITE}/events/category/parents/"' in text and f'href="{SITE}/events/tag/year-11/"' in text
    assert f'href="{SITE}/venue/riverside-school-main-hall/"' in text
    assert f'href="{SITE}/organizer/riverside-school-office/"' in text
    assert "Meet your child&#39;s subject teachers" in text or "Meet your child's subject teachers" in text
    assert f'href="{evening["url"]}?ical=1"' in text and "Add to calendar" in text
    assert '<link rel="stylesheet" href="http://school.test/static/calendar/calendar-pages.css">' in text
    data = json_ld(page)
    assert OFFSET.match(data["startDate"])
    assert data["location"]["@type"] == "Place" and data["location"]["name"] == "Riverside School main hall"
    assert data["location"]["address"]["streetAddress"] == "Mill Lane"
    stylesheet = client.get("/static/calendar/calendar-pages.css")
    assert stylesheet.content_type == "text/css" and ".calp-event" in stylesheet.text


def test_all_day_and_multi_day_events_read_as_such(demo):
    client = demo.client
    events = {event["title"]: event for event in every(client, "events", "events")}
    one_day = visit(client, events["Autumn term starts"]["url"]).text
    assert re.search(r"day \d{1,2} September \d{4} \(all day\)", one_day)
    half_term = visit(client, events["Half-term holiday"]["url"]).text
    assert re.search(r"\w+day \d{1,2} \w+ \d{4} to \w+day \d{1,2} \w+ \d{4} \(all day\)", half_term)
    trip = visit(client, events["Year 7 outdoor education trip"]["url"]).text
    assert re.search(r"\w+day \d{1,2} \w+ \d{4}, 8:30am to \w+day \d{1,2} \w+ \d{4}, 4:00pm", trip)
    assert json_ld(visit(client, events["Autumn term starts"]["url"]))["startDate"] == \
        events["Autumn term starts"]["start_date"][:10]


def test_every_demo_venue_organizer_and_term_opens_its_page(demo):
    client = demo.client
    for path, key, segment, name in (("venues", "venues", "venue", "venue"),
                                     ("organizers", "organizers", "organizer", "organizer"),
                                     ("categories", "categories", "events/category", "name"),
                                     ("tags", "tags", "events/tag", "name")):
        items = every(client, path, key)
        assert items, path
        for item in items:
            assert item["url"] == f"{SITE}/{segment}/{item['slug']}/"
            page = visit(client, item["url"])
            assert item[name].replace("'", "&#39;") in page.text
            assert "Upcoming events" in page.text
    venues = {venue["venue"]: venue for venue in every(client, "venues", "venues")}
    fields = visit(client, venues["Riverside playing fields"]["url"]).text
    assert "Meadow Road" in fields and "openstreetmap.org/search" in fields
    organizers = {organizer["organizer"]: organizer for organizer in every(client, "organizers", "organizers")}
    office = visit(client, organizers["Riverside School office"]["url"]).text
    assert "office@riverside.example" in office and "https://riverside.example" in office
    core_links = {term["id"]: term["link"] for term in client.get("/wp-json/core/v2/cal_events_cat").json}
    for category in every(client, "categories", "categories"):
        assert core_links[category["id"]] == category["url"]


def test_non_public_items_answer_404_without_their_title(demo):
    client = demo.client
    admin = client_as(demo, create_test_user(demo, "administrator", login="public-pages-admin"))
    drafts = admin.get("/wp-json/core/v2/cal_events", {"status": "draft,trash", "context": "edit"}).json
    assert {item["title"]["rendered"] for item in drafts} == {"Spring concert", "Autumn disco (cancelled)"}
    for item in drafts:
        slug = item["slug"] or item["generated_slug"]  # a draft keeps an empty slug, as WordPress's do
        for path in (f"/event/{slug}/", f"/event/{slug}/?ical=1"):
            page = client.get(path, status=404)
            assert item["title"]["rendered"] not in page.text and "Spring concert" not in page.text
        assert urlsplit(item["link"]).query.startswith("post_type=cal_event&p=")  # no pretty link before publish
    for path in ("/event/no-such-event/", "/venue/no-such-venue/", "/organizer/nobody/", "/events/category/none/",
                 "/events/tag/none/", "/venue/riverside-playing-fields/?page=0",
                 "/venue/riverside-playing-fields/?page=abc", "/venue/riverside-playing-fields/?page=999",
                 "/event/" + "x" * 300 + "/"):
        parsed(client.get(path, status=404))


def test_private_draft_and_trashed_items_of_every_kind(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    hidden = {"private": new_event(admin, title="Governors private meeting", status="private"),
              "draft_venue": new_venue(admin, venue="Secret annexe", status="draft"),
              "draft_organizer": new_organizer(admin, organizer="Hidden committee", status="draft")}
    trashed = new_event(admin, title="Withdrawn fete")
    admin.delete(f"{API}/events/{trashed['id']}")
    private_page = app.client.get(f"/event/{hidden['private']['slug']}/", status=404)
    assert "Governors private meeting" not in private_page.text
    assert "Withdrawn fete" not in app.client.get(f"/event/{trashed['slug']}/", status=404).text
    # a draft keeps no slug, and empty fields are left out of the answer (reference 1.3)
    venue = admin.get(f"{API}/venues/{hidden['draft_venue']['id']}").json
    assert "Secret annexe" not in app.client.get(f"/venue/{venue.get('slug') or 'secret-annexe'}/", status=404).text
    organizer = admin.get(f"{API}/organizers/{hidden['draft_organizer']['id']}").json
    assert "Hidden committee" not in app.client.get(f"/organizer/{organizer.get('slug') or 'hidden-committee'}/",
                                                    status=404).text


def test_a_protected_event_asks_for_its_password(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Staff party", description="<p>Bring a dish.</p>")
    admin.post_json(f"{API}/events/{event['id']}", {"password": "lantern"})
    path = urlsplit(event["url"]).path
    asked = app.client.get(path)
    parsed(asked)
    assert 'name="post_password"' in asked.text and "Bring a dish" not in asked.text
    assert "Staff party" not in asked.text
    assert "Bring a dish" not in app.client.get(path, {"ical": "1"}).text
    wrong = app.client.post(path, {"post_password": "candle"}, status=403)
    assert "not right" in wrong.text and "Bring a dish" not in wrong.text
    right = app.client.post(path, {"post_password": "lantern"})
    parsed(right)
    assert "Bring a dish." in right.text and "Staff party" in right.text


def test_event_page_escapes_what_editors_write(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    title = "Quiz </script><script>alert(1)</script> night"
    event = new_event(admin, title=title, description='<p onclick="x()">Teams of four<script>bad()</script></p>')
    page = visit(app.client, event["url"])
    body = page.text.split("</head>", 1)[1]
    assert "<script" not in body and "onclick" not in body
    assert "<script>alert(1)" not in page.text and "<script>bad()" not in page.text
    assert json_ld(page)["name"] == event["title"]
    assert "Teams of four" in page.text


def test_upcoming_events_of_a_venue_page_by_ten(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    venue = new_venue(admin, venue="Sports hall", address="1 Court Road", city="Riverside")
    for day in range(1, 13):
        new_event(admin, title=f"Badminton club {day:02d}", venue=venue["id"], start_date=f"2031-03-{day:02d} 18:00:00",
                  end_date=f"2031-03-{day:02d} 19:00:00")
    new_event(admin, title="Badminton long ago", venue=venue["id"], start_date="2001-03-01 18:00:00",
              end_date="2001-03-01 19:00:00")
    first = visit(app.client, venue["url"])
    assert first.text.count('class="calp-event-row"') == 10 and "Badminton club 01" in first.text
    assert "Badminton long ago" not in first.text
    assert f'href="{venue["url"]}?page=2"' in first.text
    second = visit(app.client, venue["url"] + "?page=2")
    assert second.text.count('class="calp-event-row"') == 2 and "Badminton club 12" in second.text
    assert f'href="{venue["url"]}"' in second.text  # back to the first page
    app.client.get(urlsplit(venue["url"]).path, {"page": "3"}, status=404)


def test_a_repeating_events_occurrences_resolve(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    event = new_event(admin, title="Chess club", start_date="2031-01-07 16:00:00", end_date="2031-01-07 17:00:00",
                      recurrence={"rule": "FREQ=WEEKLY;COUNT=5"})
    listed = app.client.get(f"{API}/events", {"start_date": "2031-01-01", "end_date": "2031-03-01"}).json["events"]
    assert len(listed) == 5
    for occurrence in listed:
        page = visit(app.client, occurrence["url"])
        assert "Chess club" in page.text and "repeats" in page.text
        single = app.client.get(urlsplit(occurrence["occurrence"]["rest_url"]).path).json
        assert single["url"] == event["url"]


def test_a_venue_lists_an_event_later_today_and_one_under_way(make_app):
    """"Upcoming" is to the second: today's evening event and one that started an hour ago are listed, one
    that ended an hour ago is not."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    venue = new_venue(admin, venue="Sports hall")
    now = datetime.datetime.now(ZoneInfo("Europe/London")).replace(microsecond=0, tzinfo=None)
    for title, start, end in (("Netball later", now + datetime.timedelta(hours=2), now + datetime.timedelta(hours=3)),
                              ("Netball now", now - datetime.timedelta(hours=1), now + datetime.timedelta(hours=1)),
                              ("Netball over", now - datetime.timedelta(hours=2), now - datetime.timedelta(hours=1))):
        new_event(admin, title=title, venue=venue["id"], start_date=f"{start}", end_date=f"{end}")
    page = visit(app.client, venue["url"])
    assert "Netball later" in page.text and "Netball now" in page.text and "Netball over" not in page.text


def _next_dates(page) -> list:
    return parsed(page).findall(".//section[@class='calp-next']/ol[@class='calp-next-dates']/li/a")


def test_a_repeating_events_page_lists_its_next_dates(make_app):
    """Up to five occurrences not over yet, in the site's zone (summer time included), an excluded date left
    out, each linked to its place in the day view and carrying the occurrence's REST address."""
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    start = datetime.date.today() - datetime.timedelta(days=14)  # two meetings are over already
    event = new_event(admin, title="Chess club", start_date=f"{start} 16:00:00", end_date=f"{start} 17:00:00",
                      recurrence={"rule": "FREQ=WEEKLY;COUNT=30",
                                  "exdates": [f"{start + datetime.timedelta(days=28)} 16:00:00"]})
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    expected = [occurrence for occurrence in app.client.get(f"{API}/events", {
        "start_date": "1970-01-01", "ends_after": now, "strict_dates": "true", "per_page": 50}).json["events"]
        if occurrence["id"] == event["id"]][:5]
    assert len(expected) == 5 and expected[0]["start_date"] > f"{start + datetime.timedelta(days=7)}"
    assert all(not occurrence["start_date"].startswith(f"{start + datetime.timedelta(days=28)}")
               for occurrence in expected)

    page = visit(app.client, event["url"])
    links = _next_dates(page)
    assert len(links) == 5
    for link, occurrence in zip(links, expected):
        day, key = occurrence["start_date"][:10], occurrence["occurrence"]["start"]
        assert link.get("href") == f"{SITE}/events/day/{day}/#event-{event['id']}-{key}"
        assert link.get("data-rest-url") == occurrence["occurrence"]["rest_url"]
        shown = link.find("time")
        assert shown.get("datetime") == datetime.datetime.fromisoformat(
            occurrence["start_date"]).replace(tzinfo=ZoneInfo("Europe/London")).isoformat()
        assert "4:00pm to 5:00pm" in shown.text and (" (GMT)" in shown.text or " (BST)" in shown.text)
        day_view = visit(app.client, link.get("href").split("#")[0])
        assert f'id="event-{event["id"]}-{key}"' in day_view.text
    single = app.client.get(urlsplit(links[0].get("data-rest-url")).path).json
    assert single["start_date"] == expected[0]["start_date"] and single["url"] == event["url"]


def test_a_finished_series_says_no_dates_are_to_come_and_a_single_event_lists_none(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    over = new_event(admin, title="Autumn choir", start_date="2020-09-07 15:00:00", end_date="2020-09-07 16:00:00",
                     recurrence={"rule": "FREQ=WEEKLY;COUNT=3"})
    page = visit(app.client, over["url"])
    assert _next_dates(page) == []
    assert "No dates to come" in "".join(parsed(page).find(".//section[@class='calp-next']").itertext())
    single = new_event(admin, title="Sports day", start_date="2031-06-10 09:00:00", end_date="2031-06-10 15:00:00")
    assert "calp-next" not in visit(app.client, single["url"]).text


def test_editing_the_venue_changes_the_cached_event_page(make_app):
    app, admin, venue, category, event = cached_calendar_site(make_app)
    path = urlsplit(event["url"]).path
    first = app.client.get(path)
    assert "Old gym" in first.text and first.headers["Cache-Control"] == "public, no-cache"
    kept = app.client.get(path)
    assert kept.text == first.text and kept.headers["ETag"] == first.headers["ETag"]
    app.client.get(path, headers={"If-None-Match": first.headers["ETag"]}, status=304)

    def changed_after(write) -> str:
        before = app.client.get(path).headers["ETag"]
        write()
        page = app.client.get(path, headers={"If-None-Match": before}, status=200)
        assert page.headers["ETag"] != before
        return page.text

    page = changed_after(lambda: admin.post_json(f"{API}/venues/{venue['id']}", {"venue": "New sports centre"}))
    assert "New sports centre" in page and "Old gym" not in page
    page = changed_after(lambda: admin.post_json(f"{API}/categories/{category['id']}", {"name": "After-school clubs"}))
    assert "After-school clubs" in page
    page = changed_after(lambda: admin.post_json(f"{API}/events/{event['id']}", {"title": "Judo and karate"}))
    assert "Judo and karate" in page
    page = changed_after(lambda: admin.post_json(f"{API}/events/{event['id']}", {
        "start_date": "2030-06-11 18:00:00", "end_date": "2030-06-11 19:30:00"}))
    assert "6:00pm to 7:30pm" in page
    venue_path = urlsplit(venue["url"]).path
    assert "Judo and karate" in app.client.get(venue_path).text
    admin.delete(f"{API}/events/{event['id']}")
    assert "Judo and karate" not in app.client.get(venue_path).text
    app.client.get(path, status=404)
    signed_in = admin.get(venue_path)  # credentials: built afresh, never kept
    assert "ETag" not in signed_in.headers


def test_the_featured_image_shows_on_the_event_page(make_app):
    from tests.wordpress_migrate.export_helpers import png

    app = make_app(plugins=["core", "calendar"], site=LONDON)
    user = create_test_user(app, "administrator")
    admin = client_as(app, user)
    media = app.client.post("/wp-json/core/v2/media", png(4, 3), status=201, headers={
        **user.headers, "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="poster.png"'}).json
    event = new_event(admin, title="Art show", image=media["id"])
    page = visit(app.client, event["url"])
    assert f'<img src="{media["source_url"]}" alt="" width="4" height="3">' in page.text
    assert json_ld(page)["image"] == media["source_url"]


def test_the_site_menu_links_the_events_after_the_sites_pages(demo):
    """Visitors reach the calendar from every page's menu; on /events/ the entry is the current one."""
    home = parsed(demo.client.get("/"))
    links = home.findall(".//nav[@aria-label='Site']//a")
    assert links[-1].text == "Events" and links[-1].get("href") == f"{SITE}/events/"
    assert links[-1].get("aria-current") is None
    events = parsed(demo.client.get("/events/")).findall(".//nav[@aria-label='Site']//a[@aria-current='page']")
    assert [link.text for link in events] == ["Events"]
