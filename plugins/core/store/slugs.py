"""Slugs: sanitizing titles into slugs and making a slug unique in its scope."""

from __future__ import annotations

import re
import unicodedata

from sqlalchemy import bindparam, func, or_, select

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


def lock_slugs(app, session) -> None:
    """PostgreSQL: the transaction's slug lock (re-entrant; held until commit). Every write of a post
    row takes it before its first statement on `posts`, so that the row lock of the content version
    (bumped by triggers on `posts`) always comes after it: a create that bumped the version first and
    then waited for the slug lock deadlocked against an update holding it."""
    if app.db.engine.dialect.name == "postgresql":
        session.execute(app.db.prepared("core.slug_lock", lambda: select(func.pg_advisory_xact_lock(SLUG_LOCK_KEY))))


def unique_slug(app, session, slug: str, post_type: str, post_id: int | None, parent: int = 0) -> str:
    """Make `slug` unique in its scope by appending -2, -3 ... (reference 5.4).

    On PostgreSQL concurrent writers would both see a slug free (read committed), so slug
    assignment takes a transaction-scoped advisory lock; SQLite writers are already serial.
    """
    posts = tables(app)["posts"]
    lock_slugs(app, session)
    scope = _scope(app, post_type)
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


def unique_slugs(app, session, slugs: list[str], post_type: str, parent: int = 0) -> list[str]:
    """`unique_slug` for several new items of one type and parent at once, in order.

    Each item sees the slugs given to those before it, as one create after another would (two
    items titled the same get `title` and `title-2`). One query reads which of the wanted slugs
    are stored; more run only when a slug is taken, for the next suffixes.
    """
    posts = tables(app)["posts"]
    lock_slugs(app, session)
    scope = _scope(app, post_type)
    probe = app.db.prepared(f"core.slugs_probe:{scope}", lambda: _slugs_probe(posts, scope))
    stored: dict[str, bool] = {}

    def look_up(candidates: list[str]) -> None:
        unknown = [candidate for candidate in dict.fromkeys(candidates) if candidate not in stored]
        if unknown:
            found = set(session.scalars(probe, {"type": post_type, "parent": parent, "slugs": unknown}))
            stored.update((candidate, candidate in found) for candidate in unknown)

    def reserved(candidate: str) -> bool:
        return candidate in RESERVED_SLUGS or bool(post_type == "page" and re.fullmatch(r"(page)?\d+", candidate))

    look_up([slug for slug in slugs if slug])
    given: set[str] = set()
    result = []
    for slug in slugs:
        if not slug:
            result.append("")
            continue
        suffix = 1
        while True:
            candidate = _suffixed(slug, suffix)
            if candidate not in stored:
                look_up([_suffixed(slug, number) for number in range(suffix, suffix + 8)])
            if not (reserved(candidate) or stored[candidate] or candidate in given):
                break
            suffix += 1
        given.add(candidate)
        result.append(candidate)
    return result


def _suffixed(slug: str, suffix: int) -> str:
    """`slug` itself for 1, else `slug-N` cut to fit MAX_SLUG, as `unique_slug` makes them."""
    if suffix == 1:
        return slug
    tail = f"-{suffix}"
    return slug[: MAX_SLUG - len(tail)] + tail


def _scope(app, post_type: str) -> str:
    """Where a slug must be unique: among attachments and every type, pages of one parent, or one type."""
    if post_type == "attachment":
        return "attachment"
    if post_type == "page" or _hierarchical(app, post_type):
        return "hierarchical"
    return "type"


def _slugs_probe(posts, scope: str):
    """SELECT of the slugs among :slugs held in the scope (as `_slug_probe`, for many at once)."""
    return select(posts.c.slug).where(posts.c.slug.in_(bindparam("slugs", expanding=True)), *_scope_where(posts, scope))


def _scope_where(posts, scope: str) -> list:
    if scope == "attachment":
        return [posts.c.type != "revision"]
    if scope == "hierarchical":
        return [or_(posts.c.type == bindparam("type"), posts.c.type == "attachment"), posts.c.parent == bindparam("parent")]
    return [posts.c.type == bindparam("type")]


def _slug_probe(posts, scope: str, other_than_id: bool):
    """SELECT of one post holding :slug in the scope (attachments: every type; pages: same parent)."""
    where = _scope_where(posts, scope)
    if other_than_id:
        where.append(posts.c.id != bindparam("post_id"))
    return select(posts.c.id).where(posts.c.slug == bindparam("slug"), *where).limit(1)


def _hierarchical(app, post_type: str) -> bool:
    registered = app.registry.post_types.get(post_type)
    return bool(registered and registered[0].hierarchical)
