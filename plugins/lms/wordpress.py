"""Courses to and from a WordPress export: the reference course plugin's posts, meta, ratings and enrolments.

The reference stores courses (`courses`), topics (`topics`, parent: the course), lessons
(`lesson`) and quizzes (`tutor_quiz`, parent: the topic) and announcements
(`tutor_announcements`, parent: the course) as posts; a course's settings as meta
(`_tutor_course_settings`, `_course_duration` and `_video` PHP-serialized, `_tutor_course_level`,
`_tutor_course_price_type`, `tutor_course_price`, `_tutor_course_benefits`, ...,
`_tutor_disable_qa`), a lesson's `_video` and `_tutor_attachments`, a quiz's `tutor_quiz_option`.
A rating is a comment of type `tutor_course_rating` on the course with its stars in the comment
meta `tutor_rating`; an enrolment is a `tutor_enrolled` post whose author is the learner and
whose parent is the course (status `completed`, or `cancel` once refunded).

Enrolments are not content here (lms_enrolments rows): an export gives them ids above
ENROLMENT_ID_BASE so that they never collide with the ids of the site's posts in the file.
"""

from __future__ import annotations

import datetime
from typing import Any, Iterable

from sqlalchemy import select, update

from host.text import sanitize_textarea_field
from host.wxr import WxrComment, WxrExport, WxrImport, WxrItem, WxrTerm, php_serialize, php_unserialize
from host.wxr_content import (all_items, author_logins, content_request, date_text, export_request, item_label,
                              parse_date, sync_post, term_ids, writable_status, wxr_item)

from .answers import bump
from .model import (ANNOUNCEMENT, CATEGORY, COURSE, DISABLE_QA, LESSON, LESSON_ATTACHMENTS, LESSON_VIDEO, LEVELS,
                    PRICE, PRICE_TYPES, QUIZ, QUIZ_OPTIONS, TAG, TOPIC, VIDEO_SOURCES)
from .tables import ENROLMENTS, RATINGS, table

TYPES = {"courses": COURSE, "topics": TOPIC, "lesson": LESSON, "tutor_quiz": QUIZ,
         "tutor_announcements": ANNOUNCEMENT}
WORDPRESS_TYPES = {new: old for old, new in TYPES.items()}
ENROLLED, ASSIGNMENT = "tutor_enrolled", "tutor_assignments"
RATING_COMMENT, RATING_META = "tutor_course_rating", "tutor_rating"
ENROLMENT_ID_BASE = 1_000_000_000
THUMBNAIL_KEYS = {LESSON: "_lesson_thumbnail_id"}  # the reference's own key for a lesson's image
ENROLMENT_STATUSES = {"completed": "completed", "cancel": "cancelled", "cancelled": "cancelled"}
TEXT_META = {"_tutor_course_benefits": "lms_benefits", "_tutor_course_requirements": "lms_requirements",
             "_tutor_course_target_audience": "lms_target_audience",
             "_tutor_course_material_includes": "lms_material_includes"}
SETTINGS_NUMBERS = {"maximum_students": 100000, "enrollment_expiry": 3650}
QUIZ_NUMBERS = {"attempts_allowed": 100, "passing_grade": 100, "max_questions_for_answer": 1000}
TIME_TYPES = ("seconds", "minutes", "hours", "days", "weeks")
FEEDBACK_MODES = ("default", "reveal", "retry")


def taxonomies() -> dict[str, str]:
    return {CATEGORY: CATEGORY, TAG: TAG}  # the reference's names are this site's


# --- the reference's meta as this site's -------------------------------------------------------

def _array(raw: str | None, key: str) -> dict:
    if not raw:
        return {}
    value = php_unserialize(raw)
    if value in ([], ""):
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{key} is not an array")
    return value


def _number(value: Any, top: int) -> int | None:
    try:
        number = int(str(value).strip() or "x")
    except ValueError:
        return None
    return number if 0 <= number <= top else None


def video(raw: str | None) -> dict:
    """`_video` ({source, source_youtube, source_vimeo, source_external_url, source_embedded, runtime})."""
    value = _array(raw, "_video")
    source = str(value.get("source") or "")
    source = source if source in VIDEO_SOURCES else ""
    if not source or source == "-1":
        return {}
    found: dict = {"source": source}
    url = value.get(f"source_{source}") if source != "html5" else value.get("source_video_url")
    if isinstance(url, str) and url:
        found["url"] = url[:2000]
    runtime = value.get("runtime") if isinstance(value.get("runtime"), dict) else {}
    times = {name: _number(runtime.get(name), 999 if name == "hours" else 59) for name in ("hours", "minutes",
                                                                                           "seconds")}
    if any(times.values()):
        found["runtime"] = {name: number or 0 for name, number in times.items()}
    return found


