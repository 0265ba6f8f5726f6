"""Comments in the admin area: the moderation queue (WordPress's edit-comments.php) and one comment's page.

Lists and changes go through core/v2/comments as the signed-in user (`page.rest`), so the route's
permission checks apply and every change fires `content_saved` with who made it: the spam filter
learns from "Spam" and "Not spam" there, without this page knowing it exists. The counts of the
filters and the menu's pending count are one GROUP BY / COUNT over core's own comments table.
`/admin/comments/<id>` shows one comment with its actions (the moderation mail links there, with
`?confirm=approve|spam|trash` naming the action it asks about).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from host import PageAnswer
from host.admin import AdminRequest

from . import comment_store as cs
from .admin_lists import ListQuery
from .comments import MAX_LENGTHS
from .tables import tables

COMMENTS = "/core/v2/comments"
PER_PAGE = 20
MAX_BULK = 100  # ticked rows one bulk action may change (a page shows PER_PAGE)
FILTERS = (("all", "All"), ("hold", "Pending"), ("approved", "Approved"), ("spam", "Spam"), ("trash", "Trash"))
REST_STATUS = {"all": "all", "hold": "hold", "approved": "approve", "spam": "spam", "trash": "trash"}
# action -> (button text, the REST status word it sends, the statuses it applies to)
CHANGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "approve": ("Approve", "approved", ("hold", "spam", "trash")),
    "unapprove": ("Unapprove", "hold", ("approved",)),
    "spam": ("Spam", "spam", ("hold", "approved")),
    "not-spam": ("Not spam", "unspam", ("spam",)),
    "trash": ("Trash", "trash", ("hold", "approved", "spam")),
    "restore": ("Restore", "untrash", ("trash",)),
}
ROW_ACTIONS = {"hold": ("approve", "spam", "trash"), "approved": ("unapprove", "spam", "trash"),
               "spam": ("not-spam", "trash"), "trash": ("restore",)}
DONE = {"approve": "approved", "unapprove": "unapproved", "spam": "marked as spam", "not-spam": "restored from spam",
        "trash": "moved to the Trash", "restore": "restored from the Trash"}
ACTIONS = (*CHANGES, "reply", "bulk")


def pending_count(app, user) -> int:
    """The menu's count: comments waiting for moderation (one COUNT over an indexed column)."""
    table = cs.comments_table(app)
    with app.db.session() as session:
        return session.execute(select(func.count()).select_from(table).where(
            table.c.status == "hold", table.c.type == "comment")).scalar() or 0


def status_counts(app) -> dict[str, int]:
    table = cs.comments_table(app)
    with app.db.session() as session:
        rows = session.execute(select(table.c.status, func.count()).where(table.c.type == "comment")
                               .group_by(table.c.status)).all()
    counts = {status: 0 for status, _label in FILTERS}
    counts.update({status: count for status, count in rows if status in counts})
    counts["all"] = counts["hold"] + counts["approved"]  # as WordPress: All is pending and approved
    return counts


def post_titles(app, post_ids: set[int]) -> dict[int, str]:
    if not post_ids:
        return {}
    posts = tables(app)["posts"]
    with app.db.session() as session:
        return dict(session.execute(select(posts.c.id, posts.c.title).where(posts.c.id.in_(post_ids))).all())


# --- the request ---------------------------------------------------------------------------------



