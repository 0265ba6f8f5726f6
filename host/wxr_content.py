"""Helpers for plugins that carry items of the content store to and from a WordPress export (WXR).

A plugin's `import_wordpress_item` writes through the content service inside the import's batch
transaction (`content_request`), and its `export_wordpress_items` turns the content service's
item dicts back into `host.wxr.WxrItem`s (`wxr_item`). Dates travel as WordPress writes them,
"YYYY-MM-DD HH:MM:SS", with "0000-00-00 00:00:00" for none.
"""

from __future__ import annotations

import datetime
from typing import Any, Iterable

from .content import service_request
from .wxr import WxrComment, WxrExport, WxrImport, WxrItem, WxrTerm
from .auth.users import get_users, tables

WXR_DATE = "%Y-%m-%d %H:%M:%S"
NO_DATE = "0000-00-00 00:00:00"
MAX_ITEM_TERMS = 100  # terms of one taxonomy on one item: more are a hostile file
TRASHED_SUFFIX = "__trashed"  # what WordPress (and core/v2) add to a trashed item's slug


def parse_date(text: str | None) -> datetime.datetime | None:
    """A WXR date as a naive datetime, or None for an empty or zero date; ValueError when malformed."""
    if not text or text.strip() in ("", NO_DATE):
        return None
    return datetime.datetime.strptime(text.strip()[:19], WXR_DATE)


def date_text(value: datetime.datetime | None) -> str:
    return value.strftime(WXR_DATE) if value else NO_DATE


def content_request(run: WxrImport) -> Any:
    """A content-service request writing in the run's batch transaction. It has no user: the import
    is an operator's command, trusted like the other commands; plugins clean HTML with
    `run.clean_html` themselves and name each item's author explicitly."""
    return service_request(run.app, run.session, None)


def export_request(export: WxrExport) -> Any:
    """A content-service request reading in the export's session."""
    return service_request(export.app, export.session, None)


def author_logins(export: WxrExport, user_ids: Iterable[int]) -> dict[int, str]:
    """{user id: login} of the ids that exist (one query)."""
    return {user_id: user.login for user_id, user in get_users(export.app, export.session, list(user_ids)).items()}


def wxr_item(export: WxrExport, item: dict, post_type: str, logins: dict[int, str], *, content: str | None = None,
             meta: list[tuple[str, str]] | None = None, terms: list[WxrTerm] | None = None,
             comments: list[WxrComment] | None = None, parent: int | None = None,
             menu_order: int | None = None, thumbnail_key: str = "_thumbnail_id") -> WxrItem:
    """The WXR item of a content-service item under WordPress's `post_type`, this site's ids kept; its
    featured image is named by `thumbnail_key` meta, as WordPress (or the item's plugin) keeps it."""
    status = item.get("stored_status") or item["status"]
    meta = list(meta or [])
    if item.get("featured_media"):
        meta.append((thumbnail_key, str(item["featured_media"])))
    if status == "trash" and item.get("pre_trash_status"):
        meta.append(("_wp_trash_meta_status", item["pre_trash_status"]))
    return WxrItem(
        post_id=item["id"], post_type=post_type, title=item.get("title") or "", slug=item.get("slug") or "",
        status=status, content=item.get("content") or "" if content is None else content,
        excerpt=item.get("excerpt") or "", date=date_text(item.get("date")), date_gmt=date_text(item.get("date_gmt")),
        modified=date_text(item.get("modified")), modified_gmt=date_text(item.get("modified_gmt")),
        author_login=logins.get(item.get("author") or 0, ""),
        parent=item.get("parent") or 0 if parent is None else parent,
        menu_order=item.get("menu_order") or 0 if menu_order is None else menu_order,
        password=item.get("password") or "", is_sticky=False, comment_status=item.get("comment_status") or "closed",
        ping_status=item.get("ping_status") or "closed",
        guid=item.get("guid") or export.link(item["id"]), link=export.link(item["id"]),
        terms=terms or [], meta=meta, comments=comments or [])


def all_items(export: WxrExport, post_type: str, statuses: Iterable[str] | None = None,
              page_size: int = 100) -> Iterable[dict]:
    """Every item of `post_type` (any stored status but auto-draft, or `statuses`), in id order, page by page."""
    request = export_request(export)
    wanted = tuple(statuses) if statuses is not None else tuple(
        name for name in export.app.registry.status_names(post_type) if name != "auto-draft")
    page = 1
    while True:
        found, total = export.app.content.query(request, post_type, status=wanted, per_page=page_size, page=page,
                                                orderby="id", order="asc")
        yield from found
        if not found or page * page_size >= total:
            return
        page += 1


# --- importing items of the content store ----------------------------------------------------------

def item_label(item: WxrItem) -> str:
    """How the summary names an item: its old type, id and title."""
    return f"{item.post_type} {item.post_id} ({item.title[:80]!r})"


def author_id(run: WxrImport, login: str) -> int:
    """The new id of an old author, or (an author the file does not name) the site's first administrator:
    every item needs an existing author."""
    found = run.user_id(login) if login else None
    if found:
        return found
    from sqlalchemy import select

    users = tables(run.app)["users"]
    first = run.session.execute(select(users.c.id).where(users.c.roles.like("%administrator%"))
                                .order_by(users.c.id).limit(1)).scalar()
    if first is None:
        raise LookupError("the site has no administrator to own items whose author is unknown")
    return first


