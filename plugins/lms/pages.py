"""Public pages of the catalogue: courses, lessons, quizzes, topics, course categories and tags.

Only published items have these addresses (core's `link` gives unpublished ones the plain
`?post_type=` link); anything else answers the site's 404 without its title. A lesson's and a
quiz's text is shown to learners enrolled in its course and to those who may edit the course;
everyone else reads the course's outline and how to enrol. A free course enrols a signed-in
user from its page (a form with the session's CSRF token, through `enrolments.enrol`); a paid
one says how payment enrols; an anonymous visitor gets the sign-in link.

The templates (templates/lms_page_*.html) render through the site theme: an operator's file of the
same name in `[site] templates_dir` wins.

Anonymous answers are the same for everyone, so the course, lesson, quiz and archive pages are
`Page(cacheable=True)`: the response cache (host.page_cache, the cache plugin) keeps them for
visitors without a cookie or credentials, drops them when content changes (the course, its lessons,
its terms, a teacher's display name; ratings are written by imports, which save content too, and
removed with an account), and keeps none longer than KEEP_SECONDS, as before (a bound on what no
hook reports). A signed-in visitor's page says whether they are enrolled and shows enrolled
learners the lesson text: it is never looked up in the cache nor kept, and is sent
`private, no-store`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
from typing import Callable, Iterator

from babel.numbers import format_currency
from sqlalchemy import func, select

from host import HtmlView, Page, PageRequest, RestRequest, redirect, theme
from host.auth import users as user_service
from host.text import without_style_attributes

from .catalogue import can_edit, children, course_price, protected, ratings_of
from .enrolments import enrol
from .model import (
    ANNOUNCEMENT, CATEGORY, COURSE, COURSE_BASE, LESSON, LESSON_BASE, LESSON_VIDEO, LEVELS, QUIZ, QUIZ_BASE,
    QUIZ_OPTIONS, TAG, TOPIC, TOPIC_BASE,
)
from .settings import settings_of
from .tables import ENROLMENTS, QUESTIONS, table

MAX_SLUG = 200  # core keeps slugs shorter; a longer path segment names nothing
MAX_PAGE = 1000  # archive pages past this are refused rather than counted through
SIGN_IN_PATH = "/admin/sign-in"
MAX_ANNOUNCEMENTS = 5  # the newest, on the course page of its learners
LEVEL_NAMES = dict(zip(LEVELS, ("All levels", "Beginner", "Intermediate", "Expert")))
KEEP_SECONDS = 60.0  # at most this long in the response cache
ANONYMOUS_HEADERS = (("Cache-Control", "public, no-cache"),)  # browsers revalidate (ETag) on each visit
PERSONAL_HEADERS = (("Cache-Control", "private, no-store"),)
TIME_UNITS = {"seconds": "second", "minutes": "minute", "hours": "hour", "days": "day", "weeks": "week"}


# --- reading ----------------------------------------------------------------------------------

def published(reader, post_type: str, slug: str) -> dict | None:
    if not slug or len(slug) > MAX_SLUG:
        return None
    item = reader.app.content.get_by_slug(reader, post_type, slug, status=("publish",))
    return item if item is not None and item["slug"] == slug else None  # not a trashed item's `slug__trashed`


def published_parent(reader, item: dict, post_type: str) -> dict | None:
    parent = reader.app.content.get(reader, int(item["parent"] or 0), post_type) if item["parent"] else None
    return parent if parent is not None and parent["status"] == "publish" else None


def link(site: str, item: dict) -> str:
    base = {COURSE: COURSE_BASE, TOPIC: TOPIC_BASE, LESSON: LESSON_BASE, QUIZ: QUIZ_BASE}[item["type"]]
    return f"{site}/{base}/{item['slug']}/"


def rendered_content(reader, item: dict) -> str:
    """The item's text as core renders it for this visitor (filters, shortcodes), without inline styles."""
    shown = reader.app.content.view(reader, item["id"], user=reader.user, post_type=item["type"])
    if shown is None:
        return ""
    return without_style_attributes(str((shown.get("content") or {}).get("rendered") or ""))


