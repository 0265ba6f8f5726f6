"""posts and pages (and any other post type served under core/v2): list, read, write, trash, delete.

One `PostsController` per post type builds its routes. Permission checks run in the
reference's order (section 5) before the handler; preparing the item (status, dates,
slug, terms, meta) happens in the handler, inside the request's single transaction, and
the `content_saved` / `content_deleted` events fire only after that transaction commits.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from typing import Any

from host import ContentDeleted, ContentSaved, RestError, RestResponse, Route, decode_item, encode_item, forbidden, ParamError, invalid_param
from host.auth import users as user_service

from . import dates, item_schemas, render, revisions, store
from .changes import ITEM_CHANGES
from .permissions import type_caps
from .schemas import PostDeleteArgs, PostIdArgs, PostReadArgs, collection_args, with_id, write_args
from .encoded import encoded_items
from .shaping import (can_read, core_url, deleted_answer, guid_base, permalink, post_hints, prepare_post,
                      public_status, text_gated)

NAMESPACE = "core/v2"
PUBLISHING = ("publish", "future", "private")
FLOATING = ("draft", "pending", "auto-draft")
SCHEDULE_MARGIN = datetime.timedelta(seconds=60)
DEFAULT_CATEGORY = 1


def invalid_id(status: int = 404) -> RestError:
    return RestError("rest_post_invalid_id", "Invalid post ID.", status)


@dataclasses.dataclass
class Written:
    """What `_side_effects` stored besides the insert: post columns, term links, meta values."""

    columns: dict[str, Any] = dataclasses.field(default_factory=dict)
    terms: dict[str, list[tuple[int, str]]] = dataclasses.field(default_factory=dict)
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)


class PostsController:
    """The REST routes of one post type under core/v2 (`posts`, `pages` ...)."""

    # Whether list pages may reuse items encoded earlier (plugins/core/encoded.py): true when
    # `prepare` in the view context depends on nothing but the row and the REST root.
    reuses_encoded_items = True

    def __init__(self, app, post_type: str, kind: str, base: str, hierarchical: bool = False):
        # Routes are built while the registry is still being assembled: everything read from
        # `app.registry` (capabilities, statuses, meta keys) is looked up when a request runs.
        self.app = app
        self.type = post_type
        self.kind = kind  # "post" (sticky, format, terms), "page" (parent, menu order) or "attachment"
        self.base = base
        self.hierarchical = hierarchical
        self._caps: dict[str, str] | None = None
        self._public: tuple[str, ...] | None = None

    @property
    def caps(self) -> dict[str, str]:
        """Computed at the first request (the registry is final by then), then kept."""
        if self._caps is None:
            self._caps = type_caps(self.app, self.type)
        return self._caps

    @property
    def public_statuses(self) -> tuple[str, ...]:
        """The statuses anyone may read, computed at the first request like `caps`."""
        if self._public is None:
            app = self.app
            self._public = tuple(name for name in app.registry.statuses if public_status(app, name)) or ("publish",)
        return self._public

    # --- routes ---------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        base = f"/{self.base}"
        item = base + r"/(?P<id>[\d]+)"
        schema_title = self.type
        write = write_args(self.app, self.type, self.kind)
        # Every status an answer may show (trash after a DELETE too): the response schema must hold for answers.
        shape = item_schemas.post_schema(self.type, self.kind, tuple(self.app.registry.status_names()))
        return [
            Route(NAMESPACE, base, "GET", self.list_items, args=collection_args(self.app, self.type, self.kind),
                  permission=self.check_list, allow_batch=True, title=schema_title, schema=shape,
                  schema_links=self.schema_links, cacheable=True, changes_with=ITEM_CHANGES),
            Route(NAMESPACE, base, "POST", self.create_item, args=write,
                  permission=self.check_create, allow_batch=True,
                  bulk_batch=self.create_many if self.type in ("post", "page") else None),
            Route(NAMESPACE, item, "GET", self.get_item, args=PostReadArgs,
                  permission=self.check_read, allow_batch=True, title=schema_title, schema=shape,
                  embed_batch=self.embed_items, schema_links=self.schema_links, cacheable=True,
                  changes_with=ITEM_CHANGES),
            Route(NAMESPACE, item, "POST, PUT, PATCH", self.update_item, args=with_id(PostIdArgs, write), partial_args=True,
                  permission=self.check_update, allow_batch=True),
            Route(NAMESPACE, item, "DELETE", self.delete_item, args=PostDeleteArgs,
                  permission=self.check_delete, allow_batch=True),
        ]

    def schema_links(self, base_url: str) -> list[dict]:
        """The schema's Link Description Objects, as WordPress's posts controller describes its action links."""
        href = f"{base_url}/{NAMESPACE}/{self.base}/{{id}}"

        def action(rel: str, title: str, properties: dict) -> dict:
            return {"rel": f"https://api.w.org/{rel}", "title": title, "href": href,
                    "targetSchema": {"type": "object", "properties": properties}}

        links = []
        if self.kind != "attachment":
            links.append(action("action-publish", "The current user can publish this post.",
                                {"status": {"type": "string", "enum": ["publish", "future"]}}))
        links.append(action("action-unfiltered-html", "The current user can post unfiltered HTML markup and JavaScript.",
                            {"content": {"raw": {"type": "string"}}}))
        if self.type == "post":
            links.append(action("action-sticky", "The current user can sticky this post.",
                                {"sticky": {"type": "boolean"}}))
        post_type = self.app.registry.post_types.get(self.type)
        if post_type is not None and "author" in post_type[0].supports:
            links.append(action("action-assign-author", "The current user can change the author on this post.",
                                {"author": {"type": "integer"}}))
        for name, (taxonomy, _owner) in self.app.registry.taxonomies.items():
            if self.type not in taxonomy.object_types or not taxonomy.rest_base:
                continue
            terms = {taxonomy.rest_base: {"type": "array", "items": {"type": "integer"}}}
            links.append(action(f"action-assign-{taxonomy.rest_base}",
                                f"The current user can assign terms in the {name} taxonomy.", terms))
            links.append(action(f"action-create-{taxonomy.rest_base}",
                                f"The current user can create terms in the {name} taxonomy.", terms))
        return links

    # --- loading --------------------------------------------------------------------------

    def load(self, request, post_id) -> dict:
        cache = request.state.setdefault("core_items", {})
        key = (self.type, int(post_id))
        if key not in cache:
            item = store.get_item(self.app, request.session, int(post_id), self.type) if int(post_id) > 0 else None
            if item is None:
                raise invalid_id()
            cache[key] = item
        return cache[key]

    def prepare(self, request, item: dict, context: str, password: str | None = None,
                excerpt_length: int | None = None) -> dict:
        return prepare_post(request, item, context, password, excerpt_length)

    def embed_items(self, parent, requests) -> list:
        """`_embed` of links to single items (featured media, parents): the page's items in one
        query per type, then `check_read` and `get_item` per link as alone (`load` finds them)."""
        answers: list = [None] * len(requests)
        chosen = [index for index, request in enumerate(requests) if set(request.query) <= {"context"}]
        found = store.get_items(self.app, parent.session, [requests[index].params["id"] for index in chosen])
        for index in chosen:
            request = requests[index]
            item = found.get(request.params["id"])
            if item is None or item["type"] != self.type:
                continue  # the normal path answers the 404
            self.remember(request, item)
            try:
                if self.check_read(request) is not True:
                    raise forbidden(request.user)
                answers[index] = self.get_item(request)
            except RestError as error:
                answers[index] = error
        return answers

    def remember(self, request, item: dict) -> None:
        request.state.setdefault("core_items", {})[(self.type, item["id"])] = item

    # --- permission checks ----------------------------------------------------------------

    def check_list(self, request):
        params = request.params
        user = request.user
        if params.get("context") == "edit" and not user.can(self.caps["edit"]):
            raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.")
        default = "inherit" if self.kind == "attachment" else "publish"
        for status in params.get("status") or []:
            if status == default or user.can(self.caps["edit"]):
                continue
            if status == "private" and user.can(self.caps["read_private"]):
                continue
            inner = 403 if user.is_authenticated else 401
            # WordPress refuses a status while sanitizing the arg, before and apart from the permission
            # check, which passed: the answer's Allow still lists GET for this caller.
            request.permitted = True
            raise invalid_param({"status": ParamError("rest_forbidden_status", "Status is forbidden.", {"status": inner})})
        return True

    def check_read(self, request):
        item = self.load(request, request.params["id"])
        user = request.user
        if request.params.get("context") == "edit" and not user.can("edit_post", item):
            raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to edit this post.")
        password = request.params.get("password")
        if password not in (None, "") and item["password"] and password != item["password"]:
            raise RestError("rest_post_incorrect_password", "Incorrect post password.", 403)
        if not can_read(request, item):
            raise forbidden(user, "rest_forbidden", "Sorry, you are not allowed to do that.")
        return True

    def _check_terms(self, request):
        """May the caller assign the existing terms sent? One read for both fields, kept for `set_terms`."""
        if self.kind != "post":
            return
        sent = [ids for ids in (request.params.get("categories"), request.params.get("tags")) if isinstance(ids, list)]
        if not sent:
            return
        found = request.state.get("core_terms")  # read for the whole batch by `create_many`
        if found is None:
            found = store.terms_by_id(self.app, request.session, [term_id for ids in sent for term_id in ids])
            request.state.core_terms = found
        for ids in sent:
            for term_id in dict.fromkeys(ids):
                if term_id in found and not request.user.can("assign_term", term_id):
                    raise forbidden(request.user, "rest_cannot_assign_term",
                                    "Sorry, you are not allowed to assign the provided terms.")

    def check_create(self, request):
        params, user = request.params, request.user
        if params.get("id") not in (None, "", 0, "0"):
            raise RestError("rest_post_exists", "Cannot create existing post.", 400)
        author = params.get("author")
        if author and author != user.id and not user.can(self.caps["edit_others"]):
            raise forbidden(user, "rest_cannot_edit_others",
                            "Sorry, you are not allowed to create posts as this user.")
        if self.kind == "post" and params.get("sticky") and not (
                user.can(self.caps["edit_others"]) and user.can(self.caps["publish"])):
            raise forbidden(user, "rest_cannot_assign_sticky", "Sorry, you are not allowed to make posts sticky.")
        if not user.can(self.caps["create"]):
            raise forbidden(user, "rest_cannot_create", "Sorry, you are not allowed to create posts as this user.")
        self.clean_texts_early(request)  # before the term check's read opens the write transaction
        self._check_terms(request)
        return True

    def check_update(self, request):
        item = self.load(request, request.params["id"])
        params, user = request.params, request.user
        if not user.can("edit_post", item):
            raise forbidden(user, "rest_cannot_edit", "Sorry, you are not allowed to edit this post.")
        author = params.get("author")
        if author and author != user.id and author != item["author"] and not user.can(self.caps["edit_others"]):
            raise forbidden(user, "rest_cannot_edit_others",
                            "Sorry, you are not allowed to update posts as this user.")
        if self.kind == "post" and "sticky" in params and bool(params["sticky"]) != bool(item["sticky"]) and not (
                user.can(self.caps["edit_others"]) and user.can(self.caps["publish"])):
            raise forbidden(user, "rest_cannot_assign_sticky", "Sorry, you are not allowed to make posts sticky.")
        self._check_terms(request)
        return True

    def check_delete(self, request):
        item = self.load(request, request.params["id"])
        if not request.user.can("delete_post", item):
            raise forbidden(request.user, "rest_cannot_delete", "Sorry, you are not allowed to delete this post.")
        return True

    # --- reading --------------------------------------------------------------------------

    def build_query(self, request) -> store.PostQuery:
        params = request.params
        tz = self.app.timezone()
        statuses = list(params.get("status") or [])
        if "any" in statuses:
            statuses = [name for name, (status, _owner) in self.app.registry.statuses.items()
                        if name not in ("trash", "auto-draft") and not status.internal]
        orderby = params.get("orderby", "date")
        if orderby == "include" and not params.get("include"):
            raise RestError("rest_orderby_include_missing_include",
                            "You need to define an include parameter to order by include.", 400)
        if orderby == "relevance" and not params.get("search"):
            raise RestError("rest_no_search_term_defined",
                            "You need to define a search term to order by relevance.", 400)
        query = store.PostQuery(
            post_type=self.type, statuses=statuses, include=list(params.get("include") or []),
            exclude=list(params.get("exclude") or []), author=list(params.get("author") or []),
            author_exclude=list(params.get("author_exclude") or []),
            slugs=[store.sanitize_slug(slug) for slug in params.get("slug") or []],
            search=params.get("search") or "", search_columns=list(params.get("search_columns") or []),
            search_exact=params.get("search_semantics") == "exact", orderby=orderby,
            order=params.get("order", "desc"), per_page=params.get("per_page", 10),
            offset=params.get("offset") or 0,
        )
        for name in ("after", "before", "modified_after", "modified_before"):
            if params.get(name):
                setattr(query, name, dates.parse_local(params[name], tz))
        if "parent" in params and self.kind in ("page", "attachment") and request.has_param("parent"):
            query.parent = list(params.get("parent") or [])
        query.parent_exclude = list(params.get("parent_exclude") or [])
        if self.kind == "page" and params.get("menu_order") is not None:
            query.menu_order = params["menu_order"]
        if query.search and not request.user.is_authenticated:
            query.hide_password_protected = True
        if query.search and text_gated(self.app, self.type) and not request.user.can(self.caps["edit_others"]):
            query.search_columns = ["post_title"]  # the text of some items is not this caller's to search
        query.read_scope = self.read_scope(request, statuses)
        if self.kind == "post":
            self._taxonomy_filters(params, query)
            query.formats = list(params.get("format") or [])
            if params.get("sticky") is True:
                query.sticky = True
            elif params.get("sticky") is False and request.has_param("sticky"):
                query.sticky = False
        return query

    def read_scope(self, request, statuses: list[str]) -> store.ReadScope | None:
        """What of `statuses` the caller may read, for the query and its total (None: all of it).

        Asked of the permission checks with stand-in items (another author's item in each
        status), so the SQL and `can_read` apply the same rules, plugins' capabilities included.
        """
        app, user = self.app, request.user
        public = self.public_statuses
        if all(status in public for status in statuses):
            return None

        def others_readable(post_type: str, candidates) -> tuple[str, ...]:
            readable = []
            for status in candidates:
                if status in public or status == "inherit":
                    continue
                stand_ins = [{"type": post_type, "status": status, "author": None}]
                if status == "trash":  # readable only where every pre-trash status would be
                    stand_ins = [{**stand_ins[0], "pre_trash_status": before} for before in ("draft", "publish", "private")]
                if all(user.can("read_post", stand_in) for stand_in in stand_ins):
                    readable.append(status)
            return tuple(readable)

        parent_others = ()
        if "inherit" in statuses:
            parent_statuses = [name for name in app.registry.statuses if name not in public]
            parent_others = tuple((post_type, others_readable(post_type, parent_statuses))
                                  for post_type in app.registry.post_types if post_type != "attachment")
        return store.ReadScope(author=user.id if user.is_authenticated else 0, public=public,
                               others=others_readable(self.type, statuses), parent_others=parent_others)

    def _taxonomy_filters(self, params, query: store.PostQuery) -> None:
        query.tax_relation = params.get("tax_relation") or "AND"
        for field, taxonomy in (("categories", "category"), ("tags", "post_tag")):
            for exclude in (False, True):
                value = params.get(field + ("_exclude" if exclude else ""))
                if value in (None, [], {}):
                    continue
                if isinstance(value, dict):
                    terms = [int(term) for term in value.get("terms") or []]
                    clause = store.TaxClause(taxonomy, terms, value.get("operator") or "OR",
                                             bool(value.get("include_children")) and taxonomy == "category", exclude)
                else:
                    clause = store.TaxClause(taxonomy, [int(term) for term in value], exclude=exclude)
                if clause.terms:
                    query.tax_clauses.append(clause)

    def list_items(self, request):
        params = request.params
        context = params.get("context", "view")
        page = params.get("page", 1)
        query = self.build_query(request)
        sticky_first = (self.kind == "post" and params.get("ignore_sticky") is False and page == 1
                        and not query.include and not query.search and not query.tax_clauses and not query.formats)
        # Kept encodings hold rendered content: each is kept with what plugins add to its render
        # cache key (`render_cache_key`) and reused only while that is unchanged. A request the
        # host reshapes (`_embed`) gets them decoded; `_fields` filters raw link names, so not those.
        reuse = self.reuses_encoded_items and context == "view" and not sticky_first and "_fields" not in request.query
        listed = store.list_page_ids(self.app, request.session, query, page) if reuse else None
        if listed is not None:
            ids, total, version = listed
            self._check_page(query, page, total)
            items = self._reused(request, ids, version)
            if not request.plain:
                items = [decode_item(item) for item in items]
            return RestResponse.collection(request, items, total, query.per_page, page)
        rows, total = store.list_rows(self.app, request.session, query, page)
        self._check_page(query, page, total)
        items = [store.row_to_item(self.app, row, self.type) for row in rows]
        if sticky_first:
            items = self._stick(request, items, query)
        return RestResponse.collection(request, self._visible(request, items, context), total, query.per_page, page)

    @staticmethod
    def _check_page(query: store.PostQuery, page: int, total: int) -> None:
        pages = math.ceil(total / query.per_page) if query.per_page else 1
        if total and page > pages:
            raise RestError("rest_post_invalid_page_number",
                            "The page number requested is larger than the number of pages available.", 400)

    def _reused(self, request, ids: list[int], version) -> list:
        """The page's items in the view context, each public one encoded once per content version.

        The content version changes with every write to posts, terms, term links and meta (in
        any process), so an item kept at the current version is exactly what building it again
        would give, provided what plugins add to its render cache key (`render_cache_key`) is
        unchanged too: that is asked again for every kept item some plugin added to, and an
        item a plugin opts out (False) is never kept. An item no plugin added anything to
        depends on its row alone (the hook's contract), so it is not asked again. Only the items not kept are read in full and built. The kept row
        also answers the caller's targetHints, and the encoding is kept per distinct answer.
        """
        page = []  # each id's kept encoding, None where the item is built below
        missing = []
        base_url = request.base_url
        entries = encoded_items(self.app).get_many([(base_url, post_id) for post_id in ids], version)
        anonymous = not request.user.is_authenticated
        for post_id, entry in zip(ids, entries):
            encoded = None
            if entry is not None:
                item, extra, encodings = entry
                # What kept_encoding answers first, without a call per item: the encoding every anonymous
                # reader gets, of an item no plugin adds to the render cache key of.
                if anonymous and not extra and item["type"] != "attachment":
                    encoded = encodings.get(None)
                if encoded is None:
                    encoded = self.kept_encoding(request, post_id, entry)
            page.append(encoded)
            if encoded is None:
                missing.append(post_id)
        if not missing:
            return page
        built = {}
        for post_id, row in store.rows_by_ids(self.app, request.session, self.type, missing).items():
            item = store.row_to_item(self.app, row, self.type)
            if not can_read(request, item):
                continue
            built[post_id] = self.encode_and_keep(request, item, version)
        return [encoded if encoded is not None else built[post_id]
                for post_id, encoded in zip(ids, page) if encoded is not None or post_id in built]

    def kept_encoding(self, request, post_id: int, entry: tuple):
        """The view-context encoding for this caller of `post_id`'s kept `entry` (item, render
        contributions, encodings), or None when what plugins add to its render has changed.

        Anonymous callers hold no capability, so the targetHints of a public item are the same
        for all of them (shaping.post_hints): their encoding is kept under the key None and
        found without asking the permission checks again.
        """
        item, extra, encodings = entry
        if extra and render.render_cache_contributions(self.app, item) != extra:
            return None
        anonymous = not request.user.is_authenticated and item["type"] != "attachment"
        if anonymous:
            encoded = encodings.get(None)
            if encoded is not None:
                return encoded
        hints = post_hints(request, item, core_url(request, f"{self.base}/{post_id}"))
        allow = tuple(hints["allow"]) if hints else ()
        encoded = encodings.get(allow)
        if encoded is None:
            encoded = encodings[allow] = encode_item(self.prepare(request, item, "view"))
        if anonymous:
            encodings[None] = encoded
        return encoded

    def encode_and_keep(self, request, item: dict, version):
        """`item` prepared in the view context; encoded and kept when anyone may read all of it."""
        data = self.prepare(request, item, "view")
        if version is None or not public_status(self.app, item["status"]) or item["password"] \
                or text_gated(self.app, item["type"]):  # its text depends on who asks
            return data
        extra = render.render_cache_contributions(self.app, item)
        if extra is None:  # a plugin renders this item afresh every time
            return data
        hints = data["_links"]["self"][0].get("targetHints")
        encoded = encode_item(data)
        encodings = {tuple(hints["allow"]) if hints else (): encoded}
        if not request.user.is_authenticated and item["type"] != "attachment":
            encodings[None] = encoded
        encoded_items(self.app).put((request.base_url, item["id"]), version, (item, extra, encodings))
        return encoded

    def _visible(self, request, items: list[dict], context: str) -> list[dict]:
        """The items the caller may read (edit: may edit), prepared in `context`."""
        visible = []
        for item in items:
            allowed = request.user.can("edit_post", item) if context == "edit" else can_read(request, item)
            if allowed:
                visible.append(self.prepare(request, item, context))
        return visible

    def _stick(self, request, items: list[dict], query: store.PostQuery) -> list[dict]:
        """ignore_sticky=false: sticky posts of the page first, then the other published sticky posts."""
        sticky_here = [item for item in items if item["sticky"]]
        others = [item for item in items if not item["sticky"]]
        present = {item["id"] for item in items}
        missing = [item for item in store.sticky_items(self.app, request.session, self.type, query.exclude)
                   if item["id"] not in present]
        return sticky_here + missing + others

    def get_item(self, request):
        item = self.load(request, request.params["id"])
        params = request.params
        link = {"Link": f'<{permalink(request, item)}>; rel="alternate"; type=text/html'}
        # No kept encoding here: a random item is rarely among those kept, and asking costs the
        # content version's query. The row comes with its stored rendering (store.get_item), so
        # preparing it renders nothing while the row and its render inputs are unchanged.
        data = self.prepare(request, item, params.get("context", "view"), params.get("password"),
                            params.get("excerpt_length"))
        return RestResponse(data, 200, link)

    # --- writing --------------------------------------------------------------------------

    def text_field(self, request, name: str) -> str | None:
        """title/content/excerpt from a string or {raw}; None when not sent (or {raw: ""} for titles).
        Sanitized once a request: `clean_texts_early` may have done it already."""
        cleaned = request.state.get("core_texts")
        if cleaned is not None and name in cleaned:
            return cleaned[name]
        if not request.has_param(name):
            return None
        value = request.params.get(name)
        if isinstance(value, dict):
            if "raw" not in value:
                return None
            value = value.get("raw")
            if name == "title" and value == "":
                return None
        if not isinstance(value, str):  # the pipeline leaves these args to the handler (host.args.RenderedText)
            message = f"{name} must be a string or an object whose raw is a string."
            raise invalid_param({name: ParamError("rest_invalid_type", message)})
        if request.user.can("unfiltered_html"):
            return value
        return render.sanitize_title(value) if name == "title" else render.sanitize_html(value)

    def clean_texts_early(self, request) -> None:
        """Sanitize the title, content and excerpt sent before the write transaction opens.

        On SQLite a write request's first statement takes the write lock, which every other
        writer waits for until this one commits. Sanitizing HTML needs no database, so a create
        does it first (about a twelfth of the time a create held the lock, profiled at 10,000 posts). A text the
        handler would refuse is left to it: a refusal still comes after the permission checks.
        """
        cleaned = {}
        for name in ("title", "content", "excerpt"):
            try:
                cleaned[name] = self.text_field(request, name)
            except RestError:
                continue
        request.state.core_texts = cleaned

    def resolve_dates(self, request, current: dict | None, status: str):
        """(date, date_gmt or None when floating, explicitly_set) from date/date_gmt params."""
        params = request.params
        tz = self.app.timezone()
        now = dates.utcnow()
        if request.has_param("date") and params.get("date") is not None:
            local = dates.parse_local(params["date"], tz)
            return local, dates.local_to_utc(local, tz), True
        if request.has_param("date_gmt") and params.get("date_gmt") is not None:
            gmt = dates.parse_utc(params["date_gmt"])
            return dates.utc_to_local(gmt, tz), gmt, True
        reset = request.has_param("date") or request.has_param("date_gmt")
        if current is None or reset or (current["date_gmt"] is None):
            if status in FLOATING:
                return dates.utc_to_local(now, tz), None, False
            return dates.utc_to_local(now, tz), now, False
        return current["date"], current["date_gmt"], False

    def create_item(self, request):
        session = request.session
        values = self._new_values(request, session)
        status, title, parent = values["status"], values["title"], values["parent"]
        post_id = store.reserve_id(self.app, session)
        if post_id is not None:  # one INSERT with the slug and guid that depend on the id
            values["slug"] = self._slug(request, status, title, None, post_id, parent)
            values["guid"] = permalink(request, {"id": post_id, "type": self.type}, site=guid_base(request))
            store.insert_item(self.app, session, {"id": post_id, **values})
        else:
            post_id = store.insert_item(self.app, session, values)
            values["slug"] = self._slug(request, status, title, None, post_id, parent)
            values["guid"] = permalink(request, {"id": post_id, "type": self.type}, site=guid_base(request))
            store.update_item(self.app, session, post_id, {"slug": values["slug"], "guid": values["guid"]})
        wrote = self._side_effects(request, session, post_id, None)
        values.update(wrote.columns)
        # A new top-level item is fully known from what was just written: answer without re-reading it.
        item = store.new_item(self.app, post_id, values, wrote.terms, wrote.meta) if not parent else None
        data = self.written(request, session, post_id, created=True, item=item)
        return RestResponse.created(data, core_url(request, f"{self.base}/{post_id}"))

    def _new_values(self, request, session) -> dict[str, Any]:
        """The columns of a new item from a create's params (slug and guid still empty), or a RestError."""
        params, user = request.params, request.user
        status = params.get("status") or "draft"
        if status in PUBLISHING and not user.can(self.caps["publish"]):
            raise forbidden(user, "rest_cannot_publish",
                            "Sorry, you are not allowed to publish posts in this post type.")
        author = params.get("author") or user.id
        if author != user.id and user_service.get_user(self.app, session, author) is None:
            raise RestError("rest_invalid_author", "Invalid author ID.", 400)
        password = params.get("password") or ""
        sticky = bool(params.get("sticky")) if self.kind == "post" else False
        if password and sticky:
            raise RestError("rest_invalid_field", "A post can not be sticky and have a password.", 400)
        parent = self._parent(request, session, None)
        title = self.text_field(request, "title") or ""
        content = self.text_field(request, "content") or ""
        excerpt = self.text_field(request, "excerpt") or ""
        self._check_template(params.get("template"), None)
        if self.kind == "post" and not (title or content or excerpt):
            raise RestError("empty_content", "Content, title, and excerpt are empty.", 400)
        date, date_gmt, _explicit = self.resolve_dates(request, None, status)
        status, date_gmt = self._schedule(status, date, date_gmt)
        if status == "private":
            password = ""
        default_open = "closed" if self.kind == "page" else "open"
        values: dict[str, Any] = {
            "type": self.type, "status": status, "slug": "", "title": title, "content": content, "excerpt": excerpt,
            "author": author, "parent": parent, "menu_order": params.get("menu_order") or 0, "password": password,
            "comment_status": params.get("comment_status") or default_open,
            "ping_status": params.get("ping_status") or default_open,
            "format": self._format(params.get("format"), ""), "template": params.get("template") or "",
            "sticky": sticky, "featured_media": 0, "date": date, "date_gmt": date_gmt,
            "modified": date, "modified_gmt": date_gmt or dates.local_to_utc(date, self.app.timezone()),
        }
        return values

    # --- many creates of one batch at once (Route.bulk_batch) ------------------------------

    def create_many(self, parent, requests) -> list:
        """Consecutive creates of one batch/v1 call with three writes in all: the term checks of every
        item in one read, slugs in one (more only on clashes), the rows in one multi-row INSERT and
        the term links in one more. Each item gets the permission check, errors, hooks and answer
        of `create_item`; a refused item writes nothing. Serves the leading items `_bulk_ready` takes.
        """
        app, session = self.app, parent.session
        if app.db.engine.dialect.name not in ("sqlite", "postgresql"):  # no way to reserve ids: one at a time
            return []
        ready = []
        for request in requests:
            if not self._bulk_ready(request):
                break
            ready.append(request)
        if not ready:
            return []
        if self.kind == "post":
            sent = [DEFAULT_CATEGORY]
            for request in ready:
                for field in ("categories", "tags"):
                    if isinstance(request.params.get(field), list):
                        sent += request.params[field]
            found = store.terms_by_id(app, session, sent)
            for request in ready:
                request.state.core_terms = found
        answers: list = []
        creates: list[tuple[int, Any, dict]] = []  # (answer index, request, values)
        for request in ready:
            try:
                app.rest.check_permission(request)
                creates.append((len(answers), request, self._new_values(request, session)))
                answers.append(None)
            except RestError as error:
                answers.append(error)
        if not creates:
            return answers
        # One savepoint for every write, undone whole if anything fails: the host then runs the items one at a time.
        savepoint = session.begin_nested()
        try:
            written = self._write_many(session, creates)
            for (index, request, values), terms in zip(creates, written):
                item = store.new_item(app, values["id"], values, terms, {})
                data = self.written(request, session, values["id"], created=True, item=item)
                answers[index] = RestResponse.created(data, core_url(request, f"{self.base}/{values['id']}"))
        except BaseException:
            savepoint.rollback()
            raise
        savepoint.commit()
        return answers

    def _bulk_ready(self, request) -> bool:
        """Whether `create_many` writes this create as `create_item` would: no meta (its keys have checks
        and hooks of their own), no featured media and no parent (each a read of another post)."""
        params = request.params
        if request.has_param("meta") or params.get("featured_media") not in (None, 0):
            return False
        return not (self.hierarchical and request.has_param("parent") and params.get("parent"))

    def _write_many(self, session, creates: list) -> list[dict[str, list[tuple[int, str]]]]:
        """Ids, slugs, rows and term links of `creates`; the terms linked to each, as `set_terms` answers."""
        app = self.app
        ids = store.reserve_ids(app, session, len(creates))
        wanted = [self._slug(request, values["status"], values["title"], None, post_id, 0, unique=False)
                  for (_index, request, values), post_id in zip(creates, ids)]
        slugs = store.unique_slugs(app, session, wanted, self.type)
        links, written = [], []
        for (_index, request, values), post_id, slug in zip(creates, ids, slugs):
            values.update(id=post_id, slug=slug,
                          guid=permalink(request, {"id": post_id, "type": self.type}, site=guid_base(request)))
            terms = self._new_terms(request) if self.kind == "post" else {}
            links += [{"post_id": post_id, "term_id": term_id} for linked in terms.values() for term_id, _ in linked]
            written.append(terms)
        store.insert_items(app, session, [values for _index, _request, values in creates])
        store.link_terms(app, session, links)
        return written

    def _new_terms(self, request) -> dict[str, list[tuple[int, str]]]:
        """The (id, slug) links `_side_effects` would make for a new post, from the batch's term read."""
        params, known = request.params, request.state.core_terms
        terms = {}
        for field, taxonomy in (("categories", "category"), ("tags", "post_tag")):
            if request.has_param(field) and isinstance(params.get(field), list):
                ids = params[field]
            elif field == "categories":
                ids = [DEFAULT_CATEGORY]
            else:
                continue
            valid = {term_id: known[term_id][1] for term_id in ids if term_id in known and known[term_id][0] == taxonomy}
            terms[taxonomy] = sorted(valid.items())
        return terms

    def _schedule(self, status: str, date, date_gmt):
        """publish with a date 60 s ahead becomes future; future whose time has come becomes publish."""
        if date_gmt is None:
            if status == "future":
                return "publish", None
            return status, None
        now = dates.utcnow()
        if status == "publish" and date_gmt - now >= SCHEDULE_MARGIN:
            return "future", date_gmt
        if status == "future" and date_gmt - now < SCHEDULE_MARGIN:
            return "publish", date_gmt
        return status, date_gmt

    def _format(self, value, current: str) -> str:
        if self.kind != "post" or value in (None, ""):
            return current
        return "" if value == "standard" else value

    def _check_template(self, value, current) -> None:
        if value and value != current:
            # WordPress's check_template lists the theme's templates; this site has none.
            raise invalid_param({"template": "template is not one of ."})

    def _parent(self, request, session, current: dict | None) -> int:
        if not self.hierarchical:
            return current["parent"] if current else 0
        if not request.has_param("parent"):
            return current["parent"] if current else 0
        parent = request.params.get("parent") or 0
        if not parent:
            return 0
        if store.post_exists(self.app, session, parent) is None:
            raise RestError("rest_post_invalid_id", "Invalid post parent ID.", 400)
        if current is not None:
            ancestor, seen = parent, set()
            while ancestor and ancestor not in seen:  # a loop back to the item itself is stored as 0
                if ancestor == current["id"]:
                    return 0
                seen.add(ancestor)
                found = store.post_exists(self.app, session, ancestor)
                ancestor = found["parent"] if found else 0
        return parent

    def _slug(self, request, status: str, title: str, current: dict | None, post_id: int, parent: int,
              unique: bool = True) -> str:
        """The item's slug; `unique` False: the one wanted, before `unique_slug` (creates of a bulk batch)."""
        params = request.params
        if request.has_param("slug") and params.get("slug"):
            slug = store.sanitize_slug(params["slug"])
        elif current is not None and current["slug"] and not current["slug"].endswith("__trashed"):
            slug = current["slug"]
        elif current is not None and current["slug"].endswith("__trashed") and status != "trash":
            slug = current["slug"][: -len("__trashed")]
        elif status in PUBLISHING:
            slug = store.sanitize_slug(title) or str(post_id)
        else:
            return current["slug"] if current is not None else ""
        if status == "pending" and not request.user.can(self.caps["publish"]) and not (
                request.has_param("slug") and params.get("slug")):
            return ""
        if not slug:
            return ""
        if (current is not None and slug == current["slug"]) or not unique:
            return slug
        return store.unique_slug(self.app, request.session, slug, self.type, post_id, parent)

    def _side_effects(self, request, session, post_id: int, current: dict | None) -> Written:
        """Featured media, terms and meta, after the row exists (`current` None: created in this transaction)."""
        params = request.params
        wrote = Written()
        if request.has_param("featured_media") and params.get("featured_media") is not None:
            media_id = params["featured_media"]
            if media_id == 0:
                wrote.columns["featured_media"] = 0
            else:
                target = store.get_item(self.app, session, media_id, "attachment")
                if target is not None and (target["mime_type"] or "").startswith("image/"):
                    wrote.columns["featured_media"] = media_id
                elif store.post_exists(self.app, session, media_id) is not None:
                    wrote.columns["featured_media"] = 0
            if wrote.columns:
                store.update_item(self.app, session, post_id, wrote.columns)
        if self.kind == "post":
            new = current is None
            for field, taxonomy in (("categories", "category"), ("tags", "post_tag")):
                if request.has_param(field) and isinstance(params.get(field), list):
                    wrote.terms[taxonomy] = store.set_terms(self.app, session, post_id, taxonomy, params[field], new,
                                                            request.state.get("core_terms"))
                elif field == "categories" and (new or not current["terms"].get("category")):
                    wrote.terms[taxonomy] = store.set_terms(self.app, session, post_id, "category",
                                                            [DEFAULT_CATEGORY], new)
        self._write_meta(request, session, post_id, wrote.meta, new=current is None)
        return wrote

    def _write_meta(self, request, session, post_id: int, wrote: dict | None = None, new: bool = False) -> None:
        """The registered meta keys sent; each value stored goes into `wrote` too."""
        meta = request.params.get("meta") if request.has_param("meta") else None
        if not isinstance(meta, dict):
            return
        raw = request.raw_param("meta") if isinstance(request.raw_param("meta"), dict) else meta
        for key in self.app.registry.meta_keys(self.type):
            if key.key not in raw:
                continue
            value = meta.get(key.key)
            if key.key.startswith("_") and not request.user.can("edit_post", {"type": self.type, "id": post_id,
                                                                              "status": "draft",
                                                                              "author": request.user.id}):
                raise forbidden(request.user, "rest_cannot_update",
                                f"Sorry, you are not allowed to edit the {key.key} custom field.")
            if key.check is not None and value is not None:
                try:
                    key.check(value)
                except ValueError as refused:
                    message = f"meta.{key.key}: {refused}"
                    raise invalid_param({"meta": ParamError("rest_invalid_meta", message)}) from None
            store.set_meta(self.app, session, post_id, key.key, value, new)
            if wrote is not None:
                wrote[key.key] = value

    def update_item(self, request):
        return self.apply_update(request, keep_revision=True)

    def apply_update(self, request, keep_revision: bool):
        """Merge the sent fields into the stored item; `keep_revision` writes a revision afterwards."""
        params, user, session = request.params, request.user, request.session
        current = self.load(request, params["id"])
        status = current["status"]
        if request.has_param("status") and params.get("status") and params["status"] != current["status"]:
            status = params["status"]
            if status in PUBLISHING and not user.can(self.caps["publish"]):
                raise forbidden(user, "rest_cannot_publish",
                                "Sorry, you are not allowed to publish posts in this post type.")
        author = params.get("author") or current["author"]
        if author and author != current["author"] and user_service.get_user(self.app, session, author) is None:
            raise RestError("rest_invalid_author", "Invalid author ID.", 400)
        password = params["password"] if request.has_param("password") and params.get("password") is not None \
            else current["password"]
        sticky = current["sticky"]
        if self.kind == "post" and request.has_param("sticky") and params.get("sticky") is not None:
            sticky = bool(params["sticky"])
        if password and sticky and (request.has_param("password") or request.has_param("sticky")):
            raise RestError("rest_invalid_field", "A post can not be sticky and have a password.", 400)
        parent = self._parent(request, session, current)
        title = self.text_field(request, "title")
        content = self.text_field(request, "content")
        excerpt = self.text_field(request, "excerpt")
        if request.has_param("template"):
            self._check_template(params.get("template"), current["template"])
        date, date_gmt, explicit = self.resolve_dates(request, current, status)
        if not explicit and current["date_gmt"] is None and status not in FLOATING:
            now = dates.utcnow()
            date, date_gmt = dates.utc_to_local(now, self.app.timezone()), now
        if status in ("publish", "future") and (explicit or status != current["stored_status"]):
            status, date_gmt = self._schedule(status, date, date_gmt)
        if status == "private":
            password = ""
        now = dates.utcnow()
        values: dict[str, Any] = {
            "status": status, "author": author or None, "parent": parent, "password": password, "sticky": sticky,
            "date": date, "date_gmt": date_gmt, "modified": dates.utc_to_local(now, self.app.timezone()),
            "modified_gmt": now, "format": self._format(params.get("format"), current["format"]),
        }
        if status != "trash" and current["stored_status"] == "trash":
            values["pre_trash_status"] = ""
        for name, value in (("title", title), ("content", content), ("excerpt", excerpt)):
            if value is not None:
                values[name] = value
        for name in ("comment_status", "ping_status"):
            if params.get(name):
                values[name] = params[name]
        if request.has_param("template") and params.get("template") is not None:
            values["template"] = params["template"]
        if self.hierarchical and params.get("menu_order") is not None:
            values["menu_order"] = params["menu_order"]
        values["slug"] = self._slug(request, status, values.get("title", current["title"]), current, current["id"],
                                    parent)
        store.update_item(self.app, session, current["id"], values)
        self._side_effects(request, session, current["id"], current)
        if keep_revision:
            revisions.save_revision(self.app, session, current["id"], user.id)
        return self.written(request, session, current["id"], created=False)

    def written(self, request, session, post_id: int, created: bool, item: dict | None = None) -> dict:
        """After a create or update: the item (re-read unless given), committed and announced, in edit context."""
        if item is None:
            item = store.get_item(self.app, session, post_id, self.type)
        self.remember(request, item)
        self.announce_saved(request, item, created)
        # The answer is built after the commit (a batch's, for a batch item), without the write lock.
        return request.answer_after_commit(lambda: self.prepare(request, item, "edit"))

    def delete_item(self, request):
        params, session = request.params, request.session
        item = self.load(request, params["id"])
        if params.get("force"):
            previous = self.prepare(request, item, "edit")
            store.delete_item(self.app, session, item["id"])
            self.announce_deleted(request, item, True)
            return deleted_answer(previous)
        if item["stored_status"] == "trash":
            raise RestError("rest_already_trashed", "The post has already been deleted.", 410)
        slug = item["slug"] + "__trashed" if item["slug"] else ""
        store.update_item(self.app, session, item["id"], {
            "status": "trash", "pre_trash_status": item["stored_status"], "slug": slug})
        trashed = store.get_item(self.app, session, item["id"], self.type)
        self.remember(request, trashed)
        self.announce_deleted(request, trashed, False)
        return self.prepare(request, trashed, "edit")

    # --- events ---------------------------------------------------------------------------

    def announce_saved(self, request, item: dict, created: bool) -> None:
        app = self.app
        request.after_commit(lambda: app.hook.content_saved(app=app, event=ContentSaved.of(item, created)))

    def announce_deleted(self, request, item: dict, force: bool) -> None:
        app = self.app
        request.after_commit(lambda: app.hook.content_deleted(app=app, event=ContentDeleted.of(item, force)))
