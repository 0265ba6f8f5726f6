"""The calendar's and the catalogue's public pages through the response cache (the cache plugin on):
an anonymous second GET is a hit, the writes that change a page purge it, and nothing per-visitor
(a signed-in user, an enrolled learner's lesson text, a protected event's form) is kept or served
from the cache; a draft's title never shows in a cached page."""

from __future__ import annotations

from urllib.parse import urlsplit

from webtest import TestApp

from host.auth import users as user_service
from host.testing import basic_auth_headers, create_test_user
from tests.calendar.helpers import API, cached_calendar_site, new_event

WIZARD = "/wp-json/calx/v2/onboarding/wizard"
LESSON_TEXT = "Lab rules, the parts box and charging the hubs."  # the demo's first robotics lesson


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _miss_then_hit(client, path: str):
    first = client.get(path)
    assert first.status_int == 200 and "X-Cache" not in first.headers, path
    second = client.get(path)
    assert second.headers.get("X-Cache") == "hit" and second.body == first.body, path
    return second


def _calendar(make_app):
    app, admin, venue, category, event = cached_calendar_site(make_app)
    pages = {"event": _path(event["url"]), "venue": _path(venue["url"]), "category": _path(category["url"]),
             "list": "/events/list/?start=2030-06-01", "month": "/events/month/2030-06/"}
    return app, admin, event, venue, category, pages


def test_calendar_pages_are_a_miss_then_a_hit_and_purged_by_writes(make_app):
    app, admin, event, venue, category, pages = _calendar(make_app)
    for name, path in pages.items():
        assert "Judo" in _miss_then_hit(app.client, path).text, name
    admin.post_json(f"{API}/events/{event['id']}", {"title": "Judo and karate"})
    for name, path in pages.items():
        assert "Judo and karate" in _miss_then_hit(app.client, path).text, name
    admin.post_json(f"{API}/venues/{venue['id']}", {"venue": "New sports centre"})
    assert "New sports centre" in _miss_then_hit(app.client, pages["event"]).text
    admin.post_json(f"{API}/categories/{category['id']}", {"name": "After-school clubs"})
    assert "After-school clubs" in _miss_then_hit(app.client, pages["event"]).text
    admin.post_json(f"{API}/events/{event['id']}", {"start_date": "2030-06-11 18:00:00",
                                                     "end_date": "2030-06-11 19:30:00"})
    moved = _miss_then_hit(app.client, pages["event"])
    assert "6:00pm to 7:30pm" in moved.text and moved.headers["Cache-Control"] == "public, no-cache"
    app.client.get(pages["event"], headers={"If-None-Match": moved.headers["ETag"]}, status=304)
    new_event(admin, title="Chess", start_date="2030-06-11 16:00:00", end_date="2030-06-11 17:00:00")
    assert "Chess" in _miss_then_hit(app.client, pages["list"]).text
    admin.delete(f"{API}/events/{event['id']}")
    app.client.get(pages["event"], status=404)
    assert "Judo" not in app.client.get(pages["list"]).text


def test_saving_the_calendar_preferences_purges_its_pages(make_app):
    app, admin, _event, _venue, _category, pages = _calendar(make_app)
    assert "10 June 2030, 9:00am" in _miss_then_hit(app.client, pages["event"]).text.replace("Monday ", "")
    _miss_then_hit(app.client, pages["month"])
    nonce = admin.get(WIZARD).json["action_nonce"]
    admin.post_json(WIZARD, {"action_nonce": nonce, "currentTab": 1, "start_of_week": 0})
    month = app.client.get(pages["month"])
    assert "X-Cache" not in month.headers
    header = month.text[month.text.index("<thead>"):month.text.index("</thead>")]
    assert header.index("Sunday") < header.index("Monday")


def test_calendar_pages_for_signed_in_visitors_and_protected_events_are_never_kept(make_app):
    app, admin, event, _venue, _category, pages = _calendar(make_app)
    user = create_test_user(app, "subscriber")
    for name, path in pages.items():
        signed_in = app.client.get(path, headers=user.headers)
        assert "X-Cache" not in signed_in.headers and "ETag" not in signed_in.headers, name
        assert "X-Cache" not in app.client.get(path).headers, name  # the signed-in answer was not kept
        assert app.client.get(path).headers.get("X-Cache") == "hit"
        assert "X-Cache" not in app.client.get(path, headers=user.headers).headers, name
    secret = new_event(admin, title="Staff supper", description="Bring a dish")
    admin.post_json(f"{API}/events/{secret['id']}", {"password": "lantern"})
    path = _path(secret["url"])
    for _attempt in range(2):
        asked = app.client.get(path)
        assert "X-Cache" not in asked.headers and asked.headers["Cache-Control"] == "no-store"
        assert 'name="post_password"' in asked.text and "Bring a dish" not in asked.text
    right = app.client.post(path, {"post_password": "lantern"})
    assert "Bring a dish" in right.text and "X-Cache" not in right.headers
    assert "Bring a dish" not in app.client.get(path).text
    ics = app.client.get(pages["event"] + "?ical=1")
    assert ics.content_type == "text/calendar" and "X-Cache" not in app.client.get(pages["event"] + "?ical=1").headers