def is_enrolled(reader, course_id: int) -> bool:
    if not reader.user.is_authenticated:
        return False
    enrolments = table(reader.app, ENROLMENTS)
    return reader.session.execute(select(enrolments.c.id).where(
        enrolments.c.course_id == course_id, enrolments.c.user_id == reader.user.id,
        enrolments.c.status == "completed")).first() is not None


def enrolled_count(reader, course_id: int) -> int:
    enrolments = table(reader.app, ENROLMENTS)
    return reader.session.execute(select(func.count()).select_from(enrolments).where(
        enrolments.c.course_id == course_id, enrolments.c.status == "completed")).scalar() or 0


def course_is_full(reader, course: dict) -> bool:
    limit = int((course["meta"].get("lms_course_settings") or {}).get("maximum_students") or 0)
    return bool(limit) and enrolled_count(reader, course["id"]) >= limit


def price_label(app, course: dict) -> str:
    price = course_price(course)
    return format_currency(price, settings_of(app).currency, locale="en_GB") if price else "Free"


def instructors(reader, course: dict) -> list[dict]:
    user = user_service.get_user(reader.app, reader.session, int(course["author"] or 0)) if course["author"] else None
    if user is None:
        return []
    words = [word for word in user.display_name.replace(".", " ").split() if word[:1].isalpha()]
    initials = "".join(word[0] for word in words[:2]).upper() or "?"
    return [{"name": user.display_name, "initials": initials}]


def lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()][:50]


def duration_label(duration: dict) -> str:
    hours, minutes = int(duration.get("hours") or 0), int(duration.get("minutes") or 0)
    parts = ([f"{hours} hour{'s' if hours != 1 else ''}"] if hours else []) + \
            ([f"{minutes} minute{'s' if minutes != 1 else ''}"] if minutes else [])
    return " ".join(parts)


def terms_of(reader, site: str, course: dict, taxonomy: str) -> list[dict]:
    ids = [term_id for term_id, _slug in course["terms"].get(taxonomy, [])]
    found = reader.app.content.terms(reader, taxonomy, ids=ids) if ids else []
    return [{"name": term["name"], "link": f"{site}/{taxonomy}/{term['slug']}/"} for term in found]


def outline(reader, site: str, course: dict) -> list[dict]:
    """The course's published topics, each with its published lessons and quizzes in order."""
    topics = children(reader, TOPIC, [course["id"]], False)
    contents = {topic["id"]: [] for topic in topics}
    items = [item for post_type in (LESSON, QUIZ) for item in children(reader, post_type, list(contents), False)]
    items.sort(key=lambda item: (item["menu_order"], item["id"]))
    for item in items:
        contents[item["parent"]].append({"title": item["title"], "link": link(site, item),
                                         "kind": "Quiz" if item["type"] == QUIZ else "Lesson"})
    return [{"id": topic["id"], "title": topic["title"], "summary": "" if protected(reader, topic) else topic["content"],
             "steps": contents[topic["id"]]}
            for topic in topics]


# --- the enrol box ----------------------------------------------------------------------------

def enrolment_state(app, reader, course: dict, site: str) -> dict:
    """What the call to action says: enrolled, the free course's form, the paid course's way, or sign in."""
    user = reader.user
    state = {"course_title": course["title"], "price": price_label(app, course),
             "action": f"{site}/{COURSE_BASE}/{course['slug']}/enrol", "sign_in": site + SIGN_IN_PATH,
             "csrf_token": "", "first_item": ""}
    if user.is_authenticated and (can_edit(reader, course) or is_enrolled(reader, course["id"])):
        state["kind"] = "editor" if not is_enrolled(reader, course["id"]) else "enrolled"
        return state
    if not user.is_authenticated:
        state["kind"] = "anonymous"
    elif course_is_full(reader, course):
        state["kind"] = "full"
    elif course_price(course):
        state["kind"] = "paid"
    else:
        signed_in = app.page_session(reader.environ)
        state["kind"] = "free" if signed_in is not None else "basic-auth"
        state["csrf_token"] = signed_in[1] if signed_in is not None else ""
    return state


def render(app, template: str, **context) -> str:
    """A template of templates/ through the site theme: the operator's file of the same name wins."""
    return str(theme.render(app, __package__, template, context))


# --- the views --------------------------------------------------------------------------------

