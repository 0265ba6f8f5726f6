"""Pages of a collection: at most two statements whatever the filters, totals cached per content version."""

from __future__ import annotations

from dataclasses import fields
from operator import attrgetter
from typing import Any

from sqlalchemy import Column, bindparam, func, literal_column, select
from sqlalchemy.sql import visitors
from sqlalchemy.sql.util import ClauseAdapter

from host import Kept
from host.lru import LruCache
from host.stash import StashKey

from .. import dates
from ..tables import tables
from .items import item_select, row_to_item
from .query import PostQuery, _status_clause, filters, order_clauses
from .search import EXCLUDED_ONLY, has_excluded_term, has_included_indexed_term


class TotalsCache:
    """Totals of recent filter sets, each valid for one content version and until a scheduled post is due.

    The version comes from the `content_version` row that triggers bump inside every writing
    transaction, so a total cached by this process is never served after any process changed
    posts, terms or term links. Scheduled posts start counting as published when their time
    comes without a write, so an entry also expires at the next such moment.
    """

    def __init__(self, kept: Kept):
        self.entries = kept  # key -> (total, valid until) at a content version

    def get(self, key, version: int, now):
        entry = self.entries.get(key, version)
        if entry is None:
            return None
        total, valid_until = entry
        if valid_until is not None and now >= valid_until:
            return None
        return total

    def put(self, key, total: int, version: int, valid_until) -> None:
        self.entries.put(key, version, (total, valid_until))

    def latest(self, key) -> int | None:
        """The total last counted for these filters at any version: a hint of their size, not an answer."""
        entry = self.entries.peek(key)
        return None if entry is None else entry[0]


TOTALS = StashKey[TotalsCache]("core.totals")
TOTALS_ENTRIES = 512


def totals_cache(app) -> TotalsCache | None:
    """None where no trigger keeps the content version (databases other than SQLite and PostgreSQL)."""
    if app.db.engine.dialect.name not in ("sqlite", "postgresql"):
        return None
    return app.stash.setdefault_by(TOTALS, lambda: TotalsCache(app.kept("core.totals", TOTALS_ENTRIES)))


# What decides a total: every field of the query but the page, the order and the page size.
_PAGE_FIELDS = ("per_page", "offset", "orderby", "order")
_FILTER_FIELDS = tuple(item.name for item in fields(PostQuery) if item.name not in _PAGE_FIELDS)
_page_values = attrgetter(*_PAGE_FIELDS)
# The filters' values as one tuple, read in C (a generator of getattr calls was a Python step per field).
_filter_values = attrgetter(*_FILTER_FIELDS)
if len(_FILTER_FIELDS) < 2:  # attrgetter of one name answers the value itself, not a tuple (and -O drops asserts)
    raise RuntimeError("the totals key needs at least two filter fields; read them as a tuple another way")


def _filter_key(query: PostQuery) -> str:
    """What decides the total: every filter, not the page, the order or the page size (one repr
    of the values: copying the query to blank those cost more than the rest of a cached page)."""
    return repr(_filter_values(query))


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
    filters_key = _filter_key(query)
    now = dates.utcnow()
    search_hits = _search_by_hits(app, session, query, filters_key, cache, now)
    statement = _page_statement(app, query, filters_key, page, cache is not None, search_hits=search_hits)
    # Core execution on the session's connection: the ORM layer adds nothing to a plain SELECT.
    rows = session.connection().execute(statement, {"now": now}).all()
    version = rows[0].content_version if cache is not None and rows else None
    return rows, _page_total(app, session, query, filters_key, cache, version, now)


def list_page_ids(app, session, query: PostQuery, page: int = 1) -> tuple[list[int], int, int | None] | None:
    """(ids of the page, total, content version) from the listing index alone; None where
    no trigger keeps a content version (then `list_rows` is the way).

    With the version, a caller that kept what it built for an item at that version needs
    nothing else from the database; `rows_by_ids` fetches the rest.
    """
    cache = totals_cache(app)
    if cache is None:
        return None
    filters_key = _filter_key(query)
    now = dates.utcnow()
    search_hits = _search_by_hits(app, session, query, filters_key, cache, now)
    statement = _page_statement(app, query, filters_key, page, True, ids_only=True, search_hits=search_hits)
    rows = session.connection().execute(statement, {"now": now}).all()
    version = rows[0][1] if rows else None
    return [row[0] for row in rows], _page_total(app, session, query, filters_key, cache, version, now), version


