"""Reading the catalogue for lms/v1: who may see which item, and the shapes the original answers.

Visibility: a course is visible when it is published, or to a caller who may edit it. Topics
and announcements are visible when their course is visible and they are published (or the
caller may edit the course); lessons and quizzes likewise through their topic. The original
read topics, lessons, quizzes and announcements with raw SQL that ignored every status; here
nothing inside an unpublished course reaches a caller who cannot edit it.

Text: anyone sees that a lesson exists (its title, its place in the outline), but the text, video,
attachments and questions of topics, lessons, quizzes and announcements are for learners enrolled in
the course (a completed enrolment) and for those who may edit the item or the course, as on the public
pages. core/v2 asks `may_read_text` for every such item it answers (PostType.text_access, which
model.post_types receives) and then leaves out `content`, `excerpt` and `meta`; lms/v1 and the pages
ask it through `protected`.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any, Iterable

from sqlalchemy import bindparam, func, select

from host.auth import users as user_service

from .model import ANNOUNCEMENT, CATEGORY, COURSE, COURSE_META, DISABLE_QA, LESSON, PRICE, QUIZ, TAG, TOPIC
from .tables import ENROLMENTS, RATINGS, table

EDITOR_STATUSES = ("publish", "future", "draft", "pending", "private")
MAX_ID = 2**63 - 1
ZERO_DATE = "0000-00-00 00:00:00"


def as_id(value: Any) -> int | None:
    """A positive id from a path or query value, or None (not a number, zero, or beyond 64 bits)."""
    text = str(value).strip() if value is not None else ""
    if not text.isdigit() or len(text) > 19:
        return None
    number = int(text)
    return number if 0 < number <= MAX_ID else None


def is_numeric_text(value: Any) -> bool:
    """PHP's is_numeric for the values a query string carries (the original's validate_callback)."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return True
    text = str(value).strip()
    if not text or len(text) > 40:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return text.lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")


def can_edit(request, item: dict) -> bool:
    return request.user.is_authenticated and request.user.can("edit_post", item)


def _content(request, item_id: int | None, post_type: str) -> dict | None:
    if item_id is None:
        return None
    cache = request.state.setdefault("lms_items", {})
    if (item_id, post_type) not in cache:
        cache[(item_id, post_type)] = request.app.content.get(request, item_id, post_type)
    return cache[(item_id, post_type)]


def find_course(request, course_id: int | None) -> dict | None:
    """The course, whatever its status (for the id guard and for editors); None when there is none."""
    return _content(request, course_id, COURSE)


def visible_course(request, course_id: int | None) -> dict | None:
    course = find_course(request, course_id)
    if course is None or course["status"] == "trash":
        return None
    return course if course["status"] == "publish" or can_edit(request, course) else None


def _visible_child(request, item: dict | None, parent_check) -> dict | None:
    if item is None or item["status"] == "trash":
        return None
    parent = parent_check(request, as_id(item["parent"]))
    if parent is None:
        return None
    return item if item["status"] == "publish" or can_edit(request, item) or can_edit(request, parent) else None


def visible_topic(request, topic_id: int | None) -> dict | None:
    return _visible_child(request, _content(request, topic_id, TOPIC), visible_course)


def course_of_topic(request, topic: dict) -> dict | None:
    return find_course(request, as_id(topic["parent"]))


def visible_quiz(request, quiz_id: int | None) -> dict | None:
    return _visible_child(request, _content(request, quiz_id, QUIZ), visible_topic)


def children(request, post_type: str, parent_ids: list[int], parent_editable: bool, limit: int = 1000) -> list[dict]:
    """Items of `post_type` under `parent_ids` the caller may see, in (parent, menu_order, id) order.

    `parent_editable`: the caller may edit the course they belong to, so drafts are listed too.
    """
    if not parent_ids:
        return []
    statuses = EDITOR_STATUSES if parent_editable else ("publish",)
    found: list[dict] = []
    page = 1
    while len(found) < limit:
        items, total = request.app.content.query(request, post_type, status=statuses, parent=parent_ids,
                                                 per_page=100, page=page, orderby="menu_order", order="asc")
        found += items
        if page * 100 >= total or not items:
            break
        page += 1
    order = {parent: index for index, parent in enumerate(parent_ids)}
    found.sort(key=lambda item: (order.get(item["parent"], 0), item["menu_order"], item["id"]))
    return found[:limit]