def course_meta(item: WxrItem) -> dict:
    settings = _array(item.meta_value("_tutor_course_settings"), "_tutor_course_settings")
    meta: dict = {"lms_course_settings": {name: number for name, top in SETTINGS_NUMBERS.items()
                                          if (number := _number(settings.get(name), top)) is not None}}
    if "enable_content_drip" in settings:
        meta["lms_course_settings"]["enable_content_drip"] = str(settings["enable_content_drip"]) in ("1", "True",
                                                                                                       "true", "yes")
    price_type = item.meta_value("_tutor_course_price_type") or "free"
    meta["lms_price_type"] = price_type if price_type in PRICE_TYPES else "free"
    duration = _array(item.meta_value("_course_duration"), "_course_duration")
    meta["lms_duration"] = {"hours": _number(duration.get("hours"), 9999) or 0,
                            "minutes": _number(duration.get("minutes"), 59) or 0}
    level = item.meta_value("_tutor_course_level") or "all_levels"
    meta["lms_level"] = level if level in LEVELS else "all_levels"
    for old, new in TEXT_META.items():
        meta[new] = sanitize_textarea_field(item.meta_value(old) or "")[:5000]
    meta["lms_video"] = video(item.meta_value("_video"))
    # Older versions write `_tutor_disable_qa` = "yes", newer ones `_tutor_enable_qa` = "yes"/"no".
    meta[DISABLE_QA] = (item.meta_value("_tutor_disable_qa") or "") == "yes" \
        or (item.meta_value("_tutor_enable_qa") or "") == "no"
    try:
        price = float(item.meta_value("tutor_course_price") or 0)
    except ValueError:
        price = 0.0
    meta[PRICE] = price if 0 <= price <= 1_000_000 else 0.0
    return meta


def quiz_meta(item: WxrItem) -> dict:
    options = _array(item.meta_value("tutor_quiz_option"), "tutor_quiz_option")
    found: dict = {name: number for name, top in QUIZ_NUMBERS.items()
                   if (number := _number(options.get(name), top)) is not None}
    limit = options.get("time_limit") if isinstance(options.get("time_limit"), dict) else {}
    value, kind = _number(limit.get("time_value"), 100000), limit.get("time_type")
    if value is not None and kind in TIME_TYPES:
        found["time_limit"] = {"time_value": value, "time_type": kind}
    if options.get("feedback_mode") in FEEDBACK_MODES:
        found["feedback_mode"] = options["feedback_mode"]
    return {QUIZ_OPTIONS: found}


def lesson_meta(run: WxrImport, item: WxrItem) -> dict:
    raw = item.meta_value("_tutor_attachments")
    attachments = php_unserialize(raw) if raw else []
    if not isinstance(attachments, (list, dict)):
        raise ValueError("_tutor_attachments is not an array")
    olds = attachments.values() if isinstance(attachments, dict) else attachments
    ids = [run.new_id("post", _number(old, 2**31) or 0) for old in olds]
    return {LESSON_VIDEO: video(item.meta_value("_video")), LESSON_ATTACHMENTS: [new for new in ids if new][:50]}


# --- import -----------------------------------------------------------------------------------------

def import_item(app, item: WxrItem, run: WxrImport) -> bool | None:
    if item.post_type == ENROLLED:
        _import_enrolment(run, item)
        return True
    if item.post_type == ASSIGNMENT:
        run.not_imported(item_label(item), "this site's courses have no assignments")
        return True
    post_type = TYPES.get(item.post_type)
    if post_type is None:
        return None
    status = writable_status(run, item, post_type)
    if status is None:
        return True
    request = content_request(run)
    try:
        meta = {COURSE: course_meta, QUIZ: quiz_meta}.get(post_type, lambda found: {})(item) \
            if post_type != LESSON else lesson_meta(run, item)
    except ValueError as error:
        run.not_imported(item_label(item), f"its meta cannot be read: {error}")
        return True
    terms = {CATEGORY: term_ids(run, request, CATEGORY, item.terms_of(CATEGORY)),
             TAG: term_ids(run, request, TAG, item.terms_of(TAG))} if post_type == COURSE else {}
    parent = run.new_id("post", item.parent) if item.parent else 0
    new_id, outcome = sync_post(run, request, item, post_type, status=status, meta=meta, terms=terms,
                                parent=parent or 0, thumbnail_key=THUMBNAIL_KEYS.get(post_type, "_thumbnail_id"))
    run.count(outcome)
    if item.parent and not parent:
        run.after_all(lambda later: _adopt(later, item, new_id))
    if post_type == COURSE:
        _import_ratings(run, item, new_id)
    return True