def content_version(app, session) -> int | None:
    """The content version now (one single-row read), or None where no trigger keeps one.

    A single item's read asks it first: an item encoded at this version is answered as it is.
    """
    if totals_cache(app) is None:
        return None
    version = tables(app)["content_version"]
    statement = app.db.prepared("core.content_version",
                                lambda: select(version.c.version).where(version.c.id == 1))
    return session.connection().execute(statement).scalar()


def answer_version(request) -> tuple | None:
    """What core's anonymous answers are built from, as one value (`Route.answer_version`).

    The content version, which triggers bump with every write to posts, meta, terms, term
    links, comments, users and user meta, and the next moment a scheduled post of any type
    becomes due (a post that turns public without a write changes who and what may be read).
    """
    app = request.app
    if totals_cache(app) is None:
        return None
    posts, version = tables(app)["posts"], tables(app)["content_version"]

    def build():
        due = [select(func.min(posts.c.date_gmt)).where(
            posts.c.type == post_type, posts.c.status == "future", posts.c.date_gmt > bindparam("now")
        ).scalar_subquery() for post_type in sorted(app.registry.post_types)]
        return select(version.c.version, *due).where(version.c.id == 1)

    statement = app.db.prepared("core.answer_version", build)
    row = request.session.connection().execute(statement, {"now": dates.utcnow()}).first()
    if row is None:
        return None
    return row[0], min((value for value in row[1:] if value is not None), default=None)


def rows_by_ids(app, session, post_type: str, ids: list[int]) -> dict[int, Any]:
    """Full item rows (terms, meta, revisions, parent) of `ids`, by id."""
    posts = tables(app)["posts"]
    statement = app.db.prepared(f"core.rows_by_ids.{post_type}", lambda: item_select(app, post_type).where(
        posts.c.id.in_(bindparam("ids", expanding=True))))
    return {row.id: row for row in session.connection().execute(statement, {"ids": list(ids)}).all()}


def _page_total(app, session, query: PostQuery, filters_key: str, cache, version, now) -> int:
    """The page's total: from the totals cache at `version`, else one COUNT (cached for next time).

    A cached total belongs to the content version the page's own statement read, so page and
    total agree. A COUNT is a second statement: on PostgreSQL it takes its own snapshot (READ
    COMMITTED, and a GET's autocommit reads alike), so a write committed between the two can
    show in one and not the other, as with WordPress's separate FOUND_ROWS query; it is cached
    under the version it read itself, so the next page agrees again. `filters_key` is the query's
    _filter_key, worked out once for the page's statement and its total.
    """
    if cache is not None and version is not None:
        total = cache.get(filters_key, version, now)
        if total is not None:
            return total
    posts = tables(app)["posts"]
    # A count reads every match anyway, through the GIN index; a term it must not contain is tested
    # against that term's hits, never by the text functions per post (`-orchestra` on 100,000 posts ran
    # them over every post: 11.5 s).
    counting = select(func.count()).select_from(posts).where(
        *filters(app, query, search_hits=bool(query.search) and has_excluded_term(query.search)))
    if cache is None:
        return session.execute(counting, {"now": now}).scalar() or 0
    counted = session.execute(select(counting.scalar_subquery(), _content_version(app),
                                     _next_due(app, query.post_type, now)), {"now": now}).one()
    cache.put(filters_key, counted[0] or 0, counted[1], counted[2])
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
STATEMENTS = StashKey[LruCache]("core.page_statements")
STATEMENT_ENTRIES = 256


def _page_statement(app, query: PostQuery, filters_key: str, page: int, with_version: bool, ids_only: bool = False,
                    search_hits: bool = False):
    """The page's statement, built once per query shape: `filters_key` (_filter_key) and the fields it leaves
    out name every field of the query (one repr of the filters, not a second of the whole dataclass)."""
    statements = app.stash.setdefault_by(STATEMENTS, lambda: LruCache(STATEMENT_ENTRIES))
    key = (filters_key, _page_values(query), page, with_version, ids_only, search_hits)
    statement = statements.get(key)
    if statement is None:
        statement = _build_page_statement(app, query, page, with_version, ids_only, search_hits)
        statements.put(key, statement)
    return statement


# PostgreSQL plans a search's page by walking the date index and running the text functions over each
# post it passes until it has the page: cheap for a common word, but a word in 1% of 100,000 posts
# cost 0.7 s (2.5 s under load) and it cannot tell the two apart. A search whose total is known (or
# counted first) to be at most this many reads its hits from the GIN index instead (about 2.5 us a
# hit: 3 ms for 1,000); a larger one walks, where each post passed is a hit with a chance of at least
# this many in the table. At 100,000 posts both cost about 20 ms at the boundary.
SEARCH_HITS_UP_TO = 5000


