"""Queries of the content store: one place for reading, filtering, searching and writing posts.

A page of any collection is ONE select: terms, meta, revision counts and the parent's
status come along as correlated subqueries (indexed), never as follow-up queries. The
total is one COUNT with the same filters. Search lives in `search_clause` alone so a
full-text index (FTS5, tsvector) can replace it without touching the routes.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import (
    String, and_, bindparam, case, cast, column, delete, exists, false, func, insert, literal, literal_column, not_, or_, select,
    table, update,
)

from . import dates
from .lru import LruCache, per_app
from .models import tables

AUTOSAVE_SUFFIX = "-autosave-v1"
STOP_WORDS = frozenset("about an are as at be by com for from how in is it of on or that the this to was what when "
                       "where who will with www".split())
RESERVED_SLUGS = frozenset({"feed", "rdf", "rss", "rss2", "atom", "embed"})
MAX_SLUG = 200


@dataclass
class TaxClause:
    taxonomy: str
    terms: list[int]
    operator: str = "OR"
    include_children: bool = False
    exclude: bool = False


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
    per_page: int | None = 10
    offset: int = 0


# --- text helpers --------------------------------------------------------------------------

def sanitize_slug(value: str) -> str:
    """sanitize_title: lowercase ASCII, accents transliterated, spaces to dashes, punctuation dropped."""
    text = re.sub(r"<[^>]*>", "", value or "")
    text = text.replace("æ", "ae").replace("Æ", "AE").replace("ø", "o").replace("ß", "ss").replace("œ", "oe")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"&[a-z0-9#]+;", "", text)
    text = text.replace(".", "-")
    text = re.sub(r"[^a-z0-9 _-]", "", text)
    text = re.sub(r"[\s_]+", "-", text)
    text = re.sub(r"-+", "-", text).strip("-")
    return text[:MAX_SLUG]


def split_search(search: str) -> list[str]:
    """Search terms: quoted phrases kept, stop words and one-letter terms dropped, >9 terms -> whole string."""
    search = re.sub(r"<[^>]*>", "", search).strip()
    found = re.findall(r'(-?"[^"]+"|[^\s,+]+)', search)
    terms = [term.replace('"', "") for term in found]
    terms = [term for term in terms if term.strip("-")]
    if len(terms) > 9:
        return [search]
    kept = []
    for term in terms:
        bare = term.lstrip("-").lower()
        if len(bare) < 2 or bare in STOP_WORDS:
            continue
        kept.append(term)
    return kept


# --- the item select ----------------------------------------------------------------------

def _aggregate(dialect: str, expression):
    if dialect == "postgresql":
        return func.string_agg(expression, literal(","))
    return func.group_concat(expression, literal(","))


def effective_status(stored: str, date_gmt, now) -> str:
    """`future` items whose time has come read as `publish` (scheduling without a cron)."""
    if stored == "future" and date_gmt is not None and date_gmt <= now:
        return "publish"
    return stored


_ITEM_SELECTS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()


def item_select(app, post_type: str):
    """SELECT of posts with everything an item needs: terms, meta, revisions, parent status.

    Built once per (app, post type): it depends only on the registry, which is final before
    the first request, and building it costs more than running it for a page of ten.
    """
    built = _ITEM_SELECTS.setdefault(app, {})
    if post_type not in built:
        built[post_type] = _build_item_select(app, post_type)
    return built[post_type]


def _build_item_select(app, post_type: str):
    t = tables(app)
    posts, meta, terms, relationships = t["posts"], t["post_meta"], t["terms"], t["term_relationships"]
    dialect = app.db.engine.dialect.name
    revisions = posts.alias("revisions")
    parent = posts.alias("parent_post")
    columns = [
        posts,
        select(func.count()).where(revisions.c.parent == posts.c.id, revisions.c.type == "revision")
        .scalar_subquery().label("revision_count"),
        select(func.max(revisions.c.id)).where(revisions.c.parent == posts.c.id, revisions.c.type == "revision")
        .scalar_subquery().label("latest_revision_id"),
        select(parent.c.status).where(parent.c.id == posts.c.parent).scalar_subquery().label("parent_status"),
        select(parent.c.author).where(parent.c.id == posts.c.parent).scalar_subquery().label("parent_author"),
        select(parent.c.type).where(parent.c.id == posts.c.parent).scalar_subquery().label("parent_type"),
    ]
    for index, taxonomy in enumerate(taxonomies_of(app, post_type)):
        pair = cast(terms.c.id, String) + literal(":") + terms.c.slug
        columns.append(
            select(_aggregate(dialect, pair)).select_from(relationships.join(terms, relationships.c.term_id == terms.c.id))
            .where(relationships.c.post_id == posts.c.id, terms.c.taxonomy == taxonomy)
            .scalar_subquery().label(f"tax_{index}"))
    for index, key in enumerate(meta_keys_for(app, post_type)):
        columns.append(select(meta.c.value).where(meta.c.post_id == posts.c.id, meta.c.key == key.key)
                       .scalar_subquery().label(f"meta_{index}"))
    return select(*columns)


def meta_keys_for(app, post_type: str) -> list:
    """Registered meta keys of a type; revisions carry every key registered with `revisions=True`."""
    return _item_layout(app, post_type).meta_keys


def taxonomies_of(app, post_type: str) -> list[str]:
    return _item_layout(app, post_type).taxonomies


@dataclass(frozen=True)
class _ItemLayout:
    """What `row_to_item` needs to know about a type's rows, computed once per (app, type)."""

    post_columns: tuple[str, ...]
    taxonomies: list[str]
    meta_keys: list
    tax_labels: tuple[tuple[str, str], ...]  # (taxonomy, column label)
    meta_labels: tuple[tuple[str, str, Any], ...]  # (key, column label, default when unset)