def _adopt(run: WxrImport, item: WxrItem, new_id: int) -> None:
    """A topic, lesson or quiz whose parent came later in the file: linked once everything is read."""
    parent = run.new_id("post", item.parent)
    if parent is None:
        run.not_imported(f"{item_label(item)} parent {item.parent}", "its parent is not in the file")
        return
    run.app.content.update(content_request(run), new_id, parent=parent)


def _import_ratings(run: WxrImport, item: WxrItem, course_id: int) -> None:
    ratings = table(run.app, RATINGS)
    changed = False
    for comment in item.comments:
        label = f"{item_label(item)} comment {comment.comment_id}"
        if comment.type != RATING_COMMENT:
            run.not_imported(label, f"course comments of type {comment.type[:40]!r} are not kept here")
            continue
        user_id = run.new_id("user", comment.user_id) if comment.user_id else None
        stars = _number(next((value for key, value in comment.meta if key == RATING_META), ""), 5)
        if user_id is None or not stars:
            run.not_imported(label, "a rating needs a reviewer among the file's users and 1 to 5 stars")
            continue
        if comment.approved in ("spam", "trash"):
            run.not_imported(label, f"the rating is marked {comment.approved}")
            continue
        values = {"rating": stars, "review": sanitize_textarea_field(comment.content)[:5000],
                  "status": "approved" if comment.approved in ("1", "approved") else "pending"}
        row = run.session.execute(select(ratings).where(ratings.c.course_id == course_id,
                                                        ratings.c.user_id == user_id)).first()
        if row is None:
            created = parse_date(comment.date_gmt) or datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            run.session.execute(ratings.insert().values(course_id=course_id, user_id=user_id, created=created,
                                                        **values))
            run.count("created")
        elif all(getattr(row, name) == value for name, value in values.items()):
            run.count("unchanged")
            continue
        else:
            run.session.execute(update(ratings).where(ratings.c.id == row.id).values(**values))
            run.count("updated")
        changed = True
    if changed:
        bump(run.app, run.session)


def _import_enrolment(run: WxrImport, item: WxrItem) -> None:
    status = ENROLMENT_STATUSES.get(item.status)
    if status is None:
        run.not_imported(item_label(item), f"enrolments here are completed or cancelled, not {item.status[:40]!r}")
        return
    user_id = run.user_id(item.author_login)
    if user_id is None:
        run.not_imported(item_label(item), "its learner is not among the file's authors")
        return
    course_id = run.new_id("post", item.parent) if item.parent else None
    if course_id is None:
        # The course may come later in the file.
        run.after_all(lambda later: _enrol(later, item, user_id, status, later.new_id("post", item.parent)))
        return
    _enrol(run, item, user_id, status, course_id)


def _enrol(run: WxrImport, item: WxrItem, user_id: int, status: str, course_id: int | None) -> None:
    if course_id is None:
        run.not_imported(item_label(item), "its course is not in the file")
        return
    enrolments = table(run.app, ENROLMENTS)
    row = run.session.execute(select(enrolments).where(enrolments.c.course_id == course_id,
                                                       enrolments.c.user_id == user_id)).first()
    when = parse_date(item.date_gmt) or parse_date(item.date) or datetime.datetime(1970, 1, 1)
    if row is None:
        run.session.execute(enrolments.insert().values(course_id=course_id, user_id=user_id, status=status,
                                                       source="import", event_id="", created=when, updated=when))
        run.count("created")
    elif row.status == status:
        run.count("unchanged")
    else:
        run.session.execute(update(enrolments).where(enrolments.c.id == row.id).values(status=status))
        run.count("updated")


# --- export -----------------------------------------------------------------------------------------

def _video_array(value: dict) -> str:
    if not value:
        return php_serialize({"source": "-1"})
    source = value.get("source", "")
    array: dict = {"source": source}
    if value.get("url"):
        array["source_video_url" if source == "html5" else f"source_{source}"] = value["url"]
    runtime = value.get("runtime") or {}
    array["runtime"] = {name: str(runtime.get(name, 0)) for name in ("hours", "minutes", "seconds")}
    return php_serialize(array)


