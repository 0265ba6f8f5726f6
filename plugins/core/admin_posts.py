"""Posts and Pages in the admin area: a plain list per type (WordPress's edit.php) with status filters and
their counts, search, pages, bulk Trash and Restore, and per row links to view and to edit.

Everything is read and changed through core/v2 as the signed-in user (`page.rest`), so the list,
its counts and every change obey the route's permissions: an author's counts are what the REST
totals give an author, never more. "Edit" goes to the editor the site uses for the item: the
`editor_url` hook's answer (a page builder names its editor for its documents), else the item's
REST URL (the block editor plugin serves no editing page of its own).
"""

from __future__ import annotations

from typing import Any

from host import PageAnswer
from host.admin import AdminRequest
from host.auth import users as user_service

from .admin_lists import ListQuery

PER_PAGE = 20
MAX_BULK = 100
FILTERS = (("all", "All"), ("publish", "Published"), ("future", "Scheduled"), ("draft", "Drafts"),
           ("pending", "Pending"), ("private", "Private"), ("trash", "Trash"))
REST_STATUS = {name: ("any" if name == "all" else name) for name, _label in FILTERS}
ACTIONS = ("trash", "restore")
RESTORED_STATUS = "draft"  # as WordPress since 5.6: a restored item comes back as a draft


class ListPage:
    """The handler of one post type's list (`posts` or `pages`)."""

    def __init__(self, post_type: str, rest_base: str, singular: str, plural: str):
        self.post_type, self.rest_base, self.singular, self.plural = post_type, rest_base, singular, plural

    @property
    def route(self) -> str:
        return f"/core/v2/{self.rest_base}"

    def __call__(self, page: AdminRequest):
        if page.subpath:
            page.notice(page.render("core_posts_notice.html", done="no-such-page"), "error")
            return PageAnswer("", 404)
        query = ListQuery(page, REST_STATUS, "There is no such status to list.")
        status = bulk(page, self) if page.method == "POST" else 200
        if query.problem:
            page.notice(page.render("core_posts_notice.html", done="problem", message=query.problem), "error")
            return PageAnswer(self.render(page, query, [], 0, 0), 400)
        search = {"search": query.search} if query.search else {}
        listed = page.rest("GET", self.route, status=REST_STATUS[query.status], context="edit", per_page=PER_PAGE,
                           page=query.page, **search)
        if not listed.ok:
            page.notice(page.render("core_posts_notice.html", done="unreadable", plural=self.plural,
                                    message=message_of(listed)), "error")
            return PageAnswer(self.render(page, query, [], 0, 0), 400 if listed.status == 400 else 502)
        total = int(listed.headers.get("X-WP-Total", "0") or 0)
        pages = int(listed.headers.get("X-WP-TotalPages", "0") or 0)
        return PageAnswer(self.render(page, query, self.rows(page, listed.data), total, pages), status)

    def counts(self, page: AdminRequest) -> dict[str, int]:
        """Each filter's count as the REST totals give it to this user (what they may list, no more)."""
        counts = {}
        for name, _label in FILTERS:
            answer = page.rest("GET", self.route, status=REST_STATUS[name], per_page=1, _fields="id")
            counts[name] = int(answer.headers.get("X-WP-Total", "0") or 0) if answer.ok else 0
        return counts

    def rows(self, page: AdminRequest, items: Any) -> list[dict]:
        items = items if isinstance(items, list) else []
        with page.app.db.session() as session:
            authors = user_service.get_users(page.app, session, [int(item.get("author") or 0) for item in items
                                                                 if item.get("author")])
        rest_url = page.app.rest_base_url(page.environ).rstrip("/")
        rows = []
        for item in items:
            author = authors.get(int(item.get("author") or 0))
            title = (item.get("title") or {}).get("raw", "") if isinstance(item.get("title"), dict) else ""
            rows.append({"id": item["id"], "title": title or "(no title)", "status": item.get("status", ""),
                         "author": author.display_name if author else "", "link": item.get("link", ""),
                         "date": str(item.get("date") or "").replace("T", " "),
                         "edit": editor_url(page.app, item, rest_url)})
        return rows

    def render(self, page: AdminRequest, query: ListQuery, rows: list[dict], total: int, total_pages: int):
        base = page.url()
        return page.render("core_posts.html", query=query, rows=rows, total=total, total_pages=total_pages,
                           counts=self.counts(page), filters=FILTERS, here=query.url(base),
                           filter_url=lambda name: query.url(base, status=name, paged=1, s=""),
                           page_url=lambda number: query.url(base, paged=number), singular=self.singular,
                           plural=self.plural, in_trash=query.status == "trash")


def editor_url(app, item: dict, rest_url: str) -> str:
    """The `editor_url` hook's answer, else the item's own REST URL."""
    chosen = app.hook.editor_url(app=app, item=item, rest_url=rest_url)
    if chosen:
        return str(chosen)
    self_links = (item.get("_links") or {}).get("self") or [{}]
    return str(self_links[0].get("href", ""))




def message_of(answer) -> str:
    data = answer.data if isinstance(answer.data, dict) else {}
    return str(data.get("message") or f"HTTP {answer.status}")


def ticked_ids(page: AdminRequest) -> list[int] | None:
    """The ticked rows' ids, or None when one is not an id."""
    values = [str(value).strip() for value in page.form_list("ids")]
    if not all(value.isdigit() and 0 < len(value) < 12 for value in values):
        return None
    return list(dict.fromkeys(int(value) for value in values))


def bulk(page: AdminRequest, list_page: ListPage) -> int:
    """Trash or restore the ticked items; each one through REST, refusals named and left as they were."""
    ids = ticked_ids(page)
    if ids is None:
        page.notice(page.render("core_posts_notice.html", done="not-items"), "error")
        return 400
    if not ids:
        page.notice(page.render("core_posts_notice.html", done="none-ticked", plural=list_page.plural), "error")
        return 400
    if len(ids) > MAX_BULK:
        page.notice(page.render("core_posts_notice.html", done="too-many", most=MAX_BULK, plural=list_page.plural), "error")
        return 400
    done, refused = [], []
    for item_id in ids:
        if page.action == "trash":
            answer = page.rest("DELETE", f"{list_page.route}/{item_id}")
        else:
            answer = restore(page, list_page, item_id)
        (done if answer.ok else refused).append((item_id, answer))
    verb = "moved to the Trash" if page.action == "trash" else f"restored as {RESTORED_STATUS}s"
    if done:
        noun = list_page.singular if len(done) == 1 else list_page.plural
        page.notice(page.render("core_posts_notice.html", done="changed", count=len(done), noun=noun, verb=verb))
    for item_id, answer in refused:
        page.notice(page.render("core_posts_notice.html", done="not-changed", singular=list_page.singular, item_id=item_id,
                                message=message_of(answer)), "error")
    return 200 if not refused else 409


class _Refused:
    """An answer for an item that is not in the Trash (restore does not apply)."""

    ok = False
    status = 409

    def __init__(self, message: str):
        self.data = {"message": message}


def restore(page: AdminRequest, list_page: ListPage, item_id: int):
    current = page.rest("GET", f"{list_page.route}/{item_id}", context="edit", _fields="status")
    if not current.ok:
        return current
    if current.data.get("status") != "trash":
        return _Refused("it is not in the Trash.")
    return page.rest("POST", f"{list_page.route}/{item_id}", body={"status": RESTORED_STATUS})