_LAYOUTS: "weakref.WeakKeyDictionary[Any, dict[str, _ItemLayout]]" = weakref.WeakKeyDictionary()


def _item_layout(app, post_type: str) -> _ItemLayout:
    """Built on first use: the registry is final before the first request."""
    layouts = _LAYOUTS.setdefault(app, {})
    layout = layouts.get(post_type)
    if layout is None:
        if post_type != "revision":
            keys = app.registry.meta_keys(post_type)
        else:
            found = {}
            for key, _owner in app.registry.meta:
                if key.revisions:
                    found.setdefault(key.key, key)
            keys = list(found.values())
        taxonomies = [name for name, (taxonomy, _owner) in app.registry.taxonomies.items()
                      if post_type in taxonomy.object_types]
        layout = _ItemLayout(
            post_columns=tuple(tables(app)["posts"].c.keys()), taxonomies=taxonomies, meta_keys=keys,
            tax_labels=tuple((taxonomy, f"tax_{index}") for index, taxonomy in enumerate(taxonomies)),
            meta_labels=tuple((key.key, f"meta_{index}", key.schema.get("default")) for index, key in enumerate(keys)))
        layouts[post_type] = layout
    return layout


_IMMUTABLE = (str, int, float, bool, type(None))


def row_to_item(app, row, post_type: str | None = None) -> dict[str, Any]:
    """A result row as the item dict every shaping function works with."""
    mapping = row._mapping
    item_type = post_type or mapping["type"]
    layout = _item_layout(app, item_type)
    item = {column: mapping[column] for column in layout.post_columns}
    item["stored_status"] = item["status"]
    item["status"] = effective_status(item["status"], item["date_gmt"], dates.utcnow())
    get = mapping.get
    item["revision_count"] = get("revision_count", 0) or 0
    item["latest_revision_id"] = get("latest_revision_id")
    item["parent_status"] = get("parent_status")
    item["parent_author"] = get("parent_author")
    item["parent_type"] = get("parent_type")
    item["author"] = item["author"] or 0
    terms = item["terms"] = {}
    for taxonomy, label in layout.tax_labels:
        value = get(label)
        pairs = []
        if value:
            for part in value.split(","):
                if ":" in part:
                    term_id, slug = part.split(":", 1)
                    pairs.append((int(term_id), slug))
            pairs.sort()
        terms[taxonomy] = pairs
    meta = item["meta"] = {}
    for key, label, default in layout.meta_labels:
        raw = get(label)
        if raw is None and isinstance(default, _IMMUTABLE):
            meta[key] = default
        else:
            meta[key] = decode_meta(raw, {"default": default})
    if item.get("parent") and item.get("parent_status") is not None:
        item["_parent"] = {"id": item["parent"], "type": item["parent_type"], "status": item["parent_status"],
                           "author": item["parent_author"] or 0}
    return item


