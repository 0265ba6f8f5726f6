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
