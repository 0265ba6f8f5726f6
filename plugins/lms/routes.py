"""lms/v1 read routes: permission functions, handlers, the route table.

Every answer is HTTP 200 with the original's envelope `{code, message, data}`, found or not;
only refusals (401/403 rest_forbidden) and malformed parameters (400) use the host's error
shape. See README, "Learning catalogue (lms/v1)", for the quirks kept and fixed.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select

from host import Route, forbidden, invalid_param
from host.auth import users as user_service
from host.text import sanitize_textarea_field

from . import admin, webhook
from .answers import kept
from .apikeys import READING, api_key_of
from .catalogue import (
    additional_info, as_id, author_records, can_edit, children, course_of_topic, decode, find_course,
    is_numeric_text, load_terms, post_record, price_text, protected, ratings_of, short_record, term_objects,
    thumbnail_url, visible_course, visible_quiz, visible_topic, wp_date,
)
from .model import ANNOUNCEMENT, CATEGORY, COURSE, CONTENT_TYPES, LESSON, LESSON_ATTACHMENTS, LESSON_VIDEO, PRICE, \
    QUIZ, QUIZ_OPTIONS, TAG, TOPIC
from .schemas import CourseIdArgs, CourseListQuery, IdArgs, NoArgs, RatingQuery, TopicIdArgs, read_query
from .settings import settings_of
from .tables import ANSWERS, ATTEMPT_ANSWERS, ATTEMPTS, QUESTIONS, RATINGS, table

NAMESPACE = "lms/v1"
ID = r"(?P<id>[\d]+)"
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


def envelope(code: str, message: str, data) -> dict:
    return {"code": code, "message": message, "data": data}


# --- permissions --------------------------------------------------------------------------------

def can_read(request) -> bool:
    """An API key whose level includes reading, or a signed-in user who may read (application password).

    Then the original's `id` guard (§6.1): an `id` naming a course that is not published, or any
    write naming a course, needs a caller who may edit that course.
    """
    return can_read_without_guard(request) and course_guard(request)


def course_guard(request) -> bool:
    course = find_course(request, as_id(request.url_params.get("id")))
    if course is None:
        return True
    if (request.method in WRITE_METHODS or course["status"] != "publish") and not can_edit(request, course):
        raise forbidden(request.user)
    return True


def _raw_id(request, name: str):
    """A declared, untyped id argument: absent (None), or a number (else 400, as the original's is_numeric)."""
    value = request.params.get(name)
    if value is None or value == "":
        return None
    if not is_numeric_text(value):
        raise invalid_param({name: f"{name} is not a number."})
    return value


# --- courses --------------------------------------------------------------------------------------

def _course_object(request, item: dict, authors: dict, terms: dict, ratings: dict) -> dict:
    record = post_record(request, item)
    record["post_author"] = authors.get(item["author"], {})
    record["thumbnail_url"] = thumbnail_url(request, item)
    record["additional_info"] = additional_info(item)
    record["ratings"] = ratings[item["id"]]
    record["course_category"] = term_objects(item["terms"].get(CATEGORY, []), terms)
    record["course_tag"] = term_objects(item["terms"].get(TAG, []), terms)
    record["price"] = price_text(item)
    return record


def _term_filter(request, query: dict) -> dict | None:
    names = {taxonomy: [name.strip() for name in query[field].split(",") if name.strip()]
             for field, taxonomy in (("categories", CATEGORY), ("tags", TAG))}
    if not any(names.values()):
        return None
    return {taxonomy: [term["id"] for term in request.app.content.terms(request, taxonomy, names=wanted)]
            for taxonomy, wanted in names.items() if wanted}


def list_courses(request):
    query = read_query(request, CourseListQuery)
    return kept(request, "courses", tuple(sorted(query.items())), lambda: _course_list(request, query))


def _course_list(request, query: dict) -> dict:
    per_page = settings_of(request.app).per_page
    terms = _term_filter(request, query)
    ordering = {"orderby": "meta_value_num", "meta_key": PRICE} if query["orderby"] == "price" else {"orderby": "title"}
    items, total = request.app.content.query(
        request, COURSE, status=("publish",), per_page=per_page, page=query["paged"], order=query["order"].lower(),
        terms=terms, terms_relation="OR", **ordering)
    if not items:
        return envelope("not_found", "Course not found", [])
    authors = author_records(request, [item["author"] for item in items])
    known_terms = load_terms(request, items)
    ratings = ratings_of(request, [item["id"] for item in items])
    return envelope("success", "Course retrieved successfully", {
        "posts": [_course_object(request, item, authors, known_terms, ratings) for item in items],
        "total_course": total, "total_page": -(-total // per_page)})


def course_detail(request):
    """Always `course_detail`: an unknown id answers empty lists, as the original does."""
    course = visible_course(request, as_id(request.url_params.get("id")))
    if course is None:
        return envelope("course_detail", "Detail not found for given ID", additional_info(None))
    return envelope("course_detail", "Course detail retrieved successfully", additional_info(course))


def course_contents(request):
    return kept(request, "course-contents", request.url_params.get("id"), lambda: _course_contents(request))


def _course_contents(request) -> dict:
    course = visible_course(request, as_id(request.url_params.get("id")))
    topics = children(request, TOPIC, [course["id"]], can_edit(request, course)) if course else []
    if not topics:
        return envelope("not_found", "Contents for this course with the given course id not found", [])
    editable = can_edit(request, course)
    contents = {topic["id"]: [] for topic in topics}
    items = [item for post_type in CONTENT_TYPES for item in children(request, post_type, list(contents), editable)]
    items.sort(key=lambda item: (item["menu_order"], item["id"]))
    for item in items:
        contents[item["parent"]].append(post_record(request, item))
    return envelope("success", "Course contents retrieved successfully", [
        {"id": topic["id"], "title": topic["title"], "summary": "" if protected(request, topic) else topic["content"],
         "contents": contents[topic["id"]]} for topic in topics])


def list_topics(request):
    raw = _raw_id(request, "course_id")
    if raw is None:
        return envelope("get_topic", "course_id is required", [])  # the original's code for this case
    course = visible_course(request, as_id(raw))
    topics = children(request, TOPIC, [course["id"]], can_edit(request, course)) if course else []
    if not topics:
        return envelope("not_found", "Topic not found for given course ID", [])
    return envelope("get_topic", "Topic retrieved successfully", [short_record(request, topic) for topic in topics])


def _topic_items(request, post_type: str):
    raw = _raw_id(request, "topic_id")
    topic = visible_topic(request, as_id(raw)) if raw is not None else None
    if topic is None:
        return None, []
    course = course_of_topic(request, topic)
    return topic, children(request, post_type, [topic["id"]], bool(course) and can_edit(request, course))


def list_lessons(request):
    if _raw_id(request, "topic_id") is None:
        return envelope("not_found", "topic_id is required", [])
    topic, lessons = _topic_items(request, LESSON)
    if not lessons:
        return envelope("not_found", "Lesson not found for the given topic ID", [])
    data = []
    for lesson in lessons:
        record = short_record(request, lesson)
        hidden = protected(request, lesson)  # the video and files are the lesson's text: its learners' only
        record["topic_id"] = topic["id"]
        record["attachments"] = [] if hidden else _attachment_urls(request, lesson["meta"].get(LESSON_ATTACHMENTS) or [])
        record["thumbnail"] = thumbnail_url(request, lesson)
        record["video"] = [{} if hidden else lesson["meta"].get(LESSON_VIDEO) or {}]
        data.append(record)
    return envelope("success", "Lesson retrieved successfully", data)


def _attachment_urls(request, ids: list) -> list[str]:
    """Addresses of the lesson's attachments the caller may read (core's own read check, through the service)."""
    urls = []
    for media_id in ids[:50]:
        media = request.app.content.view(request, int(media_id), user=request.user, post_type="attachment")
        if media is not None and media.get("source_url"):
            urls.append(media["source_url"])
    return urls


def _quiz_record(request, quiz: dict) -> dict:
    record = short_record(request, quiz)
    record["quiz_settings"] = [{} if protected(request, quiz) else quiz["meta"].get(QUIZ_OPTIONS) or {}]
    return record


def list_quizzes(request):
    _topic, quizzes = _topic_items(request, QUIZ)
    if not quizzes:
        return envelope("not_found", "Quiz not found for given ID", [])
    return envelope("success", "Quiz retrieved successfully", [_quiz_record(request, quiz) for quiz in quizzes])


def _questions(request, quiz: dict) -> list[dict]:
    """The quiz's questions with their answers, in order. `is_correct` only for those who may edit the
    quiz: the original gave every key holder the answer sheet."""
    questions, answers = table(request.app, QUESTIONS), table(request.app, ANSWERS)
    rows = request.session.execute(request.app.db.prepared("lms.questions_of_quiz", lambda: select(questions).where(
        questions.c.quiz_id == bindparam("quiz_id")).order_by(questions.c.position, questions.c.id)),
        {"quiz_id": quiz["id"]}).all()
    if not rows:
        return []
    answer_rows = request.session.execute(select(answers).where(answers.c.question_id.in_([row.id for row in rows]))
                                          .order_by(answers.c.position, answers.c.id)).all()
    staff = can_edit(request, quiz)
    by_question: dict[int, list] = {row.id: [] for row in rows}
    for answer in answer_rows:
        shaped = {"answer_id": answer.id, "answer_title": answer.title}
        if staff:
            shaped["is_correct"] = "1" if answer.is_correct else "0"
        by_question[answer.question_id].append(shaped)
    return [{"question_id": row.id, "question_title": row.title, "question_description": row.description,
             "question_type": row.type, "question_mark": _number(row.mark),
             "question_settings": decode(row.settings, {}), "question_answers": by_question[row.id]} for row in rows]


def _number(value: float) -> str:
    """Marks as the original's DECIMAL columns read: "1.00"."""
    return f"{float(value):.2f}"


def get_quiz(request):
    quiz = visible_quiz(request, as_id(request.url_params.get("id")))
    if quiz is None:
        return envelope("not_found", "Quiz not found for given ID", [])
    record = _quiz_record(request, quiz)
    record["quiz_questions"] = [] if protected(request, quiz) else _questions(request, quiz)
    return envelope("success", "Quiz retrieved successfully", record)


def quiz_question_answers(request):
    quiz = visible_quiz(request, as_id(request.url_params.get("id")))
    questions = _questions(request, quiz) if quiz and not protected(request, quiz) else []
    if not questions:
        return envelope("not_found", "Question not found for given ID", [])
    return envelope("success", "Question retrieved successfully", questions)


def quiz_attempt_details(request):
    """Attempts of the quiz, each with ITS answers (the original attached every attempt's answers to
    each). Staff who may edit the quiz see every attempt; anyone else only their own."""
    quiz = visible_quiz(request, as_id(request.url_params.get("id")))
    if quiz is None:
        return envelope("not_found", "Quiz attempts not found for given ID", [])
    attempts, answers, questions, choices = (table(request.app, name) for name in (ATTEMPTS, ATTEMPT_ANSWERS, QUESTIONS,
                                                                                   ANSWERS))
    query = select(attempts).where(attempts.c.quiz_id == quiz["id"]).order_by(attempts.c.id)
    if not can_edit(request, quiz):
        query = query.where(attempts.c.user_id == request.user.id)
    rows = request.session.execute(query.limit(500)).all()
    if not rows:
        return envelope("not_found", "Quiz attempts not found for given ID", [])
    answer_rows = request.session.execute(
        select(answers, questions.c.title.label("question_title")).join(questions, questions.c.id == answers.c.question_id)
        .where(answers.c.attempt_id.in_([row.id for row in rows])).order_by(answers.c.id)).all()
    choice_ids = {choice for row in answer_rows for choice in _choice_ids(decode(row.given_answer, None))}
    titles = dict(request.session.execute(select(choices.c.id, choices.c.title).where(
        choices.c.id.in_(sorted(choice_ids)))).all()) if choice_ids else {}
    by_attempt: dict[int, list] = {row.id: [] for row in rows}
    for answer in answer_rows:
        given = decode(answer.given_answer, None)
        if isinstance(given, (int, list)) and not isinstance(given, bool):
            given = [{"answer_title": titles[choice]} for choice in _choice_ids(given) if choice in titles]
        by_attempt[answer.attempt_id].append({
            "question_title": answer.question_title, "given_answer": given,
            "question_mark": _number(answer.question_mark), "achieved_mark": _number(answer.achieved_mark),
            "minus_mark": _number(answer.minus_mark), "is_correct": "1" if answer.is_correct else "0"})
    return envelope("success", "Quiz attempts retrieved successfully", [{
        "attempt_id": row.id, "user_id": str(row.user_id), "total_questions": row.total_questions,
        "total_answered_questions": row.total_answered_questions, "total_marks": _number(row.total_marks),
        "earned_marks": _number(row.earned_marks), "attempt_info": decode(row.info, {}),
        "attempt_status": row.status, "attempt_started_at": wp_date(row.started_at),
        "attempt_ended_at": wp_date(row.ended_at), "is_manually_reviewed": "1" if row.is_manually_reviewed else "0",
        "manually_reviewed_at": wp_date(row.manually_reviewed_at) if row.manually_reviewed_at else None,
        "attempts_answer": by_attempt[row.id]} for row in rows])


def _choice_ids(given) -> list[int]:
    values = given if isinstance(given, list) else [given]
    return [value for value in values if isinstance(value, int) and not isinstance(value, bool)][:100]


def course_announcements(request):
    course = visible_course(request, as_id(request.url_params.get("id")))
    items = children(request, ANNOUNCEMENT, [course["id"]], can_edit(request, course)) if course else []
    if not items:
        return envelope("not_found", "Announcement not found for given ID", [])
    items.sort(key=lambda item: (item["date"], item["id"]), reverse=True)  # newest first, as a notice board
    return envelope("success", "Announcement retrieved successfully", [short_record(request, item) for item in items])


def author_information(request):
    """A user's public record and the ids of their published courses.

    Found only for users with a published course, the caller themself, or for callers who may
    list users (as core/v2/users does): the original answered any user id, with login and email.
    """
    user_id = as_id(request.url_params.get("id"))
    user = user_service.get_user(request.app, request.session, user_id) if user_id else None
    courses = _published_course_ids(request, user_id) if user is not None else []
    if user is None or not (courses or request.user.id == user_id or request.user.can("list_users")):
        return envelope("invalid_id", "Author not found", [])
    record = {"ID": user.id, "user_nicename": user.slug, "user_url": user.url, "user_status": "0",
              "display_name": user.display_name}
    private = author_records(request, [user.id]).get(user.id, {})
    record.update({key: private[key] for key in ("user_login", "user_email", "user_registered") if key in private})
    record["courses"] = [str(course_id) for course_id in courses]
    return envelope("success", "Author details retrieved successfully", record)


def _published_course_ids(request, user_id: int, limit: int = 1000) -> list[int]:
    ids, page = [], 1
    while len(ids) < limit:
        items, total = request.app.content.query(request, COURSE, author=[user_id], per_page=100, page=page,
                                                 orderby="id", order="asc")
        ids += [item["id"] for item in items]
        if page * 100 >= total or not items:
            break
        page += 1
    return ids[:limit]


def course_rating(request):
    query = read_query(request, RatingQuery)
    course = visible_course(request, as_id(request.url_params.get("id")))
    if course is None:
        return envelope("not_found", "Rating not found for given ID", [])
    summary = ratings_of(request, [course["id"]])[course["id"]]
    ratings = table(request.app, RATINGS)
    rows = request.session.execute(select(ratings).where(ratings.c.course_id == course["id"],
                                                         ratings.c.status == "approved")
                                   .order_by(ratings.c.created.desc(), ratings.c.id.desc())
                                   .offset(query["offset"]).limit(query["limit"])).all()
    authors = author_records(request, [row.user_id for row in rows])
    summary["reviews"] = [{
        "comment_ID": str(row.id), "comment_post_ID": str(row.course_id), "user_id": str(row.user_id),
        "display_name": authors.get(row.user_id, {}).get("display_name", ""), "comment_date": wp_date(row.created),
        "comment_content": sanitize_textarea_field(row.review), "comment_approved": row.status, "rating": str(row.rating)} for row in rows]
    return envelope("success", "Course rating retrieved successfully", summary)


def routes() -> list[Route]:
    read = {"permission": can_read}
    table_ = [
        Route(NAMESPACE, "/courses", "GET", list_courses, args=NoArgs, title="courses", **read),
        Route(NAMESPACE, f"/courses/{ID}", "GET", course_detail, args=IdArgs, **read),
        Route(NAMESPACE, "/topics", "GET", list_topics, args=CourseIdArgs, **read),
        Route(NAMESPACE, "/lessons", "GET", list_lessons, args=TopicIdArgs, **read),
        Route(NAMESPACE, f"/course-announcement/{ID}", "GET", course_announcements, args=IdArgs, **read),
        Route(NAMESPACE, "/quizzes", "GET", list_quizzes, args=TopicIdArgs, **read),
        Route(NAMESPACE, f"/quizzes/{ID}", "GET", get_quiz, args=IdArgs, **read),
        Route(NAMESPACE, f"/quiz-question-answer/{ID}", "GET", quiz_question_answers, args=IdArgs, **read),
        Route(NAMESPACE, f"/quiz-attempt-details/{ID}", "GET", quiz_attempt_details, args=IdArgs, **read),
        Route(NAMESPACE, f"/author-information/{ID}", "GET", author_information, args=IdArgs,
              permission=can_read_without_guard),
        Route(NAMESPACE, f"/course-rating/{ID}", "GET", course_rating, args=IdArgs, **read),
        Route(NAMESPACE, f"/course-contents/{ID}", "GET", course_contents, args=IdArgs, **read),
    ]
    return table_ + webhook.routes(NAMESPACE) + admin.routes(NAMESPACE)


def can_read_without_guard(request) -> bool:
    """author-information's id is a user's: the original's guard read it as a post id (a user whose id
    matched an unpublished course was refused). Here the guard skips it."""
    key = api_key_of(request)
    if key is not None:
        if key["permission"] not in READING:
            raise forbidden(request.user, "rest_forbidden", "This API key may not read.")
        return True
    if not request.user.is_authenticated or not request.user.can("read"):
        raise forbidden(request.user)
    return True