def not_found(app) -> str:
    """The site's 404, in the theme, naming nothing (the item may exist and be private)."""
    return app.render_view(HtmlView("Page not found", render(app, "lms_page_not_found.html"),
                                    status=404, headers=(("Cache-Control", "no-store"),)))


@contextlib.contextmanager
def page_reader(app, request: PageRequest, user) -> Iterator[RestRequest]:
    """A request for the content service, as the visitor (the page's own transaction)."""
    reader = RestRequest(app, request.method, request.path, [], {}, environ=request.environ,
                         base_url=app.rest_base_url(request.environ))
    reader.user = user
    succeeded = False
    try:
        yield reader
        succeeded = True
    finally:
        reader.finish(success=succeeded)


def answer(app, request: PageRequest, build: Callable[[RestRequest, str], HtmlView | None]) -> str:
    """The page `build(reader, site)` makes (None: the 404) in the site layout, as the visitor sees it."""
    user = request.user
    with page_reader(app, request, user) as reader:
        view = build(reader, request.site_url)
    if view is None:
        return not_found(app)
    personal = PERSONAL_HEADERS if user.is_authenticated else ANONYMOUS_HEADERS
    return app.render_view(dataclasses.replace(view, headers=view.headers + personal))


def view_item(reader, item: dict, site: str) -> dict:
    return {"id": item["id"], "type": item["type"], "status": item["status"], "link": link(site, item),
            "rest_url": reader.app.content.rest_url(reader, item), "title": item["title"]}


def head_html(reader, site: str, item: dict | None) -> str:
    return render(
        reader.app, "lms_page_head.html",
        stylesheet=f"{site}/static/lms/lms.css", rest_url=reader.app.content.rest_url(reader, item) if item else "",
        canonical=link(site, item) if item else "")


def course_page(app, request: PageRequest, slug: str):
    return answer(app, request, lambda reader, site: _course_view(app, request, reader, site, slug))


def _course_view(app, request: PageRequest, reader, site: str, slug: str) -> HtmlView | None:
    course = published(reader, COURSE, slug)
    if course is None:
        return None
    meta = course["meta"]
    ratings = ratings_of(reader, [course["id"]])[course["id"]]
    hidden = protected(reader, course)  # a password-protected course shows its title and outline only
    body = render(
        app, "lms_page_course.html",
        course=course, summary="" if hidden else course["excerpt"],
        description="" if hidden else rendered_content(reader, course), teachers=instructors(reader, course),
        rating={"average": float(ratings["rating_avg"]), "count": ratings["rating_count"]},
        duration=duration_label(meta.get("lms_duration") or {}), level=LEVEL_NAMES.get(meta.get("lms_level"), ""),
        categories=terms_of(reader, site, course, CATEGORY), tags=terms_of(reader, site, course, TAG),
        **{name: [] if hidden else lines(meta.get(key)) for name, key in (
            ("benefits", "lms_benefits"), ("requirements", "lms_requirements"), ("audience", "lms_target_audience"),
            ("materials", "lms_material_includes"))},
        topics=outline(reader, site, course), enrolment=enrolment_state(app, reader, course, site),
        first_item=_first_item(reader, site, course), announcements=_announcements(reader, course))
    return HtmlView(course["title"], body, item=view_item(reader, course, site),
                    head_html=head_html(reader, site, course))


def _announcements(reader, course: dict) -> list[dict]:
    """The course's newest published announcements, for its learners and editors only (a notice board)."""
    if not reader.user.is_authenticated or not (is_enrolled(reader, course["id"]) or can_edit(reader, course)):
        return []
    items = children(reader, ANNOUNCEMENT, [course["id"]], False)
    items.sort(key=lambda item: (item["date"], item["id"]), reverse=True)
    return [{"title": item["title"], "date": item["date"], "content": rendered_content(reader, item)}
            for item in items[:MAX_ANNOUNCEMENTS]]


def _first_item(reader, site: str, course: dict) -> str:
    for topic in outline(reader, site, course):
        if topic["steps"]:
            return topic["steps"][0]["link"]
    return ""


def lesson_page(app, request: PageRequest, slug: str):
    return answer(app, request, lambda reader, site: _step_view(app, request, reader, site, LESSON, slug))


def quiz_page(app, request: PageRequest, slug: str):
    return answer(app, request, lambda reader, site: _step_view(app, request, reader, site, QUIZ, slug))


