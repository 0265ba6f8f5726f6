"""lms/v1 read routes over the demo catalogue: every route, its `code` values, its parameters.

One site for the module (read-only tests): the demo content (three school courses), a draft
course with a topic, and API keys.
"""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error, create_test_user

from .keys import key_headers
from .test_public_pages import signed_in_headers

API = "/wp-json/lms/v1"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app(plugins=["core", "lms"])
    app.install_site(demo=True)
    admin = create_test_user(app, "administrator")
    app.people = {role: create_test_user(app, role) for role in ("editor", "author", "subscriber")}
    app.people["administrator"] = admin
    created = app.client.post_json(f"{API}/api-keys", {"permission": "read", "description": "Timetable app"},
                                   headers=admin.headers, status=201).json
    app.key = key_headers(created["key"], created["secret"])
    writer = app.client.post_json(f"{API}/api-keys", {"permission": "write"}, headers=admin.headers, status=201).json
    app.write_key = key_headers(writer["key"], writer["secret"])
    pupil = app.people["subscriber"]
    pupil_key = app.client.post_json(f"{API}/api-keys", {"permission": "all", "user": pupil.id},
                                     headers=admin.headers, status=201).json
    app.pupil_key = key_headers(pupil_key["key"], pupil_key["secret"])
    core = "/wp-json/core/v2"
    draft = app.client.post_json(f"{core}/courses", {"title": "Secret staff INSET course", "status": "draft"},
                                 headers=admin.headers, status=201).json
    topic = app.client.post_json(f"{core}/topics", {"title": "Hidden topic", "status": "publish",
                                                    "parent": draft["id"]}, headers=admin.headers, status=201).json
    app.draft_id, app.draft_topic = draft["id"], topic["id"]
    courses = app.client.get(f"{API}/courses", headers=app.key).json["data"]["posts"]
    app.courses = {course["post_name"]: course for course in courses}
    return app


def get(site, path, headers=None, **kwargs):
    response = site.client.get(API + path, headers=headers if headers is not None else site.key, **kwargs)
    return response


def ok(site, path, code, headers=None):
    response = get(site, path, headers)
    assert response.status_int == 200
    body = response.json
    assert set(body) == {"code", "message", "data"}
    assert body["code"] == code, body
    return body["data"]


def test_routes_are_those_of_the_interface(site):
    index = site.client.get(API).json
    routes = index["routes"]
    for path in ("/courses", r"/courses/(?P<id>[\d]+)", "/topics", "/lessons", "/quizzes", r"/quizzes/(?P<id>[\d]+)",
                 r"/course-announcement/(?P<id>[\d]+)", r"/quiz-question-answer/(?P<id>[\d]+)",
                 r"/quiz-attempt-details/(?P<id>[\d]+)", r"/author-information/(?P<id>[\d]+)",
                 r"/course-rating/(?P<id>[\d]+)", r"/course-contents/(?P<id>[\d]+)", "/ecommerce-webhook",
                 "/ecommerce-webhook/(?P<payment_method>[a-z0-9_-]+)"):
        assert "/lms/v1" + path in routes, path
    assert routes["/lms/v1/courses"]["endpoints"][0]["args"] == []
    assert routes["/lms/v1/topics"]["endpoints"][0]["args"]["course_id"]["required"] is False
    assert routes["/lms/v1/lessons"]["endpoints"][0]["args"]["topic_id"]["required"] is False
    assert routes[r"/lms/v1/courses/(?P<id>[\d]+)"]["endpoints"][0]["args"]["id"]["required"] is False
    webhook = routes["/lms/v1/ecommerce-webhook"]
    assert set(webhook["methods"]) >= {"GET", "POST", "PUT", "PATCH", "DELETE"}
    assert webhook["endpoints"][0]["args"] == []


def test_calls_need_a_key_or_an_application_password(site):
    assert_rest_error(get(site, "/courses", headers={}, status=401), "rest_forbidden", 401)
    wrong = key_headers("key_" + "0" * 32, "secret_nope")
    assert_rest_error(get(site, "/courses", headers=wrong, status=401), "rest_forbidden", 401)
    assert_rest_error(get(site, "/courses", headers=site.write_key, status=403), "rest_forbidden", 403)
    assert ok(site, "/courses", "success", headers=site.people["subscriber"].headers)["total_course"] == 3
    # a key signs in only on lms/v1: elsewhere it is no credential at all
    site.client.get("/wp-json/core/v2/posts", headers=site.key, status=401)


