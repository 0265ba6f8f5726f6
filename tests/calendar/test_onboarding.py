"""calx/v2/onboarding/wizard (§5): administrators only, a signed user-bound nonce, idempotent steps."""

from __future__ import annotations

from webtest import TestApp

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event

WIZARD = "/wp-json/calx/v2/onboarding/wizard"


def _site(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    return app, admin


def test_only_administrators_with_their_own_nonce(make_app):
    app, admin = _site(make_app)
    other_admin = client_as(app, create_test_user(app, "administrator"))
    editor = client_as(app, create_test_user(app, "editor"))
    nonce = admin.get(WIZARD).json["action_nonce"]
    assert_rest_error(app.client.get(WIZARD, status=401), "rest_forbidden", 401)
    assert_rest_error(editor.get(WIZARD, status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.post_json(WIZARD, {"action_nonce": nonce}, status=401), "rest_forbidden", 401)
    assert_rest_error(editor.post_json(WIZARD, {"action_nonce": nonce}, status=403), "rest_forbidden", 403)
    missing = assert_rest_error(admin.post_json(WIZARD, {"begun": True}, status=400), "rest_missing_callback_param",
                                400)
    assert missing["data"]["params"] == ["action_nonce"]
    for wrong in ("forged", nonce + "x", nonce[:-2]):
        assert_rest_error(admin.post_json(WIZARD, {"action_nonce": wrong, "begun": True}, status=403),
                          "cal_invalid_nonce", 403)
    # another administrator's nonce is not this one's
    assert_rest_error(other_admin.post_json(WIZARD, {"action_nonce": nonce, "begun": True}, status=403),
                      "cal_invalid_nonce", 403)
    assert admin.get(WIZARD).json["progress"]["begun"] is False  # nothing refused above was stored


def test_expired_nonce_is_refused(make_app):
    app, admin = _site(make_app)
    admin_id = admin.get("/wp-json/core/v2/users/me").json["id"]
    import time

    from plugins.calendar import onboarding

    old = onboarding.issue_nonce(app, admin_id)
    real_time = time.time
    try:
        time.time = lambda: real_time() + onboarding.NONCE_SECONDS + 60
        assert_rest_error(admin.post_json(WIZARD, {"action_nonce": old, "begun": True}, status=403),
                          "cal_invalid_nonce", 403)
    finally:
        time.time = real_time
    assert admin.post_json(WIZARD, {"action_nonce": old, "begun": True}).json["success"] is True


def test_progress_settings_and_first_venue_and_organizer(make_app):
    app, admin = _site(make_app)
    nonce = admin.get(WIZARD).json["action_nonce"]
    started = admin.post_json(WIZARD, {"action_nonce": nonce, "begun": True, "currentTab": 0}).json
    assert started == {"success": True, "message": []}
    progress = admin.get(WIZARD).json["progress"]
    assert progress["begun"] is True and progress["completedTabs"] == [0]
    settings = {"action_nonce": nonce, "currentTab": 1, "timezone_string": "Europe/Paris", "date_format": "j F Y",
                "start_of_week": 0, "calEnableViews": ["month", "list"], "skippedTabs": [1, 3]}
    answer = admin.post_json(WIZARD, settings).json
    assert answer == {"success": True, "message": ["Settings saved."]}
    state = admin.get(WIZARD).json
    assert state["settings"] == {"timezone_string": "Europe/Paris", "date_format": "j F Y", "start_of_week": 0,
                                 "calEnableViews": ["month", "list"]}
    assert state["progress"]["skippedTabs"] == [1, 3] and state["progress"]["completedTabs"] == [0]
    assert admin.post_json(WIZARD, settings).json["message"] == ["Settings unchanged."]
    from plugins.calendar.onboarding import preferences

    chosen = preferences(app)
    assert (chosen.timezone, chosen.date_format, chosen.week_start, chosen.views) == (
        "Europe/Paris", "j F Y", 0, ("month", "list"))
    places = {"action_nonce": nonce, "currentTab": 5, "finished": True, "completedTabs": [1, 2, 3, 4],
              "venue": {"venue": "Main hall", "city": "Riverside"},
              "organizer": {"organizer": "School office", "email": "office@school.test"}}
    made = admin.post_json(WIZARD, places).json
    assert made["message"] == ["Settings unchanged.", "Organizer created.", "Venue created."]
    again = admin.post_json(WIZARD, places).json  # the same step twice: nothing new
    assert again["message"] == ["Settings unchanged.", "Organizer already created. Step skipped.",
                                "Venue already created. Step skipped."]
    venues = app.client.get(f"{API}/venues").json
    organizers = app.client.get(f"{API}/organizers").json
    assert [venue["venue"] for venue in venues["venues"]] == ["Main hall"]
    assert [organizer["organizer"] for organizer in organizers["organizers"]] == ["School office"]
    progress = admin.get(WIZARD).json["progress"]
    assert progress["finished"] is True and progress["begun"] is True
    assert progress["completedTabs"] == [0, 1, 2, 3, 4, 5] and progress["skippedTabs"] == []
    assert progress["venue_id"] == venues["venues"][0]["id"]
    existing = admin.post_json(WIZARD, {**places, "venue": {"id": progress["venue_id"]}, "organizer": {}}).json
    assert existing["message"] == ["Settings unchanged.", "No organizer data sent. Step skipped.",
                                   "Existing venue. Step skipped."]


def test_bad_settings_change_nothing(make_app):
    app, admin = _site(make_app)
    nonce = admin.get(WIZARD).json["action_nonce"]
    for bad in ({"timezone_string": "Mars/Olympus"}, {"start_of_week": 7}, {"currentTab": 99},
                {"calEnableViews": ["week"]}, {"venue": {"venue": "x", "colour": "red"}},
                {"completedTabs": list(range(11))}, {"currency": "pounds"}):
        assert_rest_error(admin.post_json(WIZARD, {"action_nonce": nonce, "currentTab": 1, **bad}, status=400),
                          "rest_invalid_param", 400)
    assert_rest_error(admin.post_json(WIZARD, {"action_nonce": nonce, "currentTab": 5,
                                               "venue": {"city": "No name"}}, status=400), "rest_invalid_param", 400)
    assert app.client.get(f"{API}/venues").json["total"] == 0
    state = admin.get(WIZARD).json
    assert state["settings"]["timezone_string"] == "Europe/London" and state["settings"]["start_of_week"] == 1


def test_the_views_follow_the_wizards_week_start_and_time_zone(make_app):
    app, admin = _site(make_app)
    anonymous = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    new_event(admin, title="Assembly", start_date="2030-06-12 09:00", end_date="2030-06-12 10:00")  # London
    monday_first = anonymous.get("/events/month/2030-06/").text
    assert '<span class="cal-time">09:00</span> Assembly' in monday_first
    assert monday_first.index('<abbr title="Monday">') < monday_first.index('<abbr title="Sunday">')
    assert 'aria-label="Monday 27 May 2030' in monday_first  # June 2030 starts on a Saturday
    nonce = admin.get(WIZARD).json["action_nonce"]
    saved = admin.post_json(WIZARD, {"action_nonce": nonce, "currentTab": 1, "start_of_week": 0,
                                     "timezone_string": "Pacific/Auckland"}).json
    assert saved == {"success": True, "message": ["Settings saved."]}
    sunday_first = anonymous.get("/events/month/2030-06/").text  # the saved choice renews kept views
    header = sunday_first[sunday_first.index("<thead>"):sunday_first.index("</thead>")]
    assert header.index("Sunday") < header.index("Monday") < header.index("Saturday")
    assert 'aria-label="Sunday 26 May 2030' in sunday_first and "Monday 27 May 2030" in sunday_first
    assert 'aria-label="Saturday 6 July 2030' in sunday_first
    assert '<span class="cal-time">20:00</span> Assembly' in sunday_first  # 08:00 UTC in Auckland (NZST, +12)
