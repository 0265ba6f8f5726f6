"""batch/v1 creates of posts and pages on the bulk path (Route.bulk_batch).

Consecutive creates are written with one term read, one slug read and multi-row INSERTs; each
item must still answer, fire its hooks and refuse exactly as a single create would.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event

from host.testing import assert_rest_error, make_plugin
from plugins import BUILTIN

from tests.core.helpers import API

DATED = ("date", "date_gmt", "modified", "modified_gmt")


def _undated(body: dict) -> dict:
    return {key: value for key, value in body.items() if key not in DATED}


def _statements(app) -> list[str]:
    seen: list[str] = []
    event.listen(app.db.engine, "before_cursor_execute", lambda *args: seen.append(" ".join(args[2].split()).upper()))
    return seen


def _site(make_app, make_user, saved: list | None = None, everything: bool = False):
    """A site with an editor, two tags and a category of its own; `saved` collects content_saved events.
    `everything`: every built-in plugin too (their meta keys, their content_saved listeners)."""
    plugins = list(BUILTIN) if everything else ["core"]
    if saved is not None:
        def content_saved(event):
            saved.append((event.type, event.status, event.created, event.item["slug"], event.item["title"],
                          event.item["terms"]))
        plugins.append(make_plugin("listener", content_saved))
    app = make_app(plugins=plugins)
    editor = make_user(app, "editor", login="editor").headers
    for name in ("Sport", "Music"):
        app.client.post_json(f"{API}/tags", {"name": name}, headers=editor, status=201)
    app.client.post_json(f"{API}/categories", {"name": "Events"}, headers=editor, status=201)
    app.client.post_json(f"{API}/posts", {"title": "Sports day", "status": "publish"}, headers=editor, status=201)
    app.client.post_json(f"{API}/pages", {"title": "2024", "status": "publish"}, headers=editor, status=201)
    return app, editor


def _items(tags: list[int], category: int) -> list[dict]:
    """Creates that touch every rule the bulk path keeps: slugs against stored ones and each other,
    reserved and numeric slugs, terms of the wrong taxonomy or none, drafts, pages, a refused item,
    one the bulk path leaves to a single create (meta) and one that fails validation."""
    return [
        {"path": "/core/v2/posts", "body": {"title": "Sports day", "status": "publish", "tags": tags}},
        {"path": "/core/v2/posts", "body": {"title": "Sports day", "status": "publish", "categories": [category, 1]}},
        {"path": "/core/v2/posts", "body": {"title": "Feed", "status": "publish", "slug": "feed"}},
        {"path": "/core/v2/posts", "body": {"title": "Wrong terms", "status": "publish",
                                            "categories": [tags[0], 99999], "tags": [category]}},
        {"path": "/core/v2/posts", "body": {"title": "A draft", "content": "<p>Later &amp; more</p>"}},
        {"path": "/core/v2/posts", "body": {"title": "Someone else", "status": "publish", "author": 99999}},
        {"path": "/core/v2/posts", "body": {"title": "Sports day", "status": "publish", "meta": {}}},
        {"path": "/core/v2/posts", "body": {"title": "Bad", "status": "shouting"}},
        {"path": "/core/v2/posts", "body": {"title": "Sports day", "status": "publish", "sticky": True}},
        {"path": "/core/v2/pages", "body": {"title": "2024", "status": "publish"}},
        {"path": "/core/v2/pages", "body": {"title": "Open day", "status": "publish", "menu_order": 3}},
        {"path": "/core/v2/pages", "body": {"title": "Open day", "status": "publish"}},
        {"path": "/core/v2/posts", "body": {"title": "", "content": "", "status": "publish"}},
        {"path": "/core/v2/posts", "body": {"title": "Private notes", "status": "private", "password": "x"}},
    ]


def _term_ids(app, editor) -> tuple[list[int], int]:
    tags = sorted(tag["id"] for tag in app.client.get(f"{API}/tags", headers=editor).json)
    events = [term["id"] for term in app.client.get(f"{API}/categories", headers=editor).json if term["slug"] == "events"]
    return tags, events[0]


@pytest.mark.parametrize("everything", [False, True], ids=["core", "every-plugin"])
def test_bulk_answers_and_events_equal_single_creates(make_app, make_user, everything):
    single_saved, batch_saved = [], []
    single, single_editor = _site(make_app, make_user, single_saved, everything)
    bulk, bulk_editor = _site(make_app, make_user, batch_saved, everything)
    single_items = _items(*_term_ids(single, single_editor))
    bulk_items = _items(*_term_ids(bulk, bulk_editor))
    assert single_items == bulk_items
    del single_saved[:], batch_saved[:]

    singles = []
    for item in single_items:
        answer = single.client.post_json("/wp-json" + item["path"], item["body"], headers=single_editor,
                                         expect_errors=True)
        singles.append((answer.status_int, answer.json, answer.headers))
    statements = _statements(bulk)
    batch = bulk.client.post_json("/wp-json/batch/v1", {"requests": bulk_items}, headers=bulk_editor,
                                  status=207).json["responses"]

    assert [item["status"] for item in batch] == [status for status, _body, _headers in singles]
    assert [item["status"] for item in batch] == [201, 201, 201, 201, 201, 400, 201, 400, 201, 201, 201, 201, 400, 201]
    for number, ((status, body, headers), item) in enumerate(zip(singles, batch)):
        assert _undated(item["body"]) == _undated(body), number
        if status == 201:
            assert item["headers"] == {"Location": headers["Location"], "Allow": headers["Allow"]}, number
    slugs = [item["body"].get("slug") for item in batch]
    assert slugs[:5] == ["sports-day-2", "sports-day-3", "feed-2", "wrong-terms", ""]
    assert slugs[6] == "sports-day-4" and slugs[8] == "sports-day-5"
    assert slugs[9:12] == ["2024-3", "open-day", "open-day-2"]  # the stored page "2024" holds 2024-2
    assert batch_saved == single_saved and len(batch_saved) == 11
    # Runs of consecutive creates are written together: posts 0-5 (5 refused), post 6 alone (meta),
    # post 8 alone (7 failed validation and a page follows), pages 9-11, posts 12-13 (12 refused).
    inserts = [sql for sql in statements if sql.startswith("INSERT INTO POSTS")]
    assert [sql.count("), (") + 1 for sql in inserts] == [5, 1, 1, 3, 1]
    links = [sql for sql in statements if sql.startswith("INSERT INTO TERM_RELATIONSHIPS")]
    assert [sql.count("), (") + 1 for sql in links] == [7, 1, 1, 1]


def test_term_counts_and_search_after_a_bulk_batch_equal_a_recount(make_app, make_user):
    app, editor = _site(make_app, make_user)
    tags, category = _term_ids(app, editor)
    requests = [{"path": "/core/v2/posts", "body": {
        "title": f"Concert {number}", "content": "<p>The orchestra plays</p>",
        "status": ("publish", "draft", "private")[number % 3],
        "categories": [category] if number % 2 else [], "tags": tags[: number % 3]}} for number in range(25)]
    requests[10]["body"]["author"] = 99999  # refused: its terms must not be counted
    batch = app.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor, status=207).json
    assert sum(item["status"] == 201 for item in batch["responses"]) == 24
    for base in ("categories", "tags"):
        for term in app.client.get(f"{API}/{base}?per_page=100", headers=editor).json:
            recount = app.client.get(f"{API}/posts", {base: term["id"], "per_page": 1})
            assert term["count"] == int(recount.headers["X-WP-Total"]), (base, term["slug"])
    published = [number for number in range(25) if number % 3 == 0 and number != 10]
    assert app.client.get(f"{API}/posts", {"search": "orchestra"}).headers["X-WP-Total"] == str(len(published))
    every = app.client.get(f"{API}/posts", {"search": "orchestra", "status": "any", "per_page": 100, "context": "edit"},
                           headers=editor).json
    assert sorted(post["title"]["raw"] for post in every) == sorted(f"Concert {n}" for n in range(25) if n != 10)


def test_a_failing_item_in_the_middle_writes_nothing(make_app, make_user):
    app, editor = _site(make_app, make_user)
    before = app.client.get(f"{API}/posts?status=any", headers=editor).headers["X-WP-Total"]
    requests = [{"path": "/core/v2/posts", "body": {"title": f"Notice {number}", "status": "publish",
                                                    "categories": [1]}} for number in range(25)]
    requests[12]["body"] = {"title": "Refused", "status": "publish", "sticky": True, "password": "secret"}
    answers = app.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor,
                                   status=207).json["responses"]
    assert [item["status"] for item in answers] == [201] * 12 + [400] + [201] * 12
    assert answers[12]["body"]["code"] == "rest_invalid_field"
    assert int(app.client.get(f"{API}/posts?status=any", headers=editor).headers["X-WP-Total"]) == int(before) + 24
    assert app.client.get(f"{API}/posts", {"search": "Refused", "status": "any"}, headers=editor).json == []
    assert len({item["body"]["id"] for item in answers if item["status"] == 201}) == 24


def _refuse_title(app, title: str) -> None:
    """A trigger that makes the database refuse a post with this title, as a constraint would."""
    with app.db.engine.begin() as connection:
        if app.db.engine.dialect.name == "sqlite":
            connection.exec_driver_sql(
                f"CREATE TRIGGER refuse_title BEFORE INSERT ON posts WHEN NEW.title = '{title}' "
                "BEGIN SELECT RAISE(ABORT, 'refused by the database'); END")
        else:
            connection.exec_driver_sql(
                "CREATE FUNCTION refuse_title() RETURNS trigger AS $$ BEGIN "
                f"IF NEW.title = '{title}' THEN RAISE EXCEPTION 'refused by the database'; END IF; "
                "RETURN NEW; END $$ LANGUAGE plpgsql")
            connection.exec_driver_sql("CREATE TRIGGER refuse_title BEFORE INSERT ON posts FOR EACH ROW "
                                       "EXECUTE FUNCTION refuse_title()")


def test_a_write_the_database_refuses_falls_back_to_single_creates(make_app, make_user):
    """A row the database refuses fails the multi-row INSERT: it is undone, and each item then
    runs alone, so only that item fails, with the single create's answer; the others stand."""
    app, editor = _site(make_app, make_user)
    _refuse_title(app, "Room 2")
    requests = [{"path": "/core/v2/pages", "body": {"title": f"Room {number}", "status": "publish"}}
                for number in range(4)]
    answers = app.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor,
                                   status=207).json["responses"]
    single = app.client.post_json(f"{API}/pages", requests[2]["body"], headers=editor, expect_errors=True)
    assert single.status_int == 500
    assert (answers[2]["status"], answers[2]["body"]) == (single.status_int, single.json)
    assert [item["status"] for index, item in enumerate(answers) if index != 2] == [201, 201, 201]
    assert [item["body"]["slug"] for index, item in enumerate(answers) if index != 2] == ["room-0", "room-1", "room-3"]
    listed = app.client.get(f"{API}/pages", {"search": "Room", "per_page": 100}).json
    assert sorted(page["slug"] for page in listed) == ["room-0", "room-1", "room-3"]


def test_a_batch_over_the_size_limit_writes_nothing(make_app, make_user):
    app, editor = _site(make_app, make_user)
    before = app.client.get(f"{API}/categories/1").json["count"]
    requests = [{"path": "/core/v2/posts", "body": {"title": f"Extra {number}", "status": "publish"}}
                for number in range(26)]
    body = assert_rest_error(app.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor,
                                                  status=400), "rest_invalid_param", 400)
    assert body["data"]["details"]["requests"]["code"] == "rest_too_many_items"
    assert app.client.get(f"{API}/posts", {"search": "Extra"}).json == []
    assert app.client.get(f"{API}/categories/1").json["count"] == before