def test_courses_list_with_the_course_object(site):
    data = ok(site, "/courses", "success")
    assert data["total_course"] == 3 and data["total_page"] == 1
    titles = [course["post_title"] for course in data["posts"]]
    assert titles == sorted(titles)  # orderby title, order ASC by default
    robotics = site.courses["robotics-club"]
    assert robotics["post_author"]["user_email"] == "r.patel@school.invalid"  # an administrator's key
    as_pupil = {course["post_name"]: course for course in ok(site, "/courses", "success", site.pupil_key)["posts"]}
    # As the original's user row: ID a string, user_url and user_status for everyone; login and email private.
    assert as_pupil["robotics-club"]["post_author"] == {
        "ID": robotics["post_author"]["ID"], "display_name": "Mr R. Patel", "user_nicename": "r-patel",
        "user_url": "", "user_status": "0"}
    assert isinstance(robotics["post_author"]["ID"], str) and robotics["post_author"]["ID"].isdigit()
    # The guid is the plain permalink on the site's address, as WordPress stores it.
    assert robotics["guid"].endswith(f"/?post_type={robotics['post_type']}&p={robotics['ID']}")
    assert robotics["guid"].startswith("http")
    assert "post_password" not in robotics and "filter" not in robotics
    assert robotics["thumbnail_url"] is False
    assert robotics["additional_info"]["course_level"] == ["beginner"]
    assert robotics["additional_info"]["course_settings"] == [{"maximum_students": 24}]
    assert robotics["additional_info"]["disable_qa"] is False
    assert robotics["ratings"] == {"rating_count": 2, "rating_sum": 9, "rating_avg": "4.50",
                                   "count_by_value": {"5": 1, "4": 1, "3": 0, "2": 0, "1": 0}}
    assert [term["name"] for term in robotics["course_category"]] == ["After-school clubs"]
    assert sorted(term["name"] for term in robotics["course_tag"]) == ["STEM", "Years 7-9"]
    assert robotics["course_category"][0]["taxonomy"] == "course-category"
    assert robotics["price"] == ""
    assert site.courses["gcse-maths-revision"]["price"] == "45"
    assert "Secret staff" not in str(data)


def test_courses_order_paging_and_term_filters(site):
    by_price = ok(site, "/courses?orderby=price&order=DESC", "success")["posts"]
    assert [course["price"] for course in by_price] == ["60", "45", ""]
    assert [c["post_name"] for c in ok(site, "/courses?order=desc", "success")["posts"]][0] == "robotics-club"
    assert ok(site, "/courses?paged=2", "not_found") == []
    clubs = ok(site, "/courses?categories=After-school clubs,Adult education", "success")
    assert {course["post_name"] for course in clubs["posts"]} == {"robotics-club", "conversational-spanish-adults"}
    either = ok(site, "/courses?categories=Adult education&tags=GCSE", "success")  # OR-combined
    assert either["total_course"] == 2
    assert ok(site, "/courses?tags=No such tag", "not_found") == []
    for query in ("paged=x", "paged=0", "orderby=date", "order=sideways", "categories=" + ",".join("abc" * 30)):
        body = assert_rest_error(get(site, "/courses?" + query, status=400), "rest_invalid_param", 400)
        assert list(body["data"]["params"]) == [query.split("=")[0]]


def test_course_detail_always_answers_course_detail(site):
    course = site.courses["gcse-maths-revision"]
    data = ok(site, f"/courses/{course['ID']}", "course_detail")
    assert data["course_price_type"] == ["paid"] and data["course_duration"] == [{"hours": 15, "minutes": 0}]
    empty = ok(site, "/courses/99999", "course_detail")  # the original's quirk: empty lists, same code
    assert empty["course_level"] == [] and empty["disable_qa"] is False
    ok(site, "/courses/99999999999999999999999", "course_detail")


