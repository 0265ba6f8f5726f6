"""Slugs: sanitizing titles into slugs and making a slug unique in its scope."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from sqlalchemy import bindparam, func, select

from host import slug_family
from host.text import strip_tags

from ..tables import tables

RESERVED_SLUGS = frozenset({"feed", "rdf", "rss", "rss2", "atom", "embed"})
MAX_SLUG = 200


def sanitize_slug(value: str) -> str:
    """sanitize_title: lowercase ASCII, accents transliterated, spaces to dashes, punctuation dropped."""
    text = strip_tags(value or "")
    text = text.replace("æ", "ae").replace("Æ", "AE").replace("ø", "o").replace("ß", "ss").replace("œ", "oe")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"&[a-z0-9#]+;", "", text)
    text = text.replace(".", "-")
    text = re.sub(r"[^a-z0-9 _-]", "", text)
    text = re.sub(r"[\s_]+", "-", text)
    text = re.sub(r"-+", "-", text).strip("-")
    return text[:MAX_SLUG]



SLUG_LOCK_KEY = 0x5174_51_06  # any constant; one lock covers every slug scope (attachments span all types)
SLUG_LOCK_HOLDER = "core.slug_lock_holder"  # session.info: the (sub)transaction that took the lock


def lock_slugs(app, session) -> None:
    """PostgreSQL: the transaction's slug lock (re-entrant; held until commit). Every write of a post
    row takes it before its first statement on `posts`, so that the row lock of the content version
    (bumped by triggers on `posts`) always comes after it: a create that bumped the version first and
    then waited for the slug lock deadlocked against an update holding it.

    Taken once per transaction: a create asks before its first write and again for its slug, and
    the second ask would be a round trip for a lock already held. It is asked again inside a newer
    savepoint, since rolling a savepoint back releases a lock taken after it."""
    if app.db.engine.dialect.name != "postgresql":
        return
    holder = session.get_nested_transaction() or session.get_transaction()
    if holder is not None and session.info.get(SLUG_LOCK_HOLDER) is holder:
        return
    session.execute(app.db.prepared("core.slug_lock", lambda: select(func.pg_advisory_xact_lock(SLUG_LOCK_KEY))))
    note_slug_lock(session)


def note_slug_lock(session) -> None:
    """The slug lock was taken just now in `session`'s current (sub)transaction (`lock_slugs`)."""
    session.info[SLUG_LOCK_HOLDER] = session.get_nested_transaction() or session.get_transaction()


def unique_slug(app, session, slug: str, post_type: str, post_id: int | None, parent: int = 0) -> str:
    """Make `slug` unique in its scope by appending -2, -3 ... (reference 5.4).

    WordPress probes `slug-2`, `slug-3` ... one query each, so the 1,000th item of one title cost
    1,000 queries. One query here tells whether `slug` is taken, which `slug-N` is the highest and
    how many there are (`_free_slugs`): a create costs the same however many items share its slug.

    On PostgreSQL concurrent writers would both see a slug free (read committed), so slug
    assignment takes a transaction-scoped advisory lock; SQLite writers are already serial.
    """
    lock_slugs(app, session)
    return next(_free_slugs(app, session, slug, post_type, post_id, parent, set()))


def unique_slugs(app, session, slugs: list[str], post_type: str, parent: int = 0) -> list[str]:
    """`unique_slug` for several new items of one type and parent at once, in order.

    Each item sees the slugs given to those before it, as one create after another would (two
    items titled the same get `title` and `title-2`). One query reads which of the wanted slugs
    are stored; a slug that is taken (stored, reserved or given before) costs the one query of
    `unique_slug` once, whatever the number of items wanting it.
    """
    posts = tables(app)["posts"]
    lock_slugs(app, session)
    scope = _scope(app, post_type)
    wanted = list(dict.fromkeys(slug for slug in slugs if slug))
    probe = app.db.prepared(f"core.slugs_probe:{scope}", lambda: _slugs_probe(posts, scope))
    stored = set(session.scalars(probe, {"type": post_type, "parent": parent, "slugs": wanted})) if wanted else set()
    given: set[str] = set()
    families: dict[str, Iterator[str]] = {}
    result = []
    for slug in slugs:
        if slug and (slug in stored or slug in given or _reserved(slug, post_type)):
            if slug not in families:
                families[slug] = _free_slugs(app, session, slug, post_type, None, parent, given)
            slug = next(families[slug])
        if slug:
            given.add(slug)
        result.append(slug)
    return result


PAGE_NUMBER = re.compile(r"(page)?\d+")


def _reserved(candidate: str, post_type: str) -> bool:
    """Feed names; for pages also a number or `pageN`, which paging and date archives would read."""
    return candidate in RESERVED_SLUGS or bool(post_type == "page" and PAGE_NUMBER.fullmatch(candidate))


def _free_slugs(app, session, slug: str, post_type: str, post_id: int | None, parent: int,
                given: set[str]) -> Iterator[str]:
    """The free names of `slug`'s family in its scope, lowest first, as WordPress's probing finds them
    (host.slug_family: one query, two when the family has a gap): `slug` itself, then `slug-2`,
    `slug-3` ... skipping stored ones (but `post_id`'s own), reserved ones and those in `given`
    (handed out earlier in this transaction; each name yielded joins it)."""
    posts = tables(app)["posts"]
    scope, dialect = _scope(app, post_type), app.db.engine.dialect.name
    params = {"type": post_type, "parent": parent, "post_id": post_id or 0,
              **slug_family.family_parameters(slug, MAX_SLUG)}
    summary = app.db.prepared(f"core.slug_family_summary:{scope}:{dialect}", lambda: slug_family.summary_statement(
        posts.c.slug, _family_where(posts, scope), dialect))
    family = app.db.prepared(f"core.slug_family:{scope}:{dialect}", lambda: slug_family.names_statement(
        posts.c.slug, _family_where(posts, scope), dialect))
    for name in slug_family.free_names(slug, MAX_SLUG, lambda: session.execute(summary, params).one(),
                                       lambda: set(session.scalars(family, params)),
                                       lambda name: name in given or _reserved(name, post_type)):
        given.add(name)
        yield name


def _scope(app, post_type: str) -> str:
    """Where a slug must be unique: among attachments and every type, pages of one parent, or one type."""
    if post_type == "attachment":
        return "attachment"
    if post_type == "page" or _hierarchical(app, post_type):
        return "hierarchical"
    return "type"


def _slugs_probe(posts, scope: str):
    """SELECT of the slugs among :slugs held in the scope."""
    return select(posts.c.slug).where(posts.c.slug.in_(bindparam("slugs", expanding=True)), *_scope_where(posts, scope))


def _scope_where(posts, scope: str) -> list:
    """Attachments: every type but revisions; pages (and hierarchical types): the type and attachments
    of one parent (an IN, so the (type, slug) index serves both); others: the type."""
    if scope == "attachment":
        return [posts.c.type != "revision"]
    if scope == "hierarchical":
        return [posts.c.type.in_([bindparam("type"), "attachment"]), posts.c.parent == bindparam("parent")]
    return [posts.c.type == bindparam("type")]


def _family_where(posts, scope: str) -> list:
    """The scope, less the item being renamed (its own name is free to keep)."""
    return [*_scope_where(posts, scope), posts.c.id != bindparam("post_id")]


def _hierarchical(app, post_type: str) -> bool:
    registered = app.registry.post_types.get(post_type)
    return bool(registered and registered[0].hierarchical)
