"""Revisions and autosaves of posts and pages (reference sections 7 and 8).

A revision is written on update (never on create) when title, content, excerpt or a
revisioned meta value differs from the newest revision, and always when there is none
yet. An autosave by the author of their own draft edits the draft itself; every other
autosave is one revision per user with the slug `{id}-autosave-v1`.
"""

from __future__ import annotations

import math


from host import RestError, RestResponse, Route, forbidden

from . import dates, item_schemas, render, store
from .schemas import (
    AutosaveCollectionArgs, AutosaveParentArgs, AutosaveReadArgs, RevisionCollectionArgs, RevisionDeleteArgs,
    RevisionReadArgs, with_id, write_args,
)
from .shaping import core_url, deleted_answer, local_and_gmt, permalink, rest_base

NAMESPACE = "core/v2"
COMPARED = ("title", "content", "excerpt")


def revisioned_keys(app, post_type: str) -> list[str]:
    return [key.key for key in app.registry.meta_keys(post_type) if key.revisions]


def _normalise(text: str) -> str:
    return " ".join((text or "").split())


def _changed(app, post: dict, revision: dict | None, post_type: str) -> bool:
    if revision is None:
        return True
    if any(_normalise(post[name]) != _normalise(revision[name]) for name in COMPARED):
        return True
    return any(post["meta"].get(key) != revision["meta"].get(key) for key in revisioned_keys(app, post_type))


def save_revision(app, session, post_id: int, user_id: int) -> int | None:
    """Write a revision of the post's new state if it changed; returns the revision id or None."""
    post = store.get_item(app, session, post_id)
    registered = app.registry.post_types.get(post["type"]) if post else None
    if post is None or post["stored_status"] == "auto-draft" or not (
            registered and "revisions" in registered[0].supports):
        return None
    latest = next((revision for revision in store.revisions_of(app, session, post_id)
                   if not revision["slug"].endswith(store.AUTOSAVE_SUFFIX)), None)
    if not _changed(app, post, latest, post["type"]):
        return None
    return _write_revision(app, session, post, user_id, f"{post_id}-revision-v1")


def _write_revision(app, session, post: dict, user_id: int, slug: str, fields: dict | None = None) -> int:
    source = dict(post)
    source.update(fields or {})
    revision_id = store.insert_item(app, session, {
        "type": "revision", "status": "inherit", "slug": slug, "title": source["title"],
        "content": source["content"], "excerpt": source["excerpt"], "author": user_id or None, "parent": post["id"],
        "date": post["modified"], "date_gmt": post["modified_gmt"], "modified": post["modified"],
        "modified_gmt": post["modified_gmt"], "guid": "", "comment_status": "closed", "ping_status": "closed",
    })
    for key in revisioned_keys(app, post["type"]):
        value = source["meta"].get(key) if isinstance(source.get("meta"), dict) else None
        if value is not None:
            store.set_meta(app, session, revision_id, key, value)
    return revision_id