def comments_page(page: AdminRequest):
    if page.subpath:
        return single_comment(page)
    query = ListQuery(page, REST_STATUS, "There is no such list of comments.")
    status = 200
    if page.method == "POST":
        status = handle_post(page)
    if query.problem:
        page.notice(page.render("core_comments_notice.html", done="problem", message=query.problem), "error")
        return PageAnswer(page.render("core_comments.html", **list_context(page, query, [], 0, 0)), 400)
    search = {"search": query.search} if query.search else {}
    listed = page.rest("GET", COMMENTS, status=REST_STATUS[query.status], context="edit", per_page=PER_PAGE,
                       page=query.page, orderby="date_gmt", **search)
    if not listed.ok:
        page.notice(page.render("core_comments_notice.html", done="unreadable", message=message_of(listed)), "error")
        return PageAnswer(page.render("core_comments.html", **list_context(page, query, [], 0, 0)),
                           400 if listed.status == 400 else 502)
    total = int(listed.headers.get("X-WP-Total", "0") or 0)
    total_pages = int(listed.headers.get("X-WP-TotalPages", "0") or 0)
    if query.page > max(total_pages, 1):
        page.notice(page.render("core_comments_notice.html", done="past-end", pages=total_pages), "error")
        return PageAnswer(page.render("core_comments.html", **list_context(page, query, [], 0, 0)), 400)
    body = page.render("core_comments.html", **list_context(page, query, rows_of(page, listed.data), total,
                                                            total_pages))
    return PageAnswer(body, status)


def list_context(page: AdminRequest, query: ListQuery, rows: list[dict], total: int, total_pages: int) -> dict:
    counts = status_counts(page.app)
    base = page.url()
    return {"query": query, "rows": rows, "counts": counts, "filters": FILTERS, "total": total,
            "total_pages": total_pages,
            "here": query.url(base), "filter_url": lambda status: query.url(base, status=status, paged=1, s=""),
            "page_url": lambda number: query.url(base, paged=number), "changes": CHANGES,
            "bulk_choices": [(name, CHANGES[name][0]) for name in CHANGES]}


def rows_of(page: AdminRequest, comments: Any) -> list[dict]:
    comments = comments if isinstance(comments, list) else []
    titles = post_titles(page.app, {int(comment.get("post") or 0) for comment in comments})
    rows = []
    for comment in comments:
        status = comment.get("status", "")
        link = str(comment.get("link", ""))
        rows.append({"id": comment["id"], "status": status, "author": comment.get("author_name", ""),
                     "email": comment.get("author_email", ""), "url": comment.get("author_url", ""),
                     "ip": comment.get("author_ip", ""), "date": str(comment.get("date", "")).replace("T", " "),
                     "text": (comment.get("content") or {}).get("raw", ""),
                     "post_title": titles.get(comment.get("post"), "") or "(no title)",
                     "post_link": link.partition("#")[0], "link": link, "parent": comment.get("parent", 0),
                     "actions": ROW_ACTIONS.get(status, ()), "can_reply": status in ("hold", "approved")})
    return rows


def message_of(answer) -> str:
    data = answer.data if isinstance(answer.data, dict) else {}
    return str(data.get("message") or f"HTTP {answer.status}")


# --- changes -------------------------------------------------------------------------------------

def comment_id(value: str) -> int:
    value = value.strip()
    return int(value) if value.isdigit() and 0 < len(value) < 12 else 0


def handle_post(page: AdminRequest) -> int:
    if page.action == "reply":
        return reply(page)
    if page.action == "bulk":
        return bulk(page)
    wanted = comment_id(page.form.get("id", ""))
    if not wanted:
        page.notice(page.render("core_comments_notice.html", done="unnamed"), "error")
        return 400
    return change(page, page.action, wanted, announce=True)


def change(page: AdminRequest, action: str, wanted: int, announce: bool) -> int:
    """Apply `action` to comment `wanted` through REST; the status the page answers with."""
    current = page.rest("GET", f"{COMMENTS}/{wanted}", context="edit")
    if not current.ok:
        page.notice(page.render("core_comments_notice.html", done="refused", wanted=wanted, message=message_of(current)), "error")
        return 404 if current.status == 404 else 409
    label, word, applies_to = CHANGES[action]
    if current.data.get("status") not in applies_to:
        page.notice(page.render("core_comments_notice.html", done="not-applicable", wanted=wanted,
                                status=current.data.get("status"), label=label), "error")
        return 409
    if word == "trash":
        answer = page.rest("DELETE", f"{COMMENTS}/{wanted}")
    else:
        answer = page.rest("POST", f"{COMMENTS}/{wanted}", body={"status": word})
    if not answer.ok:
        page.notice(page.render("core_comments_notice.html", done="not-changed", wanted=wanted, message=message_of(answer)), "error")
        return 502 if answer.status >= 500 else 409
    if announce:
        page.notice(page.render("core_comments_notice.html", done="changed", wanted=wanted, change=DONE[action]))
    return 200