def test_unpublished_courses_are_guarded(site):
    for path in (f"/courses/{site.draft_id}", f"/course-contents/{site.draft_id}", f"/course-rating/{site.draft_id}",
                 f"/course-announcement/{site.draft_id}"):
        assert_rest_error(get(site, path, headers=site.pupil_key, status=403), "rest_forbidden", 403)
        assert_rest_error(get(site, path, headers=site.people["subscriber"].headers, status=403), "rest_forbidden", 403)
        assert_rest_error(get(site, path, headers={}, status=401), "rest_forbidden", 401)
    assert ok(site, f"/topics?course_id={site.draft_id}", "not_found", headers=site.pupil_key) == []
    assert ok(site, f"/lessons?topic_id={site.draft_topic}", "not_found", headers=site.pupil_key) == []
    editor = site.people["editor"].headers
    assert ok(site, f"/courses/{site.draft_id}", "course_detail", headers=editor)["course_level"] == ["all_levels"]
    assert ok(site, f"/topics?course_id={site.draft_id}", "get_topic", headers=editor)[0]["post_title"] == "Hidden topic"


def test_course_contents_and_topics(site):
    course = site.courses["robotics-club"]
    contents = ok(site, f"/course-contents/{course['ID']}", "success")
    assert [topic["title"] for topic in contents] == ["Getting started", "Sensors and programming"]
    first = contents[0]
    assert [item["post_title"] for item in first["contents"]] == [
        "Safety in the lab and meeting the kit", "Building a driving base", "Lab safety check"]
    assert first["contents"][2]["post_type"] == "lms_quiz"
    assert ok(site, "/course-contents/99999", "not_found") == []
    topics = ok(site, f"/topics?course_id={course['ID']}", "get_topic")
    assert set(topics[0]) == {"ID", "post_title", "post_content", "post_name"}
    assert ok(site, "/topics", "get_topic") == []  # the original's code for "course_id is required"
    assert get(site, "/topics").json["message"] == "course_id is required"
    assert ok(site, "/topics?course_id=99999", "not_found") == []
    assert_rest_error(get(site, "/topics?course_id=abc", status=400), "rest_invalid_param", 400)


def _topic(site, slug="robotics-club", index=0):
    return ok(site, f"/topics?course_id={site.courses[slug]['ID']}", "get_topic")[index]["ID"]


def test_lessons_and_quizzes_of_a_topic(site):
    topic = _topic(site)
    lessons = ok(site, f"/lessons?topic_id={topic}", "success")
    assert [lesson["post_title"] for lesson in lessons] == ["Safety in the lab and meeting the kit",
                                                           "Building a driving base"]
    assert lessons[1]["topic_id"] == topic and lessons[1]["attachments"] == [] and lessons[1]["thumbnail"] is False
    assert lessons[1]["video"] == [{"source": "external_url",
                                    "url": "https://videos.school.invalid/robotics/driving-base.mp4"}]
    assert ok(site, "/lessons", "not_found") == []  # missing topic_id: not_found, as the original
    assert ok(site, "/lessons?topic_id=99999", "not_found") == []
    assert_rest_error(get(site, "/lessons?topic_id=x", status=400), "rest_invalid_param", 400)
    quizzes = ok(site, f"/quizzes?topic_id={topic}", "success")
    assert quizzes[0]["post_title"] == "Lab safety check"
    assert quizzes[0]["quiz_settings"][0]["passing_grade"] == 80
    assert ok(site, f"/quizzes?topic_id={_topic(site, index=1)}", "not_found") == []
    assert ok(site, "/quizzes", "not_found") == []


def test_quiz_questions_answers_and_attempts(site):
    quiz = ok(site, f"/quizzes?topic_id={_topic(site)}", "success")[0]["ID"]
    one = ok(site, f"/quizzes/{quiz}", "success")
    assert [question["question_title"] for question in one["quiz_questions"]] == [
        "Where do charged batteries go?", "Goggles are needed when using the hot glue gun."]
    questions = ok(site, f"/quiz-question-answer/{quiz}", "success")
    assert questions[0]["question_type"] == "single_choice" and questions[0]["question_mark"] == "1.00"
    answers = questions[0]["question_answers"]
    assert answers[0]["answer_title"] == "In the green charging tray" and answers[0]["is_correct"] == "1"
    pupil = site.people["subscriber"].headers  # not enrolled: the questions are the course's learners'
    assert ok(site, f"/quiz-question-answer/{quiz}", "not_found", headers=pupil) == []
    learner = signed_in_headers(site, "amara.o")  # enrolled by the demo: the questions, no answer sheet
    assert all("is_correct" not in answer for answer in
               ok(site, f"/quiz-question-answer/{quiz}", "success", headers=learner)[0]["question_answers"])
    attempts = ok(site, f"/quiz-attempt-details/{quiz}", "success")
    assert len(attempts) == 2
    for attempt in attempts:  # each attempt carries its own answers (the original gave every attempt all of them)
        assert len(attempt["attempts_answer"]) == 2
    assert attempts[0]["earned_marks"] == "2.00" and attempts[1]["earned_marks"] == "1.00"
    assert attempts[1]["attempts_answer"][0]["given_answer"] == [{"answer_title": "In your bag"}]
    assert ok(site, f"/quiz-attempt-details/{quiz}", "not_found", headers=pupil) == []  # not their attempts
    for path in ("/quizzes/99999", "/quiz-question-answer/99999", "/quiz-attempt-details/99999"):
        ok(site, path, "not_found")


