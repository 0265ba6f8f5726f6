"""The catalogue's public pages over HTTP: every demo course, topic, lesson, quiz, category and tag link
opens a page; lessons and quizzes show their text only to enrolled learners and editors; non-public
items answer 404 without their title; a free course enrols a signed-in user from its page; anonymous
pages carry an ETag that changes with the course, its lessons and its ratings."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import html5lib
import pytest

from host.auth import users as user_service
from host.testing import admin_sign_in, basic_auth_headers, create_test_user

LESSON_TEXT = "Lab rules, the parts box and charging the hubs."  # the first robotics lesson's content
QUESTION = "Where do charged batteries go?"  # the robotics quiz's first question


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def parse(response) -> None:
    """The page is well-formed HTML5 (a strict parser raises on the first error)."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(response.text)


def collection(app, rest_base: str, headers=None) -> list[dict]:
    return app.client.get(f"/wp-json/core/v2/{rest_base}?per_page=100", headers=headers or {}).json


@pytest.fixture(scope="module")
def demo(make_module_app):
    app = make_module_app(plugins=["core", "lms"])
    assert "demo content written" in app.install_site(demo=True)
    return app


def signed_in_headers(app, login: str) -> dict[str, str]:
    """Application-password headers of a demo user (the demo makes its users without one)."""
    with app.db.session(write=True) as session, session.begin():
        user = user_service.find_user(app, session, login)
        password, _record = user_service.create_application_password(app, session, user.id, "tests")
    return basic_auth_headers(login, password)


@pytest.mark.parametrize("rest_base", ["courses", "topics", "lessons", "quizzes", "course-category", "course-tag"])
def test_every_demo_item_link_opens_a_page(demo, rest_base):
    items = collection(demo, rest_base)
    assert items, f"the demo has {rest_base}"
    for item in items:
        link = item["link"]
        assert "?" not in link and link.endswith("/"), link  # a pretty link
        response = demo.client.get(path_of(link))
        if rest_base == "topics":  # a topic is its section of the course page
            assert response.status_int == 301
            course = demo.client.get(f"/wp-json/core/v2/courses/{item['parent']}").json
            assert response.headers["Location"] == f"{course['link']}#topic-{item['id']}"
            response = demo.client.get(path_of(course["link"]))
            assert f'id="topic-{item["id"]}"' in response.text
        assert response.status_int == 200 and response.content_type == "text/html"
        parse(response)
        name = item["title"]["rendered"] if "title" in item else item["name"]
        assert f"<h1>{name}" in response.text.replace("&amp;", "&") or name in response.text
        assert 'href="http://school.test/static/lms/lms.css"' in response.text
        assert demo.client.get("/static/lms/lms.css").content_type == "text/css"


def test_the_course_page_shows_its_outline_rating_teacher_and_price(demo):
    page = demo.client.get("/courses/robotics-club/")
    text = page.text
    assert "Rated 4.5 out of 5 (2 ratings)" in text  # the pending rating is not counted
    assert "Mr R. Patel" in text and "Beginner" in text and "18 hours" in text and "Free" in text
    topics = page.html.select("ol.lms-topics > li")
    assert [topic.h3.text for topic in topics] == ["Getting started", "Sensors and programming"]
    steps = [link.text for link in topics[0].select("ol.lms-steps a")]
    assert steps == ["Safety in the lab and meeting the kit", "Building a driving base", "Lab safety check"]
    assert page.html.select_one('a[href="http://school.test/course-category/after-school-clubs/"]') is not None
    enrol = page.html.select_one("#enrol")
    assert "Sign in to enrol" in enrol.text and enrol.select_one("form") is None  # anonymous: the sign-in link
    paid = demo.client.get("/courses/gcse-maths-revision/").text
    assert "£45.00" in paid and "Sign in to enrol" in paid


