"""The filters of a collection query: which posts a page may contain and in what order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Float, and_, bindparam, case, cast, exists, false, func, not_, or_, select

from .. import dates
from ..tables import tables
from .search import search_clause, split_search


@dataclass
class TaxClause:
    taxonomy: str
    terms: list[int]
    operator: str = "OR"
    include_children: bool = False
    exclude: bool = False


@dataclass(frozen=True)
class ReadScope:
    """Which non-public items the caller may read, in terms SQL can apply.

    Filtering after the query made totals count what the caller cannot read: a contributor's
    `status=draft&search=word` answered [] with X-WP-Total 1. `author` is the caller's id (0:
    anonymous), whose own items are readable; `others` the non-public statuses in which others'
    items of the queried type are readable; `parent_others` the same per parent type, for
    attachments, which inherit their parent's visibility. Built from the permission checks
    themselves (plugins/core/posts.py), so the query and the per-item check agree.
    """

    author: int
    public: tuple[str, ...]
    others: tuple[str, ...] = ()
    parent_others: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass
class PostQuery:
    """Every filter a posts/pages/media collection understands (None or empty: not applied)."""

    post_type: str
    statuses: list[str] = field(default_factory=lambda: ["publish"])
    include: list[int] = field(default_factory=list)
    exclude: list[int] = field(default_factory=list)
    author: list[int] = field(default_factory=list)
    author_exclude: list[int] = field(default_factory=list)
    parent: list[int] | None = None
    parent_exclude: list[int] = field(default_factory=list)
    menu_order: int | None = None
    slugs: list[str] = field(default_factory=list)
    after: Any = None
    before: Any = None
    modified_after: Any = None
    modified_before: Any = None
    search: str = ""
    search_columns: list[str] = field(default_factory=list)
    search_exact: bool = False
    tax_clauses: list[TaxClause] = field(default_factory=list)
    tax_relation: str = "AND"
    sticky: bool | None = None
    formats: list[str] = field(default_factory=list)
    mime_clauses: list[tuple[str, str]] = field(default_factory=list)  # ("prefix"|"exact", value)
    hide_password_protected: bool = False
    orderby: str = "date"
    order: str = "desc"
    meta_key: str = ""  # orderby "meta_value_num": the meta key whose number sorts the items
    per_page: int | None = 10
    offset: int = 0
    read_scope: ReadScope | None = None



def _status_clause(app, statuses: list[str]):
    posts = tables(app)["posts"]
    now = bindparam("now", dates.utcnow(), type_=posts.c.date_gmt.type)  # a cached statement gets a fresh value
    clauses = []
    plain = [status for status in statuses if status not in ("publish", "future")]
    if plain:
        clauses.append(posts.c.status.in_(plain))
    if "publish" in statuses and "future" in statuses:
        clauses.append(posts.c.status.in_(["publish", "future"]))
    elif "publish" in statuses:
        clauses.append(posts.c.status == "publish")
        clauses.append(and_(posts.c.status == "future", posts.c.date_gmt <= now))
    elif "future" in statuses:
        clauses.append(and_(posts.c.status == "future", or_(posts.c.date_gmt > now, posts.c.date_gmt.is_(None))))
    return or_(*clauses) if clauses else false()


def _term_ids_clause(app, ids: list[int], include_children: bool):
    terms = tables(app)["terms"]
    if not include_children:
        return ids
    tree = select(terms.c.id).where(terms.c.id.in_(ids)).cte("term_tree", recursive=True)
    tree = tree.union_all(select(terms.c.id).where(terms.c.parent == tree.c.id))
    return select(tree.c.id)


def _tax_clause(app, clause: TaxClause):
    posts, relationships = tables(app)["posts"], tables(app)["term_relationships"]

    def has(ids):
        return exists().where(relationships.c.post_id == posts.c.id,
                              relationships.c.term_id.in_(_term_ids_clause(app, ids, clause.include_children)))

    if not clause.terms:
        return None
    if clause.exclude:
        return not_(has(clause.terms))
    if clause.operator == "AND":
        return and_(*[has([term]) for term in clause.terms])
    return has(clause.terms)


def _readable_clause(app, scope: ReadScope):
    """Items of the page the caller may read: public, their own, others' in readable statuses."""
    posts = tables(app)["posts"]
    now = bindparam("now", dates.utcnow(), type_=posts.c.date_gmt.type)
    # A scheduled post whose time has come reads as published (see _status_clause).
    readable = [posts.c.status.in_(scope.public), and_(posts.c.status == "future", posts.c.date_gmt <= now)]
    if scope.author:
        readable.append(posts.c.author == scope.author)
    if scope.others:
        readable.append(posts.c.status.in_(scope.others))
    parent = posts.alias("readable_parent")
    parent_readable = [parent.c.status.in_(scope.public)]
    if scope.author:
        parent_readable.append(parent.c.author == scope.author)
    parent_readable.extend(and_(parent.c.type == parent_type, parent.c.status.in_(statuses))
                           for parent_type, statuses in scope.parent_others if statuses)
    readable.append(and_(posts.c.status == "inherit", or_(
        posts.c.parent == 0, posts.c.parent.is_(None),
        exists().where(parent.c.id == posts.c.parent, or_(*parent_readable)),
        ~exists().where(parent.c.id == posts.c.parent))))  # a parent that is gone hides nothing
    return or_(*readable)


