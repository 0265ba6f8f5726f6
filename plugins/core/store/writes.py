"""Writing posts: insert, update, delete, term links and meta, inside the caller's transaction."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam, delete, insert, or_, select, text, update

from host.stash import StashKey

from .. import dates
from ..tables import RENDERED_CONTENT, tables
from .slugs import SLUG_LOCK_KEY, lock_slugs, note_slug_lock
from .items import decode_meta, effective_status, meta_keys_for, taxonomies_of


def insert_item(app, session, values: dict) -> int:
    posts = tables(app)["posts"]
    lock_slugs(app, session)
    return session.execute(app.db.prepared("core.insert_post", lambda: insert(posts)), values).inserted_primary_key[0]


def reserve_id(app, session) -> int | None:
    """The id the next inserted post will get, taken now, so that a create writes its row once.

    A slug and a guid depend on the id; inserting first and setting them after cost an UPDATE
    of the new row, which on PostgreSQL also rebuilt its full-text index entry (the row's
    indexed slug changes, so no in-place update). SQLite: the write transaction holds the
    file's write lock from its first statement, so the next AUTOINCREMENT value is ours. None
    on other databases: insert first, as before.

    PostgreSQL: the same round trip takes the slug lock (`lock_slugs`), which the create's slug
    and its INSERT take next anyway.
    """
    dialect = app.db.engine.dialect.name
    if dialect == "postgresql":
        statement = app.db.prepared("core.reserve_post_id", lambda: text(
            f"SELECT nextval(pg_get_serial_sequence('posts', 'id')), pg_advisory_xact_lock({SLUG_LOCK_KEY})"))
        reserved = int(session.execute(statement).scalar())
        note_slug_lock(session)
        return reserved
    if dialect == "sqlite":
        statement = app.db.prepared("core.reserve_post_id", lambda: text(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'posts'), 0), "
            "coalesce((SELECT max(id) FROM posts), 0)) + 1"))
    else:
        return None
    return int(session.execute(statement).scalar())


def id_is_free(app, session, item_id: int) -> bool:
    """Whether no post has `item_id` (an import keeps an old site's ids where it can)."""
    posts = tables(app)["posts"]
    return item_id > 0 and session.execute(select(posts.c.id).where(posts.c.id == item_id)).first() is None


def catch_up_sequence(app, session) -> None:
    """After rows were inserted with ids of their own: PostgreSQL's sequence moves past the highest id,
    so the next plain insert does not collide (SQLite's AUTOINCREMENT keeps up by itself)."""
    if app.db.engine.dialect.name == "postgresql":
        session.execute(text("SELECT setval(pg_get_serial_sequence('posts', 'id'), greatest((SELECT max(id) FROM posts), "
                             "nextval(pg_get_serial_sequence('posts', 'id'))))"))


def reserve_ids(app, session, count: int) -> list[int] | None:
    """`reserve_id` for `count` new posts at once, ascending; None on databases other than SQLite
    and PostgreSQL (the bulk path then leaves the items to the single create)."""
    dialect = app.db.engine.dialect.name
    if dialect == "sqlite":
        first = reserve_id(app, session)
        return list(range(first, first + count))
    if dialect == "postgresql":
        statement = app.db.prepared("core.reserve_post_ids", lambda: text(
            "SELECT nextval(pg_get_serial_sequence('posts', 'id')) FROM generate_series(1, :count)"))
        return sorted(int(value) for value in session.scalars(statement, {"count": count}))
    return None


def reserve_ids_above(app, session, count: int, highest_taken: int) -> list[int] | None:
    """`reserve_ids`, all above `highest_taken` too: ids that rows inserted with ids of their own (an
    import keeping an old site's ids) will hold in the same statement, so the sequence is moved past
    them first. None on databases other than SQLite and PostgreSQL."""
    if highest_taken > 0 and app.db.engine.dialect.name == "postgresql":
        session.execute(app.db.prepared("core.move_post_ids_past", lambda: text(
            "SELECT setval(pg_get_serial_sequence('posts', 'id'), greatest(:highest, "
            "nextval(pg_get_serial_sequence('posts', 'id'))))")), {"highest": highest_taken})
    reserved = reserve_ids(app, session, count)
    if reserved is None or app.db.engine.dialect.name != "sqlite" or reserved[0] > highest_taken:
        return reserved
    return list(range(highest_taken + 1, highest_taken + 1 + count))


def insert_items(app, session, rows: list[dict]) -> None:
    """Insert posts with reserved ids in one multi-row INSERT; every row must have the same columns.

    RETURNING turns on SQLAlchemy's insertmanyvalues (one `VALUES (...), (...)` statement on SQLite
    and PostgreSQL). It is not asked to sort by parameter order: on SQLite that runs one statement
    per row, and the ids are ours already (`reserve_ids`), so they are only checked.
    """
    posts = tables(app)["posts"]
    lock_slugs(app, session)
    statement = app.db.prepared("core.insert_posts", lambda: insert(posts).returning(posts.c.id))
    inserted = sorted(session.scalars(statement, rows))
    if inserted != sorted(row["id"] for row in rows):  # never expected: the reserved ids are ours
        raise RuntimeError(f"bulk insert returned ids {inserted}, not the reserved ones")


def link_terms(app, session, links: list[dict]) -> None:
    """Term links of new posts, `{"post_id", "term_id"}` each, in one multi-row INSERT."""
    if links:
        relationships = tables(app)["term_relationships"]
        statement = app.db.prepared("core.link_terms_many", lambda: insert(relationships).returning(
            relationships.c.post_id))
        session.execute(statement, links).all()


def update_item(app, session, post_id: int, values: dict) -> None:
    """SET the columns named in `values` (plain values, not SQL expressions) of one post."""
    if values:
        posts = tables(app)["posts"]
        lock_slugs(app, session)
        statement = app.db.prepared("core.update_post", lambda: update(posts).where(posts.c.id == bindparam("post_id_")))
        session.execute(statement, {**values, "post_id_": post_id})


def new_item(app, post_id: int, values: dict, terms: dict[str, list[tuple[int, str]]], meta: dict[str, Any]) -> dict:
    """The item `get_item` would read right after this transaction inserted it, without the SELECT.

    `values` are the columns written (insert and updates), `terms` the links `set_terms`
    made, `meta` the values `set_meta` stored. Only for a top-level item (parent 0): a new
    one has no revisions, and its other columns are the table's defaults.
    """
    item_type = values["type"]
    item: dict[str, Any] = dict(app.stash.setdefault_by(ROW_DEFAULTS, lambda: _row_defaults(app)))
    item["id"] = post_id
    for key, value in values.items():
        if key in item:
            item[key] = value
    item["stored_status"] = item["status"]
    item["status"] = effective_status(item["status"], item["date_gmt"], dates.utcnow())
    item.update(revision_count=0, latest_revision_id=None, parent_status=None, parent_author=None, parent_type=None)
    item["author"] = item["author"] or 0
    item["terms"] = {taxonomy: sorted(terms.get(taxonomy, ())) for taxonomy in taxonomies_of(app, item_type)}
    item["meta"] = {key.key: decode_meta(json.dumps(meta[key.key]) if meta.get(key.key) is not None else None,
                                         key.schema) for key in meta_keys_for(app, item_type)}
    item["_rendering"] = None  # as store.get_item: none stored yet, so the first rendering is kept
    return item


ROW_DEFAULTS = StashKey[dict]("core.new_row_defaults")


def _row_defaults(app) -> dict[str, Any]:
    """Every posts column with the value a new row has when its INSERT leaves the column out, in
    column order: built once per app (reading SQLAlchemy's Column objects cost a step per column
    of every create)."""
    return {column.key: column.default.arg if column.default is not None and column.default.is_scalar else None
            for column in tables(app)["posts"].columns}


def delete_item(app, session, post_id: int) -> None:
    """Delete a post for good: revisions, autosaves, meta and term links with it."""
    t = tables(app)
    posts = t["posts"]
    row = session.execute(select(posts.c.parent, posts.c.type).where(posts.c.id == post_id)).first()
    revision_ids = select(posts.c.id).where(posts.c.parent == post_id, posts.c.type == "revision")
    for table in (t["post_meta"], t["term_relationships"], RENDERED_CONTENT):
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
