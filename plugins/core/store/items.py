"""Reading posts as item dicts: ONE select per item or page, terms, meta, revisions and the parent's
status coming along as correlated subqueries (indexed), never as follow-up queries."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import String, bindparam, cast, func, literal, select

from .. import dates
from host.stash import StashKey

from ..tables import RENDERED_CONTENT, tables

AUTOSAVE_SUFFIX = "-autosave-v1"


def _aggregate(dialect: str, expression):
    if dialect == "postgresql":
        return func.string_agg(expression, literal(","))
    return func.group_concat(expression, literal(","))


def effective_status(stored: str, date_gmt, now) -> str:
    """`future` items whose time has come read as `publish` (scheduling without a cron)."""
    if stored == "future" and date_gmt is not None and date_gmt <= now:
        return "publish"
    return stored


ITEM_SELECTS = StashKey[dict]("core.item_selects")


def item_select(app, post_type: str):
    """SELECT of posts with everything an item needs: terms, meta, revisions, parent status.

    Built once per (app, post type): it depends only on the registry, which is final before
    the first request, and building it costs more than running it for a page of ten.
    """
    built = app.stash.setdefault_by(ITEM_SELECTS, dict)
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


LAYOUTS = StashKey[dict]("core.item_layouts")


def _item_layout(app, post_type: str) -> _ItemLayout:
    """Built on first use: the registry is final before the first request."""
    layouts = app.stash.setdefault_by(LAYOUTS, dict)
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
        if default is None or isinstance(default, (str, int, float, bool)):
            return default  # immutable: no copy needed (json's round trip gives the same value)
        return json.loads(json.dumps(default))  # a fresh copy, so no caller changes the schema's
    try:
        return json.loads(raw)
    except ValueError:
        return raw



def get_item(app, session, post_id: int, post_type: str | None = None) -> dict | None:
    """One item, or None. Both statements are prepared per type (host `Database.prepared`): a single
    read costs what running them costs, not SQLAlchemy's cache key of the item SELECT each time."""
    posts = tables(app)["posts"]
    if post_type is None:
        found = session.execute(app.db.prepared("core.item_type", lambda: select(posts.c.type).where(
            posts.c.id == bindparam("post_id"))), {"post_id": post_id}).scalar()
        if found is None:
            return None
        post_type = found
    statement = app.db.prepared(f"core.get_item.{post_type}", lambda: _with_rendering(app, item_select(app, post_type))
                                .where(posts.c.id == bindparam("post_id"), posts.c.type == post_type))
    # Through the session's connection, as rows_by_ids: the ORM's execute adds nothing to a Core
    # SELECT but its own bookkeeping (about a fifth of a single read's time).
    row = session.connection().execute(statement, {"post_id": post_id}).first()
    if row is None:
        return None
    item = row_to_item(app, row, post_type)
    # (digest, content, excerpt) stored for the row, or None: plugins/core/render.py `render_item`
    # uses it while the digest matches, and stores a fresh one otherwise.
    item["_rendering"] = (row.rendered_digest, row.rendered_content, row.rendered_excerpt) \
        if row.rendered_digest is not None else None
    return item


def _with_rendering(app, statement):
    """The item SELECT with the row's stored rendering beside it (one primary-key lookup, outer joined)."""
    posts, rendered = tables(app)["posts"], RENDERED_CONTENT
    return statement.join_from(posts, rendered, rendered.c.post_id == posts.c.id, isouter=True).add_columns(
        rendered.c.digest.label("rendered_digest"), rendered.c.content.label("rendered_content"),
        rendered.c.excerpt.label("rendered_excerpt"))


def get_items(app, session, post_ids) -> dict[int, dict]:
    """{id: item} of the ids that exist, as `get_item` reads each: one query for the types, one per type."""
    posts = tables(app)["posts"]
    ids = list(dict.fromkeys(int(post_id) for post_id in post_ids))
    if not ids:
        return {}
    by_type: dict[str, list[int]] = {}
    for post_id, post_type in session.execute(select(posts.c.id, posts.c.type).where(posts.c.id.in_(ids))):
        by_type.setdefault(post_type, []).append(post_id)
    found: dict[int, dict] = {}
    for post_type, members in by_type.items():
        rows = session.execute(item_select(app, post_type).where(posts.c.id.in_(members), posts.c.type == post_type))
        for row in rows:
            found[row.id] = row_to_item(app, row, post_type)
    return found


def post_exists(app, session, post_id: int) -> dict | None:
    posts = tables(app)["posts"]
    row = session.execute(select(posts.c.id, posts.c.type, posts.c.status, posts.c.parent, posts.c.author)
                          .where(posts.c.id == post_id)).first()
    return dict(row._mapping) if row is not None else None


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