def test_lessons_and_quizzes_show_their_text_only_to_enrolled_learners(demo):
    lesson = next(item for item in collection(demo, "lessons")
                  if item["title"]["rendered"] == "Safety in the lab and meeting the kit")
    quiz = collection(demo, "quizzes")[0]
    anonymous = demo.client.get(path_of(lesson["link"]))
    assert anonymous.status_int == 200 and LESSON_TEXT not in anonymous.text
    assert "This lesson is for learners enrolled in Robotics Club" in anonymous.text
    assert "Sign in to enrol" in anonymous.text
    assert demo.client.get(path_of(quiz["link"])).text.count(QUESTION) == 0

    stranger = create_test_user(demo, "subscriber")  # signed in, not enrolled
    refused = demo.client.get(path_of(lesson["link"]), headers=stranger.headers)
    assert LESSON_TEXT not in refused.text and "This lesson is for learners enrolled" in refused.text
    assert refused.headers["Cache-Control"] == "private, no-store" and "ETag" not in refused.headers
    assert QUESTION not in demo.client.get(path_of(quiz["link"]), headers=stranger.headers).text

    pupil = signed_in_headers(demo, "amara.o")  # enrolled by the demo
    shown = demo.client.get(path_of(lesson["link"]), headers=pupil)
    parse(shown)
    assert LESSON_TEXT in shown.text and "This lesson is for learners" not in shown.text
    assert shown.headers["Cache-Control"] == "private, no-store"
    course_page = demo.client.get("/courses/robotics-club/", headers=pupil)
    assert "You are enrolled" in course_page.text
    assert "Teams must hand in their entry forms" in course_page.text  # the announcement, for its learners
    for headers in ({}, stranger.headers):
        assert "Teams must hand in" not in demo.client.get("/courses/robotics-club/", headers=headers).text
    quiz_page = demo.client.get(path_of(quiz["link"]), headers=pupil)
    assert QUESTION in quiz_page.text and "Pass mark:</span> 80%" in quiz_page.text
    assert "In the green charging tray" not in quiz_page.text  # never the answer sheet

    teacher = signed_in_headers(demo, "r.patel")  # the course's author may edit it
    assert LESSON_TEXT in demo.client.get(path_of(lesson["link"]), headers=teacher).text

    # an enrolled learner of another course reads none of this one
    gcse_lesson = next(item for item in collection(demo, "lessons")
                       if item["title"]["rendered"] == "Right-angled trigonometry")
    other = signed_in_headers(demo, "ben.k")  # robotics only
    assert "SOH CAH TOA" not in demo.client.get(path_of(gcse_lesson["link"]), headers=other).text
    assert "SOH CAH TOA" in demo.client.get(path_of(gcse_lesson["link"]), headers=pupil).text


def test_the_reference_nested_addresses_redirect(demo):
    lesson = next(item for item in collection(demo, "lessons") if item["slug"] == "building-a-driving-base")
    moved = demo.client.get("/courses/robotics-club/lessons/building-a-driving-base/")
    assert moved.status_int == 301 and moved.headers["Location"] == lesson["link"]
    quiz = collection(demo, "quizzes")[0]
    moved = demo.client.get(f"/courses/robotics-club/tutor_quiz/{quiz['slug']}/")
    assert moved.status_int == 301 and moved.headers["Location"] == quiz["link"]
    assert demo.client.get("/courses/gcse-maths-revision/lessons/building-a-driving-base/", status=404)
    assert demo.client.get("/courses/robotics-club/assignments/building-a-driving-base/", status=404)


def test_archives_page_through_their_courses(demo):
    page = demo.client.get("/course-tag/stem/")
    parse(page)
    assert [link.text for link in page.html.select(".lms-card h2 a")] == ["Robotics Club (Years 7-9)"]
    for query in ("?paged=2", "?paged=0", "?paged=x", "?paged=99999"):
        assert "Robotics" not in demo.client.get("/course-tag/stem/" + query, status=404).text
    demo.client.get("/course-tag/no-such-tag/", status=404)