def filters(app, query: PostQuery, walk_date_index: bool = False, search_hits: bool | str = False) -> list:
    posts = tables(app)["posts"]
    where = [posts.c.type == query.post_type, _status_clause(app, query.statuses)]
    if query.read_scope is not None:
        where.append(_readable_clause(app, query.read_scope))
    if query.include:
        where.append(posts.c.id.in_(query.include))
    if query.exclude:
        where.append(posts.c.id.notin_(query.exclude))
    if query.author:
        where.append(posts.c.author.in_(query.author))
    if query.author_exclude:
        where.append(or_(posts.c.author.notin_(query.author_exclude), posts.c.author.is_(None)))
    if query.parent is not None:
        where.append(posts.c.parent.in_(query.parent))
    if query.parent_exclude:
        where.append(posts.c.parent.notin_(query.parent_exclude))
    if query.menu_order is not None:
        where.append(posts.c.menu_order == query.menu_order)
    if query.slugs:
        where.append(posts.c.slug.in_(query.slugs))
    for value, column, operator in ((query.after, posts.c.date, ">"), (query.before, posts.c.date, "<"),
                                    (query.modified_after, posts.c.modified, ">"),
                                    (query.modified_before, posts.c.modified, "<")):
        if value is not None:
            where.append(column > value if operator == ">" else column < value)
    if query.search:
        clause = search_clause(app, query, walk_date_index, search_hits)
        if clause is not None:
            where.append(clause)
    if query.hide_password_protected:
        where.append(posts.c.password == "")
    tax = [clause for clause in (_tax_clause(app, tax_clause) for tax_clause in query.tax_clauses) if clause is not None]
    format_clauses = []
    for fmt in query.formats:
        format_clauses.append(posts.c.format == ("" if fmt == "standard" else fmt))
    if format_clauses:
        tax.append(or_(*format_clauses))
    if tax:
        where.append(or_(*tax) if query.tax_relation == "OR" else and_(*tax))
    if query.sticky is True:
        where.append(posts.c.sticky.is_(True))
    elif query.sticky is False:
        where.append(posts.c.sticky.is_(False))
    if query.mime_clauses:
        mime = []
        for kind, value in query.mime_clauses:
            mime.append(posts.c.mime_type.like(value + "/%") if kind == "prefix" else posts.c.mime_type == value)
        where.append(or_(*mime))
    return where


def order_clauses(app, query: PostQuery) -> list:
    posts = tables(app)["posts"]
    descending = query.order == "desc"

    def directed(column):
        return column.desc() if descending else column.asc()

    if query.orderby == "include" and query.include:
        return [case({value: index for index, value in enumerate(query.include)}, value=posts.c.id), posts.c.id]
    if query.orderby == "include_slugs" and query.slugs:
        return [case({value: index for index, value in enumerate(query.slugs)}, value=posts.c.slug), posts.c.id]
    if query.orderby == "relevance" and query.search:
        terms = [term for term in split_search(query.search) if not term.startswith("-")]
        phrase = query.search.strip().replace('"', "")
        like = lambda column, text: column.ilike("%" + text.replace("%", "\\%").replace("_", "\\_") + "%", escape="\\")
        ranks = [(like(posts.c.title, phrase), 1)]
        if terms:
            ranks.append((and_(*[like(posts.c.title, term) for term in terms]), 2))
            ranks.append((or_(*[like(posts.c.title, term) for term in terms]), 3))
        # As WordPress's parse_search_order: only the searched columns rank (a title-only search must
        # not order its results by what the text holds).
        searched = set(query.search_columns or ("post_excerpt", "post_content"))
        ranks += [(like(column, phrase), rank) for name, column, rank in (
            ("post_excerpt", posts.c.excerpt, 4), ("post_content", posts.c.content, 5)) if name in searched]
        return [case(*ranks, else_=6), posts.c.date.desc(), posts.c.id.desc()]
    if query.orderby == "meta_value_num" and query.meta_key:
        # Meta values are stored JSON-encoded, so a number is its own text; items without the
        # key (or with a value that is not a number) sort as 0, as WordPress's CAST does.
        meta = tables(app)["post_meta"]
        text = select(meta.c.value).where(meta.c.post_id == posts.c.id, meta.c.key == query.meta_key) \
            .scalar_subquery()
        number = case((text.regexp_match(r"^-?[0-9]+(\.[0-9]+)?$"), cast(text, Float)), else_=0.0) \
            if app.db.engine.dialect.name == "postgresql" else cast(func.coalesce(text, "0"), Float)
        return [directed(number), directed(posts.c.id)]
    columns = {"date": posts.c.date, "id": posts.c.id, "author": posts.c.author, "modified": posts.c.modified,
               "parent": posts.c.parent, "slug": posts.c.slug, "title": posts.c.title,
               "menu_order": posts.c.menu_order}
    column = columns.get(query.orderby, posts.c.date)
    ordering = [directed(column)]
    if column is not posts.c.id:
        ordering.append(directed(posts.c.id))
    return ordering