def test_announcements_authors_and_ratings(site):
    robotics = site.courses["robotics-club"]
    notices = ok(site, f"/course-announcement/{robotics['ID']}", "success")
    assert notices[0]["post_title"] == "Regional challenge entry forms"
    assert ok(site, "/course-announcement/99999", "not_found") == []
    author = ok(site, f"/author-information/{robotics['post_author']['ID']}", "success", headers=site.pupil_key)
    assert author["display_name"] == "Mr R. Patel" and len(author["courses"]) == 3
    assert not {"user_pass", "password_hash", "user_activation_key", "user_email", "user_login"} & set(author)
    admin = site.people["administrator"]
    mine = ok(site, f"/author-information/{admin.id}", "success", headers=admin.headers)
    assert mine["user_email"] == admin.email and "password_hash" not in str(mine)
    # a user without published courses is not shown to others (the original showed anyone)
    assert ok(site, f"/author-information/{site.people['author'].id}", "invalid_id", headers=site.pupil_key) == []
    assert ok(site, f"/author-information/{site.people['author'].id}", "success")["courses"] == []  # admin's key
    assert ok(site, "/author-information/99999", "invalid_id") == []
    rating = ok(site, f"/course-rating/{robotics['ID']}", "success")
    assert rating["rating_count"] == 2 and rating["rating_avg"] == "4.50"
    assert sorted(review["rating"] for review in rating["reviews"]) == ["4", "5"]  # the pending one does not count
    assert len(ok(site, f"/course-rating/{robotics['ID']}?offset=1&limit=1", "success")["reviews"]) == 1
    assert ok(site, f"/course-rating/{robotics['ID']}?offset=5", "success")["reviews"] == []
    assert ok(site, "/course-rating/99999", "not_found") == []
    for query in ("limit=0", "limit=101", "offset=-1", "offset=x"):
        assert_rest_error(get(site, f"/course-rating/{robotics['ID']}?{query}", status=400), "rest_invalid_param", 400)


def test_a_pupils_key_acts_as_the_pupil(site):
    data = ok(site, "/courses", "success", headers=site.pupil_key)
    assert data["total_course"] == 3
    assert_rest_error(get(site, f"/courses/{site.draft_id}", headers=site.pupil_key, status=403), "rest_forbidden", 403)


def test_the_demo_has_questions_and_answers_and_enrolments(site):
    from sqlalchemy import func, select

    with site.db.session() as session:
        tables = site.db.metadata.tables
        assert session.execute(select(func.count()).select_from(tables["lms_qa"])).scalar() == 2
        assert session.execute(select(func.count()).select_from(tables["lms_enrolments"])).scalar() == 4
    enrolled = site.client.get(f"{API}/enrolments?course={site.courses['robotics-club']['ID']}",
                               headers=site.people["administrator"].headers)
    assert enrolled.headers["X-WP-Total"] == "3" and {row["source"] for row in enrolled.json} == {"demo"}


def test_courses_are_managed_through_core(site):
    admin = site.people["administrator"].headers
    listed = site.client.get("/wp-json/core/v2/courses", headers=admin).json
    assert {course["slug"] for course in listed} >= {"robotics-club", "gcse-maths-revision"}
    course = site.courses["robotics-club"]
    item = site.client.get(f"/wp-json/core/v2/courses/{course['ID']}", headers=admin).json
    assert item["meta"]["lms_level"] == "beginner" and item["meta"]["lms_price_type"] == "free"
    assert site.client.get("/wp-json/core/v2/course-category").json[0]["taxonomy"] == "course-category"
    assert site.client.get("/wp-json/core/v2/lessons").status_int == 200