def test_non_public_items_answer_404_without_their_title(make_app):
    app = make_app(plugins=["core", "lms"])
    admin = create_test_user(app, "administrator")
    post = lambda base, body: app.client.post_json(f"/wp-json/core/v2/{base}", body, headers=admin.headers).json  # noqa: E731
    draft = post("courses", {"title": "Secret draft course", "status": "draft", "slug": "secret-draft"})
    post("courses", {"title": "Private staff course", "status": "private", "slug": "private-staff"})
    course = post("courses", {"title": "Open course", "status": "publish", "slug": "open-course"})
    topic = post("topics", {"title": "Open topic", "status": "publish", "parent": course["id"], "slug": "open-topic"})
    hidden_topic = post("topics", {"title": "Hidden topic title", "status": "draft", "parent": course["id"],
                                   "slug": "hidden-topic"})
    post("lessons", {"title": "Draft lesson title", "status": "draft", "parent": topic["id"], "slug": "draft-lesson"})
    post("lessons", {"title": "Orphan lesson title", "status": "publish", "parent": hidden_topic["id"],
                     "slug": "orphan-lesson"})
    post("lessons", {"title": "Inside a draft course", "status": "publish", "slug": "inside-draft",
                     "parent": post("topics", {"title": "Draft course topic", "status": "publish",
                                               "parent": draft["id"], "slug": "draft-topic"})["id"]})
    post("quizzes", {"title": "Draft quiz title", "status": "draft", "parent": topic["id"], "slug": "draft-quiz"})
    trashed = post("courses", {"title": "Binned course title", "status": "publish", "slug": "binned"})
    app.client.delete(f"/wp-json/core/v2/courses/{trashed['id']}", headers=admin.headers)
    for path, title in (("/courses/secret-draft/", "Secret draft course"),
                        ("/courses/private-staff/", "Private staff course"),
                        ("/courses/binned/", "Binned course title"), ("/courses/binned__trashed/", "Binned course"),
                        ("/lesson/draft-lesson/", "Draft lesson title"), ("/lesson/orphan-lesson/", "Orphan lesson"),
                        ("/lesson/inside-draft/", "Inside a draft course"), ("/quiz/draft-quiz/", "Draft quiz title"),
                        ("/topic/hidden-topic/", "Hidden topic title"), ("/topic/draft-topic/", "Draft course topic"),
                        ("/courses/" + "x" * 300 + "/", "x" * 300)):
        for headers in ({}, admin.headers):  # editors preview drafts elsewhere: these are the public addresses
            answer = app.client.get(path, headers=headers, status=404)
            parse(answer)
            assert title not in answer.text and "Page not found" in answer.text
            assert answer.headers["Cache-Control"] == "no-store"
    # a slug shared by a draft lesson in one topic and a published one in another: the published one answers
    other_topic = post("topics", {"title": "Second topic", "status": "publish", "parent": course["id"],
                                  "slug": "second-topic"})
    post("lessons", {"title": "Shared slug draft", "status": "draft", "parent": topic["id"], "slug": "shared"})
    shared = post("lessons", {"title": "Shared slug published", "status": "publish", "parent": other_topic["id"],
                              "slug": "shared"})
    assert shared["link"] == "http://school.test/lesson/shared/"
    page = app.client.get("/lesson/shared/")
    assert "Shared slug published" in page.text and "Shared slug draft" not in page.text
    # a password-protected course shows its title and outline, not its text
    post("courses", {"title": "Staff training", "status": "publish", "slug": "staff-training", "password": "pw",
                     "excerpt": "Protected summary", "content": "<p>Protected description</p>"})
    protected = app.client.get("/courses/staff-training/").text
    assert "Staff training" in protected and "Protected summary" not in protected
    assert "Protected description" not in protected
    outline = app.client.get("/courses/open-course/").text
    assert "Hidden topic title" not in outline and "Draft lesson title" not in outline
    assert "Draft quiz title" not in outline and "Orphan lesson" not in outline
    assert draft["link"].startswith("http://school.test/?post_type=lms_course&p=")  # no pretty link until published