def decode_meta(raw: str | None, schema: dict) -> Any:
    if raw is None:
        default = schema.get("default")
        return json.loads(json.dumps(default)) if default is not None else None
    try:
        return json.loads(raw)
    except ValueError:
        return raw


# --- reading -------------------------------------------------------------------------------

def get_item(app, session, post_id: int, post_type: str | None = None) -> dict | None:
    posts = tables(app)["posts"]
    if post_type is None:
        found = session.execute(select(posts.c.type).where(posts.c.id == post_id)).scalar()
        if found is None:
            return None
        post_type = found
    row = session.execute(item_select(app, post_type).where(posts.c.id == post_id, posts.c.type == post_type)).first()
    return row_to_item(app, row, post_type) if row is not None else None


def post_exists(app, session, post_id: int) -> dict | None:
    posts = tables(app)["posts"]
    row = session.execute(select(posts.c.id, posts.c.type, posts.c.status, posts.c.parent, posts.c.author)
                          .where(posts.c.id == post_id)).first()
    return dict(row._mapping) if row is not None else None


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


SEARCH_WORD = re.compile(r"\w+")
FULL_TEXT_COLUMNS = ("title", "content", "excerpt")
POSTGRES_SEARCH_VECTOR = "to_tsvector('simple', posts.title || ' ' || posts.content || ' ' || posts.excerpt)"


def search_clause(app, query: PostQuery, walk_date_index: bool = False):
    """Every term must match a search column; `-term` must not.

    Terms go through the database's full-text index (FTS5 on SQLite, a tsvector GIN index on
    PostgreSQL) as word-prefix matches: "foot" finds "football" but, unlike a substring scan,
    not "barefoot". A quoted phrase or a hyphenated term is a phrase of word prefixes' last
    word. Exact semantics, media (file names), other databases, and terms without a letter
    or digit keep the substring comparison.
    """
    posts = tables(app)["posts"]
    column_names = query.search_columns or ["post_title", "post_excerpt", "post_content"]
    columns = [getattr(posts.c, name[5:]) for name in column_names]
    if query.post_type == "attachment" and not query.search_columns:
        columns.append(posts.c.file)
    dialect = app.db.engine.dialect.name
    indexed = not query.search_exact and query.post_type != "attachment" and (
        dialect == "sqlite" or (dialect == "postgresql" and len(set(column_names)) == 3))
    clauses = []
    for term in split_search(query.search):
        negate = term.startswith("-") and len(term) > 1
        word = term[1:] if negate else term
        words = SEARCH_WORD.findall(word.lower())
        if indexed and words:
            match = _full_text_match(app, dialect, [name[5:] for name in column_names], words, walk_date_index)
        elif query.search_exact:
            match = or_(*[func.lower(column) == word.lower() for column in columns])
        else:
            escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            match = or_(*[column.ilike(f"%{escaped}%", escape="\\") for column in columns])
        clauses.append(not_(match) if negate else match)
    return and_(*clauses) if clauses else None


def _full_text_match(app, dialect: str, column_names: list[str], words: list[str], walk_date_index: bool = False):
    posts = tables(app)["posts"]
    if dialect == "postgresql":
        tsquery = " <-> ".join(words) + ":*"
        return literal_column(POSTGRES_SEARCH_VECTOR).op("@@")(func.to_tsquery(literal_column("'simple'"), tsquery))
    phrase = '"' + " ".join(words) + '" *'
    if set(column_names) != set(FULL_TEXT_COLUMNS):
        phrase = "{" + " ".join(dict.fromkeys(column_names)) + "} : " + phrase
    index = table("posts_fts", column("rowid"))
    # "+posts.id" keeps SQLite from starting at the matches (see DEEP_SEARCH_OFFSET): it walks the
    # date index and keeps the ids found in the full-text index, whatever ANALYZE says.
    matched_id = literal_column("+posts.id") if walk_date_index else posts.c.id
    return matched_id.in_(select(index.c.rowid).where(literal_column("posts_fts").op("MATCH")(phrase)))


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


