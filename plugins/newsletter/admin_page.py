"""The Newsletter admin page (/admin/newsletter): lists (create, rename, delete, send the confirmation
mail again to those still pending, export), subscribers with their consent evidence, CSV import (with
confirmation mails, or as confirmed with the operator's statement of how consent was given) and
mailings with their sending progress from the host's mail outbox.

It uses this plugin's own modules (store, operations); bodies are templates/newsletter_admin_*.html.
"""

from __future__ import annotations

import datetime

from sqlalchemy import delete, func, insert, select, update

from host import PageAnswer, redirect
from host.admin import AdminRequest

from . import operations, store
from .operations import OperationError
from .tables import LISTS, MAILINGS, SUBSCRIBERS, SUBSCRIPTIONS, table

ACTIONS = ("create-list", "rename-list", "delete-list", "send-confirmations", "import", "send-mailing")
SECTIONS = {"": "Lists", "subscribers": "Subscribers", "import": "Import", "mailings": "Mailings"}
PER_PAGE = 25
MAX_NAME = 200
MAX_DESCRIPTION = 2000
MAX_SUBJECT = 300
MAX_BODY = 100_000
MAX_CONSENT_TEXT = 2000
MAX_IMPORT_BYTES = 5_000_000
SHOWN_PROBLEMS = 100
IMPORT_MODES = [("confirm", "Send each new address a confirmation mail (they stay pending until they click)"),
                ("confirmed", "Consent was already given: add them as confirmed, no mail")]


def newsletter_page(page: AdminRequest):
    section, _slash, rest = page.subpath.partition("/")
    if section == "export" and not rest:
        return export(page)
    if section == "subscribers" and rest:
        return subscriber_detail(page, rest)
    if section not in SECTIONS or rest:
        page.notice(page.render("newsletter_admin_notice.html", done="no-such-section"), "error")
        return PageAnswer("", 404)
    status, extra = 200, {}
    if page.method == "POST":
        result = HANDLERS[page.action](page)
        if isinstance(result, PageAnswer):
            return result
        status, extra = result
    render = {"": lists_section, "subscribers": subscribers_section, "import": import_section,
              "mailings": mailings_section}[section]
    return PageAnswer(render(page, **(extra if section == "import" else {})), status)


# --- shared ------------------------------------------------------------------------------------

def _query(page: AdminRequest) -> dict[str, str]:
    return {key: value[:200] for key, value in page.query.items() if isinstance(value, str)}


def _number(text: str, default: int = 0) -> int:
    text = (text or "").strip()
    return int(text) if text.isdigit() and len(text) < 10 else default


def _context(page: AdminRequest, current: str, **extra):
    return {"sections": SECTIONS, "current": current, **extra}


def _all_lists(session, app):
    lists = table(app, LISTS)
    return session.execute(select(lists).order_by(func.lower(lists.c.name), lists.c.id)).all()


def _chosen_list(page: AdminRequest, session, name: str = "list"):
    row = None
    list_id = _number(page.form.get(name, ""))
    if list_id:
        lists = table(page.app, LISTS)
        row = session.execute(select(lists).where(lists.c.id == list_id)).first()
    if row is None:
        page.error(name, "Choose one of the lists.")
    return row


def _site_url(page: AdminRequest, session) -> str:
    """The base of the links in mails: the site's own address, never this request's Host header."""
    return page.app.site_address(session).rstrip("/")


# --- lists -------------------------------------------------------------------------------------

def lists_section(page: AdminRequest) -> str:
    subscriptions = table(page.app, SUBSCRIPTIONS)
    with page.app.db.session() as session:
        rows = _all_lists(session, page.app)
        counts: dict[int, dict[str, int]] = {row.id: dict.fromkeys(store.STATUSES, 0) for row in rows}
        for list_id, status, number in session.execute(select(
                subscriptions.c.list_id, subscriptions.c.status, func.count())
                .group_by(subscriptions.c.list_id, subscriptions.c.status)):
            if list_id in counts:
                counts[list_id][status] = number
    failed = _number(page.form.get("list", "")) if page.field_errors and page.action == "rename-list" else 0
    query = _query(page)
    resent, resent_list = _number(query.get("confirmations", "")), _number(query.get("list", ""))
    named = {row.id: row.name for row in rows}
    if page.method == "GET" and resent and resent_list in named:
        page.notice(page.render("newsletter_admin_notice.html", done="resent", count=resent, name=named[resent_list]))
    return page.render("newsletter_admin_lists.html", **_context(page, "", rows=rows, counts=counts,
                                                                 failed_row=failed))