def term_ids(run: WxrImport, request: Any, taxonomy: str, terms: Iterable[WxrTerm]) -> list[int]:
    """This site's ids of an item's terms in `taxonomy` (matched by slug among the terms of that name,
    created when missing: the file's channel-level terms usually made them already)."""
    found: list[int] = []
    for term in list(terms)[:MAX_ITEM_TERMS]:
        name = (term.name or term.slug).strip()[:200]
        if not name:
            continue
        candidates = run.app.content.terms(request, taxonomy, names=[name])
        match = next((candidate for candidate in candidates if candidate["slug"] == term.slug), None) \
            or (candidates[0] if candidates and not term.slug else None)
        found.append(match["id"] if match else run.app.content.create_term(request, taxonomy, name, slug=term.slug,
                                                                            description=term.description))
    return list(dict.fromkeys(found))


def sync_post(run: WxrImport, request: Any, item: WxrItem, post_type: str, *, status: str,
              meta: dict[str, Any] | None = None, terms: dict[str, list[int]] | None = None, parent: int = 0,
              content: str | None = None, thumbnail_key: str = "_thumbnail_id") -> tuple[int, str]:
    """Create or update the content item of `item` as `post_type`: (its id, "created", "updated" or
    "unchanged"). Title, content and excerpt are cleaned and their old links rewritten; the slug is
    set when the item is created (a later run leaves it, so a slug made unique stays). The old id
    and link are remembered, so the old permalink redirects. The featured image is the attachment the
    `thumbnail_key` meta names, when the import brought it across. A trashed item (`status` "trash") is
    stored in the status it had (`_wp_trash_meta_status`) and moved to the trash, as WordPress trashes it."""
    content_service = run.app.content
    html = item.content if content is None else content
    trashed = status == "trash"
    if trashed:
        status = before_trash(run, item, post_type)
    wanted: dict[str, Any] = {
        "title": run.clean_html(item.title)[:2000], "content": run.clean_html(run.rewrite_links(html)),
        "excerpt": run.clean_html(run.rewrite_links(item.excerpt)), "status": status,
        "author": author_id(run, item.author_login), "parent": parent, "menu_order": item.menu_order,
        "password": item.password[:255], "date_gmt": parse_date(item.date_gmt),
        "featured_media": _attachment(run, item.meta_value(thumbnail_key))}
    known = run.new_id("post", item.post_id)
    current = content_service.get(request, known, post_type) if known else None
    if current is None:
        # The old id where it is free, and the file's last change, as core's own items keep them.
        discussion: dict[str, Any] = {name: value for name, value in (("comment_status", item.comment_status),
                                                                      ("ping_status", item.ping_status))
                                      if value in ("open", "closed")}
        created = content_service.create(
            request, post_type, slug=item.slug.removesuffix(TRASHED_SUFFIX) if trashed else item.slug,
            meta=meta or {}, terms=terms or {}, item_id=item.post_id,
            date=parse_date(item.date), modified_gmt=parse_date(item.modified_gmt), **wanted, **discussion)
        run.remember("post", item.post_id, created["id"], item.link or None)
        if trashed:
            content_service.trash(request, created["id"])
        return created["id"], "created"
    if wanted["date_gmt"] is None:
        wanted.pop("date_gmt")
    if trashed:
        del wanted["status"]
    changed = {name: value for name, value in wanted.items()
               if (current.get("stored_status") or current["status"] if name == "status" else current.get(name))
               != value}
    changed_meta = {key: value for key, value in (meta or {}).items() if current["meta"].get(key) != value}
    if changed_meta:
        changed["meta"] = changed_meta
    current_terms = {taxonomy: sorted(term_id for term_id, _slug in current["terms"].get(taxonomy, []))
                     for taxonomy in (terms or {})}
    if any(current_terms[taxonomy] != sorted(ids) for taxonomy, ids in (terms or {}).items()):
        changed["terms"] = terms
    if not changed and (not trashed or current["stored_status"] == "trash"):
        return current["id"], "unchanged"
    if changed:
        content_service.update(request, current["id"], modified_gmt=parse_date(item.modified_gmt), **changed)
    if trashed and current["stored_status"] != "trash":
        content_service.trash(request, current["id"])
    return current["id"], "updated"


def _attachment(run: WxrImport, old_id: str | None) -> int:
    text = (old_id or "").strip()
    return (run.new_id("post", int(text)) or 0) if text.isdigit() and len(text) < 12 else 0


def before_trash(run: WxrImport, item: WxrItem, post_type: str) -> str:
    """The status a trashed item had (`_wp_trash_meta_status`): the one restoring it gives back (else draft)."""
    earlier = (item.meta_value("_wp_trash_meta_status") or "").strip()
    return earlier if earlier in run.app.registry.status_names(post_type, writable_only=True) else "draft"


def writable_status(run: WxrImport, item: WxrItem, post_type: str) -> str | None:
    """The item's status when `post_type` may have it here ("trash" when it has a trash: `sync_post` puts
    it there); else None, and the item is named as not imported."""
    if item.status == "trash" and "trash" in run.app.registry.status_names(post_type):
        return item.status
    if item.status not in run.app.registry.status_names(post_type, writable_only=True):
        run.not_imported(item_label(item), f"the status {item.status[:40]!r} does not exist here")
        return None
    return item.status
