"""A slug's family (`slug`, `slug-2`, `slug-3` ...) read in one query, whatever its size.

WordPress makes a slug unique by probing `slug-2`, `slug-3` ... one query each, so the 1,000th post,
term or user of one name cost 1,000 queries. The statements here answer in one query whether `slug`
is taken, which stored `slug-N` has the highest N and how many `slug-N` there are; when no number
below the highest is missing, the next free name is known without another query. They select by a
range of code points (`slug-` <= name < `slug.`) rather than LIKE, so no `%` or `_` needs escaping,
and test that a suffix is a number without a pattern that could backtrack (linear time).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Integer, Numeric, String, and_, bindparam, cast, distinct, func, or_, select
from sqlalchemy.sql import ColumnElement, Select

# "-" and nine digits: a name at most `max_length - LONGEST_SUFFIX` long stays whole before any suffix below a billion.
LONGEST_SUFFIX = 10


def suffixed(slug: str, number: int, max_length: int) -> str:
    """`slug` itself for 1, else `slug-N` with `slug` cut so that the whole fits `max_length`, as WordPress cuts it."""
    if number == 1:
        return slug
    tail = f"-{number}"
    return slug[: max_length - len(tail)] + tail


def in_family_range(column, dialect: str, low: str = "low", high: str = "high") -> ColumnElement[bool]:
    """:low <= name < :high in code point order: PostgreSQL compares in "C" (an index for it must be in "C" too)."""
    name = column.collate("C") if dialect == "postgresql" else column
    return and_(name >= bindparam(low), name < bindparam(high))


def summary_statement(column, where: list, dialect: str) -> Select:
    """One row for the name :slug among the rows matching `where`: `bare` (whether :slug is stored),
    `highest` (the highest N of a stored `slug-N`) and `suffixes` (how many distinct `slug-N` are
    stored), N written as WordPress writes it: digits, no leading zero. Bind with `family_parameters`.

    The numbered names are read in one pass over the index range whose suffixes begin with 1 to 9
    (`slug-1` <= name < `slug-:`), so each needs one more test, that the rest is digits: per name
    this check is most of the statement's time once thousands of names share a title. SQLite tests
    it as "the suffix read as an integer and written back is the suffix", which also takes no sign,
    no space and no leading zero: at 3,000 names 1.7 ms, against 3.9 for a GLOB for a non-digit and
    the greatest name by length. A suffix past SQLite's integers (19 digits and more) fails that test
    and is not counted as numbered, which changes no answer: the first free number is at most the
    count of numbered names plus two. PostgreSQL tests the digits with an anchored pattern and reads
    the number as `numeric`, which no length overflows."""
    number = func.substr(column, bindparam("rest_from"))
    digits_only: ColumnElement[bool]
    as_number: ColumnElement[Any]
    if dialect == "postgresql":
        digits_only = number.op("~")("^[0-9]+$")
        as_number = cast(number, Numeric)
    else:
        as_number = cast(number, Integer)
        digits_only = cast(as_number, String) == number
    bare = select(column).where(column == bindparam("slug"), *where).limit(1).exists()
    numbered = (select(func.max(as_number).label("highest"), func.count(distinct(column)).label("suffixes"))
                .where(*where, in_family_range(column, dialect, "first_numbered", "past_numbered"), digits_only)
                .subquery("numbered"))
    return select(bare.label("bare"), numbered.c.highest, numbered.c.suffixes)


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
    return {"slug": slug, "low": low, "high": high, "rest_from": len(slug) + 2,
            "first_numbered": slug + "-1", "past_numbered": slug + "-:"}  # ":" follows "9"


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
        highest = int(row.highest) if row.highest is not None else 1
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
