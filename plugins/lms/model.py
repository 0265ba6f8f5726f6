"""What the lms plugin registers with the content store: its post types, taxonomies and course meta.

Courses, topics, lessons, quizzes and announcements are items of the content store, so staff
manage them through core/v2 (with revisions and trash) and lms/v1 reads them through the
content service. A topic's and an announcement's parent is its course; a lesson's and a
quiz's parent is its topic; `menu_order` orders siblings.

Public addresses (pages.py serves them) follow the reference course plugin's defaults where it has
them: a course at `/courses/<slug>/`, its categories and tags at `/course-category/<slug>/` and
`/course-tag/<slug>/`. The reference nests lessons and quizzes under their course
(`/courses/<course>/lessons/<slug>/`); here they have addresses of their own, `/lesson/<slug>/` and
`/quiz/<slug>/`, since core builds a type's link from one segment and the slug, and a lesson moved
to another course keeps its address (the nested ones redirect there). A topic, which the reference
gives no page, answers at `/topic/<slug>/` with a redirect to its section of the course page.
Announcements are not public (no page, sitemap or search entry), and the text of topics, lessons,
quizzes and announcements is for the course's learners and editors (catalogue.may_read_text, `text_access`).
"""

from __future__ import annotations

from typing import Any, Callable

from host import MetaKey, PostType, Taxonomy

COURSE, TOPIC, LESSON, QUIZ, ANNOUNCEMENT = "lms_course", "lms_topic", "lms_lesson", "lms_quiz", "lms_announcement"
CATEGORY, TAG = "course-category", "course-tag"
CONTENT_TYPES = (LESSON, QUIZ)  # what a topic holds
COURSE_BASE, TOPIC_BASE, LESSON_BASE, QUIZ_BASE = "courses", "topic", "lesson", "quiz"  # first path segments

_CHILD_SUPPORTS = ("title", "editor", "author", "revisions", "page-attributes")


def post_types(may_read_text: Callable[[Any, dict], bool]) -> list[PostType]:
    """The post types; `may_read_text` decides who reads a topic's, lesson's, quiz's or announcement's text."""
    return [
        PostType(COURSE, "Courses", rest_base="courses", taxonomies=(CATEGORY, TAG), rewrite=COURSE_BASE,
                 supports=("title", "editor", "author", "excerpt", "revisions", "thumbnail")),
        # hierarchical: core/v2 then offers `parent` and `menu_order` on them (the course or topic, and the order)
        PostType(TOPIC, "Topics", rest_base="topics", hierarchical=True, supports=_CHILD_SUPPORTS,
                 rewrite=TOPIC_BASE, text_access=may_read_text),
        PostType(LESSON, "Lessons", rest_base="lessons", hierarchical=True, supports=_CHILD_SUPPORTS + ("thumbnail",),
                 rewrite=LESSON_BASE, text_access=may_read_text),
        PostType(QUIZ, "Quizzes", rest_base="quizzes", hierarchical=True, supports=_CHILD_SUPPORTS,
                 rewrite=QUIZ_BASE, text_access=may_read_text),
        # A notice board for a course's learners: no public page, sitemap, feed or search entry.
        PostType(ANNOUNCEMENT, "Course announcements", rest_base="course-announcements", hierarchical=True,
                 supports=_CHILD_SUPPORTS, public=False, text_access=may_read_text),
    ]


def taxonomies() -> list[Taxonomy]:
    return [
        Taxonomy(CATEGORY, "Course categories", rest_base="course-category", hierarchical=True, object_types=(COURSE,),
                 rewrite=CATEGORY),
        Taxonomy(TAG, "Course tags", rest_base="course-tag", object_types=(COURSE,), rewrite=TAG),
    ]


LEVELS = ["all_levels", "beginner", "intermediate", "expert"]
PRICE_TYPES = ["free", "paid"]
VIDEO_SOURCES = ["", "html5", "external_url", "youtube", "vimeo", "embedded"]
_TEXT = {"type": "string", "default": "", "maxLength": 5000}
_VIDEO = {"type": "object", "default": {}, "additionalProperties": False,
          "properties": {"source": {"type": "string", "enum": VIDEO_SOURCES},
                         "url": {"type": "string", "maxLength": 2000},
                         "runtime": {"type": "object", "additionalProperties": False,
                                     "properties": {"hours": {"type": "integer", "minimum": 0, "maximum": 999},
                                                    "minutes": {"type": "integer", "minimum": 0, "maximum": 59},
                                                    "seconds": {"type": "integer", "minimum": 0, "maximum": 59}}}}}

# meta key -> (JSON Schema with its default, the course object's additional_info name)
COURSE_META = {
    "lms_course_settings": ({"type": "object", "default": {}, "additionalProperties": False, "properties": {
        "maximum_students": {"type": "integer", "minimum": 0, "maximum": 100000},
        "enrollment_expiry": {"type": "integer", "minimum": 0, "maximum": 3650},
        "enable_content_drip": {"type": "boolean"}}}, "course_settings"),
    "lms_price_type": ({"type": "string", "default": "free", "enum": PRICE_TYPES}, "course_price_type"),
    "lms_duration": ({"type": "object", "default": {"hours": 0, "minutes": 0}, "additionalProperties": False,
                      "properties": {"hours": {"type": "integer", "minimum": 0, "maximum": 9999},
                                     "minutes": {"type": "integer", "minimum": 0, "maximum": 59}}},
                     "course_duration"),
    "lms_level": ({"type": "string", "default": "all_levels", "enum": LEVELS}, "course_level"),
    "lms_benefits": (_TEXT, "course_benefits"),
    "lms_requirements": (_TEXT, "course_requirements"),
    "lms_target_audience": (_TEXT, "course_target_audience"),
    "lms_material_includes": (_TEXT, "course_material_includes"),
    "lms_video": (_VIDEO, "video"),
}
DISABLE_QA = "lms_disable_qa"
PRICE = "lms_price"
LESSON_VIDEO = "lms_video"
LESSON_ATTACHMENTS = "lms_attachments"
QUIZ_OPTIONS = "lms_quiz_options"
QUIZ_OPTIONS_SCHEMA = {"type": "object", "default": {}, "additionalProperties": False, "properties": {
    "time_limit": {"type": "object", "additionalProperties": False, "properties": {
        "time_value": {"type": "integer", "minimum": 0, "maximum": 100000},
        "time_type": {"type": "string", "enum": ["seconds", "minutes", "hours", "days", "weeks"]}}},
    "attempts_allowed": {"type": "integer", "minimum": 0, "maximum": 100},
    "passing_grade": {"type": "integer", "minimum": 0, "maximum": 100},
    "max_questions_for_answer": {"type": "integer", "minimum": 0, "maximum": 1000},
    "feedback_mode": {"type": "string", "enum": ["default", "reveal", "retry"]}}}


def meta_keys() -> list[MetaKey]:
    keys = [MetaKey(COURSE, key, schema) for key, (schema, _name) in COURSE_META.items()]
    keys += [MetaKey(COURSE, DISABLE_QA, {"type": "boolean", "default": False}),
             MetaKey(COURSE, PRICE, {"type": "number", "default": 0, "minimum": 0, "maximum": 1000000})]
    keys += [MetaKey(LESSON, LESSON_VIDEO, _VIDEO),
             MetaKey(LESSON, LESSON_ATTACHMENTS, {"type": "array", "default": [], "maxItems": 50,
                                                  "items": {"type": "integer", "minimum": 1}}),
             MetaKey(QUIZ, QUIZ_OPTIONS, QUIZ_OPTIONS_SCHEMA)]
    return keys