def _step_view(app, request: PageRequest, reader, site: str, post_type: str, slug: str) -> HtmlView | None:
    """A lesson or a quiz: its text for enrolled learners and editors, how to enrol for others."""
    item = published(reader, post_type, slug)
    topic = published_parent(reader, item, TOPIC) if item else None
    course = published_parent(reader, topic, COURSE) if topic else None
    if course is None:
        return None
    open_to_visitor = reader.user.is_authenticated and (is_enrolled(reader, course["id"]) or can_edit(reader, course))
    steps = [entry for section in outline(reader, site, course) for entry in section["steps"]]
    here = next((index for index, entry in enumerate(steps) if entry["link"] == link(site, item)), None)
    context = {"item": item, "topic": topic, "course": course, "course_link": link(site, course),
               "open": open_to_visitor, "kind": "Quiz" if post_type == QUIZ else "Lesson",
               "previous": steps[here - 1] if here else None,
               "next": steps[here + 1] if here is not None and here + 1 < len(steps) else None,
               "enrolment": enrolment_state(app, reader, course, site), "content": "", "video": "", "quiz": None}
    if open_to_visitor:
        context["content"] = rendered_content(reader, item)
        if post_type == LESSON:
            video = item["meta"].get(LESSON_VIDEO) or {}
            context["video"] = video.get("url", "") if str(video.get("url", "")).startswith(("https://", "http://")) else ""
        else:
            context["quiz"] = _quiz_summary(reader, item)
    body = render(app, "lms_page_step.html", **context)
    return HtmlView(item["title"], body, item=view_item(reader, item, site),
                    head_html=head_html(reader, site, item))


def _quiz_summary(reader, quiz: dict) -> dict:
    options = quiz["meta"].get(QUIZ_OPTIONS) or {}
    limit = options.get("time_limit") or {}
    value, unit = int(limit.get("time_value") or 0), TIME_UNITS.get(limit.get("time_type", ""), "")
    questions = table(reader.app, QUESTIONS)
    titles = [row.title for row in reader.session.execute(select(questions.c.title).where(
        questions.c.quiz_id == quiz["id"]).order_by(questions.c.position, questions.c.id).limit(1000))]
    return {"questions": titles, "passing_grade": options.get("passing_grade"),
            "attempts": options.get("attempts_allowed"),
            "time_limit": f"{value} {unit}{'s' if value != 1 else ''}" if value and unit else ""}


def topic_page(app, request: PageRequest, slug: str):
    """A topic has no page of its own (as in the reference): its section of the course page."""
    user = request.user
    with page_reader(app, request, user) as reader:
        topic = published(reader, TOPIC, slug)
        course = published_parent(reader, topic, COURSE) if topic else None
        target = f"{link(request.site_url, course)}#topic-{topic['id']}" if course else ""
    if not target:
        return not_found(app)
    return redirect(target, 301)


def nested_redirect(app, request: PageRequest, course_slug: str, segment: str, slug: str):
    """The reference's nested addresses (`/courses/<course>/lessons/<slug>/`, `.../tutor_quiz/<slug>/`),
    which an imported site's old links use: a permanent redirect to the item's own address."""
    post_type = {"lessons": LESSON, "tutor_quiz": QUIZ}.get(segment)
    if post_type is None:
        return not_found(app)
    with page_reader(app, request, request.user) as reader:
        item = published(reader, post_type, slug)
        topic = published_parent(reader, item, TOPIC) if item else None
        course = published_parent(reader, topic, COURSE) if topic else None
    if course is None or course["slug"] != course_slug:
        return not_found(app)
    return redirect(link(request.site_url, item), 301)


def archive_page(app, request: PageRequest, taxonomy: str, slug: str):
    return answer(app, request, lambda reader, site: _archive_view(app, request, reader, site, taxonomy, slug))