def prepare_revision(request, revision: dict, parent: dict, context: str, autosave: bool = False) -> dict:
    date, date_gmt = local_and_gmt(request, revision["date"], revision["date_gmt"])
    if revision["date_gmt"] is None:
        date_gmt = None
    modified, modified_gmt = local_and_gmt(request, revision["modified"], revision["modified_gmt"])
    data = {
        "author": revision["author"], "date": date, "date_gmt": date_gmt, "id": revision["id"],
        "modified": modified, "modified_gmt": modified_gmt, "parent": revision["parent"], "slug": revision["slug"],
        "guid": {"rendered": revision["guid"], "raw": revision["guid"]},
        "title": {"raw": revision["title"], "rendered": render.render_title(revision["title"])},
        "content": {"raw": revision["content"], "rendered": render.render_content(request.app, revision,
                                                                                   revision["content"])},
        "excerpt": {"raw": revision["excerpt"],
                    "rendered": render.autop(render.texturize(revision["excerpt"])) if revision["excerpt"] else ""},
        "meta": {key: (revision.get("meta") or {}).get(key) for key in revisioned_keys(request.app, parent["type"])},
    }
    for key in list(data["meta"]):
        if data["meta"][key] is None:
            schema = next(k.schema for k in request.app.registry.meta_keys(parent["type"]) if k.key == key)
            data["meta"][key] = store.decode_meta(None, schema)
    if autosave and context == "edit":
        link = permalink(request, parent)
        data["preview_link"] = link + ("&" if "?" in link else "?") + f"preview=true&preview_id={parent['id']}"
    if context == "embed":
        data = {key: data[key] for key in ("author", "date", "id", "parent", "slug", "title", "excerpt")}
        data["title"] = {"rendered": data["title"]["rendered"]}
        data["excerpt"] = {"rendered": data["excerpt"]["rendered"]}
    elif context == "view":
        data["guid"] = {"rendered": data["guid"]["rendered"]}
        for name in ("title", "content", "excerpt"):
            data[name] = {"rendered": data[name]["rendered"]}
    if revision["parent"]:  # an author's autosave of their own draft is the post itself: parent 0, no link
        base = rest_base(request.app, parent["type"])
        data["_links"] = {"parent": [{"href": core_url(request, f"{base}/{revision['parent']}")}]}
    return data


