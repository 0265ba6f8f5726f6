"""API keys (command line and REST, stored hashed, revocable, locked out like passwords) and the
catalogue import (`sitehost lms import`, idempotent), against real SQLite files."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from host.app import create_app
from host.cli import main
from host.config import load_settings
from host.testing import assert_rest_error, create_test_user

from .keys import key_headers

API = "/wp-json/lms/v1"


def test_keys_over_rest_are_shown_once_stored_hashed_and_revocable(make_app):
    app = make_app(plugins=["core", "lms"])
    admin = create_test_user(app, "administrator")
    editor = create_test_user(app, "editor")
    created = app.client.post_json(f"{API}/api-keys", {"permission": "read", "description": "Parents' portal"},
                                   headers=admin.headers, status=201)
    key = created.json
    assert key["key"].startswith("key_") and key["secret"].startswith("secret_")
    assert created.headers["Location"].endswith(f"/lms/v1/api-keys/{key['id']}")
    with app.db.session() as session:
        stored = session.execute(select(app.db.metadata.tables["lms_api_keys"])).one()
    assert key["secret"] not in repr(tuple(stored)) and stored.secret_hash != key["secret"]
    listed = app.client.get(f"{API}/api-keys", headers=admin.headers).json
    assert [(row["key"], row["permission"], row["description"]) for row in listed] == [
        (key["key"], "read", "Parents' portal")]
    assert "secret" not in json.dumps(listed)
    headers = key_headers(key["key"], key["secret"])
    assert app.client.get(f"{API}/courses", headers=headers).json["code"] == "not_found"
    assert app.client.get(f"{API}/api-keys", headers=admin.headers).json[0]["last_used"] is not None
    # only administrators manage keys, and never with a key
    assert_rest_error(app.client.post_json(f"{API}/api-keys", {"permission": "read"}, headers=editor.headers,
                                           status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.get(f"{API}/api-keys", headers=headers, status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.post_json(f"{API}/api-keys", {"permission": "root"}, headers=admin.headers,
                                           status=400), "rest_invalid_param", 400)
    assert_rest_error(app.client.post_json(f"{API}/api-keys", {"permission": "read", "user": 9999},
                                           headers=admin.headers, status=400), "rest_user_invalid_id", 400)
    app.client.delete(f"{API}/api-keys/{key['id']}", headers=admin.headers, status=200)
    assert_rest_error(app.client.delete(f"{API}/api-keys/{key['id']}", headers=admin.headers, status=404),
                      "lms_api_key_not_found", 404)
    assert_rest_error(app.client.get(f"{API}/courses", headers=headers, status=401), "rest_forbidden", 401)


def test_wrong_secrets_are_locked_out_like_passwords(make_app):
    app = make_app(plugins=["core", "lms"], extra={"auth": {"max_failures": 3, "slow_after": 3, "slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    key = app.client.post_json(f"{API}/api-keys", {"permission": "read"}, headers=admin.headers).json
    for _attempt in range(3):
        assert_rest_error(app.client.get(f"{API}/courses", headers=key_headers(key["key"], "secret_guess"),
                                         status=401), "rest_forbidden", 401)
    locked = app.client.get(f"{API}/courses", headers=key_headers(key["key"], key["secret"]), status=429)
    assert locked.json["code"] == "too_many_sign_in_attempts" and "Retry-After" in locked.headers


def test_unknown_keys_are_refused_and_counted_and_failures_clear_on_success(make_app):
    app = make_app(plugins=["core", "lms"], extra={"auth": {"max_failures": 3, "slow_after": 3, "slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    key = app.client.post_json(f"{API}/api-keys", {"permission": "read"}, headers=admin.headers).json
    unknown = "key_" + "0" * 32
    for _attempt in range(3):
        assert_rest_error(app.client.get(f"{API}/courses", headers=key_headers(unknown, key["secret"]), status=401),
                          "rest_forbidden", 401)
    assert_rest_error(app.client.get(f"{API}/courses", headers=key_headers(unknown, key["secret"]), status=429),
                      "too_many_sign_in_attempts", 429)
    # two wrong secrets on the real key, then the right one: answered, and its failures forgotten
    for _round in range(2):
        for _attempt in range(2):
            app.client.get(f"{API}/courses", headers=key_headers(key["key"], "secret_guess"), status=401)
        assert app.client.get(f"{API}/courses", headers=key_headers(key["key"], key["secret"])).status_int == 200


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "sitehost.toml"
    path.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    return str(path)


def run(config, *args):
    return CliRunner().invoke(main, ["--config", config, *args], catch_exceptions=False)


def test_api_keys_from_the_command_line(config):
    assert run(config, "user", "create", "office", "--role", "administrator", "--email", "office@school.test",
               "--password", "pw").exit_code == 0
    made = run(config, "lms", "api-key", "create", "office", "--permission", "read_write", "--description", "Timetable")
    assert made.exit_code == 0, made.output
    key = made.output.split("key:")[1].split()[0]
    secret = made.output.split("secret:")[1].split()[0]
    listing = run(config, "lms", "api-key", "list")
    assert key in listing.output and "read_write" in listing.output and secret not in listing.output
    app = create_app(load_settings(config))
    try:
        from webtest import TestApp

        client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
        assert client.get(f"{API}/courses", headers=key_headers(key, secret)).json["code"] == "not_found"
    finally:
        app.close()
    key_id = json.loads(run(config, "lms", "api-key", "list", "--json").output)[0]["id"]
    assert run(config, "lms", "api-key", "revoke", str(key_id)).exit_code == 0
    assert "no API key" in run(config, "lms", "api-key", "revoke", str(key_id)).output
    assert run(config, "lms", "api-key", "create", "nobody", "--permission", "read").exit_code == 1
    assert run(config, "lms", "api-key", "create", "office", "--permission", "root").exit_code == 2


CATALOGUE = {"courses": [
    {"slug": "chess-club", "title": "Chess Club", "content": "<p>Thursdays in the library.</p>",
     "categories": ["After-school clubs"], "tags": ["Strategy"], "level": "beginner",
     "topics": [{"title": "Openings", "lessons": [{"title": "Control the centre"}, {"title": "Develop your knights"}],
                 "quizzes": [{"title": "Openings quiz", "options": {"passing_grade": 60},
                              "questions": [{"title": "Which piece moves first in most openings?", "answers": [
                                  {"title": "A pawn", "correct": True}, {"title": "The king"}]}]}]}],
     "announcements": [{"title": "Tournament on 12 March"}]},
    {"slug": "a-level-biology-revision", "title": "A-level Biology Revision", "price_type": "paid", "price": 30,
     "categories": ["Exam revision"], "topics": [{"title": "Cells", "lessons": [{"title": "Organelles"}]}]},
]}


def test_import_loads_a_catalogue_and_a_second_run_changes_nothing(config, tmp_path):
    assert run(config, "user", "create", "office", "--role", "administrator", "--email", "office@school.test",
               "--password", "pw").exit_code == 0
    file = tmp_path / "catalogue.json"
    file.write_text(json.dumps(CATALOGUE))
    first = run(config, "lms", "import", str(file), "--quiet")
    assert first.exit_code == 0, first.output
    assert "2 courses read: 9 items created, 0 updated, 0 unchanged, 1 questions written" in first.output
    second = run(config, "lms", "import", str(file), "--quiet")
    assert "0 items created, 0 updated, 9 unchanged, 0 questions written" in second.output
    CATALOGUE["courses"][0]["title"] = "Chess Club (all years)"
    file.write_text(json.dumps(CATALOGUE))
    assert "0 items created, 1 updated, 8 unchanged" in run(config, "lms", "import", str(file), "--quiet").output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"courses": [{"title": "No level", "level": "godlike"}]}))
    refused = run(config, "lms", "import", str(bad), "--quiet")
    assert refused.exit_code == 1 and "level" in refused.output
    app = create_app(load_settings(config))
    try:
        from webtest import TestApp

        client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
        office = create_test_user(app, "administrator")
        courses = client.get(f"{API}/courses?categories=After-school clubs", headers=office.headers).json["data"]
        assert [course["post_title"] for course in courses["posts"]] == ["Chess Club (all years)"]
        chess = courses["posts"][0]["ID"]
        contents = client.get(f"{API}/course-contents/{chess}", headers=office.headers).json["data"]
        assert [item["post_title"] for item in contents[0]["contents"]] == [
            "Control the centre", "Develop your knights", "Openings quiz"]
        quiz = contents[0]["contents"][2]["ID"]
        question = client.get(f"{API}/quiz-question-answer/{quiz}", headers=office.headers).json["data"][0]
        assert [answer["answer_title"] for answer in question["question_answers"]] == ["A pawn", "The king"]
        assert client.get(f"{API}/courses", headers=office.headers).json["data"]["total_course"] == 2
    finally:
        app.close()


def test_the_import_shows_a_progress_bar(config, tmp_path):
    assert run(config, "user", "create", "office", "--role", "administrator", "--email", "office@school.test",
               "--password", "pw").exit_code == 0
    file = tmp_path / "catalogue.json"
    file.write_text(json.dumps({"courses": CATALOGUE["courses"][1:]}))
    result = CliRunner(mix_stderr=False).invoke(main, ["--config", config, "lms", "import", str(file)],
                                                catch_exceptions=False) if _mixes() else run(config, "lms", "import",
                                                                                             str(file))
    assert "1/1" in (result.output + getattr(result, "stderr", ""))


def _mixes() -> bool:
    import inspect

    return "mix_stderr" in inspect.signature(CliRunner).parameters


def test_the_catalogue_route_imports_with_ratings(make_app):
    app = make_app(plugins=["core", "lms"])
    admin = create_test_user(app, "administrator")
    parent = create_test_user(app, "subscriber", login="parent.one")
    catalogue = {"courses": [dict(CATALOGUE["courses"][1], ratings=[
        {"user": "parent.one", "rating": 4, "review": "Clear and calm."},
        {"user": "nobody.here", "rating": 1}])]}
    first = app.client.post_json(f"{API}/catalogue", catalogue, headers=admin.headers, status=200).json
    assert first == {"courses": 1, "created": 3, "updated": 0, "unchanged": 0, "questions": 0, "ratings": 1}
    again = app.client.post_json(f"{API}/catalogue", catalogue, headers=admin.headers, status=200).json
    assert again["created"] == 0 and again["unchanged"] == 3 and again["ratings"] == 0
    course = app.client.get(f"{API}/courses", headers=parent.headers).json["data"]["posts"][0]
    assert course["ratings"]["rating_count"] == 1 and course["ratings"]["rating_avg"] == "4.00"
    # a kept answer never outlives a change: a rating written by the import, a title edited through core/v2
    catalogue["courses"][0]["ratings"][0]["rating"] = 2
    assert app.client.post_json(f"{API}/catalogue", catalogue, headers=admin.headers).json["ratings"] == 1
    course = app.client.get(f"{API}/courses", headers=parent.headers).json["data"]["posts"][0]
    assert course["ratings"]["rating_avg"] == "2.00"
    app.client.post_json(f"/wp-json/core/v2/courses/{course['ID']}", {"title": "A-level Biology (new dates)"},
                         headers=admin.headers, status=200)
    listed = app.client.get(f"{API}/courses", headers=parent.headers).json["data"]["posts"]
    assert listed[0]["post_title"] == "A-level Biology (new dates)"
    topic = app.client.get(f"{API}/course-contents/{course['ID']}", headers=parent.headers).json["data"][0]
    app.client.post_json(f"/wp-json/core/v2/topics/{topic['id']}", {"status": "draft"}, headers=admin.headers)
    assert app.client.get(f"{API}/course-contents/{course['ID']}", headers=parent.headers).json["code"] == "not_found"
    assert_rest_error(app.client.post_json(f"{API}/catalogue", {"courses": [{"title": ""}]}, headers=admin.headers,
                                           status=400), "lms_invalid_catalogue", 400)
    assert_rest_error(app.client.post_json(f"{API}/catalogue", catalogue, headers=parent.headers, status=403),
                      "rest_forbidden", 403)


def test_reviews_are_served_as_plain_text(make_app):
    """A learner's review is shown on the public course page: no markup, on import and when served
    (a row stored before is cleaned on the way out)."""
    app = make_app(plugins=["core", "lms"])
    admin = create_test_user(app, "administrator")
    parent = create_test_user(app, "subscriber", login="parent.one")
    catalogue = {"courses": [dict(CATALOGUE["courses"][1], ratings=[
        {"user": "parent.one", "rating": 5, "review": "<img src=x onerror=alert(1)>Clear <b>and</b> calm.\nThanks"}])]}
    app.client.post_json(f"{API}/catalogue", catalogue, headers=admin.headers, status=200)
    course = app.client.get(f"{API}/courses", headers=parent.headers).json["data"]["posts"][0]

    def reviews():
        return [review["comment_content"] for review in app.client.get(
            f"{API}/course-rating/{course['ID']}", headers=parent.headers).json["data"]["reviews"]]

    assert reviews() == ["Clear and calm.\nThanks"]
    from sqlalchemy import update

    from plugins.lms.answers import bump

    ratings = app.db.metadata.tables["lms_ratings"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(ratings).values(review="<script>alert(2)</script><svg onload=alert(3)>Good"))
        bump(app, session)  # kept answers are dropped on every write, as the import's own writes do
    assert reviews() == ["Good"]
