"""`sitehost lms import FILE.json`: load a whole catalogue; running it again changes nothing.

Items are matched to what is already there by slug (courses) and by title under their
parent (topics, lessons, quizzes, announcements), questions by their position and title in
the quiz; an item is written only when something differs, so a second run of the same file
writes nothing. The whole file is checked first and loaded in one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate
from sqlalchemy import delete, select, update

from host.text import sanitize_textarea_field

from .model import (ANNOUNCEMENT, CATEGORY, COURSE, DISABLE_QA, LESSON, LESSON_VIDEO, LEVELS, PRICE, PRICE_TYPES, QUIZ,
                    QUIZ_OPTIONS, TAG, TOPIC, VIDEO_SOURCES)
from .tables import ANSWERS, QUESTIONS, RATINGS, table
from .apikeys import utcnow
from .answers import bump

STATUSES = ["publish", "draft", "pending", "private"]
QUESTION_TYPES = ["true_false", "single_choice", "multiple_choice", "open_ended", "fill_in_the_blank", "short_answer"]
MAX_BYTES = 32 * 1024 * 1024


def _text(length: int = 20000, **kwargs):
    return fields.String(load_default="", validate=validate.Length(max=length), **kwargs)


class _Strict(Schema):
    class Meta:
        unknown = EXCLUDE


class _Exact(Schema):
    """Nested values stored as typed meta: only the keys the meta schema allows (others are refused)."""



class DurationSchema(_Exact):
    hours = fields.Integer(load_default=0, validate=validate.Range(min=0, max=9999))
    minutes = fields.Integer(load_default=0, validate=validate.Range(min=0, max=59))


class VideoSchema(_Exact):
    source = fields.String(validate=validate.OneOf(VIDEO_SOURCES))
    url = fields.String(validate=validate.Length(max=2000))


class CourseSettingsSchema(_Exact):
    maximum_students = fields.Integer(validate=validate.Range(min=0, max=100000))
    enrollment_expiry = fields.Integer(validate=validate.Range(min=0, max=3650))
    enable_content_drip = fields.Boolean()


class TimeLimitSchema(_Exact):
    time_value = fields.Integer(validate=validate.Range(min=0, max=100000))
    time_type = fields.String(validate=validate.OneOf(["seconds", "minutes", "hours", "days", "weeks"]))


class QuizOptionsSchema(_Exact):
    time_limit = fields.Nested(TimeLimitSchema)
    attempts_allowed = fields.Integer(validate=validate.Range(min=0, max=100))
    passing_grade = fields.Integer(validate=validate.Range(min=0, max=100))
    max_questions_for_answer = fields.Integer(validate=validate.Range(min=0, max=1000))
    feedback_mode = fields.String(validate=validate.OneOf(["default", "reveal", "retry"]))


class AnswerSchema(_Strict):
    title = fields.String(required=True, validate=validate.Length(min=1, max=1000))
    correct = fields.Boolean(load_default=False)


class QuestionSchema(_Strict):
    title = fields.String(required=True, validate=validate.Length(min=1, max=2000))
    description = _text()
    type = fields.String(load_default="single_choice", validate=validate.OneOf(QUESTION_TYPES))
    mark = fields.Float(load_default=1, validate=validate.Range(min=0, max=1000))
    settings = fields.Dict(load_default=dict)
    answers = fields.List(fields.Nested(AnswerSchema), load_default=list, validate=validate.Length(max=50))


class ItemSchema(_Strict):
    title = fields.String(required=True, validate=validate.Length(min=1, max=500))
    content = _text(200000)
    status = fields.String(load_default="publish", validate=validate.OneOf(STATUSES))


class LessonSchema(ItemSchema):
    video = fields.Nested(VideoSchema, load_default=dict)


class QuizSchema(ItemSchema):
    options = fields.Nested(QuizOptionsSchema, load_default=dict)
    questions = fields.List(fields.Nested(QuestionSchema), load_default=list, validate=validate.Length(max=500))


class TopicSchema(ItemSchema):
    lessons = fields.List(fields.Nested(LessonSchema), load_default=list, validate=validate.Length(max=500))
    quizzes = fields.List(fields.Nested(QuizSchema), load_default=list, validate=validate.Length(max=100))


class RatingSchema(_Strict):
    user = fields.String(required=True, validate=validate.Length(min=1, max=200))  # login or email
    rating = fields.Integer(required=True, validate=validate.Range(min=1, max=5))
    review = _text(5000)
    status = fields.String(load_default="approved", validate=validate.OneOf(["approved", "pending"]))


class CourseSchema(ItemSchema):
    slug = fields.String(load_default="", validate=validate.Regexp(r"^[a-z0-9-]{0,200}$"))
    excerpt = _text(5000)
    author = fields.String(load_default="", validate=validate.Length(max=200))
    categories = fields.List(fields.String(validate=validate.Length(min=1, max=200)), load_default=list,
                             validate=validate.Length(max=20))
    tags = fields.List(fields.String(validate=validate.Length(min=1, max=200)), load_default=list,
                       validate=validate.Length(max=20))
    price_type = fields.String(load_default="free", validate=validate.OneOf(PRICE_TYPES))
    price = fields.Float(load_default=0, validate=validate.Range(min=0, max=1000000))
    level = fields.String(load_default="all_levels", validate=validate.OneOf(LEVELS))
    duration = fields.Nested(DurationSchema, load_default=lambda: {"hours": 0, "minutes": 0})
    benefits = _text(5000)
    requirements = _text(5000)
    target_audience = _text(5000)
    materials = _text(5000)
    video = fields.Nested(VideoSchema, load_default=dict)
    disable_qa = fields.Boolean(load_default=False)
    settings = fields.Nested(CourseSettingsSchema, load_default=dict)
    topics = fields.List(fields.Nested(TopicSchema), load_default=list, validate=validate.Length(max=200))
    announcements = fields.List(fields.Nested(ItemSchema), load_default=list, validate=validate.Length(max=200))
    ratings = fields.List(fields.Nested(RatingSchema), load_default=list, validate=validate.Length(max=1000))


class CatalogueSchema(_Strict):
    courses = fields.List(fields.Nested(CourseSchema), required=True, validate=validate.Length(max=10000))


class ImportError_(ValueError):
    """The file cannot be loaded (nothing was written)."""


def read_catalogue(text: str) -> dict:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ImportError_(f"not JSON: {error}") from None
    try:
        return CatalogueSchema().load(data if isinstance(data, dict) else {"courses": data})
    except ValidationError as error:
        raise ImportError_(f"invalid catalogue: {json.dumps(error.messages)[:2000]}") from None


class WriteContext:
    """What the content service needs of a request, for writes made outside one (CLI, demo).

    `after_commit` callbacks (content_saved events) are kept; call `finished()` once committed.
    """

    def __init__(self, app, session, user):
        self.app, self.session, self.user = app, session, user
        self._callbacks: list[Callable[[], None]] = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def finished(self) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    questions: int = 0
    ratings: int = 0
    details: list[str] = field(default_factory=list)


def _sync(context, counts: Counts, post_type: str, existing: dict | None, wanted: dict[str, Any]) -> dict:
    content = context.app.content
    if existing is None:
        counts.created += 1
        return content.create(context, post_type, **wanted)
    changed = {}
    for name, value in wanted.items():
        if name == "meta":
            meta = {key: val for key, val in value.items() if existing["meta"].get(key) != val}
            if meta:
                changed["meta"] = meta
        elif name == "terms":
            terms = {taxonomy: ids for taxonomy, ids in value.items()
                     if sorted(term_id for term_id, _slug in existing["terms"].get(taxonomy, [])) != sorted(ids)}
            if terms:
                changed["terms"] = terms
        elif name != "author" and existing.get(name) != value:
            changed[name] = value
    if not changed:
        counts.unchanged += 1
        return existing
    counts.updated += 1
    return content.update(context, existing["id"], **changed)


def _children(context, post_type: str, parent_id: int) -> dict[str, dict]:
    items, page = [], 1
    while True:
        found, total = context.app.content.query(context, post_type, status=STATUSES, parent=[parent_id],
                                                 per_page=100, page=page, orderby="id", order="asc")
        items += found
        if page * 100 >= total or not found:
            break
        page += 1
    return {item["title"]: item for item in items}


def import_catalogue(context, catalogue: dict, default_author: int, find_author: Callable[[str], int | None],
                     progress: Callable[[int], None] = lambda step: None) -> Counts:
    counts = Counts()
    content = context.app.content
    existing_courses = {}
    page = 1
    while True:
        found, total = content.query(context, COURSE, status=STATUSES, per_page=100, page=page, orderby="id",
                                     order="asc")
        existing_courses.update({item["slug"]: item for item in found})
        if page * 100 >= total or not found:
            break
        page += 1
    for entry in catalogue["courses"]:
        author = (find_author(entry["author"]) if entry["author"] else None) or default_author
        terms = {CATEGORY: [term["id"] for term in content.terms(context, CATEGORY, names=entry["categories"],
                                                                 create=True)],
                 TAG: [term["id"] for term in content.terms(context, TAG, names=entry["tags"], create=True)]}
        meta = {"lms_price_type": entry["price_type"], PRICE: entry["price"], "lms_level": entry["level"],
                "lms_duration": entry["duration"], "lms_benefits": entry["benefits"],
                "lms_requirements": entry["requirements"], "lms_target_audience": entry["target_audience"],
                "lms_material_includes": entry["materials"], "lms_video": entry["video"],
                DISABLE_QA: entry["disable_qa"], "lms_course_settings": entry["settings"]}
        slug = entry["slug"] or _slug_of(entry["title"])
        wanted = {"title": entry["title"], "content": entry["content"], "excerpt": entry["excerpt"],
                  "status": entry["status"], "meta": meta, "terms": terms}
        if slug not in existing_courses:
            wanted.update(slug=slug, author=author)
        course = _sync(context, counts, COURSE, existing_courses.get(slug), wanted)
        existing_courses[course["slug"]] = course
        topics = _children(context, TOPIC, course["id"])
        for position, topic_entry in enumerate(entry["topics"]):
            topic = _sync(context, counts, TOPIC, topics.get(topic_entry["title"]), {
                "title": topic_entry["title"], "content": topic_entry["content"], "status": topic_entry["status"],
                "parent": course["id"], "menu_order": position, "author": author})
            lessons = _children(context, LESSON, topic["id"])
            quizzes = _children(context, QUIZ, topic["id"])
            order = 0
            for lesson_entry in topic_entry["lessons"]:
                _sync(context, counts, LESSON, lessons.get(lesson_entry["title"]), {
                    "title": lesson_entry["title"], "content": lesson_entry["content"],
                    "status": lesson_entry["status"], "parent": topic["id"], "menu_order": order, "author": author,
                    "meta": {LESSON_VIDEO: lesson_entry["video"]}})
                order += 1
            for quiz_entry in topic_entry["quizzes"]:
                quiz = _sync(context, counts, QUIZ, quizzes.get(quiz_entry["title"]), {
                    "title": quiz_entry["title"], "content": quiz_entry["content"], "status": quiz_entry["status"],
                    "parent": topic["id"], "menu_order": order, "author": author,
                    "meta": {QUIZ_OPTIONS: quiz_entry["options"]}})
                order += 1
                counts.questions += sync_questions(context, quiz["id"], quiz_entry["questions"])
        announcements = _children(context, ANNOUNCEMENT, course["id"])
        for announcement in entry["announcements"]:
            _sync(context, counts, ANNOUNCEMENT, announcements.get(announcement["title"]), {
                "title": announcement["title"], "content": announcement["content"], "status": announcement["status"],
                "parent": course["id"], "author": author})
        counts.ratings += sync_ratings(context, course["id"], entry["ratings"], find_author)
        progress(1)
    return counts


def _slug_of(title: str) -> str:
    text = "".join(character if character.isalnum() else "-" for character in title.lower())
    return "-".join(part for part in text.split("-") if part)[:200] or "course"


def sync_ratings(context, course_id: int, ratings: list[dict], find_user: Callable[[str], int | None]) -> int:
    """Ratings by users named by login or email (unknown ones are skipped); rows written when they differ."""
    table_ratings = table(context.app, RATINGS)
    session = context.session
    current = {row.user_id: row for row in session.execute(
        select(table_ratings).where(table_ratings.c.course_id == course_id))}
    written = 0
    for entry in ratings:
        user_id = find_user(entry["user"])
        if user_id is None:
            continue
        # A learner's words, shown on the public course page: plain text, as the reference keeps reviews.
        values = {"rating": entry["rating"], "review": sanitize_textarea_field(entry["review"]), "status": entry["status"]}
        row = current.get(user_id)
        if row is None:
            session.execute(table_ratings.insert().values(course_id=course_id, user_id=user_id, created=utcnow(),
                                                          **values))
            current[user_id] = values  # a user named twice: the first entry counts
        elif isinstance(row, dict) or all(getattr(row, name) == value for name, value in values.items()):
            continue
        else:
            session.execute(update(table_ratings).where(table_ratings.c.id == row.id).values(**values))
        written += 1
    if written:
        bump(context.app, session)
    return written


def sync_questions(context, quiz_id: int, questions: list[dict]) -> int:
    """Make the quiz's questions those listed; rows are rewritten only when they differ. Questions written."""
    table_questions, table_answers = table(context.app, QUESTIONS), table(context.app, ANSWERS)
    session = context.session
    current = {row.import_key: row for row in session.execute(
        select(table_questions).where(table_questions.c.quiz_id == quiz_id))}
    written = 0
    keys = set()
    for position, question in enumerate(questions):
        key = f"{position}:{question['title']}"[:200]
        keys.add(key)
        values = {"title": question["title"], "description": question["description"], "type": question["type"],
                  "mark": question["mark"], "settings": json.dumps(question["settings"], sort_keys=True),
                  "position": position}
        answers = [(answer["title"], answer["correct"]) for answer in question["answers"]]
        row = current.get(key)
        if row is not None:
            stored = [(answer.title, answer.is_correct) for answer in session.execute(
                select(table_answers).where(table_answers.c.question_id == row.id)
                .order_by(table_answers.c.position, table_answers.c.id))]
            if all(getattr(row, name) == value for name, value in values.items()) and stored == answers:
                continue
            session.execute(update(table_questions).where(table_questions.c.id == row.id).values(**values))
            session.execute(delete(table_answers).where(table_answers.c.question_id == row.id))
            question_id = row.id
        else:
            question_id = session.execute(table_questions.insert().values(
                quiz_id=quiz_id, import_key=key, **values)).inserted_primary_key[0]
        for index, (title, correct) in enumerate(answers):
            session.execute(table_answers.insert().values(question_id=question_id, title=title, is_correct=correct,
                                                          position=index))
        written += 1
    stale = [row.id for key, row in current.items() if key not in keys]
    if stale:
        session.execute(delete(table_answers).where(table_answers.c.question_id.in_(stale)))
        session.execute(delete(table_questions).where(table_questions.c.id.in_(stale)))
        written += len(stale)
    return written
