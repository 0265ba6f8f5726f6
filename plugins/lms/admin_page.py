"""The Courses admin page (/admin/courses): enrolments per course (enrol a user, cancel an enrolment),
paid checkouts kept as pending enrolments (assign one to an existing user), and API keys (issue,
showing the secret once; revoke).

It uses this plugin's own modules; course titles come from core's content service (`app.content`).
Bodies are templates/lms_admin_*.html.
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, select, update

from host import PageAnswer
from host.admin import AdminRequest
from host.auth import users as user_service
from host.content import service_request

from . import apikeys, pending
from .enrolments import enrol
from .pending import Writer
from .model import COURSE
from .settings import settings_of
from .tables import ENROLMENTS, table

ACTIONS = ("enrol", "cancel", "assign", "create-key", "revoke-key")
SECTIONS = {"": "Enrolments", "pending": "Pending payments", "keys": "API keys"}
PER_PAGE = 20
MAX_COURSE_PAGES = 5  # 500 courses in the choice lists; a school has far fewer
ENROLMENT_STATUSES = (("", "Any status"), ("completed", "Enrolled"), ("cancelled", "Cancelled"))
PENDING_STATUSES = (("pending", "Waiting"), ("granted", "Granted"), ("refunded", "Refunded"), ("", "Any status"))


def courses_page(page: AdminRequest):
    if page.subpath not in SECTIONS:
        page.notice(page.render("lms_admin_notice.html", done="no-such-section"), "error")
        return PageAnswer("", 404)
    status = 200
    if page.method == "POST":
        status = {"enrol": enrol_user, "cancel": cancel_enrolment, "assign": assign_pending,
                  "create-key": create_key, "revoke-key": revoke_key}[page.action](page)
    section = {"": enrolments_section, "pending": pending_section, "keys": keys_section}[page.subpath]
    return PageAnswer(section(page), status)


# --- shared reading ---------------------------------------------------------------------------

def _query(page: AdminRequest) -> dict[str, str]:
    return {key: value[:100] for key, value in page.query.items() if isinstance(value, str)}


def _number(text: str, default: int = 0) -> int:
    text = (text or "").strip()
    return int(text) if text.isdigit() and len(text) < 10 else default


def course_titles(page: AdminRequest) -> dict[int, str]:
    """{id: title} of every course in any status but the trash, through the content service (the page is
    for operators, who may read every course)."""
    registry = page.app.registry
    statuses = [name for name in registry.status_names(COURSE) if not registry.statuses[name][0].internal]
    titles: dict[int, str] = {}
    with page.app.db.session() as session:
        request = service_request(page.app, session, page.user)
        for number in range(1, MAX_COURSE_PAGES + 1):
            courses, total = page.app.content.query(request, COURSE, status=statuses, per_page=100, page=number,
                                                    orderby="title", order="asc")
            titles.update((int(course["id"]), course["title"] or "(no title)") for course in courses)
            if number * 100 >= total:
                break
    return titles


def _find_person(page: AdminRequest, session, name: str):
    """The user named by login or email in field `name` (a field error when there is none)."""
    wanted = page.form.get(name, "").strip()
    if not wanted:
        page.error(name, "Enter the person's login or email address.")
        return None
    user = user_service.find_user(page.app, session, wanted[:200])
    if user is None:
        page.error(name, f"No user has the login or email address {wanted[:200]}.")
    return user


def _context(page: AdminRequest, **extra):
    return {"sections": SECTIONS, "current": page.subpath, **extra}


# --- enrolments ------------------------------------------------------------------------------

def enrolments_section(page: AdminRequest) -> str:
    query = _query(page)
    course, status, number = _number(query.get("course", "")), query.get("status", ""), max(1, _number(
        query.get("page", ""), 1))
    status = status if status in ("completed", "cancelled") else ""
    enrolments = table(page.app, ENROLMENTS)
    conditions = [column == value for column, value in ((enrolments.c.course_id, course),
                                                        (enrolments.c.status, status)) if value]
    with page.app.db.session() as session:
        total = session.execute(select(func.count()).select_from(enrolments).where(*conditions)).scalar_one()
        rows = session.execute(select(enrolments).where(*conditions).order_by(enrolments.c.id.desc())
                               .limit(PER_PAGE).offset((number - 1) * PER_PAGE)).all()
        people = user_service.get_users(page.app, session, [row.user_id for row in rows])
    titles = course_titles(page)

    def url_for(target: int) -> str:
        return page.url() + "?" + "&".join(f"{key}={value}" for key, value in (
            ("course", course or ""), ("status", status), ("page", target)) if value)

    return page.render("lms_admin_enrolments.html", **_context(
        page, rows=rows, people=people, titles=titles, total=total, course=course, status=status,
        statuses=ENROLMENT_STATUSES, current_page=number,
        course_options=[("", "Choose a course")] + [(str(key), title) for key, title in titles.items()], total_pages=max(1, -(-total // PER_PAGE)),
        url_for=url_for))


def enrol_user(page: AdminRequest) -> int:
    titles = course_titles(page)
    course = _number(page.form.get("course", ""))
    if course not in titles:
        page.error("course", "Choose one of the courses.")
    with page.app.db.session(write=True) as session, session.begin():
        user = _find_person(page, session, "person")
        if page.field_errors:
            return 400
        outcome = enrol(Writer(page.app, session), course, user.id, "admin", "")
    if outcome == "already":
        page.notice(page.render("lms_admin_notice.html", done="already-enrolled", login=user.login, course=titles[course]),
                    "error")
        return 409
    page.notice(page.render("lms_admin_notice.html", done="enrolled", login=user.login, course=titles[course]))
    page.form.clear()
    return 201


def cancel_enrolment(page: AdminRequest) -> int:
    enrolments = table(page.app, ENROLMENTS)
    enrolment_id = _number(page.form.get("enrolment", ""))
    with page.app.db.session(write=True) as session, session.begin():
        cancelled = session.execute(update(enrolments).where(
            enrolments.c.id == enrolment_id, enrolments.c.status == "completed").values(
            status="cancelled", updated=apikeys.utcnow())).rowcount
    if not cancelled:
        page.notice(page.render("lms_admin_notice.html", done="no-such-enrolment"), "error")
        return 409
    page.notice(page.render("lms_admin_notice.html", done="cancelled"))
    return 200


# --- pending payments ------------------------------------------------------------------------

def money(app, amount: int | None, currency: str) -> str:
    if amount is None:
        return "no amount"
    digits = settings_of(app).currency_digits
    return f"{Decimal(amount).scaleb(-digits):.{digits}f} {currency.upper()}"


def pending_section(page: AdminRequest) -> str:
    query = _query(page)
    status = query.get("status", "pending")
    status = status if status in pending.STATUSES or status == "" else "pending"
    number = max(1, _number(query.get("page", ""), 1))
    with page.app.db.session() as session:
        rows, total = pending.listing(page.app, session, status=status or None, page=number, per_page=PER_PAGE)
        people = user_service.get_users(page.app, session, [row.user_id for row in rows if row.user_id])

    def url_for(target: int) -> str:
        return page.url("pending") + f"?status={status}&page={target}"

    return page.render("lms_admin_pending.html", **_context(
        page, rows=rows, people=people, titles=course_titles(page), total=total, status=status,
        statuses=PENDING_STATUSES, amounts={row.id: money(page.app, row.amount, row.currency) for row in rows},
        current_page=number, total_pages=max(1, -(-total // PER_PAGE)), url_for=url_for,
        failed_row=_number(page.form.get("pending", "")) if page.field_errors else 0))


def assign_pending(page: AdminRequest) -> int:
    with page.app.db.session(write=True) as session, session.begin():
        row = pending.find(page.app, session, _number(page.form.get("pending", "")))
        if row is None:
            page.notice(page.render("lms_admin_notice.html", done="no-such-payment"), "error")
            return 409
        user = _find_person(page, session, "person")
        if user is None:
            return 400
        if not pending.grant(page.app, session, row, user.id, f"operator {page.user.login}"):
            page.notice(page.render("lms_admin_notice.html", done="payment-settled", status=row.status), "error")
            return 409
    page.notice(page.render("lms_admin_notice.html", done="payment-enrols", email=row.email, login=user.login))
    page.form.clear()
    return 200


# --- API keys --------------------------------------------------------------------------------

def keys_section(page: AdminRequest) -> str:
    with page.app.db.session() as session:
        keys = apikeys.list_keys(page.app, session)
        people = user_service.get_users(page.app, session, [key["user_id"] for key in keys])
    return page.render("lms_admin_keys.html", **_context(
        page, keys=keys, people=people, permissions=[(name, name.replace("_", " and ")) for name in apikeys.PERMISSIONS]))


def create_key(page: AdminRequest) -> int:
    permission = page.form.get("permission", "")
    description = page.form.get("description", "").strip()
    if permission not in apikeys.PERMISSIONS:
        page.error("permission", "Choose one of the permissions.")
    if len(description) > 500:
        page.error("description", "Use at most 500 characters.")
    with page.app.db.session(write=True) as session, session.begin():
        user = _find_person(page, session, "person")
        if page.field_errors:
            return 400
        record, secret = apikeys.create_key(page.app, session, user.id, permission, description)
    page.notice(page.render("lms_admin_notice.html", done="key-issued", login=user.login, key=record["key"], secret=secret),
                "secret")
    page.form.clear()
    return 201


def revoke_key(page: AdminRequest) -> int:
    with page.app.db.session(write=True) as session, session.begin():
        record = apikeys.revoke_key(page.app, session, _number(page.form.get("key", "")))
    if record is None:
        page.notice(page.render("lms_admin_notice.html", done="no-such-key"), "error")
        return 409
    page.notice(page.render("lms_admin_notice.html", done="key-revoked", key=record["key"]))
    return 200
