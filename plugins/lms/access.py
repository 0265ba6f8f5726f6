"""Who reads the text of a course's topics, lessons, quizzes and announcements: its learners and its editors.

The rule is the public pages' (pages.py): anyone sees that a lesson exists (its title, its place in
the outline), but its text, video, attachments and questions are for learners enrolled in its
course (a completed enrolment) and for those who may edit the item or the course. core/v2 asks
`may_read_text` for every such item it answers (PostType.text_access) and then leaves out
`content`, `excerpt` and `meta`; lms/v1 and the pages ask it through catalogue.protected.
"""

from __future__ import annotations

from sqlalchemy import select

from .catalogue import as_id, can_edit, find_course
from .model import ANNOUNCEMENT, LESSON, QUIZ, TOPIC
from .tables import ENROLMENTS, table

GATED_TYPES = (TOPIC, LESSON, QUIZ, ANNOUNCEMENT)


def course_of(request, item: dict) -> dict | None:
    """The course an item belongs to: a topic's or an announcement's parent, a lesson's or a quiz's topic's."""
    parent = as_id(item.get("parent"))
    if item["type"] in (LESSON, QUIZ):
        cache = request.state.setdefault("lms_items", {})
        if parent is not None and (parent, TOPIC) not in cache:
            cache[(parent, TOPIC)] = request.app.content.get(request, parent, TOPIC)
        topic = cache.get((parent, TOPIC)) if parent is not None else None
        parent = as_id(topic["parent"]) if topic is not None else None
    return find_course(request, parent)


def enrolled_courses(request) -> frozenset[int]:
    """The ids of the courses the caller is enrolled in (one query per request)."""
    if not request.user.is_authenticated:
        return frozenset()
    found = request.state.get("lms_enrolled_courses")
    if found is None:
        enrolments = table(request.app, ENROLMENTS)
        found = frozenset(request.session.execute(select(enrolments.c.course_id).where(
            enrolments.c.user_id == request.user.id, enrolments.c.status == "completed")).scalars())
        request.state.lms_enrolled_courses = found
    return found


def may_read_text(request, item: dict) -> bool:
    """Whether the caller may read the item's text: enrolled in its course, or may edit it or the course."""
    if item["type"] not in GATED_TYPES:
        return True
    if not request.user.is_authenticated:
        return False
    if can_edit(request, item):
        return True
    course = course_of(request, item)
    return course is not None and (course["id"] in enrolled_courses(request) or can_edit(request, course))