def _archive_view(app, request: PageRequest, reader, site: str, taxonomy: str, slug: str) -> HtmlView | None:
    """The published courses of a course category or tag, a page at a time (`?paged=N`)."""
    if not slug or len(slug) > MAX_SLUG:
        return None
    found = app.content.terms(reader, taxonomy, slugs=[slug])
    if not found:
        return None
    term = found[0]
    paged = request.query_text("paged", "1")
    page = int(paged) if paged.isdigit() and 0 < len(paged) <= 4 else 0
    if not 1 <= page <= MAX_PAGE:
        return None
    per_page = settings_of(app).per_page
    courses, total = app.content.query(reader, COURSE, per_page=per_page, page=page, orderby="title", order="asc",
                                       terms={taxonomy: [term["id"]]})
    pages = max(1, -(-total // per_page))
    if page > pages:
        return None
    ratings = ratings_of(reader, [course["id"] for course in courses])
    base = f"{site}/{taxonomy}/{slug}/"
    body = render(
        app, "lms_page_archive.html",
        term=term, kind="category" if taxonomy == CATEGORY else "tag",
        courses=[{"title": course["title"], "link": link(site, course),
                  "excerpt": "" if protected(reader, course) else course["excerpt"],
                  "price": price_label(app, course), "level": LEVEL_NAMES.get(course["meta"].get("lms_level"), ""),
                  "rating": {"average": float(ratings[course["id"]]["rating_avg"]),
                             "count": ratings[course["id"]]["rating_count"]}} for course in courses],
        page=page, pages=pages, previous=(base if page == 2 else f"{base}?paged={page - 1}") if page > 1 else "",
        next=f"{base}?paged={page + 1}" if page < pages else "")
    label = "Course category" if taxonomy == CATEGORY else "Course tag"
    title = f"{label}: {term['name']}" + (f" (page {page} of {pages})" if page > 1 else "")
    return HtmlView(title, body, head_html=head_html(reader, site, None))


def enrol_page(app, request: PageRequest, slug: str):
    """POST /courses/<slug>/enrol: a signed-in user enrols in a free course, then sees its page again."""
    signed_in = app.page_session(request.environ)
    site = request.site_url
    given = request.form.get("csrf_token", "")
    if signed_in is None or not given or not hmac.compare_digest(signed_in[1], given):
        return _message(app, "Sign in to enrol", "lms_page_form_expired.html", 403, sign_in=site + SIGN_IN_PATH,
                        back=f"{site}/{COURSE_BASE}/{slug[:MAX_SLUG]}/")
    user = signed_in[0]
    with page_reader(app, request, user) as reader:
        course = published(reader, COURSE, slug)
        if course is None:
            return not_found(app)
        if course_price(course):
            return _message(app, "This course is paid", "lms_page_enrol_refused.html", 409, reason="paid",
                            back=link(site, course))
        if not is_enrolled(reader, course["id"]):
            if course_is_full(reader, course):
                return _message(app, "This course is full", "lms_page_enrol_refused.html", 409, reason="full",
                                back=link(site, course))
            enrol(reader, course["id"], user.id, "free")
    return redirect(link(site, course) + "#enrol", 303, {"Cache-Control": "no-store"})


def _message(app, title: str, template: str, status: int, **context) -> str:
    return app.render_view(HtmlView(title, render(app, template, **context), status=status,
                                    headers=(("Cache-Control", "no-store"),)))


def pages() -> list[Page]:
    read = ("GET", "HEAD")
    cached = {"cacheable": True, "keep_seconds": KEEP_SECONDS}  # through the response cache (module docstring)
    return [
        Page(f"/{COURSE_BASE}/<slug>/", read, course_page, name="lms-course", **cached),
        Page(f"/{COURSE_BASE}/<slug>/enrol", ("POST",), enrol_page, name="lms-course-enrol"),
        Page(f"/{COURSE_BASE}/<course_slug>/<segment>/<slug>/", read, nested_redirect, name="lms-nested"),
        Page(f"/{LESSON_BASE}/<slug>/", read, lesson_page, name="lms-lesson", **cached),
        Page(f"/{QUIZ_BASE}/<slug>/", read, quiz_page, name="lms-quiz", **cached),
        Page(f"/{TOPIC_BASE}/<slug>/", read, topic_page, name="lms-topic"),
        Page(f"/{CATEGORY}/<slug>/", read, lambda app, request, slug: archive_page(app, request, CATEGORY, slug),
             name="lms-course-category", **cached),
        Page(f"/{TAG}/<slug>/", read, lambda app, request, slug: archive_page(app, request, TAG, slug),
             name="lms-course-tag", **cached),
    ]

