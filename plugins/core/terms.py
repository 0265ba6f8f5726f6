"""Categories and tags under core/v2 (reference section 10), for any registered taxonomy."""

from __future__ import annotations


from sqlalchemy import case, delete, func, insert, select, update

from host import RestError, RestResponse, Route, forbidden, slug_family

from . import item_schemas, render, store
from .changes import TERM_CHANGES
from .tables import tables
from .schemas import (
    HierarchicalTermCollectionArgs, HierarchicalTermUpdateArgs, HierarchicalTermWriteArgs, TermCollectionArgs,
    TermDeleteArgs, TermReadArgs, TermUpdateArgs, TermWriteArgs,
)
from .shaping import can_read, core_url, deleted_answer, site_url

NAMESPACE = "core/v2"
DEFAULT_CATEGORY = 1
# Pages of terms (their rows and total) kept per content version: terms, their counts and the
# term links all bump it, so a kept page is exactly what the two queries would read again.
TERM_PAGE_ENTRIES = 256


def term_link(request, taxonomy: str, term: dict, site: str | None = None) -> str:
    """A term's archive address (its REST `link`; the sitemaps list it): `/category/<slug>/` and `/tag/<slug>/`
    with pretty permalinks, else plain `?cat=ID` and `?tag=slug`, for core's; `/<rewrite>/<slug>/` for a taxonomy
    registered with a rewrite, else `?<taxonomy>=<slug>`."""
    site = site or site_url(request)
    if taxonomy in ("category", "post_tag") and request.app.settings.site.get("permalink_structure"):
        return f"{site}/{'category' if taxonomy == 'category' else 'tag'}/{term['slug']}/"
    if taxonomy == "category":
        return f"{site}/?cat={term['id']}"
    if taxonomy == "post_tag":
        return f"{site}/?tag={term['slug']}"
    registered = request.app.registry.taxonomies.get(taxonomy)
    rewrite = registered[0].rewrite if registered else ""
    return f"{site}/{rewrite}/{term['slug']}/" if rewrite else f"{site}/?{taxonomy}={term['slug']}"


