"""Search terms and the full-text clause; a full-text index can replace it without touching the routes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlalchemy import and_, column, func, literal_column, not_, or_, select, table

from host.text import strip_tags

from ..tables import tables

if TYPE_CHECKING:
    from .query import PostQuery

STOP_WORDS = frozenset("about an are as at be by com for from how in is it of on or that the this to was what when "
                       "where who will with www".split())


def split_search(search: str) -> list[str]:
    """Search terms: quoted phrases kept, stop words and one-letter terms dropped, >9 terms -> whole string."""
    search = strip_tags(search).strip()
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



SEARCH_WORD = re.compile(r"\w+")
FULL_TEXT_COLUMNS = ("title", "content", "excerpt")
# The expression of the GIN index (plugins/core/tables.py), written the same way so it is used.
POSTGRES_SEARCH_VECTOR = ("to_tsvector('simple', sitehost_text(posts.title) || ' ' || sitehost_text(posts.content) "
                          "|| ' ' || sitehost_text(posts.excerpt))")


# search_clause's `search_hits` for a statement that reads every match through the GIN index anyway (a
# materialized CTE, store.listing): the words to leave out are tested against their hits, the words to
# find are written as they are, so the index answers them while it reads the matching rows.
EXCLUDED_ONLY = "excluded only"


def _is_indexed(app, query: PostQuery) -> bool:
    """Whether the search's terms go through the full-text index (else: substring or exact comparisons)."""
    column_names = query.search_columns or ["post_title", "post_excerpt", "post_content"]
    dialect = app.db.engine.dialect.name
    return not query.search_exact and query.post_type != "attachment" and (
        dialect == "sqlite" or (dialect == "postgresql" and len(set(column_names)) == 3))


def has_included_indexed_term(app, query: PostQuery) -> bool:
    """Whether the search has a word to find that the full-text index answers."""
    return _is_indexed(app, query) and any(
        not term.startswith("-") and SEARCH_WORD.search(term) for term in split_search(query.search))


def has_excluded_term(search: str) -> bool:
    """Whether the search has a `-term` (a word the posts found must not contain)."""
    return any(term.startswith("-") and len(term) > 1 for term in split_search(search))


def search_clause(app, query: PostQuery, walk_date_index: bool = False, search_hits: bool | str = False):
    """Every term must match a search column; `-term` must not.

    Terms go through the database's full-text index (FTS5 on SQLite, a tsvector GIN index on
    PostgreSQL) as word-prefix matches: "foot" finds "football" but, unlike a substring scan,
    not "barefoot". A quoted phrase or a hyphenated term is a phrase of word prefixes' last
    word. Exact semantics, media (file names), other databases, and terms without a letter
    or digit keep the substring comparison.

    `search_hits` (PostgreSQL): each indexed term is tested against its hits, read from the GIN
    index once per statement, instead of running the text functions over the rows tested (see
    store.listing.SEARCH_HITS_UP_TO for when each is cheaper); EXCLUDED_ONLY: only the `-term`s.
    """
    posts = tables(app)["posts"]
    column_names = query.search_columns or ["post_title", "post_excerpt", "post_content"]
    dialect = app.db.engine.dialect.name
    # Substring and exact matches compare the visible text too (sitehost_text exists on both databases).
    visible = dialect in ("sqlite", "postgresql")
    columns = [func.sitehost_text(getattr(posts.c, name[5:])) if visible and name[5:] in FULL_TEXT_COLUMNS
               else getattr(posts.c, name[5:]) for name in column_names]
    if query.post_type == "attachment" and not query.search_columns:
        columns.append(posts.c.file)
    indexed = _is_indexed(app, query)
    clauses = []
    for term in split_search(query.search):
        negate = term.startswith("-") and len(term) > 1
        word = term[1:] if negate else term
        words = SEARCH_WORD.findall(word.lower())
        if indexed and words:
            term_hits = bool(search_hits) and (negate or search_hits != EXCLUDED_ONLY)
            match = _full_text_match(app, dialect, [name[5:] for name in column_names], words, walk_date_index,
                                     term_hits)
        elif query.search_exact:
            match = or_(*[func.lower(column) == word.lower() for column in columns])
        else:
            escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            match = or_(*[column.ilike(f"%{escaped}%", escape="\\") for column in columns])
        clauses.append(not_(match) if negate else match)
    return and_(*clauses) if clauses else None


def _full_text_match(app, dialect: str, column_names: list[str], words: list[str], walk_date_index: bool = False,
                     search_hits: bool = False):
    posts = tables(app)["posts"]
    if dialect == "postgresql":
        tsquery = " <-> ".join(words) + ":*"
        matches = literal_column(POSTGRES_SEARCH_VECTOR).op("@@")(func.to_tsquery(literal_column("'simple'"), tsquery))
        if not search_hits:
            return matches
        # Materialized, the CTE holds the index condition alone, so the GIN index answers it, once
        # per statement (a subquery fenced by OFFSET 0 was planned as a nested loop over the hits).
        hits = select(posts.c.id).where(matches).cte().prefix_with("MATERIALIZED")
        return posts.c.id.in_(select(hits.c.id))
    phrase = '"' + " ".join(words) + '" *'
    if set(column_names) != set(FULL_TEXT_COLUMNS):
        phrase = "{" + " ".join(dict.fromkeys(column_names)) + "} : " + phrase
    index = table("posts_search", column("rowid"))
    # "+posts.id" keeps SQLite from starting at the matches (see DEEP_SEARCH_OFFSET): it walks the
    # date index and keeps the ids found in the full-text index, whatever ANALYZE says.
    matched_id = literal_column("+posts.id") if walk_date_index else posts.c.id
    return matched_id.in_(select(index.c.rowid).where(literal_column("posts_search").op("MATCH")(phrase)))