def bulk(page: AdminRequest) -> int:
    action = page.form.get("bulk_action", "")
    if action not in CHANGES:
        page.error("bulk_action", "Choose what to do with the ticked comments.")
        return 400
    raw = page.form_list("ids")
    ids = list(dict.fromkeys(comment_id(str(value)) for value in raw))
    if not ids or 0 in ids:
        page.notice(page.render("core_comments_notice.html", done="none-ticked"), "error")
        return 400
    if len(ids) > MAX_BULK:
        page.notice(page.render("core_comments_notice.html", done="too-many", most=MAX_BULK), "error")
        return 400
    changed = [wanted for wanted in ids if change(page, action, wanted, announce=False) == 200]
    if changed:
        page.notice(page.render("core_comments_notice.html", done="bulk-changed", count=len(changed), change=DONE[action]))
    return 200 if len(changed) == len(ids) else 409


def reply(page: AdminRequest) -> int:
    """A reply by the signed-in user, approved (a moderator's comment is); a held parent is approved
    with it, as WordPress's "Approve and Reply"."""
    parent_id = comment_id(page.form.get("id", ""))
    text = page.form.get("content", "").strip()
    field = f"content-{parent_id}"
    if not parent_id:
        page.notice(page.render("core_comments_notice.html", done="no-parent"), "error")
        return 400
    if not text:
        page.error(field, "Write the reply first.")
    elif len(text) > MAX_LENGTHS["content"]:
        page.error(field, f"A reply has at most {MAX_LENGTHS['content']:,} characters.")
    if page.field_errors:
        return 400
    parent = page.rest("GET", f"{COMMENTS}/{parent_id}", context="edit")
    if not parent.ok:
        page.notice(page.render("core_comments_notice.html", done="refused", wanted=parent_id, message=message_of(parent)), "error")
        return 404 if parent.status == 404 else 409
    if parent.data.get("status") not in ("hold", "approved"):
        page.notice(page.render("core_comments_notice.html", done="parent-closed", wanted=parent_id,
                                status=parent.data.get("status")), "error")
        return 409
    if parent.data.get("status") == "hold" and change(page, "approve", parent_id, announce=False) != 200:
        return 409
    answer = page.rest("POST", COMMENTS, body={"post": parent.data["post"], "parent": parent_id, "content": text})
    if not answer.ok:
        page.notice(page.render("core_comments_notice.html", done="reply-refused", message=message_of(answer)), "error")
        return 400 if answer.status == 400 else 409
    page.form.pop(field, None)
    page.notice(page.render("core_comments_notice.html", done="replied", wanted=parent_id))
    return 200


# --- one comment ---------------------------------------------------------------------------------

def single_comment(page: AdminRequest):
    wanted = comment_id(page.subpath)
    if not wanted or "/" in page.subpath:
        page.notice(page.render("core_comments_notice.html", done="no-such-comment"), "error")
        return PageAnswer("", 404)
    status = 200
    if page.method == "POST":
        status = handle_post(page)
    answer = page.rest("GET", f"{COMMENTS}/{wanted}", context="edit")
    if not answer.ok:
        page.notice(page.render("core_comments_notice.html", done="refused", wanted=wanted, message=message_of(answer)), "error")
        return PageAnswer("", 404 if answer.status == 404 else 403)
    confirm = page.query_text("confirm")
    row = rows_of(page, [answer.data])[0]
    asked = confirm if confirm in row["actions"] else ""
    body = page.render("core_comment.html", row=row, asked=asked, changes=CHANGES, here=page.url(wanted),
                       queue=page.url())
    return PageAnswer(body, status)
