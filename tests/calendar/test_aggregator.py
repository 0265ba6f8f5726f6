"""cal/event-aggregator/v1 (§4): an import service reports batches and states with one-time hashes."""

from __future__ import annotations

from host.content import service_request
from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON

AGG = "/wp-json/cal/event-aggregator/v1"


def _open(app, login: str = "office") -> dict:
    """A pending record, as `sitehost calendar expect-import` opens one."""
    from host.auth import users as user_service
    from plugins.calendar.imports import open_import

    with app.db.session(write=True) as session:
        user = user_service.find_user(app, session, login)
        opened = open_import(service_request(app, session, user), "service", "County fixtures feed")
        session.commit()
    return opened


def _records(app) -> list[dict]:
    from plugins.calendar.imports import list_records

    with app.db.session() as session:
        request = service_request(app, session, None)
        return list_records(session, app, lambda post_id: app.content.get(request, post_id))


def _status(done: int, total: int, batch_done: int, batches: int) -> dict:
    return {"data": {"total": total, "done": done}, "batch": {"total": batches, "done": batch_done}}


FIXTURE = {"uid": "fixture-1@county.test", "title": "Football v Hillside", "start_date": "2030-04-02 15:30",
           "end_date": "2030-04-02 17:00", "location": "Playing fields"}
RACE = {"uid": "race-1@county.test", "title": "Cross-country", "start_date": "2030-04-09", "end_date": "2030-04-09",
        "all_day": True, "timezone": "Europe/London", "rrule": "FREQ=WEEKLY;COUNT=3",
        "exdates": ["2030-04-16 00:00"]}


def _site(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    create_test_user(app, "administrator", login="office")
    return app


def test_batches_rotate_the_hash_and_finish_the_record(make_app):
    app = _site(make_app)
    opened = _open(app)
    first = app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": opened["batch_hash"], "status": _status(1, 2, 0, 2), "percentage_complete": 50,
        "interval": 3, "events": [FIXTURE]})
    assert first.json["status"] == "success" and first.json["activity"] == {
        "created": 1, "updated": 0, "skipped": 0, "failed": 0, "unsupported": 0, "unsupported_items": []}
    assert first.json["interval"] == 10  # 10 or less gives 10
    next_hash = first.json["next_batch_hash"]
    assert next_hash and next_hash != opened["batch_hash"]
    record = _records(app)[0]
    assert (record["status"], record["percentage_complete"], record["total_events"]) == ("cal-ea-pending", 50, 2)
    # the old hash is spent
    stale = app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": opened["batch_hash"], "status": _status(2, 2, 1, 2), "percentage_complete": 100,
        "events": [RACE]}, status=400)
    assert assert_rest_error(stale, "rest_invalid_param", 400)["data"]["params"] == {
        "batch_hash": "This is not the hash of the import's next batch."}
    last = app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": next_hash, "status": _status(2, 2, 1, 2), "percentage_complete": 100, "interval": 5000,
        "events": [RACE, {**FIXTURE, "title": "Football v Hillside (home)"}]}).json
    assert last == {"status": "success", "interval": 600,
                    "activity": {"created": 1, "updated": 1, "skipped": 0, "failed": 0, "unsupported": 0, "unsupported_items": []}}
    record = _records(app)[0]
    assert (record["status"], record["percentage_complete"], record["interval"]) == ("cal-ea-success", 100, 600)
    assert record["activity"] == {"created": 2, "updated": 1, "skipped": 0, "failed": 0, "unsupported": 0, "unsupported_items": []}
    events = {event["title"]: event for event in app.client.get(
        f"{API}/events", {"start_date": "2030-01-01", "end_date": "2031-01-01"}).json["events"]}
    assert sorted(events) == ["Cross-country", "Football v Hillside (home)"]
    assert events["Cross-country"]["all_day"] is True
    assert events["Football v Hillside (home)"]["venue"]["venue"] == "Playing fields"
    assert "ical?uid=race-1@county.test" in events["Cross-country"]["global_id_lineage"]
    # finished: no more batches, the record is no longer pending
    assert_rest_error(app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": next_hash, "status": _status(2, 2, 1, 2), "percentage_complete": 100}, status=400),
        "rest_invalid_param", 400)


