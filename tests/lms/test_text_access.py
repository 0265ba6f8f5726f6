"""Who reads a course's lessons, quizzes, topics and announcements over REST: the public pages' rule.

Anyone may see that a published lesson exists (title, link, place in the outline); its text (content,
the excerpt made from it, its meta: video, files, quiz settings, questions) is for learners enrolled
in its course and those who may edit it. These tests read every route that answers such items
(core/v2 items, lists, `_embed`, `_fields`, search, core/v2/search, lms/v1) as an anonymous visitor,
a signed-in user who is not enrolled, an enrolled learner, the course's teacher and an editor, and
check that an enrolled learner's answer is never served to anyone else."""

from __future__ import annotations

import pytest

from host.testing import create_test_user

from .test_public_pages import LESSON_TEXT, QUESTION, signed_in_headers

CORE = "/wp-json/core/v2"
TOPIC_TEXT = "Meet the kit and build a first driving base."  # the first robotics topic's summary
QUIZ_TEXT = "Five questions before we switch anything on."
NOTICE_TEXT = "Teams must hand in their entry forms"  # the robotics announcement
VIDEO = "videos.school.invalid/robotics/driving-base.mp4"  # the second robotics lesson's video
SECRETS = (LESSON_TEXT, TOPIC_TEXT, QUIZ_TEXT, NOTICE_TEXT, VIDEO, QUESTION)


@pytest.fixture(scope="module")
def demo(make_module_app):
    app = make_module_app(plugins=["core", "lms"])
    assert "demo content written" in app.install_site(demo=True)
    return app


@pytest.fixture(scope="module")
def callers(demo) -> dict[str, dict]:
    """Headers of each kind of caller: the robotics course's learner, its teacher, an editor, a stranger
    (signed in, enrolled in nothing) and an anonymous visitor."""
    return {"anonymous": {}, "stranger": create_test_user(demo, "subscriber").headers,
            "enrolled": signed_in_headers(demo, "amara.o"), "teacher": signed_in_headers(demo, "r.patel"),
            "editor": create_test_user(demo, "editor").headers}


def _first(demo, rest_base: str, title: str) -> dict:
    items = demo.client.get(f"{CORE}/{rest_base}", {"per_page": 100, "context": "edit"},
                            headers=create_test_user(demo, "administrator").headers).json
    return next(item for item in items if item["title"]["raw"] == title)


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.mark.parametrize("rest_base,title,secret", [
    ("lessons", "Safety in the lab and meeting the kit", LESSON_TEXT),
    ("topics", "Getting started", TOPIC_TEXT),
    ("quizzes", "Lab safety check", QUIZ_TEXT),
    ("course-announcements", "Regional challenge entry forms", NOTICE_TEXT),
])
def test_an_item_comes_without_its_text_unless_the_caller_takes_or_edits_its_course(demo, callers, rest_base,
                                                                                     title, secret):
    """Title and link for everyone; content, excerpt and meta only for the learner, the teacher and editors."""
    item = _first(demo, rest_base, title)
    for name, headers in callers.items():
        answer = demo.client.get(f"{CORE}/{rest_base}/{item['id']}", headers=headers)
        assert answer.status_int == 200 and answer.json["title"]["rendered"] == title, name
        if name in ("anonymous", "stranger"):
            assert {"content", "excerpt", "meta"}.isdisjoint(answer.json), name
            assert secret not in answer.text, name
            fields = demo.client.get(f"{CORE}/{rest_base}/{item['id']}", {"_fields": "id,content,excerpt,meta"},
                                     headers=headers).json
            assert fields == {"id": item["id"]}, name
        else:
            assert secret in answer.json["content"]["rendered"], name


def test_lists_embeds_and_totals_show_no_text_to_those_outside_the_course(demo, callers):
    """Every list of the four types, with `_embed` (a lesson's topic, a quiz's topic), is free of the
    text for outsiders; the totals are everyone's (the items themselves are public, as on the pages)."""
    totals = {}
    for name in ("enrolled", "anonymous", "stranger", "enrolled", "anonymous"):  # the learner first
        for rest_base in ("lessons", "topics", "quizzes", "course-announcements"):
            answer = demo.client.get(f"{CORE}/{rest_base}", {"per_page": 100, "_embed": "1"}, headers=callers[name])
            totals.setdefault(rest_base, set()).add(answer.headers["X-WP-Total"])
            if name == "enrolled":
                assert LESSON_TEXT in answer.text or rest_base != "lessons"
                continue
            assert _leaks(answer.text) == [], (name, rest_base)
            assert all("content" not in item for item in answer.json), (name, rest_base)
    assert all(len(seen) == 1 for seen in totals.values()), totals


def test_an_enrolled_learners_answer_is_never_served_to_anyone_else(demo, callers):
    """The same page of lessons read by the learner, then by the others, again and again: core keeps
    encoded list items for reuse, never those whose text depends on who asks."""
    for _round in range(2):
        assert LESSON_TEXT in demo.client.get(f"{CORE}/lessons", {"per_page": 100}, headers=callers["enrolled"]).text
        for name in ("anonymous", "stranger"):
            answer = demo.client.get(f"{CORE}/lessons", {"per_page": 100}, headers=callers[name])
            assert LESSON_TEXT not in answer.text, name


