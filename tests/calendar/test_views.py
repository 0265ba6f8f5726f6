"""The calendar's views: /events/ pages (month, list, day) and cal/views/v2/html with its view tokens (§3)."""

from __future__ import annotations

import json
import re
import time

import itsdangerous
import pytest
from webtest import TestApp

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, local_today, new_event, new_venue

HTML = "/wp-json/cal/views/v2/html"
SITE = "http://school.test"


def tokens_of(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="cal-tokens">(.*?)</script>', text).group(1))


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "calendar"], site=LONDON)
    admin_user = create_test_user(app, "administrator")
    admin = client_as(app, admin_user)
    hall = new_venue(admin, venue="Main hall")
    new_event(admin, title="Sports day", start_date="2030-06-12 09:00", end_date="2030-06-12 15:00",
              description="<p>Races &amp; games on the field.</p>", venue=[hall["id"]])
    new_event(admin, title="Choir practice", start_date="2030-06-03 16:00", end_date="2030-06-03 17:00",
              recurrence={"rule": "FREQ=WEEKLY;COUNT=4"})
    new_event(admin, title="Summer fair", all_day=True, start_date="2030-06-28", end_date="2030-06-29")
    new_event(admin, title="Draft meeting", status="draft", start_date="2030-06-12 12:00", end_date="2030-06-12 13:00")
    new_event(admin, title="Private governors", status="private", start_date="2030-06-13 18:00",
              end_date="2030-06-13 19:00")
    new_event(admin, title="Locked evening", start_date="2030-06-14 18:00", end_date="2030-06-14 19:00",
              description="Secret agenda")
    locked = admin.get(f"{API}/events", {"search": "Locked", "start_date": "2030-06-01"}).json["events"][0]
    admin.post_json(f"{API}/events/{locked['id']}", {"password": "letmein"})
    new_event(admin, title="Hidden inset", hide_from_listings=True, start_date="2030-06-15 09:00",
              end_date="2030-06-15 10:00")
    new_event(admin, title="July concert", start_date="2030-07-04 19:00", end_date="2030-07-04 21:00")
    new_event(admin, title="<script>alert(1)</script> & co", start_date="2030-06-20 10:00",
              end_date="2030-06-20 11:00")
    anonymous = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    return {"app": app, "admin": admin, "admin_user": admin_user, "anonymous": anonymous}


def test_the_month_page_is_an_accessible_grid_of_published_events(site):
    page = site["anonymous"].get("/events/month/2030-06/")
    assert page.status_int == 200 and page.content_type == "text/html"
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    text = page.text
    assert '<h2 id="cal-heading" tabindex="-1">June 2030</h2>' in text
    assert '<table class="cal-month" aria-labelledby="cal-heading">' in text
    assert text.count('<th scope="col">') == 7 and '<abbr title="Monday">Mon</abbr>' in text
    assert 'aria-label="Wednesday 12 June 2030, 1 event"' in text
    for title in ("Sports day", "Choir practice", "Summer fair", "Locked evening"):
        assert title in text
    assert text.count("Choir practice") == 4  # one per weekly occurrence
    for hidden in ("Draft meeting", "Private governors", "Hidden inset", "Secret agenda", "<script>alert"):
        assert hidden not in text
    assert "&amp; co</a>" in text  # titles are text: escaped, never markup
    assert f'href="{SITE}/events/month/2030-07/"' in text and ">Next month<" in text
    assert f'href="{SITE}/events/month/2030-05/"' in text and ">Previous month<" in text
    assert f'href="{SITE}/events/assets/calendar.css"' in text and f'src="{SITE}/events/assets/calendar.js"' in text
    assert "//cdn" not in text and "googleapis" not in text


def test_signed_in_staff_get_the_same_public_view(site):
    text = site["admin"].get("/events/month/2030-06/").text
    assert "Sports day" in text
    for hidden in ("Draft meeting", "Private governors", "Secret agenda"):
        assert hidden not in text


def test_events_defaults_to_this_month(site):
    today = local_today()
    for path in ("/events/", "/events", "/events/month/", "/events/month"):
        text = site["anonymous"].get(path).text
        assert f"<h2 id=\"cal-heading\" tabindex=\"-1\">{today:%B %Y}</h2>" in text
        assert 'aria-current="date"' in text


def test_the_rest_view_of_the_month_path_without_a_month_is_this_month(site):
    visitor = site["anonymous"]
    tokens = tokens_of(visitor.get("/events/").text)
    answer = visitor.get(HTML, {"u": f"{SITE}/events/month/", **tokens}).json
    assert f"{local_today():%B %Y}</h2>" in answer["html"]


def test_the_list_view_lists_upcoming_occurrences_by_month(site):
    text = site["anonymous"].get("/events/list/", {"start": "2030-06-01"}).text
    assert "Events from Saturday 1 June 2030" in text
    assert "<h3>June 2030</h3>" in text and "<h3>July 2030</h3>" in text
    order = [text.index(title) for title in ("Choir practice", "Sports day", "Summer fair", "July concert")]
    assert order == sorted(order)
    assert "Races &amp; games on the field." in text and "Main hall" in text
    assert "The details of this event are password protected." in text and "Secret agenda" not in text
    assert "Draft meeting" not in text


