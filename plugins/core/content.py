"""core's implementation of the content service (host.content), provided as `app.content`."""

from __future__ import annotations

from typing import Any, Iterable

from host.content import ContentDeleted, ContentSaved

from . import dates, store

FLOATING = ("draft", "pending", "auto-draft")  # no publication date until published
UPDATABLE = frozenset({"title", "content", "excerpt", "status", "slug", "author", "parent", "menu_order", "meta"})


class CoreContentService:
    """Items of every registered post type, read and written in the request's transaction."""

    def __init__(self, app):
        self.app = app

    # --- reading ---------------------------------------------------------------------------

    def get(self, request, item_id: int, post_type: str | None = None) -> dict | None:
        if post_type is not None:
            self._post_type(post_type)
        return store.get_item(self.app, request.session, int(item_id), post_type)

    def query(self, request, post_type: str, *, status: Iterable[str] = ("publish",), search: str = "",
              include: Iterable[int] = (), exclude: Iterable[int] = (), author: Iterable[int] = (),
              parent: Iterable[int] | None = None, per_page: int = 10, page: int = 1, orderby: str = "date",
              order: str = "desc") -> tuple[list[dict], int]:
        self._post_type(post_type)
        statuses = list(status)
        unknown = set(statuses) - set(self.app.registry.status_names(post_type))
        if unknown:
            raise ValueError(f"unknown status {sorted(unknown)} for post type {post_type!r}")
        if order not in ("asc", "desc") or page < 1 or not 1 <= per_page <= 100:
            raise ValueError("order is asc or desc, page at least 1, per_page 1 to 100")
        query = store.PostQuery(post_type, statuses=statuses, search=search, include=[int(i) for i in include],
                                exclude=[int(i) for i in exclude], author=[int(i) for i in author],
                                parent=[int(i) for i in parent] if parent is not None else None,
                                per_page=per_page, orderby=orderby, order=order)
        rows, total = store.list_rows(self.app, request.session, query, page)
        return [store.row_to_item(self.app, row, post_type) for row in rows], total

    # --- writing ---------------------------------------------------------------------------

    def create(self, request, post_type: str, *, title: str = "", content: str = "", excerpt: str = "",
               status: str = "draft", author: int | None = None, parent: int = 0, menu_order: int = 0,
               slug: str = "", meta: dict[str, Any] | None = None) -> dict:
        self._post_type(post_type)
        self._writable_status(post_type, status)
        meta = self._checked_meta(post_type, meta or {})
        session, app = request.session, self.app
        local, utc = self._now()
        values: dict[str, Any] = {
            "type": post_type, "status": status, "slug": "", "title": title, "content": content, "excerpt": excerpt,
            "author": request.user.id if author is None else int(author), "parent": int(parent),
            "menu_order": int(menu_order), "date": local, "date_gmt": None if status in FLOATING else utc,
            "modified": local, "modified_gmt": utc,
        }
        item_id = store.insert_item(app, session, values)
        wanted = store.sanitize_slug(slug or title) or str(item_id)
        store.update_item(app, session, item_id, {
            "slug": store.unique_slug(app, session, wanted, post_type, item_id, int(parent))})
        for key, value in meta.items():
            store.set_meta(app, session, item_id, key, value, new=True)
        item = store.get_item(app, session, item_id, post_type)
        self._announce_saved(request, item, created=True)
        return item

    def update(self, request, item_id: int, **fields: Any) -> dict:
        unknown = set(fields) - UPDATABLE
        if unknown:
            raise ValueError(f"fields {sorted(unknown)} cannot be updated (updatable: {sorted(UPDATABLE)})")
        session, app = request.session, self.app
        current = store.get_item(app, session, int(item_id))
        if current is None:
            raise LookupError(f"no item {item_id}")
        post_type = current["type"]
        meta = self._checked_meta(post_type, fields.pop("meta", None) or {})
        if "status" in fields:
            self._writable_status(post_type, fields["status"])
        local, utc = self._now()
        values = {name: value for name, value in fields.items()}
        if "slug" in values:
            values["slug"] = store.unique_slug(app, session, store.sanitize_slug(values["slug"]) or str(item_id),
                                               post_type, int(item_id), int(values.get("parent", current["parent"])))
        if values.get("status") and values["status"] not in FLOATING and current["date_gmt"] is None:
            values["date_gmt"] = utc
        values.update(modified=local, modified_gmt=utc)
        store.update_item(app, session, int(item_id), values)
        for key, value in meta.items():
            store.set_meta(app, session, int(item_id), key, value)
        item = store.get_item(app, session, int(item_id), post_type)
        self._announce_saved(request, item, created=False)
        return item

    def delete(self, request, item_id: int) -> None:
        current = store.get_item(self.app, request.session, int(item_id))
        if current is None:
            raise LookupError(f"no item {item_id}")
        store.delete_item(self.app, request.session, int(item_id))
        app = self.app
        request.after_commit(lambda: app.hook.content_deleted(app=app, event=ContentDeleted.of(current, True)))

    # --- checks ----------------------------------------------------------------------------

    def _post_type(self, post_type: str) -> None:
        if post_type not in self.app.registry.post_types or post_type in ("revision", "attachment"):
            raise ValueError(f"{post_type!r} is not a registered post type the content service stores")

    def _writable_status(self, post_type: str, status: str) -> None:
        allowed = self.app.registry.status_names(post_type, writable_only=True)
        if status not in allowed:
            raise ValueError(f"status {status!r} is not writable for {post_type!r} (allowed: {allowed})")

    def _checked_meta(self, post_type: str, meta: dict[str, Any]) -> dict[str, Any]:
        known = {key.key for key in self.app.registry.meta_keys(post_type)}
        unknown = set(meta) - known
        if unknown:
            raise ValueError(f"meta keys {sorted(unknown)} are not registered for {post_type!r}")
        for key in self.app.registry.meta_keys(post_type):
            if key.check is not None and meta.get(key.key) is not None:
                key.check(meta[key.key])  # ValueError names what is wrong
        return meta

    def _now(self):
        utc = dates.utcnow()
        return dates.utc_to_local(utc, self.app.timezone()), utc

    def _announce_saved(self, request, item: dict, created: bool) -> None:
        app = self.app
        request.after_commit(lambda: app.hook.content_saved(app=app, event=ContentSaved.of(item, created)))
