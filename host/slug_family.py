"""A slug's family (`slug`, `slug-2`, `slug-3` ...) read in one query, whatever its size.

WordPress makes a slug unique by probing `slug-2`, `slug-3` ... one query each, so the 1,000th post,
term or user of one name cost 1,000 queries. The statements here answer in one query whether `slug`
is taken, which stored `slug-N` has the highest N and how many `slug-N` there are; when no number
below the highest is missing, the next free name is known without another query. They select by a
range of code points (`slug-` <= name < `slug.`) rather than LIKE, so no `%` or `_` needs escaping,
and test the suffix with an anchored pattern of one character class (linear time).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import and_, bindparam, distinct, func, not_, or_, select
from sqlalchemy.sql import ColumnElement, Select

# "-" and nine digits: a name at most `max_length - LONGEST_SUFFIX` long stays whole before any suffix below a billion.
LONGEST_SUFFIX = 10


def suffixed(slug: str, number: int, max_length: int) -> str:
    """`slug` itself for 1, else `slug-N` with `slug` cut so that the whole fits `max_length`, as WordPress cuts it."""
    if number == 1:
        return slug
    tail = f"-{number}"
    return slug[: max_length - len(tail)] + tail


def in_family_range(column, dialect: str) -> ColumnElement[bool]:
    """:low <= name < :high in code point order: PostgreSQL compares in "C" (an index for it must be in "C" too)."""
    name = column.collate("C") if dialect == "postgresql" else column
    return and_(name >= bindparam("low"), name < bindparam("high"))


def summary_statement(column, where: list, dialect: str) -> Select:
    """One row for the name :slug among the rows matching `where`: `bare` (whether :slug is stored),
    `highest` (the stored `slug-N` of the highest N) and `suffixes` (how many distinct `slug-N` are
    stored), N written as WordPress writes it: digits, no leading zero. Numbers are compared as text,
    longest first, so no cast can overflow. Bind with `family_parameters`."""
    number = func.substr(column, bindparam("rest_from"))
    canonical: ColumnElement[bool]
    if dialect == "postgresql":
        canonical = number.op("~")("^[1-9][0-9]*$")
    else:
        canonical = and_(number.op("GLOB")("[1-9]*"), not_(number.op("GLOB")("*[^0-9]*")))
    table = column.table
    numbered = [*where, in_family_range(column, dialect), canonical]
    bare = select(column).where(column == bindparam("slug"), *where).limit(1).exists()
    highest = (select(column).where(*numbered)
               .order_by(func.length(column).desc(), column.desc()).limit(1).scalar_subquery())
    suffixes = select(func.count(distinct(column))).select_from(table).where(*numbered).scalar_subquery()
    return select(bare.label("bare"), highest.label("highest"), suffixes.label("suffixes"))


def names_statement(column, where: list, dialect: str) -> Select:
    """The stored names that may be of :slug's family (:slug and those in [:low, :high)), for a family
    with a gap in its numbers or a name so long that a suffix cuts it."""
    return select(column).where(or_(column == bindparam("slug"), in_family_range(column, dialect)), *where)


def is_short(slug: str, max_length: int) -> bool:
    """Whether every suffix below a billion keeps `slug` whole (then the summary's range holds the whole family)."""
    return len(slug) <= max_length - LONGEST_SUFFIX


def family_parameters(slug: str, max_length: int) -> dict:
    """Bind values of `summary_statement` and `names_statement` for `slug`. A long slug's family is every
    name sharing the part a suffix never cuts."""
    if is_short(slug, max_length):
        low, high = slug + "-", slug + "."
    else:
        low = slug[: max_length - LONGEST_SUFFIX]
        high = low + "\uffff"
    return {"slug": slug, "low": low, "high": high, "rest_from": len(slug) + 2}


def free_names(slug: str, max_length: int, read_summary: Callable[[], Any],
               read_names: Callable[[], set[str]], refused: Callable[[str], bool] = lambda name: False) -> Iterator[str]:
    """The free names of `slug`'s family, lowest first, as WordPress's probing finds them: `slug`, then
    `slug-2`, `slug-3` ... skipping stored names and those `refused` says no to (reserved, or handed out
    earlier in the transaction).

    `read_summary` runs `summary_statement` and returns its row; `read_names` runs `names_statement`
    and returns the names. When 2 ... highest are all stored every later number is free, so only the
    summary runs; a gap, or a slug long enough for a suffix to cut it, costs the names' query too.
    """
    if is_short(slug, max_length):
        row = read_summary()
        if not (row.bare or refused(slug)):
            yield slug
        highest = int(row.highest[len(slug) + 1:]) if row.highest else 1
        if row.suffixes == highest - 1:
            for number in itertools.count(highest + 1):
                candidate = suffixed(slug, number, max_length)
                if not refused(candidate):
                    yield candidate
    stored = read_names()
    for number in itertools.count(1):
        candidate = suffixed(slug, number, max_length)
        if not (candidate in stored or refused(candidate)):
            yield candidate


def first_free_name(session, column, where: list, slug: str, max_length: int,
                    refused: Callable[[str], bool] = lambda name: False) -> str:
    """`slug`, or the first free `slug-N` among the rows matching `where` (usually one query)."""
    dialect = session.get_bind().dialect.name
    parameters = family_parameters(slug, max_length)
    names = free_names(slug, max_length,
                       lambda: session.execute(summary_statement(column, where, dialect), parameters).one(),
                       lambda: set(session.scalars(names_statement(column, where, dialect), parameters)),
                       refused)
    return next(names)