# --- who reads an item's text -------------------------------------------------------------------

GATED_TYPES = (TOPIC, LESSON, QUIZ, ANNOUNCEMENT)


def course_of(request, item: dict) -> dict | None:
    """The course an item belongs to: a topic's or an announcement's parent, a lesson's or a quiz's topic's."""
    parent = as_id(item.get("parent"))
    if item["type"] in (LESSON, QUIZ):
        topic = _content(request, parent, TOPIC)
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


# --- shapes -----------------------------------------------------------------------------------

def wp_date(value: datetime.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else ZERO_DATE


def protected(request, item: dict) -> bool:
    """Whether the caller may not read the item's text: password-protected (the original leaked it), or a
    topic, lesson, quiz or announcement of a course the caller neither takes nor edits (may_read_text)."""
    return (bool(item.get("password")) and not can_edit(request, item)) or not may_read_text(request, item)


def post_record(request, item: dict) -> dict:
    """The item as WordPress's raw post record (without `filter` and `post_password`, as the original)."""
    hidden = protected(request, item)
    return {
        "ID": item["id"], "post_author": str(item["author"] or 0), "post_date": wp_date(item["date"]),
        "post_date_gmt": wp_date(item["date_gmt"]), "post_content": "" if hidden else item["content"],
        "post_title": item["title"], "post_excerpt": "" if hidden else item["excerpt"], "post_status": item["status"],
        "comment_status": item.get("comment_status", "closed"), "ping_status": item.get("ping_status", "closed"),
        "post_name": item["slug"], "to_ping": "", "pinged": "", "post_modified": wp_date(item["modified"]),
        "post_modified_gmt": wp_date(item["modified_gmt"]), "post_content_filtered": "",
        "post_parent": item["parent"], "guid": item.get("guid") or default_guid(request, item),
        "menu_order": item["menu_order"],
        "post_type": item["type"], "post_mime_type": "", "comment_count": "0",
    }


def default_guid(request, item: dict) -> str:
    """The guid WordPress gives a post of a custom type (its plain permalink), for items stored without one."""
    return f"{request.app.site_address(request.session)}/?post_type={item['type']}&p={item['id']}"


def short_record(request, item: dict) -> dict:
    """{ID, post_title, post_content, post_name}: what the topic, quiz and announcement routes select."""
    return {"ID": item["id"], "post_title": item["title"],
            "post_content": "" if protected(request, item) else item["content"], "post_name": item["slug"]}


def additional_info(item: dict | None) -> dict:
    """The course settings as the original lists them: each a list of stored values, and disable_qa.

    For an id that is not a course, the lists are empty (the original's answer for any id).
    """
    info: dict[str, Any] = {}
    for key, (_schema, name) in COURSE_META.items():
        info[name] = [item["meta"][key]] if item is not None else []
    info["disable_qa"] = bool(item["meta"].get(DISABLE_QA)) if item is not None else False
    return info


def price_text(item: dict) -> str:
    """The regular price as the original's meta string: "" for free courses, "25" or "12.5" otherwise."""
    if item["meta"].get("lms_price_type") != "paid":
        return ""
    price = float(item["meta"].get(PRICE) or 0)
    return str(int(price)) if price.is_integer() else f"{price:.2f}".rstrip("0")


def course_price(item: dict) -> Decimal:
    """What the course costs, in whole units of `[plugins.lms] currency` (0 for a free course)."""
    if item["meta"].get("lms_price_type") != "paid":
        return Decimal(0)
    return Decimal(str(item["meta"].get(PRICE) or 0))


def may_see_private_fields(request, user_id: int) -> bool:
    return request.user.is_authenticated and (request.user.id == user_id or request.user.can("list_users"))


def author_records(request, user_ids: Iterable[int]) -> dict[int, dict]:
    """{id: author object}: ID, display_name and user_nicename; login, email and registration date
    only for the user themself and those who may list users. Never a hash or any secret."""
    wanted = sorted({user_id for user_id in user_ids if user_id})
    if not wanted:
        return {}
    users, _total = user_service.query_users(request.app, request.session, include=wanted, limit=len(wanted))
    return {user.id: _author(request, user) for user in users}


def _author(request, user) -> dict:
    """The user record as the original's database row answers it: every value a string (ID too).

    user_url (public on the user's own page and in core/v2's users) and user_status ("0": the
    column WordPress no longer uses) are for everyone; login, email and registration date stay private.
    """
    record = {"ID": str(user.id), "user_nicename": user.slug, "user_url": user.url or "", "user_status": "0",
              "display_name": user.display_name}
    if may_see_private_fields(request, user.id):
        record.update(user_login=user.login, user_email=user.email, user_registered=wp_date(user.registered))
    return record


def term_objects(pairs: list[tuple[int, str]], known: dict[int, dict]) -> list[dict]:
    return [known[term_id] for term_id, _slug in pairs if term_id in known]


def load_terms(request, items: list[dict]) -> dict[int, dict]:
    """{term id: WordPress term object} for every course category and tag of `items`, two queries in all."""
    found: dict[int, dict] = {}
    for taxonomy in (CATEGORY, TAG):
        ids = sorted({term_id for item in items for term_id, _slug in item["terms"].get(taxonomy, [])})
        if ids:
            for term in request.app.content.terms(request, taxonomy, ids=ids):
                found[term["id"]] = {"term_id": term["id"], "name": term["name"], "slug": term["slug"],
                                     "term_group": 0, "term_taxonomy_id": term["id"], "taxonomy": term["taxonomy"],
                                     "description": term["description"], "parent": term["parent"],
                                     "count": term["count"], "filter": "raw"}
    return found


# --- ratings ----------------------------------------------------------------------------------

def empty_rating() -> dict:
    return {"rating_count": 0, "rating_sum": 0, "rating_avg": "0.00",
            "count_by_value": {"5": 0, "4": 0, "3": 0, "2": 0, "1": 0}}


def ratings_of(request, course_ids: list[int]) -> dict[int, dict]:
    """{course id: rating summary} of approved ratings, in one GROUP BY for the whole page."""
    summaries = {course_id: empty_rating() for course_id in course_ids}
    if not course_ids:
        return summaries
    ratings = table(request.app, RATINGS)
    statement = request.app.db.prepared("lms.ratings_by_course", lambda: select(
        ratings.c.course_id, ratings.c.rating, func.count()).where(
        ratings.c.course_id.in_(bindparam("ids", expanding=True)), ratings.c.status == "approved")
        .group_by(ratings.c.course_id, ratings.c.rating))
    for course_id, rating, count in request.session.execute(statement, {"ids": course_ids}):
        summary = summaries[course_id]
        if 1 <= rating <= 5:
            summary["count_by_value"][str(rating)] += count
            summary["rating_count"] += count
            summary["rating_sum"] += rating * count
    for summary in summaries.values():
        if summary["rating_count"]:
            summary["rating_avg"] = f"{summary['rating_sum'] / summary['rating_count']:.2f}"
    return summaries


def decode(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def thumbnail_url(request, item: dict) -> str | bool:
    """The featured image's address, or false (as WordPress answers when there is none or it is hidden)."""
    media_id = item.get("featured_media") or 0
    if not media_id:
        return False
    media = request.app.content.view(request, int(media_id), user=request.user, post_type="attachment")
    return media.get("source_url") or False if media is not None else False