def filters(app, query: PostQuery, walk_date_index: bool = False) -> list:
    posts = tables(app)["posts"]
    where = [posts.c.type == query.post_type, _status_clause(app, query.statuses)]
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
        clause = search_clause(app, query, walk_date_index)
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
        ranks += [(like(posts.c.excerpt, phrase), 4), (like(posts.c.content, phrase), 5)]
        return [case(*ranks, else_=6), posts.c.date.desc(), posts.c.id.desc()]
    columns = {"date": posts.c.date, "id": posts.c.id, "author": posts.c.author, "modified": posts.c.modified,
               "parent": posts.c.parent, "slug": posts.c.slug, "title": posts.c.title,
               "menu_order": posts.c.menu_order}
    column = columns.get(query.orderby, posts.c.date)
    ordering = [directed(column)]
    if column is not posts.c.id:
        ordering.append(directed(posts.c.id))
    return ordering


class TotalsCache:
    """Totals of recent filter sets, each valid for one content version and until a scheduled post is due.

    The version comes from the `content_version` row that triggers bump inside every writing
    transaction, so a total cached by this process is never served after any process changed
    posts, terms or term links. Scheduled posts start counting as published when their time
    comes without a write, so an entry also expires at the next such moment.
    """

    def __init__(self, size: int = 512):
        self.size = size
        self.entries: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key, version: int, now):
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            total, cached_version, valid_until = entry
            if cached_version != version or (valid_until is not None and now >= valid_until):
                return None
            self.entries.move_to_end(key)
            return total

    def put(self, key, total: int, version: int, valid_until) -> None:
        with self.lock:
            self.entries[key] = (total, version, valid_until)
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)


_TOTALS: "weakref.WeakKeyDictionary[Any, TotalsCache]" = weakref.WeakKeyDictionary()


def totals_cache(app) -> TotalsCache | None:
    """None where no trigger keeps the content version (databases other than SQLite and PostgreSQL)."""
    if app.db.engine.dialect.name not in ("sqlite", "postgresql"):
        return None
    cache = _TOTALS.get(app)
    if cache is None:
        cache = _TOTALS.setdefault(app, TotalsCache())
    return cache


def _filter_key(query: PostQuery) -> str:
    """What decides the total: every filter, not the page, the order or the page size."""
    return repr(replace(query, per_page=None, offset=0, orderby="", order=""))


def _content_version(app):
    version = tables(app)["content_version"]
    return select(version.c.version).where(version.c.id == 1).scalar_subquery()


def _next_due(app, post_type: str, now):
    """The earliest scheduled post of the type still in the future: the total may change then."""
    posts = tables(app)["posts"]
    return (select(func.min(posts.c.date_gmt))
            .where(posts.c.type == post_type, posts.c.status == "future", posts.c.date_gmt > now).scalar_subquery())


def list_rows(app, session, query: PostQuery, page: int = 1) -> tuple[list, int]:
    """(rows of the page, total): at most two statements whatever the filters.

    The inner SELECT picks the page's ids through the ordered index (the filters see only
    `posts` columns and EXISTS on term links); the outer SELECT computes the extras (terms,
    meta, revisions, parent) for those ids alone, so a page costs the same at any table size.
    The page also reads the content version: when a total for these filters is cached at that
    version, the COUNT is skipped.
    """
    cache = totals_cache(app)
    statement = _page_statement(app, query, page, cache is not None)
    now = dates.utcnow()
    # Core execution on the session's connection: the ORM layer adds nothing to a plain SELECT.
    rows = session.connection().execute(statement, {"now": now}).all()
    version = rows[0].content_version if cache is not None and rows else None
    return rows, _page_total(app, session, query, cache, version, now)


def list_page_ids(app, session, query: PostQuery, page: int = 1) -> tuple[list[int], int, int | None] | None:
    """(ids of the page, total, content version) from the listing index alone; None where
    no trigger keeps a content version (then `list_rows` is the way).

    With the version, a caller that kept what it built for an item at that version needs
    nothing else from the database; `rows_by_ids` fetches the rest.
    """
    cache = totals_cache(app)
    if cache is None:
        return None
    statement = _page_statement(app, query, page, True, ids_only=True)
    now = dates.utcnow()
    rows = session.connection().execute(statement, {"now": now}).all()
    version = rows[0][1] if rows else None
    return [row[0] for row in rows], _page_total(app, session, query, cache, version, now), version


