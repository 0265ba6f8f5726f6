"""core/v2/search: one search over posts of every searchable type, terms, or post formats.

The results are WordPress's search result objects (id, title, url, type, subtype) with a
`self` link to the item's own route, so a client follows it (or `_embed`s it) for the rest.
Only what anyone may read is found: published items of public types with a rest base
(attachments aside, as WordPress leaves them out of search), terms of taxonomies with a
rest base, and formats in use on published posts. Items whose text their type's plugin
withholds from some callers (PostType.text_access) are found by their title only.
"""

from __future__ import annotations

from marshmallow import fields, validate
from sqlalchemy import and_, func, not_, or_, select

from host import RestError, RestResponse, Route, ParamError, invalid_param
from host.args import PagedArgs, id_list, search_field, string_list

from . import dates, store
from .changes import SEARCH_CHANGES
from .render import plain_text
from .permissions import type_caps
from .shaping import core_url, permalink, site_url, text_gated
from .tables import tables

NAMESPACE = "core/v2"
FORMATS = ("aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio")


class SearchArgs(PagedArgs):
    context = fields.String(load_default="view", validate=validate.OneOf(["view", "embed"]),  # as WordPress: no edit
                            metadata={"description": "Scope under which the request is made; determines fields present "
                                                     "in response."})
    search = search_field()
    type = fields.String(load_default="post", validate=validate.OneOf(["post", "term", "post-format"]),
                         metadata={"description": "Limit results to items of an object type."})
    subtype = string_list("Limit results to items of one or more object subtypes.", default="any")
    exclude = id_list("Ensure result set excludes specific IDs.")
    include = id_list("Limit result set to specific IDs.")


def _searchable_types(app) -> dict[str, str]:
    return {name: post_type.rest_base for name, (post_type, _owner) in app.registry.post_types.items()
            if post_type.rest_base and post_type.public and name != "attachment"}


def _searchable_taxonomies(app) -> dict[str, str]:
    return {name: taxonomy.rest_base for name, (taxonomy, _owner) in app.registry.taxonomies.items() if taxonomy.rest_base}


def _subtypes(request, available: dict[str, str]) -> list[str]:
    wanted = request.params.get("subtype") or ["any"]
    if "any" in wanted:
        return list(available)
    unknown = [name for name in wanted if name not in available]
    if unknown:
        message = f"subtype[0] is not one of {', '.join(['any', *available])}."
        raise invalid_param({"subtype": ParamError("rest_not_in_enum", message)})
    return wanted


def _words_clause(columns, search: str):
    """Every term of the search appears in one of `columns` (their visible text)."""
    clauses = []
    for term in store.split_search(search):
        negate = term.startswith("-") and len(term) > 1
        word = (term[1:] if negate else term).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        match = or_(*[column.ilike(f"%{word}%", escape="\\") for column in columns])
        clauses.append(not_(match) if negate else match)
    return and_(*clauses) if clauses else None