def test_the_list_pages_by_twenty(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    new_event(admin, title="Daily club", start_date="2030-09-01 08:00", end_date="2030-09-01 08:45",
              recurrence={"rule": "FREQ=DAILY;COUNT=25"})
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    first = visitor.get("/events/list/", {"start": "2030-09-01"}).text
    assert first.count("<article") == 20 and ">Later events<" in first and ">Earlier events<" not in first
    second = visitor.get("/events/list/", {"start": "2030-09-01", "page": "2"}).text
    assert second.count("<article") == 5 and ">Earlier events<" in second and ">Later events<" not in second


def test_the_day_view_details_that_day(site):
    text = site["anonymous"].get("/events/day/2030-06-12/").text
    assert "Wednesday 12 June 2030" in text
    assert '<time datetime="2030-06-12T09:00">09:00</time>–<time datetime="2030-06-12T15:00">15:00</time>' in text
    assert "Where:</span> Main hall" in text and "Draft meeting" not in text
    assert f'href="{SITE}/events/day/2030-06-11/"' in text and f'href="{SITE}/events/day/2030-06-13/"' in text
    empty = site["anonymous"].get("/events/day/2030-06-02/").text
    assert "No events on Sunday 2 June 2030." in empty


@pytest.mark.parametrize("path", ["/events/month/2030-13/", "/events/day/2030-02-30/", "/events/month/99999-01/",
                                  "/events/list/?page=0", "/events/list/?page=abc", "/events/list/?start=soon",
                                  "/events/day/1066-10-14/"])
def test_pages_that_name_no_view_are_404(site, path):
    response = site["anonymous"].get(path, status=404)
    assert response.content_type == "text/html"


def test_assets_are_served_by_the_site(site):
    css = site["anonymous"].get("/events/assets/calendar.css")
    assert css.content_type == "text/css" and ".cal-month" in css.text and "focus-visible" in css.text
    assert "@import" not in css.text and "url(" not in css.text
    script = site["anonymous"].get("/events/assets/calendar.js")
    assert script.content_type == "text/javascript" and "data-cal-rest" in script.text  # the URL comes from the page
    site["anonymous"].get("/events/assets/other.js", status=404)


# --- cal/views/v2/html ----------------------------------------------------------------------------

def test_the_rest_view_answers_html_for_the_url_it_is_given(site):
    visitor = site["anonymous"]
    tokens = tokens_of(visitor.get("/events/").text)
    for method in ("get", "post"):
        answer = getattr(visitor, method)(HTML, {"u": f"{SITE}/events/month/2030-06/", **tokens})
        assert answer.status_int == 200 and list(answer.json) == ["html"]
        markup = answer.json["html"]
        assert "June 2030" in markup and "Sports day" in markup and "Draft meeting" not in markup
        fresh = tokens_of(markup)
        assert set(fresh) >= {"tvn1", "tvn2"} and fresh["url"] == f"{SITE}/events/month/2030-06/"


def test_navigation_links_are_view_requests_too(site):
    visitor = site["anonymous"]
    tokens = tokens_of(visitor.get("/events/").text)
    markup = visitor.post(HTML, {"u": f"{SITE}/events/month/2030-06/", **tokens}).json["html"]
    next_url = re.search(r'class="cal-next" rel="next" href="([^"]+)"', markup).group(1)
    following = visitor.post(HTML, {"u": next_url, **tokens}).json["html"]
    assert "July 2030" in following and "July concert" in following and "Sports day" not in following


def test_view_switches_the_view_of_the_same_date_and_view_data_searches(site):
    visitor = site["anonymous"]
    tokens = tokens_of(visitor.get("/events/").text)
    day = visitor.get(HTML, {"u": f"{SITE}/events/day/2030-06-12/", "view": "list", **tokens}).json["html"]
    assert "Events from Wednesday 12 June 2030" in day
    found = visitor.post_json(HTML, {"u": f"{SITE}/events/month/2030-06/", "view_data": {"search": "choir"},
                                     "pu": f"{SITE}/events/", "smu": True, "action": "view", **tokens}).json["html"]
    assert "Choir practice" in found and "Sports day" not in found
    assert tokens_of(found)["prev_url"] == f"{SITE}/events/" and tokens_of(found)["should_manage_url"] is True


def test_a_missing_or_foreign_url_is_400(site):
    visitor = site["anonymous"]
    tokens = tokens_of(visitor.get("/events/").text)
    missing = visitor.get(HTML, tokens, status=400)
    assert_rest_error(missing, "rest_missing_callback_param", 400)
    for url in (f"{SITE}/about/", f"{SITE}/events/month/2030-13/", "javascript:alert(1)", "x" * 2001):
        response = visitor.get(HTML, {"u": url, **tokens}, status=400)
        assert_rest_error(response, "rest_invalid_param", 400)
    assert_rest_error(visitor.get(HTML, {"u": f"{SITE}/events/", "view": "week", **tokens}, status=400),
                      "rest_invalid_param", 400)


def test_without_a_valid_token_the_view_is_forbidden(site):
    visitor, admin = site["anonymous"], site["admin"]
    url = f"{SITE}/events/"
    assert_rest_error(visitor.get(HTML, {"u": url}, status=401), "rest_forbidden", 401)
    assert_rest_error(visitor.get(HTML, {"u": url, "tvn1": "x", "tvn2": "y"}, status=401), "rest_forbidden", 401)
    assert_rest_error(admin.get(HTML, {"u": url, "tvn1": "x"}, status=403), "rest_forbidden", 403)
    staff_tokens = tokens_of(admin.get("/events/").text)
    assert staff_tokens["tvn1"] != staff_tokens["tvn2"]
    admin.get(HTML, {"u": url, "tvn1": staff_tokens["tvn1"]})  # the signed-in visitor's own token
    # A page rendered for staff and kept by a cache still works for visitors through tvn2 ...
    visitor.get(HTML, {"u": url, **staff_tokens})
    # ... but the staff member's tvn1 alone is not a visitor's.
    assert_rest_error(visitor.get(HTML, {"u": url, "tvn1": staff_tokens["tvn1"]}, status=401), "rest_forbidden", 401)
    visitor_tokens = tokens_of(visitor.get("/events/").text)
    tampered = visitor_tokens["tvn2"][:-2] + ("AA" if not visitor_tokens["tvn2"].endswith("AA") else "BB")
    assert_rest_error(visitor.get(HTML, {"u": url, "tvn2": tampered}, status=401), "rest_forbidden", 401)


def test_tokens_expire_after_a_day(site, monkeypatch):
    from plugins.calendar import view_tokens

    visitor = site["anonymous"]
    real = time.time
    monkeypatch.setattr(itsdangerous.timed, "time", type("Clock", (), {"time": staticmethod(lambda: real() - 90_000)}))
    old = view_tokens.make_token(site["app"], 0)
    monkeypatch.undo()
    assert_rest_error(visitor.get(HTML, {"u": f"{SITE}/events/", "tvn2": old}, status=401), "rest_forbidden", 401)
    fresh = view_tokens.make_token(site["app"], 0)
    visitor.get(HTML, {"u": f"{SITE}/events/", "tvn2": fresh})


def test_a_write_shows_in_the_next_view(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    assert "No events in June 2030." in visitor.get("/events/month/2030-06/").text
    event = new_event(admin, title="Open evening", start_date="2030-06-05 18:00", end_date="2030-06-05 20:00")
    assert "Open evening" in visitor.get("/events/month/2030-06/").text
    admin.post_json(f"{API}/events/{event['id']}", {"status": "draft"})
    assert "Open evening" not in visitor.get("/events/month/2030-06/").text


def test_a_wizard_save_shows_in_the_next_view_of_every_process(make_app):
    """The views keep the wizard's preferences per calendar version: a save anywhere is seen at once."""
    from sqlalchemy import event

    wizard = "/wp-json/calx/v2/onboarding/wizard"
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin_user = create_test_user(app, "administrator")
    new_event(client_as(app, admin_user), title="Sports day", start_date="2030-06-12 09:00",
              end_date="2030-06-12 15:00")
    visitor = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    before = visitor.get("/events/month/2030-06/").text
    assert re.findall(r'<th scope="col"><abbr title="(\w+)">', before)[0] == "Monday"
    assert '<span class="cal-time">09:00</span> Sports day' in before
    # the preferences are not read again while they have not changed
    statements: list[str] = []
    listener = lambda _conn, _cursor, statement, *_rest: statements.append(statement)  # noqa: E731
    event.listen(app.db.engine, "before_cursor_execute", listener)
    try:
        visitor.get("/events/month/2030-07/")
    finally:
        event.remove(app.db.engine, "before_cursor_execute", listener)
    assert statements and not [statement for statement in statements if "cal_options" in statement]
    # another server process of the site saves the wizard's settings
    other_process = make_app(plugins=["core", "calendar"], site=LONDON, database_url=app.settings.database_url)
    admin = client_as(other_process, admin_user)
    nonce = admin.get(wizard).json["action_nonce"]
    saved = admin.post_json(wizard, {"action_nonce": nonce, "currentTab": 1, "start_of_week": 0,
                                     "timezone_string": "Asia/Tokyo"})
    assert saved.json["message"] == ["Settings saved."]
    after = visitor.get("/events/month/2030-06/").text
    assert re.findall(r'<th scope="col"><abbr title="(\w+)">', after)[0] == "Sunday"
    assert '<span class="cal-time">17:00</span> Sports day' in after  # 09:00 in London is 17:00 in Tokyo
    tokens = tokens_of(after)
    answer = visitor.get(HTML, {"u": f"{SITE}/events/month/2030-06/", **tokens}).json["html"]
    assert '<span class="cal-time">17:00</span> Sports day' in answer