def rows_by_ids(app, session, post_type: str, ids: list[int]) -> dict[int, Any]:
    """Full item rows (terms, meta, revisions, parent) of `ids`, by id."""
    posts = tables(app)["posts"]
    statement = item_select(app, post_type).where(posts.c.id.in_(ids))
    return {row.id: row for row in session.connection().execute(statement).all()}


def _page_total(app, session, query: PostQuery, cache, version, now) -> int:
    """The page's total: from the totals cache at `version`, else one COUNT (cached for next time)."""
    key = _filter_key(query)
    if cache is not None and version is not None:
        total = cache.get(key, version, now)
        if total is not None:
            return total
    posts = tables(app)["posts"]
    counting = select(func.count()).select_from(posts).where(*filters(app, query))
    if cache is None:
        return session.execute(counting, {"now": now}).scalar() or 0
    counted = session.execute(select(counting.scalar_subquery(), _content_version(app),
                                     _next_due(app, query.post_type, now)), {"now": now}).one()
    cache.put(key, counted[0] or 0, counted[1], counted[2])
    return counted[0] or 0


# A search's first pages (in date order) walk the date index and keep the full-text matches
# (cheap while matches are near the top); from this offset on, the matches are fetched and
# sorted instead. Which plan runs is decided here, not left to SQLite's statistics.
# On 100,000 posts with 1% matching (benchmark seed): page 1 1.0 ms walking vs 1.7 ms sorting,
# page 3 2.0 vs 2.1, page 20 3.7 vs 2.7.
DEEP_SEARCH_OFFSET = 20


# Built page statements by query, per app: building one costs more than running it. A
# statement depends only on the query, the page and the registry (final before the first
# request); the current time is the bound parameter `now`, supplied at each execution.
_STATEMENTS: "weakref.WeakKeyDictionary[Any, LruCache]" = weakref.WeakKeyDictionary()
STATEMENT_ENTRIES = 256


def _page_statement(app, query: PostQuery, page: int, with_version: bool, ids_only: bool = False):
    statements = per_app(_STATEMENTS, app, lambda: LruCache(STATEMENT_ENTRIES))
    key = (repr(query), page, with_version, ids_only)
    statement = statements.get(key)
    if statement is None:
        statement = _build_page_statement(app, query, page, with_version, ids_only)
        statements.put(key, statement)
    return statement


def _build_page_statement(app, query: PostQuery, page: int, with_version: bool, ids_only: bool):
    posts = tables(app)["posts"]
    ordering = order_clauses(app, query)
    offset = query.offset if query.offset else (page - 1) * (query.per_page or 0)
    sqlite = app.db.engine.dialect.name == "sqlite"
    deep = offset >= DEEP_SEARCH_OFFSET
    where = filters(app, query, walk_date_index=sqlite and not deep and query.orderby == "date")
    if query.search and deep and sqlite:
        # "+column" keeps SQLite off the (type, date, ...) walk: past the first pages, starting
        # from the full-text matches and sorting them costs less than walking to them.
        where[0] = literal_column("+posts.type") == query.post_type
    page_ids = select(posts.c.id).where(*where).order_by(*ordering)
    if query.per_page is not None:
        page_ids = page_ids.limit(query.per_page).offset(offset)
    elif query.offset:
        page_ids = page_ids.offset(query.offset)
    if ids_only:
        return page_ids.add_columns(_content_version(app).label("content_version"))
    statement = (item_select(app, query.post_type).where(posts.c.id.in_(page_ids.scalar_subquery()))
                 .order_by(*ordering))
    if with_version:
        statement = statement.add_columns(_content_version(app).label("content_version"))
    return statement


def sticky_items(app, session, post_type: str, exclude: list[int]) -> list[dict]:
    """Published sticky items (for ignore_sticky=false, which core also serves with a second query)."""
    posts = tables(app)["posts"]
    statement = item_select(app, post_type).where(
        posts.c.type == post_type, posts.c.sticky.is_(True), _status_clause(app, ["publish"]))
    if exclude:
        statement = statement.where(posts.c.id.notin_(exclude))
    rows = session.execute(statement.order_by(posts.c.date.desc(), posts.c.id.desc())).all()
    return [row_to_item(app, row, post_type) for row in rows]


# --- slugs ---------------------------------------------------------------------------------

SLUG_LOCK_KEY = 0x5174_51_06  # any constant; one lock covers every slug scope (attachments span all types)