def _page(request, statement, count_statement):
    per_page, page = request.params.get("per_page", 10), request.params.get("page", 1)
    total = request.session.execute(count_statement).scalar() or 0
    rows = request.session.execute(statement.limit(per_page).offset((page - 1) * per_page)).all()
    if total and page > -(-total // per_page):
        raise RestError("rest_post_invalid_page_number",
                        "The page number requested is larger than the number of pages available.", 400)
    return rows, total, per_page, page


def _result(request, context: str, data: dict, self_path: str | None, about: str | None) -> dict:
    if context == "embed":
        data = {key: data[key] for key in ("id", "title", "url")}
    links = {}
    if self_path:
        links["self"] = [{"embeddable": True, "href": core_url(request, self_path)}]
    if about:
        links["about"] = [{"href": core_url(request, about)}]
    return {**data, "_links": links} if links else data


def search(request):
    app, params = request.app, request.params
    kind, context = params.get("type", "post"), params.get("context", "view")
    posts = tables(app)["posts"]
    if kind == "post":
        available = _searchable_types(app)
        chosen = _subtypes(request, available)
        published = or_(posts.c.status == "publish",
                        and_(posts.c.status == "future", posts.c.date_gmt <= dates.utcnow()))
        where = [posts.c.type.in_(chosen), published]
        text = [func.sitehost_text(posts.c.title), func.sitehost_text(posts.c.excerpt), func.sitehost_text(posts.c.content)]
        if app.db.engine.dialect.name not in ("sqlite", "postgresql"):
            text = [posts.c.title, posts.c.excerpt, posts.c.content]
        words = _words_clause(text, params.get("search") or "")
        # A type whose plugin withholds some items' text (PostType.text_access) is matched by title
        # only, unless the caller may edit all of its items: a match must not tell what the text says.
        title_only = [name for name in chosen
                      if text_gated(app, name) and not request.user.can(type_caps(app, name)["edit_others"])]
        if words is not None and title_only:
            words = or_(and_(posts.c.type.notin_(title_only), words),
                        and_(posts.c.type.in_(title_only), _words_clause(text[:1], params.get("search") or "")))
        if words is not None:
            where.append(words)
        if params.get("include"):
            where.append(posts.c.id.in_(params["include"]))
        if params.get("exclude"):
            where.append(posts.c.id.notin_(params["exclude"]))
        statement = select(posts.c.id, posts.c.title, posts.c.type).where(*where).order_by(
            posts.c.date.desc(), posts.c.id.desc())
        rows, total, per_page, page = _page(request, statement, select(func.count()).select_from(posts).where(*where))
        found = store.get_items(app, request.session, [row.id for row in rows])
        base = site_url(request)
        # `url` is the item's permalink, as WordPress's get_permalink: a page's or a lesson's `/?p=ID` opens nothing
        items = [_result(request, context, {
            "id": row.id, "title": plain_text(row.title), "type": "post", "subtype": row.type,
            "url": permalink(request, found[row.id]) if row.id in found else f"{base}/?p={row.id}"},
            f"{available[row.type]}/{row.id}", f"types/{row.type}") for row in rows]
    elif kind == "term":
        terms = tables(app)["terms"]
        available = _searchable_taxonomies(app)
        chosen = _subtypes(request, available)
        where = [terms.c.taxonomy.in_(chosen)]
        words = _words_clause([terms.c.name, terms.c.slug, terms.c.description], params.get("search") or "")
        if words is not None:
            where.append(words)
        if params.get("include"):
            where.append(terms.c.id.in_(params["include"]))
        if params.get("exclude"):
            where.append(terms.c.id.notin_(params["exclude"]))
        statement = select(terms.c.id, terms.c.name, terms.c.taxonomy, terms.c.slug).where(*where).order_by(terms.c.name)
        rows, total, per_page, page = _page(request, statement, select(func.count()).select_from(terms).where(*where))
        base = site_url(request)
        items = [_result(request, context, {"id": row.id, "title": plain_text(row.name),
                                            "url": f"{base}/?taxonomy={row.taxonomy}&term={row.slug}",
                                            "type": "term", "subtype": row.taxonomy},
                         f"{available[row.taxonomy]}/{row.id}", f"taxonomies/{row.taxonomy}") for row in rows]
    else:
        used = {row[0] for row in request.session.execute(
            select(posts.c.format).distinct().where(posts.c.status == "publish", posts.c.format != ""))}
        search_text = (params.get("search") or "").strip().lower()
        names = [name for name in FORMATS if name in used and (not search_text or search_text in name)]
        total, per_page, page = len(names), params.get("per_page", 10), params.get("page", 1)
        base = site_url(request)
        items = [_result(request, context, {"id": name, "title": name.title(), "url": f"{base}/?post_format={name}",
                                            "type": "post-format", "subtype": name}, None, None)
                 for name in names[(page - 1) * per_page:page * per_page]]
    return RestResponse.collection(request, items, total, per_page, page)


def routes() -> list[Route]:
    return [Route(NAMESPACE, "/search", "GET", search, args=SearchArgs, title="search-result", cacheable=True,
                  changes_with=SEARCH_CHANGES)]
