"""The course plugin's data from a WordPress export (`sitehost import wordpress`): courses with their
settings, topics, lessons, quizzes, announcements, ratings (comments) and enrolments (posts), read back
over lms/v1 and the Courses admin page."""

from __future__ import annotations

from host.testing import create_test_user
from tests.admin.helpers import sign_in
from tests.helpers import (HILLSIDE_WXR, assert_not_imported, import_again_unchanged, import_wordpress, round_trip,
                           without, write_wxr, wxr_item)

from .keys import key_headers

API = "/wp-json/lms/v1"


def reader(app):
    admin = create_test_user(app, "administrator")
    key = app.client.post_json(f"{API}/api-keys", {"permission": "read", "description": "import test"},
                               headers=admin.headers, status=201).json
    return admin, key_headers(key["key"], key["secret"])


def catalogue(app, headers) -> dict:
    """Everything lms/v1 says about the imported course."""
    posts = app.client.get(f"{API}/courses", headers=headers, status=200).json["data"]["posts"]
    assert [post["post_title"] for post in posts] == ["Science club: forces and motion"]
    course_id = posts[0]["ID"]
    contents = app.client.get(f"{API}/course-contents/{course_id}", headers=headers).json["data"]
    quiz_id = next(item["ID"] for topic in contents for item in topic["contents"] if item["post_type"] == "lms_quiz")
    return {"course": posts[0], "detail": app.client.get(f"{API}/courses/{course_id}", headers=headers).json["data"],
            "contents": contents, "quiz": app.client.get(f"{API}/quizzes/{quiz_id}", headers=headers).json["data"],
            "rating": app.client.get(f"{API}/course-rating/{course_id}", headers=headers).json["data"],
            "announcements": app.client.get(f"{API}/course-announcement/{course_id}", headers=headers).json["data"]}


def catalogue_and_enrolments(app, admin) -> dict:
    """The catalogue as lms/v1 serves it to a reader, and the Courses admin page's enrolment rows."""
    key = app.client.post_json(f"{API}/api-keys", {"permission": "read"}, headers=admin.headers, status=201).json
    rows = sign_in(app, admin).get("/admin/courses").html.select("main tbody tr")
    return {**catalogue(app, key_headers(key["key"], key["secret"])),
            "enrolments": [" ".join(row.get_text(" ").split()) for row in rows]}


def test_a_course_comes_across_with_its_parts_ratings_and_enrolments(make_app, tmp_path):
    app = make_app()
    admin, headers = reader(app)
    result, report = import_wordpress(app, tmp_path, HILLSIDE_WXR)
    assert result.exit_code == 0, result.output
    found = catalogue(app, headers)
    course = found["course"]
    assert course["post_name"] == "science-club-forces"
    assert course["post_excerpt"] == "After-school science for Years 5 and 6"
    assert [term["slug"] for term in course["course_category"]] == ["science"]
    assert [term["slug"] for term in course["course_tag"]] == ["ks2"]
    assert course["price"] == ""  # a free course
    info = found["detail"]
    assert info["course_level"] == ["beginner"] and info["course_price_type"] == ["free"]
    assert info["course_duration"] == [{"hours": 6, "minutes": 0}]
    assert info["course_benefits"] == ["Plan a fair test\nMeasure forces with a newton meter"]
    assert info["course_requirements"] == ["A pencil and curiosity"]
    assert info["course_target_audience"] == ["Years 5 and 6"]
    assert info["course_material_includes"] == ["Worksheets\nA paper-rocket kit"]
    assert info["course_settings"] == [{"maximum_students": 24, "enable_content_drip": False}]
    assert info["video"] == [{"source": "youtube", "url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                              "runtime": {"hours": 0, "minutes": 3, "seconds": 32}}]
    assert info["disable_qa"] is False  # _tutor_enable_qa = yes
    [topic] = found["contents"]
    assert topic["title"] == "Week 1: pushes and pulls" and topic["summary"] == "Forces all around us."
    assert [(item["post_type"], item["post_title"]) for item in topic["contents"]] == [
        ("lms_lesson", "Measuring forces"), ("lms_quiz", "Forces quiz")]
    assert found["quiz"]["quiz_settings"] == [{"time_limit": {"time_value": 10, "time_type": "minutes"},
                                               "attempts_allowed": 3, "passing_grade": 60,
                                               "max_questions_for_answer": 5, "feedback_mode": "retry"}]
    rating = found["rating"]
    assert (rating["rating_count"], rating["rating_avg"]) == (1, "5.00")
    assert [(review["comment_content"], review["rating"], review["display_name"]) for review in rating["reviews"]] \
        == [("My son loved the rockets.", "5", "Min-jun Lee")]
    assert [item["post_title"] for item in found["announcements"]] == ["Bring a shoe box next week"]
    page = sign_in(app, admin).get("/admin/courses")
    rows = [" ".join(row.get_text(" ").split()) for row in page.html.select("main tbody tr")]
    assert len(rows) == 1 and "Science club: forces and motion pupil.parent" in rows[0] and "enrolled" in rows[0]

    import_again_unchanged(app, tmp_path, HILLSIDE_WXR)
    assert catalogue(app, headers) == found
    assert len(sign_in(app, admin).get("/admin/courses").html.select("main tbody tr")) == 1


def test_what_a_course_cannot_hold_is_named_and_nothing_else_changes(make_app, tmp_path):
    app = make_app()
    admin, headers = reader(app)
    wxr = write_wxr(tmp_path / "courses.xml",
                    wxr_item(701, "courses", "Broken settings", [("_tutor_course_settings", 'a:1:{s:3:"max')]),
                    wxr_item(702, "courses", "Chess", [("_tutor_course_level", "godlike")]),
                    wxr_item(703, "tutor_assignments", "Essay", parent=702),
                    wxr_item(704, "tutor_enrolled", "Course Enrolled", status="pending", parent=702),
                    wxr_item(705, "topics", "Orphan topic", parent=9999))
    result, report = import_wordpress(app, tmp_path, wxr)
    assert result.exit_code == 0, result.output
    assert_not_imported(report, "courses 701 ('Broken settings')", "malformed serialized PHP value")
    assert_not_imported(report, "tutor_assignments 703 ('Essay')", "no assignments")
    assert_not_imported(report, "tutor_enrolled 704 ('Course Enrolled')", "'pending'")
    assert_not_imported(report, "topics 705 ('Orphan topic') parent 9999", "not in the file")
    posts = app.client.get(f"{API}/courses", headers=headers).json["data"]["posts"]
    assert [post["post_title"] for post in posts] == ["Chess"]
    # An unknown level is this site's default, not a refusal of the course.
    assert app.client.get(f"{API}/courses/{posts[0]['ID']}", headers=headers).json["data"]["course_level"] == [
        "all_levels"]
    assert sign_in(app, admin).get("/admin/courses").html.select("main tbody tr") == []


def test_an_exported_catalogue_imports_back_with_every_field(make_app, tmp_path):
    first, second = round_trip(make_app, tmp_path, catalogue_and_enrolments)
    site_specific = {"ID", "id", "post_author", "post_parent", "guid", "post_modified", "post_modified_gmt",
                     "comment_ID", "comment_post_ID", "user_id", "term_id", "term_taxonomy_id", "count",
                     "user_registered"}
    assert first["enrolments"] and second["enrolments"] == first["enrolments"]
    assert without(second, site_specific) == without(first, site_specific)