def _checked_name(page: AdminRequest, session, field: str, except_id: int = 0) -> str:
    name = page.form.get(field, "").strip()
    lists = table(page.app, LISTS)
    if not name:
        page.error(field, "Give the list a name.")
    elif len(name) > MAX_NAME:
        page.error(field, f"Use at most {MAX_NAME} characters.")
    elif session.execute(select(lists.c.id).where(func.lower(lists.c.name) == name.lower(),
                                                  lists.c.id != except_id)).first():
        page.error(field, "Another list has that name.")
    return name


def create_list(page: AdminRequest):
    description = page.form.get("description", "").strip()
    if len(description) > MAX_DESCRIPTION:
        page.error("description", f"Use at most {MAX_DESCRIPTION} characters.")
    with page.app.db.session(write=True) as session, session.begin():
        name = _checked_name(page, session, "name")
        if page.field_errors:
            return 400, {}
        session.execute(insert(table(page.app, LISTS)).values(name=name, description=description,
                                                               created=store.utcnow()))
    page.notice(page.render("newsletter_admin_notice.html", done="created", name=name))
    page.form.clear()
    return 201, {}


def rename_list(page: AdminRequest):
    lists = table(page.app, LISTS)
    with page.app.db.session(write=True) as session, session.begin():
        row = session.execute(select(lists).where(lists.c.id == _number(page.form.get("list", "")))).first()
        if row is None:
            page.notice(page.render("newsletter_admin_notice.html", done="list-gone"), "error")
            return 409, {}
        name = _checked_name(page, session, "rename", row.id)
        if page.field_errors:
            return 400, {}
        session.execute(update(lists).where(lists.c.id == row.id).values(name=name))
    page.notice(page.render("newsletter_admin_notice.html", done="renamed", name=row.name, new_name=name))
    page.form.clear()
    return 200, {}


def delete_list(page: AdminRequest):
    lists, subscriptions = table(page.app, LISTS), table(page.app, SUBSCRIPTIONS)
    with page.app.db.session(write=True) as session, session.begin():
        row = session.execute(select(lists).where(lists.c.id == _number(page.form.get("list", "")))).first()
        if row is None:
            page.notice(page.render("newsletter_admin_notice.html", done="list-gone"), "error")
            return 409, {}
        ended = session.execute(delete(subscriptions).where(subscriptions.c.list_id == row.id)).rowcount
        session.execute(delete(lists).where(lists.c.id == row.id))
    page.notice(page.render("newsletter_admin_notice.html", done="deleted", name=row.name, count=ended))
    return 200, {}


def send_confirmations(page: AdminRequest):
    with page.app.db.session(write=True) as session, session.begin():
        row = _chosen_list(page, session)
        if row is None:
            page.field_errors.clear()
            page.notice(page.render("newsletter_admin_notice.html", done="list-gone-unsent"), "error")
            return 409, {}
        sent = operations.pending_confirmations(page.app, session, row, _site_url(page, session))
    if not sent:
        page.notice(page.render("newsletter_admin_notice.html", done="nobody-pending", name=row.name), "error")
        return 409, {}
    # Post/Redirect/Get, as for mailings: a reload must not mail everyone pending once more.
    return redirect(page.url() + f"?confirmations={sent}&list={row.id}", 303, {"Cache-Control": "no-store"})


# --- subscribers -------------------------------------------------------------------------------