def test_batch_arguments_are_checked(make_app):
    app = _site(make_app)
    opened = _open(app)
    url = f"{AGG}/import/{opened['import_id']}/batch"
    good = {"batch_hash": opened["batch_hash"], "status": _status(0, 1, 0, 1), "percentage_complete": 0}
    missing = assert_rest_error(app.client.post_json(url, {"status": _status(0, 1, 0, 1)}, status=400),
                                "rest_missing_callback_param", 400)
    assert sorted(missing["data"]["params"]) == ["batch_hash", "percentage_complete"]
    for bad in ({"percentage_complete": 101}, {"percentage_complete": -1}, {"status": {"data": {"total": 1}}},
                {"status": _status(3, 2, 0, 1)}, {"status": "done"}, {"events": [{"title": "no uid"}]},
                {"events": [FIXTURE] * 101}):
        assert_rest_error(app.client.post_json(url, {**good, **bad}, status=400), "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(f"{AGG}/import/nosuchimport/batch", good, status=400),
                      "rest_invalid_param", 400)
    assert app.client.post_json(f"{AGG}/import/not-a-word/batch", good, status=404).json["code"] == "rest_no_route"
    assert _records(app)[0]["status"] == "cal-ea-pending"  # nothing above changed the record
    bad_dates = app.client.post_json(url, {**good, "events": [{**FIXTURE, "start_date": "soonish"}]}).json
    assert bad_dates["activity"]["failed"] == 1 and "next_batch_hash" not in bad_dates


def test_state_reports_update_the_same_record(make_app):
    app = _site(make_app)
    opened = _open(app)
    url = f"{AGG}/import/{opened['import_id']}/state"
    body = {"batch_hash": opened["batch_hash"], "status": "pending", "message": "Fetching the feed",
            "message_slug": "fetching", "percentage_complete": 20}
    assert app.client.post_json(url, body).json == {"status": "success"}
    record = _records(app)[0]
    assert (record["status"], record["percentage_complete"], record["message"]) == (
        "cal-ea-pending", 20, "Fetching the feed")
    assert_rest_error(app.client.post_json(url, {**body, "status": "done"}, status=400), "rest_invalid_param", 400)
    missing = assert_rest_error(app.client.post_json(url, {"status": "failed"}, status=400),
                                "rest_missing_callback_param", 400)
    assert sorted(missing["data"]["params"]) == ["batch_hash", "message", "message_slug", "percentage_complete"]
    failed = app.client.post_json(url, {**body, "status": "failed", "message": "The feed answered 500",
                                        "message_slug": "feed-error"})
    assert failed.json == {"status": "success"}
    record = _records(app)[0]
    assert (record["status"], record["message"]) == ("cal-ea-failed", "The feed answered 500")
    # no longer pending: a second report is refused
    assert_rest_error(app.client.post_json(url, body, status=400), "rest_invalid_param", 400)


def test_ignored_events_are_left_alone_by_batches(make_app):
    app = _site(make_app)
    admin = client_as(app, create_test_user(app, "administrator"))
    opened = _open(app)
    first = app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": opened["batch_hash"], "status": _status(1, 2, 0, 2), "percentage_complete": 50,
        "events": [FIXTURE]}).json
    event_id = admin.get(f"{API}/events", {"start_date": "2030-01-01"}).json["events"][0]["id"]
    from plugins.calendar.imports import mark_ignored
    from host.auth import users as user_service

    with app.db.session(write=True) as session:
        request = service_request(app, session, user_service.find_user(app, session, "office"))
        mark_ignored(request, event_id)
        session.commit()
    second = app.client.post_json(f"{AGG}/import/{opened['import_id']}/batch", {
        "batch_hash": first["next_batch_hash"], "status": _status(2, 2, 1, 2), "percentage_complete": 100,
        "events": [{**FIXTURE, "title": "Changed by the feed"}]}).json
    assert second["activity"] == {"created": 0, "updated": 0, "skipped": 1, "failed": 0, "unsupported": 0, "unsupported_items": []}
    assert admin.get(f"{API}/events", {"start_date": "2030-01-01"}).json["events"] == []
    assert admin.get("/wp-json/calx/v1/events", {"status[]": ["publish", "draft"]}).json == []