class RevisionsController:
    """Revisions and autosaves routes of one post type, next to its PostsController."""

    def __init__(self, posts_controller):
        self.posts = posts_controller
        self.app = posts_controller.app
        self.type = posts_controller.type
        self.base = posts_controller.base

    def routes(self, revisions: bool = True, autosaves: bool = True) -> list[Route]:
        """The revisions routes and/or the autosaves routes of the parent's type."""
        history = f"/{self.base}/(?P<parent>[\\d]+)/revisions"
        autosave_base = f"/{self.base}/(?P<id>[\\d]+)/autosaves"
        table = []
        revision_shape = item_schemas.revision_schema(self.type, autosave=False)
        autosave_shape = item_schemas.revision_schema(self.type, autosave=True)
        if revisions:
            table += [
                Route(NAMESPACE, history, "GET", self.list_revisions, args=RevisionCollectionArgs,
                      permission=self.check_read, schema=revision_shape, title=f"{self.type}-revision"),
                Route(NAMESPACE, history + r"/(?P<id>[\d]+)", "GET", self.get_revision, args=RevisionReadArgs,
                      permission=self.check_read, schema=revision_shape, title=f"{self.type}-revision"),
                Route(NAMESPACE, history + r"/(?P<id>[\d]+)", "DELETE", self.delete_revision, args=RevisionDeleteArgs,
                      permission=self.check_delete),
            ]
        if autosaves:
            # WordPress declares the autosave routes' `parent` once for the route: every endpoint has
            # it, and an endpoint's own `parent` (a page's parent field, on create) wins over it.
            write = with_id(AutosaveParentArgs, write_args(self.app, self.type, self.posts.kind))
            table += [
                Route(NAMESPACE, autosave_base, "GET", self.list_autosaves, args=AutosaveCollectionArgs,
                      permission=self.check_read, schema=autosave_shape, title=f"{self.type}-revision"),
                Route(NAMESPACE, autosave_base, "POST", self.create_autosave, args=write,
                      partial_args=True, permission=self.check_autosave),
                Route(NAMESPACE, f"/{self.base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)", "GET",
                      self.get_autosave, args=AutosaveReadArgs, permission=self.check_read, schema=autosave_shape,
                      title=f"{self.type}-revision"),
            ]
        return table

    # --- permission -----------------------------------------------------------------------

    def parent_of(self, request) -> dict:
        url = request.url_params
        parent_id = int(url.get("parent") or url.get("id") or 0) if "parent" in url else int(url.get("id") or 0)
        cache = request.state.setdefault("core_items", {})
        key = (self.type, parent_id)
        if key not in cache:
            item = store.get_item(self.app, request.session, parent_id, self.type) if parent_id > 0 else None
            if item is None:
                raise RestError("rest_post_invalid_parent", "Invalid post parent ID.", 404)
            cache[key] = item
        return cache[key]

    def check_read(self, request):
        parent = self.parent_of(request)
        if not request.user.can("edit_post", parent):
            raise forbidden(request.user, "rest_cannot_read",
                            "Sorry, you are not allowed to view revisions of this post.")
        return True

    def check_delete(self, request):
        parent = self.parent_of(request)
        user = request.user
        if not user.can("delete_post", parent):
            raise forbidden(user, "rest_cannot_delete", "Sorry, you are not allowed to delete revisions of this post.")
        revision = self._revision(request, parent)
        if not user.can("edit_post", parent):
            raise forbidden(user, "rest_cannot_read", "Sorry, you are not allowed to view revisions of this post.")
        if not user.can("delete_post", dict(revision, _parent=parent)):
            raise forbidden(user, "rest_cannot_delete", "Sorry, you are not allowed to delete this revision.")
        return True

    def check_autosave(self, request):
        parent_id = int(request.url_params.get("id") or 0)
        item = store.get_item(self.app, request.session, parent_id, self.type) if parent_id > 0 else None
        if item is None:
            raise RestError("rest_post_invalid_id", "Invalid post ID.", 404)
        request.state.setdefault("core_items", {})[(self.type, parent_id)] = item
        saved = request.params
        try:
            request.params = dict(saved, id=parent_id)
            return self.posts.check_update(request)
        finally:
            request.params = saved

    # --- handlers -------------------------------------------------------------------------

    def _revision(self, request, parent: dict) -> dict:
        revision_id = int(request.url_params.get("id") or 0)
        revision = store.get_item(self.app, request.session, revision_id, "revision") if revision_id > 0 else None
        if revision is None:
            raise RestError("rest_post_invalid_id", "Invalid revision ID.", 404)
        if revision["parent"] != parent["id"]:
            raise RestError("rest_revision_parent_id_mismatch",
                            "The revision does not belong to the specified parent.", 404)
        return revision

    def list_revisions(self, request):
        params = request.params
        parent = self.parent_of(request)
        items = store.revisions_of(self.app, request.session, parent["id"])
        if params.get("include"):
            items = [item for item in items if item["id"] in params["include"]]
        if params.get("exclude"):
            items = [item for item in items if item["id"] not in params["exclude"]]
        if params.get("search"):
            query = store.PostQuery(post_type="revision", search=params["search"])
            terms = store.split_search(query.search)
            def matches(item):
                text = " ".join((item["title"], item["excerpt"], item["content"])).lower()
                return all((term[1:].lower() not in text) if term.startswith("-") else term.lower() in text
                           for term in terms)
            items = [item for item in items if matches(item)]
        items = self._order(items, params)
        total = len(items)
        per_page = params.get("per_page")
        page = params.get("page", 1)
        offset = params.get("offset")
        if per_page:
            pages = math.ceil(total / per_page)
            if offset is not None and per_page:
                if total and offset >= total:
                    raise RestError("rest_revision_invalid_offset_number",
                                    "The offset number requested is larger than or equal to the number of "
                                    "available revisions.", 400)
                items = items[offset:offset + per_page]
            else:
                if total and page > pages:
                    raise RestError("rest_revision_invalid_page_number",
                                    "The page number requested is larger than the number of pages available.", 400)
                items = items[(page - 1) * per_page: page * per_page]
        context = params.get("context", "view")
        data = [prepare_revision(request, item, parent, context) for item in items]
        return RestResponse.collection(request, data, total, per_page, page if per_page else 1)

    def _order(self, items: list[dict], params) -> list[dict]:
        orderby = params.get("orderby", "date")
        reverse = params.get("order", "desc") == "desc"
        if orderby == "include" and params.get("include"):
            positions = {value: index for index, value in enumerate(params["include"])}
            return sorted(items, key=lambda item: positions.get(item["id"], 0))
        keys = {"id": lambda item: item["id"], "slug": lambda item: (item["slug"], item["id"]),
                "title": lambda item: (item["title"], item["id"]),
                "include_slugs": lambda item: (item["slug"], item["id"])}
        key = keys.get(orderby, lambda item: (item["date"], item["id"]))
        return sorted(items, key=key, reverse=reverse)

    def get_revision(self, request):
        parent = self.parent_of(request)
        revision = self._revision(request, parent)
        return prepare_revision(request, revision, parent, request.params.get("context", "view"))

    def delete_revision(self, request):
        parent = self.parent_of(request)
        revision = self._revision(request, parent)
        if not request.params.get("force"):
            raise RestError("rest_trash_not_supported",
                            "Revisions do not support trashing. Set 'force' to true to delete.", 501)
        previous = prepare_revision(request, revision, parent, "edit")
        store.delete_item(self.app, request.session, revision["id"])
        return deleted_answer(previous)

    def _autosaves(self, session, parent_id: int) -> list[dict]:
        return [item for item in store.revisions_of(self.app, session, parent_id)
                if item["slug"].endswith(store.AUTOSAVE_SUFFIX)]

    def list_autosaves(self, request):
        parent = self.parent_of(request)
        context = request.params.get("context", "view")
        return [prepare_revision(request, item, parent, context, autosave=True)
                for item in self._autosaves(request.session, parent["id"])]

    def get_autosave(self, request):
        parent = self.parent_of(request)
        # WordPress answers the parent's first autosave whatever the id asks for; answering another
        # autosave than the one named is a surprise, so the id must name an autosave of this parent.
        wanted = int(request.params["id"])
        found = next((item for item in self._autosaves(request.session, parent["id"]) if item["id"] == wanted), None)
        if found is None:
            raise RestError("rest_post_no_autosave", "There is no autosave revision for this post.", 404)
        return prepare_revision(request, found, parent, request.params.get("context", "view"), autosave=True)

    def create_autosave(self, request):
        session, user = request.session, request.user
        post = self.parent_of(request)
        if post["stored_status"] in ("draft", "auto-draft") and post["author"] == user.id:
            saved = request.params
            try:
                request.params = dict(saved, id=post["id"])
                request.params.pop("parent", None)
                self._update_without_revision(request)
            finally:
                request.params = saved
            updated = store.get_item(self.app, session, post["id"], self.type)
            as_revision = dict(updated, parent=updated["parent"])
            return RestResponse(prepare_revision(request, as_revision, updated, "edit", autosave=True), 200)
        fields = {}
        for name in ("title", "content", "excerpt"):
            value = self.posts.text_field(request, name)
            fields[name] = post[name] if value is None else value
        meta_sent = request.params.get("meta") if isinstance(request.params.get("meta"), dict) else {}
        fields["meta"] = {key: meta_sent.get(key, post["meta"].get(key)) for key in revisioned_keys(self.app, self.type)}
        mine = next((item for item in self._autosaves(session, post["id"]) if item["author"] == user.id), None)
        unchanged = not _changed(self.app, post, {**fields}, self.type)
        if mine is not None and unchanged:
            return RestResponse(prepare_revision(request, mine, post, "edit", autosave=True), 200)
        now = dates.utcnow()
        stamp = {"modified": dates.utc_to_local(now, self.app.timezone()), "modified_gmt": now}
        if mine is not None:
            store.update_item(self.app, session, mine["id"], {
                "title": fields["title"], "content": fields["content"], "excerpt": fields["excerpt"],
                "date": stamp["modified"], "date_gmt": now, **stamp})
            for key, value in fields["meta"].items():
                store.set_meta(self.app, session, mine["id"], key, value)
            autosave_id = mine["id"]
        else:
            autosave_id = _write_revision(self.app, session, dict(post, **stamp), user.id,
                                          f"{post['id']}{store.AUTOSAVE_SUFFIX}", fields)
        autosave = store.get_item(self.app, session, autosave_id, "revision")
        return RestResponse(prepare_revision(request, autosave, post, "edit", autosave=True), 200)

    def _update_without_revision(self, request):
        """The author's own draft: the autosave is an ordinary update, minus the revision."""
        return self.posts.apply_update(request, keep_revision=False)