def test_a_draft_event_never_shows_in_cached_calendar_pages(make_app):
    app, admin, _event, venue, category, pages = _calendar(make_app)
    new_event(admin, title="Surprise inspection", status="draft", venue=venue["id"], categories=[category["id"]])
    seen = [admin.get(path).text for path in pages.values()]
    for _round in range(2):
        seen += [app.client.get(path).text for path in pages.values()]
    assert seen and not any("Surprise inspection" in text for text in seen)


def _signed_in(app, login: str) -> dict[str, str]:
    """Application-password headers of a demo user (the demo makes its users without one)."""
    with app.db.session(write=True) as session, session.begin():
        user = user_service.find_user(app, session, login)
        password, _record = user_service.create_application_password(app, session, user.id, "tests")
    return basic_auth_headers(login, password)


def _lms(make_app):
    app = make_app(plugins=["core", "lms", "cache"])
    app.install_site(demo=True)
    lesson = next(item for item in app.client.get("/wp-json/core/v2/lessons?per_page=100").json
                  if item["title"]["rendered"] == "Safety in the lab and meeting the kit")
    pages = {"course": "/courses/robotics-club/", "lesson": _path(lesson["link"]),
             "category": "/course-category/after-school-clubs/"}
    return app, lesson, pages


def test_catalogue_pages_are_a_miss_then_a_hit_and_purged_by_writes(make_app):
    app, lesson, pages = _lms(make_app)
    admin = create_test_user(app, "administrator")
    for name, path in pages.items():
        _miss_then_hit(app.client, path)
        assert app.client.get(path).headers["Cache-Control"] == "public, no-cache", name
    app.client.post_json(f"/wp-json/core/v2/lessons/{lesson['id']}", {"title": "Lab safety and the kit"},
                         headers=admin.headers)
    assert "Lab safety and the kit" in _miss_then_hit(app.client, pages["course"]).text
    assert "Lab safety and the kit" in _miss_then_hit(app.client, _path(
        app.client.get(f"/wp-json/core/v2/lessons/{lesson['id']}").json["link"])).text


def test_an_enrolled_learners_lesson_text_is_never_kept_nor_served_to_others(make_app):
    app, _lesson, pages = _lms(make_app)
    pupil = _signed_in(app, "amara.o")  # enrolled by the demo
    shown = app.client.get(pages["lesson"], headers=pupil)
    assert LESSON_TEXT in shown.text and shown.headers["Cache-Control"] == "private, no-store"
    assert "X-Cache" not in shown.headers and "ETag" not in shown.headers
    anonymous = _miss_then_hit(app.client, pages["lesson"])  # the learner's page was not kept
    assert LESSON_TEXT not in anonymous.text and "This lesson is for learners enrolled" in anonymous.text
    again = app.client.get(pages["lesson"], headers=pupil)  # and the kept anonymous page never goes to them
    assert LESSON_TEXT in again.text and "X-Cache" not in again.headers
    browser = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    browser.set_cookie("sitehost_session", "not-a-session")  # a cookie of any kind: built afresh
    assert "X-Cache" not in browser.get(pages["lesson"]).headers


def test_a_draft_course_never_shows_in_cached_catalogue_pages(make_app):
    app, _lesson, pages = _lms(make_app)
    admin = create_test_user(app, "administrator")
    category = app.client.get("/wp-json/core/v2/course-category?slug=after-school-clubs").json[0]
    app.client.post_json("/wp-json/core/v2/courses", {"title": "Secret summer camp", "status": "draft",
                                                      "course-category": [category["id"]]}, headers=admin.headers)
    seen = [app.client.get(path, headers=admin.headers).text for path in pages.values()]
    for _round in range(2):
        seen += [app.client.get(path).text for path in pages.values()]
    assert not any("Secret summer camp" in text for text in seen)