class TermsController:
    """The routes of one taxonomy (`categories` or `tags`)."""

    def __init__(self, app, taxonomy: str, base: str, hierarchical: bool):
        self.app = app
        self.taxonomy = taxonomy
        self.hierarchical = hierarchical
        self.base = base
        self.create_cap = "manage_categories" if self.hierarchical else "edit_posts"

    def routes(self) -> list[Route]:

        base = f"/{self.base}"
        item = base + r"/(?P<id>[\d]+)"
        if self.hierarchical:
            list_args, write, update = HierarchicalTermCollectionArgs, HierarchicalTermWriteArgs, HierarchicalTermUpdateArgs
        else:
            list_args, write, update = TermCollectionArgs, TermWriteArgs, TermUpdateArgs
        shape = item_schemas.term_schema(self.taxonomy, self.hierarchical)
        title = "tag" if self.taxonomy == "post_tag" else self.taxonomy  # as WordPress titles it
        return [
            Route(NAMESPACE, base, "GET", self.list_terms, args=list_args,
                  permission=self.check_list, allow_batch=True, schema=shape, title=title,
                  embed_batch=self.embed_terms_of_posts, answer_version=store.answer_version,
                  cacheable=True, changes_with=TERM_CHANGES),
            Route(NAMESPACE, base, "POST", self.create_term, args=write, permission=self.check_create,
                  allow_batch=True),
            Route(NAMESPACE, item, "GET", self.get_term, args=TermReadArgs,
                  permission=self.check_read, allow_batch=True, schema=shape, title=title,
                  cacheable=True, changes_with=TERM_CHANGES),
            Route(NAMESPACE, item, "POST, PUT, PATCH", self.update_term, args=update, partial_args=True,
                  permission=self.check_update, allow_batch=True),
            Route(NAMESPACE, item, "DELETE", self.delete_term, args=TermDeleteArgs,
                  permission=self.check_delete, allow_batch=True),
        ]

    # --- queries --------------------------------------------------------------------------

    def _select(self):
        """The terms of this taxonomy with their stored `count` (kept by core's triggers, tables.py)."""
        terms = tables(self.app)["terms"]
        return select(terms).where(terms.c.taxonomy == self.taxonomy), terms.c.count

    def load(self, request, term_id, status: int = 404) -> dict:
        primed = request.state.get("core_primed_terms")  # a targetHints probe hands its term over
        if primed and int(term_id) in primed:
            return primed[int(term_id)]
        terms = tables(self.app)["terms"]
        statement, _count = self._select()
        row = request.session.execute(statement.where(terms.c.id == int(term_id))).first() if int(term_id) > 0 else None
        if row is None:
            raise RestError("rest_term_invalid", "Term does not exist.", status)
        return dict(row._mapping)

    def prepare(self, request, term: dict, context: str) -> dict:
        link = term_link(request, self.taxonomy, term)
        data = {"id": term["id"], "count": term["count"] or 0, "description": term["description"], "link": link,
                "name": term["name"], "slug": term["slug"], "taxonomy": self.taxonomy}
        if self.hierarchical:
            data["parent"] = term["parent"]
        data["meta"] = {}
        if context == "embed":
            data = {key: data[key] for key in ("id", "link", "name", "slug", "taxonomy")}
        field = {"category": "categories", "post_tag": "tags"}.get(self.taxonomy, self.base)
        self_url = core_url(request, f"{self.base}/{term['id']}")
        hints = self._hints(request, self_url, term)
        links = {
            "self": [{"href": self_url, "targetHints": hints} if hints else {"href": self_url}],
            "collection": [{"href": core_url(request, self.base)}],
            "about": [{"href": core_url(request, f"taxonomies/{self.taxonomy}")}],
        }
        if self.hierarchical and term["parent"]:
            links["up"] = [{"embeddable": True, "href": core_url(request, f"{self.base}/{term['parent']}")}]
        links["https://api.w.org/post_type"] = [{"href": core_url(request, f"posts?{field}={term['id']}")}]
        data["_links"] = links
        return data

    def _hints(self, request, self_url: str, term: dict) -> dict | None:
        """targetHints of a term's self link: its route's checks, the term handed over.

        A caller without credentials holds no capability, so what they may do with a term is
        the same for every term (the default category aside, which is never deletable): one
        probe per page answers them all.
        """
        if request.user.is_authenticated:
            return request.app.rest.target_hints(request, self_url, prime={"core_primed_terms": {term["id"]: term}})
        known = request.state.setdefault("core_anonymous_term_hints", {})
        key = (self.taxonomy, self.taxonomy == "category" and term["id"] == DEFAULT_CATEGORY)
        if key not in known:
            known[key] = request.app.rest.target_hints(request, self_url,
                                                       prime={"core_primed_terms": {term["id"]: term}})
        return known[key]

    # --- permissions ----------------------------------------------------------------------

    def check_list(self, request):
        params, user = request.params, request.user
        if params.get("context") == "edit" and not user.can("manage_categories"):
            raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to edit terms in this taxonomy.")
        if params.get("post"):
            self._check_post(request, store.get_item(self.app, request.session, params["post"]))
        return True

    def _check_post(self, request, post: dict | None) -> None:
        """May the caller list the terms of `post` (`?post=`)?"""
        if post is None or post["type"] == "revision":
            raise RestError("rest_post_invalid_id", "Invalid post ID.", 400)
        if not can_read(request, post):
            raise forbidden(request.user, "rest_forbidden_context",
                            "Sorry, you are not allowed to view terms for this post.")

    def check_read(self, request):
        self.load(request, request.params["id"])
        if request.params.get("context") == "edit" and not request.user.can("manage_categories"):
            raise forbidden(request.user, "rest_forbidden_context",
                            "Sorry, you are not allowed to edit this term.")
        return True

    def check_create(self, request):
        if not request.user.can(self.create_cap):
            raise forbidden(request.user, "rest_cannot_create",
                            "Sorry, you are not allowed to create terms in this taxonomy.")
        return True

    def check_update(self, request):
        term = self.load(request, request.params["id"])
        if not request.user.can("edit_term", term):
            raise forbidden(request.user, "rest_cannot_update", "Sorry, you are not allowed to edit this term.")
        return True

    def check_delete(self, request):
        term = self.load(request, request.params["id"])
        if not request.user.can("delete_term", term) or (self.taxonomy == "category" and term["id"] == DEFAULT_CATEGORY):
            raise forbidden(request.user, "rest_cannot_delete", "Sorry, you are not allowed to delete this term.")
        return True

    # --- handlers -------------------------------------------------------------------------

    def list_terms(self, request):
        params = request.params
        version = store.content_version(self.app, request.session)
        key = (self.taxonomy, _params_key(params))
        rows, total = self.app.kept("core.term_pages", TERM_PAGE_ENTRIES).get_or_build(
            key, version, lambda: self._read_page(request))
        per_page, page = params.get("per_page", 10), params.get("page", 1)
        context = params.get("context", "view")
        data = [self.prepare(request, dict(row), context) for row in rows]
        return RestResponse.collection(request, data, total, per_page, page)

    def _read_page(self, request) -> tuple[list[dict], int]:
        """The page's term rows and the total of the filters: two queries."""
        params = request.params
        t = tables(self.app)
        terms, relationships = t["terms"], t["term_relationships"]
        statement, count = self._select()
        where = []
        if params.get("include"):
            where.append(terms.c.id.in_(params["include"]))
        if params.get("exclude"):
            where.append(terms.c.id.notin_(params["exclude"]))
        if params.get("search"):
            pattern = "%" + params["search"].replace("%", "\\%").replace("_", "\\_") + "%"
            where.append(terms.c.name.ilike(pattern, escape="\\") | terms.c.slug.ilike(pattern, escape="\\"))
        if self.hierarchical and params.get("parent") is not None:
            where.append(terms.c.parent == params["parent"])
        if params.get("post"):
            where.append(terms.c.id.in_(select(relationships.c.term_id).where(relationships.c.post_id == params["post"])))
        slugs = [store.sanitize_slug(slug) for slug in params.get("slug") or []]
        if slugs:
            where.append(terms.c.slug.in_(slugs))
        if params.get("hide_empty"):
            if self.hierarchical:  # a category whose own posts are gone still shows while a child has some
                child = terms.alias("child")
                child_used = select(child.c.id).where(child.c.parent == terms.c.id, child.c.count > 0).exists()
                where.append((terms.c.count > 0) | child_used)
            else:
                where.append(terms.c.count > 0)
        total = request.session.execute(select(func.count()).select_from(terms).where(
            terms.c.taxonomy == self.taxonomy, *where)).scalar() or 0
        orderby, descending = params.get("orderby", "name"), params.get("order", "asc") == "desc"
        if orderby == "include" and params.get("include"):
            order = [case({value: index for index, value in enumerate(params["include"])}, value=terms.c.id)]
        elif orderby == "include_slugs" and slugs:
            order = [case({value: index for index, value in enumerate(slugs)}, value=terms.c.slug)]
        else:
            column = {"id": terms.c.id, "slug": terms.c.slug, "description": terms.c.description, "count": count,
                      "term_group": terms.c.id}.get(orderby, terms.c.name)
            order = [column.desc() if descending else column.asc(), terms.c.id.desc() if descending else terms.c.id]
        per_page, page = params.get("per_page", 10), params.get("page", 1)
        # Categories declare no `offset` (as in WordPress), so a sent one is an unvalidated string.
        offset = None if self.hierarchical else params.get("offset")
        offset = offset if offset is not None else (page - 1) * per_page
        rows = request.session.execute(statement.where(*where).order_by(*order).limit(per_page).offset(offset)).all()
        return [dict(row._mapping) for row in rows], total

    def embed_terms_of_posts(self, parent, requests) -> list:
        """`_embed` of `wp:term` for a whole page: the terms of every post in one query.

        Answers only the links' own form (`?post=ID` with `context=embed`, first page, default
        order); each post gets the check `check_list` makes and what `list_terms` would list.
        """
        answers: list = [None] * len(requests)
        chosen = [index for index, request in enumerate(requests)
                  if set(request.query) <= {"post", "context", "per_page"} and request.params.get("post")
                  and request.params.get("context") == "embed"]
        if not chosen:
            return answers
        session = parent.session
        # Every taxonomy's batch of the page asks about the same posts: read them once.
        posts = parent.state.setdefault("core_embed_term_posts", {})
        missing = [requests[index].params["post"] for index in chosen if requests[index].params["post"] not in posts]
        if missing:
            found = store.get_items(self.app, session, missing)
            posts.update({post_id: found.get(post_id) for post_id in missing})
        t = tables(self.app)
        terms, relationships = t["terms"], t["term_relationships"]
        rows = session.execute(
            select(relationships.c.post_id, terms).join(terms, terms.c.id == relationships.c.term_id)
            .where(relationships.c.post_id.in_([post_id for post_id, post in posts.items() if post]),
                   terms.c.taxonomy == self.taxonomy)
            .order_by(terms.c.name, terms.c.id)).all()
        by_post: dict[int, list[dict]] = {}
        for row in rows:
            term = dict(row._mapping)
            by_post.setdefault(term.pop("post_id"), []).append(term)
        prepared: dict[int, dict] = {}  # a term is built once for the page (it does not depend on the post)
        for index in chosen:
            request = requests[index]
            try:
                self._check_post(request, posts.get(request.params["post"]))
            except RestError as error:
                answers[index] = error
                continue
            listed = by_post.get(request.params["post"], [])[: request.params.get("per_page", 10)]
            data = []
            for term in listed:
                if term["id"] not in prepared:
                    prepared[term["id"]] = self.prepare(request, {**term, "count": None}, "embed")
                data.append(prepared[term["id"]])
            answers[index] = data
        return answers

    def get_term(self, request):
        term = self.load(request, request.params["id"])
        return self.prepare(request, term, request.params.get("context", "view"))

    def _clean_name(self, raw) -> str:
        name = render.plain_text(str(raw or ""))
        if not name:
            raise RestError("empty_term_name", "A name is required for this term.", 400)
        return name

    def _check_parent(self, request, term_id: int | None) -> int:
        parent = request.params.get("parent") or 0
        if not self.hierarchical:
            if request.has_param("parent") and parent:
                raise RestError("rest_taxonomy_not_hierarchical",
                                "Cannot set parent term, taxonomy is not hierarchical.", 400)
            return 0
        if parent:
            terms = tables(self.app)["terms"]
            found = request.session.execute(select(terms.c.id).where(
                terms.c.id == parent, terms.c.taxonomy == self.taxonomy)).first()
            if found is None:
                raise RestError("rest_term_invalid", "Parent term does not exist.", 400)
            if term_id is not None and parent == term_id:
                return 0
        return parent

    def _name_taken(self, session, name: str, parent: int, exclude_id: int | None):
        terms = tables(self.app)["terms"]
        where = [terms.c.taxonomy == self.taxonomy, func.lower(terms.c.name) == name.lower()]
        if self.hierarchical:
            where.append(terms.c.parent == parent)
        if exclude_id:
            where.append(terms.c.id != exclude_id)
        return session.execute(select(terms.c.id).where(*where)).scalar()

    def _slug_taken(self, session, slug: str, exclude_id: int | None) -> bool:
        terms = tables(self.app)["terms"]
        where = [terms.c.taxonomy == self.taxonomy, terms.c.slug == slug]
        if exclude_id:
            where.append(terms.c.id != exclude_id)
        return session.execute(select(terms.c.id).where(*where)).first() is not None

    def _unique_slug(self, session, slug: str, parent: int) -> str:
        """`slug`, else `slug-<parent's slug>` for a child, else the first free `slug-N` in the taxonomy, as
        wp_unique_term_slug picks; the family is read in one query (host.slug_family), not probed name by name."""
        terms = tables(self.app)["terms"]
        free = slug_family.first_free_name(session, terms.c.slug, [terms.c.taxonomy == self.taxonomy], slug,
                                           store.MAX_SLUG)
        if free == slug:
            return slug
        if parent:
            parent_slug = session.execute(select(terms.c.slug).where(terms.c.id == parent)).scalar()
            candidate = f"{slug}-{parent_slug}"
            if parent_slug and not self._slug_taken(session, candidate, None):
                return candidate
        return free

    def _announce(self, request, term_id: int, deleted: bool = False) -> None:
        """`terms_changed` once the write committed: pages that show the term's name or list its posts go stale."""
        app, taxonomy = self.app, self.taxonomy
        request.after_commit(lambda: app.hook.terms_changed(app=app, taxonomy=taxonomy, term_id=term_id,
                                                            deleted=deleted))

    def create_term(self, request):
        params, session = request.params, request.session
        name = self._clean_name(params.get("name"))
        parent = self._check_parent(request, None)
        sent_slug = store.sanitize_slug(params["slug"]) if params.get("slug") else ""
        existing = self._name_taken(session, name, parent, None)
        if existing and not (sent_slug and not self._slug_taken(session, sent_slug, None)):
            raise RestError("term_exists", "A term with the name provided already exists with this parent.", 400,
                            {"term_id": existing}, additional_data=[existing])
        slug = self._unique_slug(session, sent_slug or store.sanitize_slug(name) or "term", parent)
        terms = tables(self.app)["terms"]
        term_id = session.execute(insert(terms).values(
            taxonomy=self.taxonomy, name=name, slug=slug, description=params.get("description") or "",
            parent=parent)).inserted_primary_key[0]
        self._announce(request, term_id)
        data = self.prepare(request, self.load(request, term_id), "edit")
        return RestResponse.created(data, core_url(request, f"{self.base}/{term_id}"))

    def update_term(self, request):
        params, session = request.params, request.session
        term = self.load(request, params["id"])
        values = {}
        if request.has_param("parent"):
            values["parent"] = self._check_parent(request, term["id"])
        if request.has_param("name"):
            values["name"] = self._clean_name(params.get("name"))
            existing = self._name_taken(session, values["name"], values.get("parent", term["parent"]), term["id"])
            if existing:
                raise RestError("term_exists", "A term with the name provided already exists with this parent.",
                                400, {"term_id": existing}, additional_data=[existing])
        if params.get("slug"):
            slug = store.sanitize_slug(params["slug"])
            if self._slug_taken(session, slug, term["id"]):
                raise RestError("duplicate_term_slug",
                                f"The slug \u201c{slug}\u201d is already in use by another term.", 400)
            values["slug"] = slug
        if request.has_param("description") and params.get("description") is not None:
            values["description"] = params["description"]
        if values:
            terms = tables(self.app)["terms"]
            session.execute(update(terms).where(terms.c.id == term["id"]).values(**values))
            self._announce(request, term["id"])
        return self.prepare(request, self.load(request, term["id"]), "edit")

    def delete_term(self, request):
        params, session = request.params, request.session
        term = self.load(request, params["id"])
        if not params.get("force"):
            raise RestError("rest_trash_not_supported",
                            "Terms do not support trashing. Set 'force' to true to delete.", 501)
        previous = self.prepare(request, term, "view")
        t = tables(self.app)
        terms, relationships, posts = t["terms"], t["term_relationships"], t["posts"]
        affected = list(session.execute(select(relationships.c.post_id).where(
            relationships.c.term_id == term["id"])).scalars())
        session.execute(update(terms).where(terms.c.parent == term["id"]).values(parent=term["parent"]))
        session.execute(delete(relationships).where(relationships.c.term_id == term["id"]))
        session.execute(delete(terms).where(terms.c.id == term["id"]))
        self._announce(request, term["id"], deleted=True)
        if self.taxonomy == "category" and affected:
            categories = select(relationships.c.post_id).join(terms, terms.c.id == relationships.c.term_id).where(
                terms.c.taxonomy == "category")
            orphans = session.execute(select(posts.c.id).where(
                posts.c.id.in_(affected), posts.c.id.notin_(categories))).scalars().all()
            if orphans:
                session.execute(insert(relationships), [{"post_id": post_id, "term_id": DEFAULT_CATEGORY}
                                                        for post_id in orphans])
        return deleted_answer(previous)


def _params_key(params: dict) -> str:
    """The validated params of a term list, but the context, as a key (what the page's rows depend on)."""
    return repr(sorted((name, value) for name, value in params.items() if name != "context"))