def subscribers_section(page: AdminRequest) -> str:
    query = _query(page)
    list_id, status = _number(query.get("list", "")), query.get("status", "")
    status = status if status in store.STATUSES else ""
    search, number = query.get("search", "").strip()[:100], max(1, _number(query.get("page", ""), 1))
    subscribers, subscriptions = table(page.app, SUBSCRIBERS), table(page.app, SUBSCRIPTIONS)
    conditions = []
    if list_id or status:
        inner = select(subscriptions.c.subscriber_id)
        if list_id:
            inner = inner.where(subscriptions.c.list_id == list_id)
        if status:
            inner = inner.where(subscriptions.c.status == status)
        conditions.append(subscribers.c.id.in_(inner))
    if search:
        conditions.append(subscribers.c.email_key.contains(search.lower(), autoescape=True))
    with page.app.db.session() as session:
        lists = _all_lists(session, page.app)
        total = session.execute(select(func.count()).select_from(subscribers).where(*conditions)).scalar_one()
        rows = session.execute(select(subscribers).where(*conditions).order_by(subscribers.c.email_key)
                               .limit(PER_PAGE).offset((number - 1) * PER_PAGE)).all()
        memberships: dict[int, list] = {row.id: [] for row in rows}
        if rows:
            for membership in session.execute(select(subscriptions).where(
                    subscriptions.c.subscriber_id.in_(list(memberships))).order_by(subscriptions.c.list_id)):
                memberships[membership.subscriber_id].append(membership)

    def url_for(target: int) -> str:
        from urllib.parse import urlencode

        return page.url("subscribers") + "?" + urlencode(
            {key: value for key, value in (("list", list_id or ""), ("status", status), ("search", search),
                                           ("page", target)) if value})

    return page.render("newsletter_admin_subscribers.html", **_context(
        page, "subscribers", rows=rows, memberships=memberships, names={row.id: row.name for row in lists},
        lists=lists, list_id=list_id, status=status, search=search, total=total, statuses=store.STATUSES,
        current_page=number, total_pages=max(1, -(-total // PER_PAGE)), url_for=url_for))


def subscriber_detail(page: AdminRequest, rest: str):
    subscriber_id = _number(rest)
    with page.app.db.session() as session:
        row = store.find_by_id(page.app, session, subscriber_id) if subscriber_id else None
        if row is None:
            page.notice(page.render("newsletter_admin_notice.html", done="no-such-subscriber"), "error")
            return PageAnswer("", 404)
        subscriptions, lists = table(page.app, SUBSCRIPTIONS), table(page.app, LISTS)
        memberships = session.execute(select(subscriptions, lists.c.name).join(
            lists, lists.c.id == subscriptions.c.list_id).where(subscriptions.c.subscriber_id == row.id)
            .order_by(lists.c.name)).all()
        consents = store.consents_of(page.app, session, row.id)
    return page.render("newsletter_admin_subscriber.html", **_context(
        page, "subscribers", subscriber=row, memberships=memberships, consents=consents,
        fields=sorted((row.fields or {}).items())))


# --- import ------------------------------------------------------------------------------------

def import_section(page: AdminRequest, report=None, list_name: str = "") -> str:
    with page.app.db.session() as session:
        lists = _all_lists(session, page.app)
    problems = report.invalid[:SHOWN_PROBLEMS] if report else []
    return page.render("newsletter_admin_import.html", **_context(
        page, "import", list_options=[("", "Choose a list")] + [(str(row.id), row.name) for row in lists],
        modes=IMPORT_MODES, report=report, list_name=list_name, problems=problems,
        more_problems=len(report.invalid) - len(problems) if report else 0, max_bytes=MAX_IMPORT_BYTES))


def _uploaded_text(page: AdminRequest) -> str | None:
    upload = page.files.get("file")
    if upload is None or not getattr(upload, "raw_filename", ""):
        page.error("file", "Choose a CSV file.")
        return None
    data = upload.file.read(MAX_IMPORT_BYTES + 1)
    if len(data) > MAX_IMPORT_BYTES:
        page.error("file", f"The file is larger than {MAX_IMPORT_BYTES:,} bytes; split it.")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        page.error("file", "The file is not UTF-8 text; save it as “CSV UTF-8”.")
        return None


def import_file(page: AdminRequest):
    mode = page.form.get("mode", "")
    consent_text = page.form.get("consent", "").strip()
    if mode not in dict(IMPORT_MODES):
        page.error("mode", "Choose how the addresses are added.")
    if mode == "confirmed" and not consent_text:
        page.error("consent", "Say how and when these people gave their consent: it is kept as evidence.")
    elif len(consent_text) > MAX_CONSENT_TEXT:
        page.error("consent", f"Use at most {MAX_CONSENT_TEXT} characters.")
    text = _uploaded_text(page)
    upload = page.files.get("file")
    file_name = (upload.filename if upload is not None else "")[:100]
    confirmed = mode == "confirmed"
    source = (f"import by {page.user.login}: {file_name}" if confirmed
              else f"import by {page.user.login} (confirmation mail): {file_name}")
    try:
        with page.app.db.session(write=True) as session, session.begin():  # all or nothing
            row = _chosen_list(page, session)
            if page.field_errors:
                return 400, {}
            report = operations.import_csv(page.app, session, row, text, source, confirmed=confirmed,
                                           consent_text=consent_text if confirmed else "")
            sent = 0 if confirmed else operations.queue_confirmations(page.app, session, row, report.added,
                                                                      _site_url(page, session))
    except OperationError as error:
        page.error("file", str(error)[:1].upper() + str(error)[1:] + ". Nothing was imported.")
        return 400, {}
    page.notice(page.render("newsletter_admin_notice.html", done="imported", name=row.name, added=len(report.added),
                            confirmed=confirmed, sent=sent),
                "error" if report.invalid else "success")
    page.form.clear()
    return 200, {"report": report, "list_name": row.name}


# --- export ------------------------------------------------------------------------------------

def export(page: AdminRequest):
    """The list's confirmed subscribers with their consent evidence as CSV, streamed from the database."""
    list_id = _number(_query(page).get("list", ""))
    lists = table(page.app, LISTS)
    with page.app.db.session() as session:
        row = session.execute(select(lists).where(lists.c.id == list_id)).first() if list_id else None
    if row is None:
        page.notice(page.render("newsletter_admin_notice.html", done="no-such-export"), "error")
        return PageAnswer("", 404)
    app = page.app

    def lines():
        with app.db.session() as session:
            yield from operations.export_lines(app, session, row.id)

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    return PageAnswer(lines(), 200, content_type="text/csv; charset=utf-8", headers={
        "Cache-Control": "no-store",
        "Content-Disposition": f"attachment; filename=\"newsletter-list-{row.id}-{stamp}.csv\"",
        "X-Content-Type-Options": "nosniff"})


# --- mailings ----------------------------------------------------------------------------------

def mailings_section(page: AdminRequest) -> str:
    mailings, lists = table(page.app, MAILINGS), table(page.app, LISTS)
    number = max(1, _number(_query(page).get("page", ""), 1))
    with page.app.db.session() as session:
        total = session.execute(select(func.count()).select_from(mailings)).scalar_one()
        rows = session.execute(select(mailings, lists.c.name.label("list_name")).outerjoin(
            lists, lists.c.id == mailings.c.list_id).order_by(mailings.c.id.desc())
            .limit(PER_PAGE).offset((number - 1) * PER_PAGE)).all()
        progress = operations.mailing_progress(page.app, session, [row.id for row in rows])
        all_lists = _all_lists(session, page.app)
        queued = _number(_query(page).get("queued", ""))
        just_queued = session.execute(select(mailings, lists.c.name.label("list_name")).outerjoin(
            lists, lists.c.id == mailings.c.list_id).where(mailings.c.id == queued)).first() if queued else None
    if just_queued is not None and page.method == "GET":
        page.notice(page.render("newsletter_admin_notice.html", done="queued", subject=just_queued.subject,
                                count=just_queued.recipients, name=just_queued.list_name or "(deleted list)"))
    return page.render("newsletter_admin_mailings.html", **_context(
        page, "mailings", rows=rows, progress=progress, total=total, current_page=number,
        total_pages=max(1, -(-total // PER_PAGE)), url_for=lambda target: page.url("mailings") + f"?page={target}",
        list_options=[("", "Choose a list")] + [(str(row.id), row.name) for row in all_lists]))


def send_mailing(page: AdminRequest):
    subject, body = page.form.get("subject", "").strip(), page.form.get("body", "")
    if not subject:
        page.error("subject", "Give the mailing a subject.")
    elif len(subject) > MAX_SUBJECT or "\n" in subject or "\r" in subject:
        page.error("subject", f"Use one line of at most {MAX_SUBJECT} characters.")
    if not body.strip():
        page.error("body", "Write the mailing's text.")
    elif len(body) > MAX_BODY:
        page.error("body", f"Use at most {MAX_BODY:,} characters.")
    with page.app.db.session(write=True) as session, session.begin():
        row = _chosen_list(page, session)
        if page.field_errors:
            return 400, {}
        if not store.confirmed_rows(page.app, session, row.id):
            page.notice(page.render("newsletter_admin_notice.html", done="nobody-confirmed", name=row.name), "error")
            return 409, {}
        mailing_id, count = operations.queue_mailing(page.app, session, row, subject, body.replace("\r\n", "\n"),
                                                     _site_url(page, session))
    # Post/Redirect/Get: reloading the page that says "queued" must never queue the mailing again.
    return redirect(page.url("mailings") + f"?queued={mailing_id}", 303, {"Cache-Control": "no-store"})


HANDLERS = {"create-list": create_list, "rename-list": rename_list, "delete-list": delete_list,
            "send-confirmations": send_confirmations, "import": import_file, "send-mailing": send_mailing}