def unique_slug(app, session, slug: str, post_type: str, post_id: int | None, parent: int = 0) -> str:
    """Make `slug` unique in its scope by appending -2, -3 ... (reference 5.4).

    On PostgreSQL concurrent writers would both see a slug free (read committed), so slug
    assignment takes a transaction-scoped advisory lock; SQLite writers are already serial.
    """
    posts = tables(app)["posts"]
    if app.db.engine.dialect.name == "postgresql":
        session.execute(app.db.prepared("core.slug_lock", lambda: select(func.pg_advisory_xact_lock(SLUG_LOCK_KEY))))
    if post_type == "attachment":
        scope = "attachment"
    elif post_type == "page" or _hierarchical(app, post_type):
        scope = "hierarchical"
    else:
        scope = "type"
    probe = app.db.prepared(f"core.slug_probe:{scope}:{bool(post_id)}", lambda: _slug_probe(posts, scope, bool(post_id)))
    params = {"type": post_type, "parent": parent, "post_id": post_id}

    def taken(candidate: str) -> bool:
        if candidate in RESERVED_SLUGS:
            return True
        if post_type == "page" and re.fullmatch(r"(page)?\d+", candidate):
            return True
        return session.execute(probe, {**params, "slug": candidate}).first() is not None

    if not taken(slug):
        return slug
    suffix = 2
    while True:
        tail = f"-{suffix}"
        candidate = slug[: MAX_SLUG - len(tail)] + tail
        if not taken(candidate):
            return candidate
        suffix += 1


def _slug_probe(posts, scope: str, other_than_id: bool):
    """SELECT of one post holding :slug in the scope (attachments: every type; pages: same parent)."""
    if scope == "attachment":
        where = [posts.c.type != "revision"]
    elif scope == "hierarchical":
        where = [or_(posts.c.type == bindparam("type"), posts.c.type == "attachment"),
                 posts.c.parent == bindparam("parent")]
    else:
        where = [posts.c.type == bindparam("type")]
    if other_than_id:
        where.append(posts.c.id != bindparam("post_id"))
    return select(posts.c.id).where(posts.c.slug == bindparam("slug"), *where).limit(1)


def _hierarchical(app, post_type: str) -> bool:
    registered = app.registry.post_types.get(post_type)
    return bool(registered and registered[0].hierarchical)


# --- writing -------------------------------------------------------------------------------

def insert_item(app, session, values: dict) -> int:
    posts = tables(app)["posts"]
    return session.execute(app.db.prepared("core.insert_post", lambda: insert(posts)), values).inserted_primary_key[0]


def update_item(app, session, post_id: int, values: dict) -> None:
    """SET the columns named in `values` (plain values, not SQL expressions) of one post."""
    if values:
        posts = tables(app)["posts"]
        statement = app.db.prepared("core.update_post", lambda: update(posts).where(posts.c.id == bindparam("post_id_")))
        session.execute(statement, {**values, "post_id_": post_id})


def new_item(app, post_id: int, values: dict, terms: dict[str, list[tuple[int, str]]], meta: dict[str, Any]) -> dict:
    """The item `get_item` would read right after this transaction inserted it, without the SELECT.

    `values` are the columns written (insert and updates), `terms` the links `set_terms`
    made, `meta` the values `set_meta` stored. Only for a top-level item (parent 0): a new
    one has no revisions, and its other columns are the table's defaults.
    """
    posts = tables(app)["posts"]
    item_type = values["type"]
    item: dict[str, Any] = {}
    for column in posts.columns:
        if column.key in values:
            item[column.key] = values[column.key]
        elif column.key == "id":
            item["id"] = post_id
        else:
            item[column.key] = column.default.arg if column.default is not None and column.default.is_scalar else None
    item["stored_status"] = item["status"]
    item["status"] = effective_status(item["status"], item["date_gmt"], dates.utcnow())
    item.update(revision_count=0, latest_revision_id=None, parent_status=None, parent_author=None, parent_type=None)
    item["author"] = item["author"] or 0
    item["terms"] = {taxonomy: sorted(terms.get(taxonomy, ())) for taxonomy in taxonomies_of(app, item_type)}
    item["meta"] = {key.key: decode_meta(json.dumps(meta[key.key]) if meta.get(key.key) is not None else None,
                                         key.schema) for key in meta_keys_for(app, item_type)}
    return item