def test_a_signed_in_user_enrols_in_a_free_course_from_its_page(make_app):
    app = make_app(plugins=["core", "lms"])
    app.install_site(demo=True)
    pupil = create_test_user(app, "subscriber", login="dana")
    lesson = "/lesson/safety-in-the-lab-and-meeting-the-kit/"
    app.client.post("/courses/robotics-club/enrol", {"csrf_token": "forged"}, status=403)  # no session
    browser = admin_sign_in(app, pupil)
    course = browser.get("/courses/robotics-club/")
    assert course.headers["Cache-Control"] == "private, no-store"
    assert LESSON_TEXT not in browser.get(lesson).text
    browser.post("/courses/robotics-club/enrol", {"csrf_token": "forged"}, status=403)
    assert LESSON_TEXT not in browser.get(lesson).text  # a forged form enrolled no one
    form = course.forms[0]
    assert form.action == "http://school.test/courses/robotics-club/enrol"
    enrolled = form.submit()
    assert enrolled.status_int == 303 and enrolled.headers["Location"].endswith("/courses/robotics-club/#enrol")
    again = browser.get("/courses/robotics-club/")
    assert "You are enrolled" in again.text and again.html.select_one("#enrol form") is None
    assert LESSON_TEXT in browser.get(lesson).text
    assert form.submit().status_int == 303  # twice: still one enrolment
    admin = create_test_user(app, "administrator")
    rows = app.client.get(f"/wp-json/lms/v1/enrolments?user={pupil.id}", headers=admin.headers).json
    assert [(row["status"], row["source"]) for row in rows] == [("completed", "free")]

    paid = browser.get("/courses/gcse-maths-revision/")
    assert paid.html.select_one("#enrol form") is None and "Pay through the school" in paid.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', course.text).group(1)
    browser.post("/courses/gcse-maths-revision/enrol", {"csrf_token": token}, status=409)
    assert "SOH CAH TOA" not in browser.get("/lesson/right-angled-trigonometry/").text
    browser.post("/courses/no-such-course/enrol", {"csrf_token": token}, status=404)


def test_anonymous_pages_are_kept_until_the_course_its_lessons_or_ratings_change(make_app):
    app = make_app(plugins=["core", "lms", "cache"])  # the response cache keeps the pages
    admin = create_test_user(app, "administrator")
    pupil = create_test_user(app, "subscriber", login="ezra")
    catalogue = {"courses": [{"slug": "first-aid", "title": "First aid", "content": "<p>Basics.</p>",
                              "topics": [{"title": "Bandages", "lessons": [{"title": "Slings", "content": "<p>Tie.</p>"}]}],
                              "ratings": [{"user": "ezra", "rating": 4}]}]}
    app.client.post("/wp-json/lms/v1/catalogue", json.dumps(catalogue), headers={
        **admin.headers, "Content-Type": "application/json"})
    first = app.client.get("/courses/first-aid/")
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "public, no-cache" and "Cookie" in first.headers["Vary"]
    assert "Rated 4.0 out of 5 (1 rating)" in first.text
    kept = app.client.get("/courses/first-aid/")
    assert kept.headers["X-Cache"] == "hit" and kept.text == first.text
    assert app.client.get("/courses/first-aid/", headers={"If-None-Match": etag}, status=304).body == b""

    lesson = collection(app, "lessons")[0]
    app.client.post_json(f"/wp-json/core/v2/lessons/{lesson['id']}", {"title": "Slings and splints"},
                         headers=admin.headers)
    changed = app.client.get("/courses/first-aid/", headers={"If-None-Match": etag})
    assert changed.status_int == 200 and "Slings and splints" in changed.text and changed.headers["ETag"] != etag

    catalogue["courses"][0]["ratings"] = [{"user": "ezra", "rating": 2}]  # the same course, a new rating only
    app.client.post("/wp-json/lms/v1/catalogue", json.dumps(catalogue), headers={
        **admin.headers, "Content-Type": "application/json"})
    rated = app.client.get("/courses/first-aid/", headers={"If-None-Match": changed.headers["ETag"]})
    assert rated.status_int == 200 and "Rated 2.0 out of 5 (1 rating)" in rated.text

    # a signed-in visitor never gets the kept anonymous page, and fills nothing an anonymous one reads
    personal = app.client.get("/courses/first-aid/", headers={**pupil.headers, "If-None-Match": rated.headers["ETag"]})
    assert personal.status_int == 200 and "ETag" not in personal.headers
    assert "Sign in to enrol" not in personal.text and "Enrol now" not in personal.text  # Basic: sign in on the page
    assert "Sign in to enrol" in app.client.get("/courses/first-aid/").text