def _search_by_hits(app, session, query: PostQuery, filters_key: str, cache, now) -> bool:
    """PostgreSQL: whether the page reads its search's hits (SEARCH_HITS_UP_TO). The total last counted
    for the filters decides; with none yet, the total is counted first (the page needs it anyway)."""
    if not query.search or cache is None or app.db.engine.dialect.name != "postgresql":
        return False
    total = cache.latest(filters_key)
    if total is None:
        total = _page_total(app, session, query, filters_key, cache, None, now)
    return total <= SEARCH_HITS_UP_TO


def _build_page_statement(app, query: PostQuery, page: int, with_version: bool, ids_only: bool,
                          search_hits: bool = False):
    posts = tables(app)["posts"]
    ordering = order_clauses(app, query)
    offset = query.offset if query.offset else (page - 1) * (query.per_page or 0)
    sqlite = app.db.engine.dialect.name == "sqlite"
    deep = offset >= DEEP_SEARCH_OFFSET
    if search_hits and query.orderby in PLAIN_ORDERS and has_included_indexed_term(app, query):
        page_ids = _matches_page_ids(app, query, ordering, offset)
    else:
        page_ids = _page_ids(app, query, ordering, offset, sqlite, deep, search_hits)
    if ids_only:
        return page_ids.add_columns(_content_version(app).label("content_version"))
    statement = (item_select(app, query.post_type).where(posts.c.id.in_(page_ids.scalar_subquery()))
                 .order_by(*ordering))
    if with_version:
        statement = statement.add_columns(_content_version(app).label("content_version"))
    return statement


def _page_ids(app, query: PostQuery, ordering: list, offset: int, sqlite: bool, deep: bool, search_hits: bool):
    """The page's ids: the filters and the order over the posts table, for the planner to choose how."""
    posts = tables(app)["posts"]
    where = filters(app, query, walk_date_index=sqlite and not deep and query.orderby == "date",
                    search_hits=search_hits)
    if query.search and deep and sqlite:
        # "+column" keeps SQLite off the (type, date, ...) walk: past the first pages, starting
        # from the full-text matches and sorting them costs less than walking to them.
        where[0] = literal_column("+posts.type") == query.post_type
    page_ids = select(posts.c.id).where(*where).order_by(*ordering)
    if query.per_page is not None:
        page_ids = page_ids.limit(query.per_page).offset(offset)
    elif query.offset:
        page_ids = page_ids.offset(query.offset)
    return page_ids


# Orders by one column of posts (and the id): what a search's matches carry out of their CTE to be sorted.
PLAIN_ORDERS = frozenset({"date", "id", "author", "modified", "parent", "slug", "title", "menu_order"})


def _matches_page_ids(app, query: PostQuery, ordering: list, offset: int):
    """PostgreSQL, a search whose matches are few (SEARCH_HITS_UP_TO): the page's ids sorted from every
    match, each read once. The matches are read in a materialized CTE, with every filter and the sort
    column, so the GIN index finds them and their rows are tested where they are read; the page is the
    CTE's first rows in order. (Testing each post's id against the words' hits read every match twice,
    once for the hits and again by id for the filters and the date: 4.3 ms for 998 matches among 100,000
    posts, against 1.8 ms read once.)"""
    posts = tables(app)["posts"]
    sort_columns = list(dict.fromkeys(element for clause in ordering for element in visitors.iterate(clause)
                                      if isinstance(element, Column) and element.table is posts))
    matches = (select(*sort_columns).where(*filters(app, query, search_hits=EXCLUDED_ONLY))
               .cte("search_matches").prefix_with("MATERIALIZED"))
    page_ids = select(matches.c.id).order_by(*[ClauseAdapter(matches).traverse(clause) for clause in ordering])
    if query.per_page is not None:
        return page_ids.limit(query.per_page).offset(offset)
    return page_ids.offset(query.offset) if query.offset else page_ids


def sticky_items(app, session, post_type: str, exclude: list[int]) -> list[dict]:
    """Published sticky items (for ignore_sticky=false, which core also serves with a second query)."""
    posts = tables(app)["posts"]
    statement = item_select(app, post_type).where(
        posts.c.type == post_type, posts.c.sticky.is_(True), _status_clause(app, ["publish"]))
    if exclude:
        statement = statement.where(posts.c.id.notin_(exclude))
    rows = session.execute(statement.order_by(posts.c.date.desc(), posts.c.id.desc())).all()
    return [row_to_item(app, row, post_type) for row in rows]