def delete_item(app, session, post_id: int) -> None:
    """Delete a post for good: revisions, autosaves, meta and term links with it."""
    t = tables(app)
    posts = t["posts"]
    row = session.execute(select(posts.c.parent, posts.c.type).where(posts.c.id == post_id)).first()
    revision_ids = select(posts.c.id).where(posts.c.parent == post_id, posts.c.type == "revision")
    for table in (t["post_meta"], t["term_relationships"]):
        session.execute(delete(table).where(or_(table.c.post_id == post_id, table.c.post_id.in_(revision_ids))))
    session.execute(delete(posts).where(posts.c.parent == post_id, posts.c.type == "revision"))
    if row is not None:
        session.execute(update(posts).where(posts.c.parent == post_id).values(parent=row.parent))
    session.execute(update(posts).where(posts.c.featured_media == post_id).values(featured_media=0))
    session.execute(delete(posts).where(posts.c.id == post_id))


def set_terms(app, session, post_id: int, taxonomy: str, term_ids: list[int], new: bool = False,
              known: dict[int, tuple[str, str]] | None = None) -> list[tuple[int, str]]:
    """Replace the item's terms of `taxonomy`; ids that are not terms of it are dropped.

    Returns the (id, slug) pairs linked, sorted. `new`: the item was inserted in this
    transaction, so it has no links to remove yet. `known`: what `terms_by_id` read in this
    transaction for ids including these, so they need not be read again.
    """
    t = tables(app)
    terms, relationships = t["terms"], t["term_relationships"]
    if not new:
        unlink = app.db.prepared("core.unlink_terms", lambda: delete(relationships).where(
            relationships.c.post_id == bindparam("post_id"),
            relationships.c.term_id.in_(select(terms.c.id).where(terms.c.taxonomy == bindparam("taxonomy")))))
        session.execute(unlink, {"post_id": post_id, "taxonomy": taxonomy})
    if not term_ids:
        return []
    if known is not None and all(term_id in known for term_id in term_ids):
        valid = {term_id: known[term_id][1] for term_id in term_ids if known[term_id][0] == taxonomy}
    else:
        of_taxonomy = app.db.prepared("core.terms_of_taxonomy", lambda: select(terms.c.id, terms.c.slug).where(
            terms.c.id.in_(bindparam("ids", expanding=True)), terms.c.taxonomy == bindparam("taxonomy")))
        valid = dict(session.execute(of_taxonomy, {"ids": list(term_ids), "taxonomy": taxonomy}).all())
    if valid:
        link = app.db.prepared("core.link_terms", lambda: insert(relationships))
        session.execute(link, [{"post_id": post_id, "term_id": term_id} for term_id in valid])
    return sorted(valid.items())


def set_meta(app, session, post_id: int, key: str, value: Any, new: bool = False) -> None:
    """Store a meta value (JSON-encoded); None deletes the key. `new`: nothing stored yet to delete."""
    meta = tables(app)["post_meta"]
    if not new:
        remove = app.db.prepared("core.delete_meta", lambda: delete(meta).where(
            meta.c.post_id == bindparam("post_id"), meta.c.key == bindparam("key")))
        session.execute(remove, {"post_id": post_id, "key": key})
    if value is not None:
        session.execute(app.db.prepared("core.insert_meta", lambda: insert(meta)),
                        {"post_id": post_id, "key": key, "value": json.dumps(value)})


def terms_by_id(app, session, ids: list[int]) -> dict[int, tuple[str, str]]:
    """{id: (taxonomy, slug)} of the terms among `ids` that exist."""
    terms = tables(app)["terms"]
    if not ids:
        return {}
    statement = app.db.prepared("core.terms_by_id", lambda: select(terms.c.id, terms.c.taxonomy, terms.c.slug).where(
        terms.c.id.in_(bindparam("ids", expanding=True))))
    return {row.id: (row.taxonomy, row.slug) for row in session.execute(statement, {"ids": list(dict.fromkeys(ids))})}


def revisions_of(app, session, parent_id: int) -> list[dict]:
    posts = tables(app)["posts"]
    rows = session.execute(item_select(app, "revision").where(posts.c.parent == parent_id, posts.c.type == "revision")
                           .order_by(posts.c.date.desc(), posts.c.id.desc())).all()
    return [row_to_item(app, row, "revision") for row in rows]
