"""Deleting a pupil's account removes what lms kept for that person (the host's `user_deleted` hook):
their API key stops working, their enrolments, attempts, ratings and questions go, course ratings follow."""

from __future__ import annotations

from sqlalchemy import func, select

from host.testing import create_test_user

from .keys import key_headers

API = "/wp-json/lms/v1"
CORE = "/wp-json/core/v2"


def count(app, table: str, user_id: int) -> int:
    rows = app.db.metadata.tables[table]
    with app.db.session() as session:
        return session.execute(select(func.count()).select_from(rows).where(rows.c.user_id == user_id)).scalar()


def test_a_deleted_pupil_leaves_no_key_enrolment_attempt_rating_or_question_behind(make_app):
    app = make_app(plugins=["core", "lms"])
    app.install_site(demo=True)
    admin = create_test_user(app, "administrator")
    found = app.client.get(f"{CORE}/users", {"search": "amara", "context": "edit"}, headers=admin.headers).json
    assert [user["username"] for user in found] == ["amara.o"]
    pupil_id = found[0]["id"]
    issued = app.client.post_json(f"{API}/api-keys", {"permission": "read", "user": pupil_id},
                                  headers=admin.headers, status=201).json
    pupil_key = key_headers(issued["key"], issued["secret"])
    assert app.client.get(f"{API}/courses", headers=pupil_key, status=200).json["code"] == "success"
    courses = app.client.get(f"{API}/courses", headers=pupil_key).json["data"]["posts"]
    robotics = next(course["ID"] for course in courses if course["post_name"] == "robotics-club")
    before = app.client.get(f"{API}/course-rating/{robotics}", headers=admin.headers).json["data"]
    assert (before["rating_count"], before["rating_avg"]) == (2, "4.50")
    enrolled = app.client.get(f"{API}/enrolments", {"course": robotics}, headers=admin.headers)
    assert enrolled.headers["X-WP-Total"] == "3"
    for table in ("lms_enrolments", "lms_ratings", "lms_quiz_attempts", "lms_qa", "lms_api_keys"):
        assert count(app, table, pupil_id) >= 1, table

    app.client.delete(f"{CORE}/users/{pupil_id}", {"force": "true", "reassign": admin.id}, headers=admin.headers,
                      status=200)

    for table in ("lms_enrolments", "lms_ratings", "lms_quiz_attempts", "lms_qa", "lms_api_keys"):
        assert count(app, table, pupil_id) == 0, table
    assert app.client.get(f"{API}/courses", headers=pupil_key, expect_errors=True).status_int == 401
    after = app.client.get(f"{API}/course-rating/{robotics}", headers=admin.headers).json["data"]
    assert (after["rating_count"], after["rating_avg"]) == (1, "4.00")  # kept answers did not outlive the rating
    enrolled = app.client.get(f"{API}/enrolments", {"course": robotics}, headers=admin.headers)
    assert enrolled.headers["X-WP-Total"] == "2" and pupil_id not in {row["user_id"] for row in enrolled.json}
    with app.db.session() as session:  # her attempts' answers went with the attempts
        answers = app.db.metadata.tables["lms_attempt_answers"]
        attempts = app.db.metadata.tables["lms_quiz_attempts"]
        orphans = session.execute(select(func.count()).select_from(answers).where(
            answers.c.attempt_id.not_in(select(attempts.c.id)))).scalar()
    assert orphans == 0