def _course_export_meta(meta: dict) -> list[tuple[str, str]]:
    settings = dict(meta.get("lms_course_settings") or {})
    if "enable_content_drip" in settings:
        settings["enable_content_drip"] = "1" if settings["enable_content_drip"] else "0"
    duration = meta.get("lms_duration") or {}
    found = [("_tutor_course_settings", php_serialize(settings)),
             ("_tutor_course_price_type", meta.get("lms_price_type") or "free"),
             ("_course_duration", php_serialize({"hours": str(duration.get("hours", 0)),
                                                 "minutes": str(duration.get("minutes", 0)), "seconds": "0"})),
             ("_tutor_course_level", meta.get("lms_level") or "all_levels")]
    found += [(old, meta.get(new) or "") for old, new in TEXT_META.items()]
    found += [("_video", _video_array(meta.get("lms_video") or {})),
              ("_tutor_enable_qa", "no" if meta.get(DISABLE_QA) else "yes"),
              ("tutor_course_price", f"{float(meta.get(PRICE) or 0):g}")]
    return found


def _quiz_export_meta(meta: dict) -> list[tuple[str, str]]:
    return [("tutor_quiz_option", php_serialize(meta.get(QUIZ_OPTIONS) or {}))]


def _lesson_export_meta(meta: dict) -> list[tuple[str, str]]:
    return [("_video", _video_array(meta.get(LESSON_VIDEO) or {})),
            ("_tutor_attachments", php_serialize([str(media) for media in meta.get(LESSON_ATTACHMENTS) or []]))]


def export_items(app, export: WxrExport) -> Iterable[WxrItem]:
    request = export_request(export)
    for post_type in (COURSE, TOPIC, LESSON, QUIZ, ANNOUNCEMENT):
        items = list(all_items(export, post_type))
        logins = author_logins(export, {item["author"] for item in items})
        for item in items:
            meta = {COURSE: _course_export_meta, QUIZ: _quiz_export_meta, LESSON: _lesson_export_meta}.get(
                post_type, lambda found: [])(item["meta"])
            terms, comments = [], []
            if post_type == COURSE:
                for taxonomy in (CATEGORY, TAG):
                    ids = [term_id for term_id, _slug in item["terms"].get(taxonomy, [])]
                    terms += [WxrTerm(taxonomy, term["slug"], term["name"])
                              for term in app.content.terms(request, taxonomy, ids=ids)] if ids else []
                comments = _rating_comments(export, item["id"])
            yield wxr_item(export, item, WORDPRESS_TYPES[post_type], logins, meta=meta, terms=terms,
                           comments=comments, thumbnail_key=THUMBNAIL_KEYS.get(post_type, "_thumbnail_id"))
    yield from _enrolment_items(export)


def _rating_comments(export: WxrExport, course_id: int) -> list[WxrComment]:
    ratings = table(export.app, RATINGS)
    rows = export.session.execute(select(ratings).where(ratings.c.course_id == course_id).order_by(ratings.c.id)).all()
    users = author_logins(export, {row.user_id for row in rows})
    return [WxrComment(comment_id=row.id, author=users.get(row.user_id, ""), author_email="", author_url="",
                       author_ip="", date=date_text(row.created), date_gmt=date_text(row.created), content=row.review,
                       approved="approved" if row.status == "approved" else "hold", type=RATING_COMMENT, parent=0,
                       user_id=row.user_id, meta=[(RATING_META, str(row.rating))]) for row in rows]


def _enrolment_items(export: WxrExport) -> Iterable[WxrItem]:
    enrolments = table(export.app, ENROLMENTS)
    rows = export.session.execute(select(enrolments).order_by(enrolments.c.id)).all()
    logins = author_logins(export, {row.user_id for row in rows})
    for row in rows:
        post_id = ENROLMENT_ID_BASE + row.id
        when, link = date_text(row.created), f"{export.base_url}/?p={ENROLMENT_ID_BASE + row.id}"
        yield WxrItem(post_id=post_id, post_type=ENROLLED, title=f"Course Enrolled &ndash; {when}",
                      slug=f"course-enrolled-{row.id}", status="completed" if row.status == "completed" else "cancel",
                      content="", excerpt="", date=when, date_gmt=when, modified=date_text(row.updated),
                      modified_gmt=date_text(row.updated), author_login=logins.get(row.user_id, ""),
                      parent=row.course_id, menu_order=0, password="", is_sticky=False, comment_status="closed",
                      ping_status="closed", guid=link, link=link)