def test_search_matches_outsiders_only_by_title(demo, callers):
    """A search for words of a lesson's text finds nothing for outsiders (the match would tell the text);
    its title still finds it. Only those who may edit every lesson (editors) search the text: a search
    is one query over all courses, and a learner's or a teacher's rights end at their own courses."""
    for name in ("anonymous", "stranger", "enrolled"):
        headers = callers[name]
        listed = demo.client.get(f"{CORE}/lessons", {"search": "parts box"}, headers=headers)
        assert listed.json == [] and listed.headers["X-WP-Total"] == "0", name
        found = demo.client.get(f"{CORE}/search", {"search": "parts box"}, headers=headers)
        assert found.json == [] and found.headers["X-WP-Total"] == "0", name
        by_title = demo.client.get(f"{CORE}/search", {"search": "meeting the kit"}, headers=headers).json
        assert [hit["title"] for hit in by_title] == ["Safety in the lab and meeting the kit"], name
        embedded = demo.client.get(f"{CORE}/search", {"search": "meeting the kit", "_embed": "1"}, headers=headers)
        assert LESSON_TEXT not in embedded.text or name == "enrolled", name
    listed = demo.client.get(f"{CORE}/lessons", {"search": "parts box"}, headers=callers["editor"]).json
    assert [item["slug"] for item in listed] == ["safety-in-the-lab-and-meeting-the-kit"]
    editor_search = demo.client.get(f"{CORE}/search", {"search": "parts box"}, headers=callers["editor"]).json
    assert [hit["title"] for hit in editor_search] == ["Safety in the lab and meeting the kit"]


def test_lms_v1_gives_outsiders_the_outline_without_the_text(demo, callers):
    """lms/v1 (signed-in callers) follows the same rule: topics, lessons, quizzes, questions, videos."""
    course = _first(demo, "courses", "Robotics Club (Years 7-9)")
    topic = _first(demo, "topics", "Getting started")
    quiz = _first(demo, "quizzes", "Lab safety check")
    routes = [f"/wp-json/lms/v1/course-contents/{course['id']}", f"/wp-json/lms/v1/topics?course_id={course['id']}",
              f"/wp-json/lms/v1/lessons?topic_id={topic['id']}", f"/wp-json/lms/v1/quizzes?topic_id={topic['id']}",
              f"/wp-json/lms/v1/quizzes/{quiz['id']}", f"/wp-json/lms/v1/quiz-question-answer/{quiz['id']}",
              f"/wp-json/lms/v1/course-announcement/{course['id']}"]
    for name in ("stranger",):
        for route in routes:
            answer = demo.client.get(route, headers=callers[name])
            assert answer.status_int == 200 and _leaks(answer.text) == [], (name, route)
        outline = demo.client.get(routes[0], headers=callers[name]).json["data"]
        assert outline[0]["title"] == "Getting started" and outline[0]["contents"][0]["post_title"]
    seen = " ".join(demo.client.get(route, headers=callers["enrolled"]).text for route in routes)
    assert set(_leaks(seen)) == set(SECRETS)  # the learner reads it all


def test_a_learner_of_one_course_reads_no_text_of_another(demo, callers):
    """Enrolment is per course: a robotics learner gets the GCSE lesson as an outsider does."""
    lesson = _first(demo, "lessons", "Right-angled trigonometry")
    robotics_only = signed_in_headers(demo, "ben.k")
    outsider = demo.client.get(f"{CORE}/lessons/{lesson['id']}", headers=robotics_only)
    assert "content" not in outsider.json and "SOH CAH TOA" not in outsider.text
    assert "SOH CAH TOA" in demo.client.get(f"{CORE}/lessons/{lesson['id']}", headers=callers["enrolled"]).text
    listed = demo.client.get(f"{CORE}/lessons", {"per_page": 100}, headers=robotics_only)
    assert LESSON_TEXT in listed.text and "SOH CAH TOA" not in listed.text


def test_announcements_have_no_public_page_sitemap_or_search_entry(demo, callers):
    """A course announcement is a notice for its learners: its plain link answers 404 without its title,
    it is in no sitemap and no search, and its type says it is not viewable."""
    notice = _first(demo, "course-announcements", "Regional challenge entry forms")
    for name in ("anonymous", "enrolled", "editor"):
        page = demo.client.get(f"/?post_type=lms_announcement&p={notice['id']}", headers=callers[name], status=404)
        assert "Regional challenge" not in page.text and NOTICE_TEXT not in page.text
        found = demo.client.get(f"{CORE}/search", {"search": "Regional challenge entry"}, headers=callers[name]).json
        assert found == [], name
    index = demo.client.get("/wp-sitemap.xml").text
    assert "lms_announcement" not in index and "wp-sitemap-posts-lms_lesson-1.xml" in index
    demo.client.get("/wp-sitemap-posts-lms_announcement-1.xml", status=404)
    described = demo.client.get(f"{CORE}/types/lms_announcement", {"context": "edit"}, headers=callers["editor"]).json
    assert described["viewable"] is False
