"""The host's one in-process cache (`app.kept`): a write shows on the next read, whoever wrote it.

Each test reads through a kept value, writes (through this app, then through a second app on the
same database: what another `sitehost serve` process would do), and reads again. They run on the
SQLite file and, with SITEHOST_TEST_DATABASE_URL, on PostgreSQL, where no commit mark exists and
the content and calendar versions (rows their writers bump) carry the invalidation alone.
"""

from __future__ import annotations

import threading

import pytest

from host import Kept
from host.testing import client_as, create_test_user

CORE = "/wp-json/core/v2"
CALENDAR = "/wp-json/cal/events/v1"
BUILDER = "/wp-json/builder/v1"


def second_app(make_app, app, plugins):
    """Another app on the same database: a second process of the same site."""
    return make_app(plugins=plugins, database_url=app.settings.database_url)


def test_a_term_list_follows_writes_of_this_and_another_process(make_app):
    first = make_app(plugins=["core"])
    other = second_app(make_app, first, ["core"])
    admin = create_test_user(first, "administrator")
    term = first.client.post_json(f"{CORE}/categories", {"name": "Sports"}, headers=admin.headers, status=201).json
    assert "Sports" in [item["name"] for item in first.client.get(f"{CORE}/categories").json]
    assert len(first.kept("core.term_pages", 1)) >= 1  # the page is kept now

    first.client.post_json(f"{CORE}/categories/{term['id']}", {"name": "Games"}, headers=admin.headers, status=200)
    names = [item["name"] for item in first.client.get(f"{CORE}/categories").json]
    assert "Games" in names and "Sports" not in names

    other.client.post_json(f"{CORE}/categories/{term['id']}", {"name": "Athletics"}, headers=admin.headers,
                           status=200)
    again = first.client.get(f"{CORE}/categories")
    names = [item["name"] for item in again.json]
    assert "Athletics" in names and "Games" not in names
    assert again.headers["X-WP-Total"] == str(len(names))


def test_a_rendered_post_follows_an_edit_in_another_process(make_app):
    first = make_app(plugins=["core"])
    other = second_app(make_app, first, ["core"])
    admin = create_test_user(first, "administrator")
    post = first.client.post_json(f"{CORE}/posts", {"title": "Fair", "content": "Old words", "status": "publish"},
                                  headers=admin.headers, status=201).json
    assert "Old words" in first.client.get(f"{CORE}/posts").json[0]["content"]["rendered"]
    other.client.post_json(f"{CORE}/posts/{post['id']}", {"content": "New words"}, headers=admin.headers, status=200)
    listed = first.client.get(f"{CORE}/posts")
    assert listed.status_int == 200
    assert "New words" in listed.json[0]["content"]["rendered"]
    assert "New words" in first.client.get(f"{CORE}/posts/{post['id']}").json["content"]["rendered"]


def test_a_calendar_total_follows_an_event_added_by_another_process(make_app):
    first = make_app(plugins=["core", "calendar"], site={"timezone_string": "Europe/London"})
    other = second_app(make_app, first, ["core", "calendar"])
    admin = create_test_user(first, "administrator")
    writer = client_as(first, admin)
    window = {"start_date": "2030-06-01", "end_date": "2030-06-30"}
    writer.post_json(f"{CALENDAR}/events", {"title": "Sports day", "status": "publish",
                                            "start_date": "2030-06-10 09:00:00", "end_date": "2030-06-10 12:00:00"},
                     status=201)
    assert first.client.get(f"{CALENDAR}/events", window).headers["X-CAL-Total"] == "1"
    client_as(other, admin).post_json(f"{CALENDAR}/events", {
        "title": "Summer fair", "status": "publish", "start_date": "2030-06-20 09:00:00",
        "end_date": "2030-06-20 12:00:00"}, status=201)
    listed = first.client.get(f"{CALENDAR}/events", window)
    assert listed.headers["X-CAL-Total"] == "2"
    assert sorted(event["title"] for event in listed.json["events"]) == ["Sports day", "Summer fair"]


def test_the_builder_kit_follows_a_colour_changed_in_another_process(make_app):
    first = make_app(plugins=["core", "builder"])
    other = second_app(make_app, first, ["core", "builder"])
    admin = create_test_user(first, "administrator")
    path = f"{BUILDER}/globals/colors/primary"
    assert first.client.get(path, headers=admin.headers).json["value"] == "#1F4E79"
    first.client.post_json(path, {"title": "Primary", "value": "#C8102E"}, headers=admin.headers, status=200)
    assert first.client.get(path, headers=admin.headers).json["value"] == "#C8102E"
    other.client.post_json(path, {"title": "Primary", "value": "#00843D"}, headers=admin.headers, status=200)
    answer = first.client.get(path, headers=admin.headers)
    assert answer.status_int == 200 and answer.json == {"id": "primary", "title": "Primary", "value": "#00843D"}
    css = first.client.get("/builder/kit.css")
    assert "#00843D" in css.text and "#C8102E" not in css.text


def test_kept_values_are_bounded_and_tied_to_their_version():
    kept: Kept[str] = Kept(3, name="test")
    for number in range(5):
        kept.put(number, "v1", f"<p>{number}</p>")
    assert [key for key, _value in kept.items()] == [2, 3, 4]  # the least recently used went first
    assert kept.get(4, "v1") == "<p>4</p>" and kept.get(4, "v2") is None
    kept.get(2, "v1")  # used: it outlives 3 when the next entry arrives
    kept.put(5, "v1", "<p>5</p>")
    assert [key for key, _value in kept.items()] == [4, 2, 5]
    kept.put(6, None, "never")  # no version, nothing kept
    assert kept.get(6, None) is None and len(kept) == 3


def test_get_many_answers_as_get_for_each_key_in_order():
    kept: Kept[str] = Kept(3, name="test")
    for number in range(3):
        kept.put(number, "v1", f"<p>{number}</p>")
    kept.put(1, "v2", "<p>1 again</p>")
    assert kept.get_many([2, 1, 9, 0], "v1") == ["<p>2</p>", None, None, "<p>0</p>"]
    assert [key for key, _value in kept.items()] == [2, 1, 0]  # each key found was used, in the order asked
    assert kept.get_many([0, 2], None) == [None, None]
    timed: Kept[str] = Kept(4, seconds=0.0)
    timed.put("a", 1, "x")
    assert timed.get_many(["a"], 1) == [None]


def test_a_kept_value_past_its_time_or_byte_bound_is_gone():
    timed: Kept[str] = Kept(4, seconds=0.0)
    timed.put("a", 1, "x")
    assert timed.get("a", 1) is None
    sized: Kept[bytes] = Kept(10, max_bytes=5)
    sized.put("a", 1, b"abc")
    sized.put("b", 1, b"def")
    assert [key for key, _value in sized.items()] == ["b"]


def test_one_kept_per_name_and_app_whatever_the_threads(make_app):
    app = make_app(plugins=["core"])
    found: list = []
    threads = [threading.Thread(target=lambda: found.append(app.kept("test.shared", 8))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(kept) for kept in found}) == 1
    assert app.kept("test.shared", 8) is found[0]
    assert make_app(plugins=["core"]).kept("test.shared", 8) is not found[0]


@pytest.mark.parametrize("entries", [0, -1])
def test_a_kept_needs_room_for_one_entry(entries):
    with pytest.raises(ValueError, match="entries must be at least 1"):
        Kept(entries, name="test")
