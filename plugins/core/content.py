"""core's implementation of the content service (host.content), provided as `app.content`."""

from __future__ import annotations

import datetime
import functools
import inspect
import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from sqlalchemy import func, insert, select

from host.content import ContentDeleted, ContentSaved, ItemIdsTaken
from host import RestRequest
from host.args import MAX_INTEGER

from . import dates, render, store
from .shaping import core_url, guid_base, permalink, prepare_post, site_url, user_can_read
from .tables import tables
from .revisions import save_revision
from .media import MediaController, attachment_for_file, check_file, image_size, store_file, upload_key

FLOATING = ("draft", "pending", "auto-draft")  # no publication date until published
FILTERED = ("title", "content", "excerpt")  # markup filtered for writers without unfiltered_html


def _filtered(request, name: str, value: Any) -> Any:
    """The value as core/v2's own writes keep it: a writer without `unfiltered_html` (a contributor
    or author adding an event, a venue ...) gets the same filtering of title, content and excerpt as
    when writing a post, whichever plugin stores it; callers without a user (commands) are trusted."""
    user = getattr(request, "user", None)
    if not isinstance(value, str) or not value or user is None or user.can("unfiltered_html"):
        return value
    return render.sanitize_title(value) if name == "title" else render.sanitize_html(value)


def _insert_keeping_id(app, session, values: dict, item_id: int | None) -> int:
    """Insert an item under `item_id` when no item has it (an import keeping an old site's id), else a new id."""
    own_id = item_id is not None and store.id_is_free(app, session, int(item_id))
    if own_id:
        values["id"] = int(item_id)
    new_id = store.insert_item(app, session, values)
    if own_id:
        store.catch_up_sequence(app, session)
    return new_id


UPDATABLE = frozenset({"title", "content", "excerpt", "status", "slug", "author", "parent", "menu_order", "meta",
                       "password", "featured_media", "date_gmt", "terms", "comment_status", "ping_status", "sticky",
                       "format", "template", "alt_text", "modified_gmt"})


@dataclass
class _NewRow:
    """One item of `create_many` before its id is known: columns, meta, {taxonomy: term ids}, wanted slug."""

    values: dict[str, Any]
    meta: dict[str, Any]
    terms: dict[str, list[int]]
    slug: str
    item_id: int | None
    keeps_no_slug: bool = False  # an unpublished item given no slug: stored with none, as WordPress does


class CoreContentService:
    """Items of every registered post type, read and written in the request's transaction."""

    def __init__(self, app):
        self.app = app

    # --- reading ---------------------------------------------------------------------------

    def get(self, request, item_id: int, post_type: str | None = None) -> dict | None:
        if post_type is not None:
            self._post_type(post_type)
        return store.get_item(self.app, request.session, int(item_id), post_type)

    def view(self, request, item_id: int, *, user: Any, post_type: str | None = None) -> dict | None:
        if post_type is not None:
            self._post_type(post_type, reading=True)
        if not 0 < int(item_id) <= MAX_INTEGER:  # no row has such an id
            return None
        item = store.get_item(self.app, request.session, int(item_id), post_type)
        return self._shown(request, item, user) if item is not None else None

    def view_many(self, request, item_ids: Iterable[int], post_type: str, *, user: Any) -> dict[int, dict]:
        self._post_type(post_type, reading=True)
        ids = [item_id for item_id in dict.fromkeys(int(item_id) for item_id in item_ids) if 0 < item_id <= MAX_INTEGER]
        found = store.get_items(self.app, request.session, ids)
        shown = {item_id: self._shown(request, item, user) for item_id, item in found.items() if item["type"] == post_type}
        return {item_id: data for item_id, data in shown.items() if data is not None}

    def media_by_url(self, request, url: str, *, user: Any) -> dict | None:
        uploads = f"{site_url(request)}/uploads/"
        key = upload_key(url[len(uploads):]) if url.startswith(uploads) else None
        found = attachment_for_file(self.app, key) if key else None
        return self.view(request, found["id"], user=user, post_type="attachment") if found else None

    def _shown(self, request, item: dict, user: Any) -> dict | None:
        """The item as its core/v2 route shows it to `user` in the view context (no `_links`), or None."""
        if item["type"] == "revision" or not user_can_read(self.app, user, item):
            return None
        viewer = _as_user(request, user)
        if item["type"] == "attachment":
            data = MediaController(self.app).prepare(viewer, item, "view")
        else:
            data = prepare_post(viewer, item, "view")
        data.pop("_links", None)
        return data

    def rest_url(self, request, item: Mapping[str, Any]) -> str:
        registered = self.app.registry.post_types.get(str(item["type"]))
        if registered is None or not registered[0].rest_base:
            raise ValueError(f"post type {item['type']!r} has no REST route")
        return core_url(request, f"{registered[0].rest_base}/{int(item['id'])}")

    def query(self, request, post_type: str, *, status: Iterable[str] = ("publish",), search: str = "",
              include: Iterable[int] = (), exclude: Iterable[int] = (), author: Iterable[int] = (),
              parent: Iterable[int] | None = None, per_page: int = 10, page: int = 1, orderby: str = "date",
              order: str = "desc", terms: Mapping[str, Iterable[int]] | None = None, terms_relation: str = "AND",
              meta_key: str = "") -> tuple[list[dict], int]:
        self._post_type(post_type)
        statuses = list(status)
        unknown = set(statuses) - set(self.app.registry.status_names(post_type))
        if unknown:
            raise ValueError(f"unknown status {sorted(unknown)} for post type {post_type!r}")
        if order not in ("asc", "desc") or page < 1 or not 1 <= per_page <= 100:
            raise ValueError("order is asc or desc, page at least 1, per_page 1 to 100")
        query = store.PostQuery(post_type, statuses=statuses, search=search, include=[int(i) for i in include],
                                exclude=[int(i) for i in exclude], author=[int(i) for i in author],
                                parent=[int(i) for i in parent] if parent is not None else None,
                                per_page=per_page, orderby=orderby, order=order, meta_key=meta_key,
                                tax_clauses=self._tax_clauses(post_type, terms or {}),
                                tax_relation="OR" if terms_relation == "OR" else "AND")
        given = [list(term_ids) for term_ids in (terms or {}).values()]
        if given and (not query.tax_clauses or (query.tax_relation == "AND" and not all(given))):
            return [], 0  # a taxonomy that must match was given no term: nothing matches
        if orderby == "meta_value_num" and meta_key not in {key.key for key in self.app.registry.meta_keys(post_type)}:
            raise ValueError(f"meta key {meta_key!r} is not registered for {post_type!r}")
        rows, total = store.list_rows(self.app, request.session, query, page)
        return [store.row_to_item(self.app, row, post_type) for row in rows], total

    def version(self, request) -> int | None:
        """The content version (bumped by triggers with every change to items, their meta, terms and
        term links, in the writer's transaction); None where no trigger keeps one."""
        if store.totals_cache(self.app) is None:
            return None
        version = tables(self.app)["content_version"]
        statement = self.app.db.prepared("core.content_version", lambda: select(version.c.version).where(
            version.c.id == 1))
        return request.session.connection().execute(statement).scalar()

    def terms(self, request, taxonomy: str, *, names: Iterable[str] = (), ids: Iterable[int] = (),
              create: bool = False, slugs: Iterable[str] = ()) -> list[dict]:
        self._taxonomy(taxonomy)
        wanted_names = [str(name).strip() for name in names if str(name).strip()]
        wanted_ids = [int(term_id) for term_id in ids]
        wanted_slugs = list(dict.fromkeys(store.sanitize_slug(str(slug)) for slug in slugs if slug))
        terms_table, links = tables(self.app)["terms"], tables(self.app)["term_relationships"]
        session = request.session
        found: list = []
        if wanted_names:
            lowered = list(dict.fromkeys(name.lower() for name in wanted_names))
            found += session.execute(select(terms_table).where(
                terms_table.c.taxonomy == taxonomy, func.lower(terms_table.c.name).in_(lowered))).all()
            if create:
                have = {row.name.lower() for row in found}
                for name in dict.fromkeys(wanted_names):
                    if name.lower() in have:
                        continue
                    have.add(name.lower())
                    slug = store.sanitize_slug(name) or "term"
                    taken = {row.slug for row in session.execute(select(terms_table.c.slug).where(
                        terms_table.c.taxonomy == taxonomy, terms_table.c.slug.like(slug + "%")))}
                    unique, number = slug, 2
                    while unique in taken:
                        unique, number = f"{slug}-{number}", number + 1
                    new_id = session.execute(insert(terms_table).values(
                        taxonomy=taxonomy, name=name[:200], slug=unique[:200], description="", parent=0)
                    ).inserted_primary_key[0]
                    found += session.execute(select(terms_table).where(terms_table.c.id == new_id)).all()
        if wanted_ids:
            found += session.execute(select(terms_table).where(
                terms_table.c.taxonomy == taxonomy, terms_table.c.id.in_(wanted_ids))).all()
        if wanted_slugs:
            found += session.execute(select(terms_table).where(
                terms_table.c.taxonomy == taxonomy, terms_table.c.slug.in_(wanted_slugs))).all()
        unique_rows = {row.id: row for row in found}
        if not unique_rows:
            return []
        counts = dict(session.execute(select(links.c.term_id, func.count()).where(
            links.c.term_id.in_(list(unique_rows))).group_by(links.c.term_id)).all())
        return [{"id": row.id, "name": row.name, "slug": row.slug, "taxonomy": row.taxonomy,
                 "description": row.description, "parent": row.parent, "count": counts.get(row.id, 0),
                 "published_count": row._mapping["count"] or 0}
                for row in sorted(unique_rows.values(), key=lambda row: row.id)]

    def get_many(self, request, item_ids: Iterable[int], post_type: str) -> dict[int, dict]:
        self._post_type(post_type, reading=True)
        ids = list(dict.fromkeys(int(item_id) for item_id in item_ids))
        if not ids:
            return {}
        rows = store.rows_by_ids(self.app, request.session, post_type, ids)
        return {item_id: store.row_to_item(self.app, row, post_type) for item_id, row in rows.items()
                if row.type == post_type}

    def get_by_slug(self, request, post_type: str, slug: str, *, status: Iterable[str] | None = None) -> dict | None:
        self._post_type(post_type, reading=True)
        posts = tables(self.app)["posts"]
        query = select(posts.c.id).where(posts.c.type == post_type, posts.c.slug.in_([slug, slug + "__trashed"]))
        if status is not None:
            query = query.where(posts.c.status.in_(list(status)))
        found = request.session.execute(query.order_by((posts.c.slug == slug).desc(), posts.c.id).limit(1)).scalar()
        return store.get_item(self.app, request.session, found, post_type) if found is not None else None

    def matching_ids(self, request, post_type: str, *, status: Iterable[str] | None = None, search: str = "",
                     terms: Mapping[str, Iterable[int]] | None = None, order: str | None = None,
                     descending: bool = False):
        self._post_type(post_type, reading=True)
        posts = tables(self.app)["posts"]
        # filters() answers [type clause, status clause, the others...]; the status clause is replaced
        # because this filter takes stored statuses as they are (None: any).
        where = store.filters(self.app, store.PostQuery(post_type, statuses=[], per_page=None))
        where[1] = posts.c.status.in_(list(status)) if status is not None else posts.c.type == post_type
        for taxonomy, term_ids in (terms or {}).items():
            clause = store.TaxClause(taxonomy, [int(term_id) for term_id in term_ids])
            where.extend(store.filters(self.app, store.PostQuery(post_type, statuses=[], tax_clauses=[clause]))[2:])
        searched = store.search_clause(self.app, store.PostQuery(post_type, statuses=[], search=search, per_page=None)) \
            if search else None
        if searched is not None and order is None and self.app.db.engine.dialect.name == "postgresql":
            return self._matching_once(where, searched)
        if searched is not None:
            where.append(searched)
        statement = select(posts.c.id).where(*where)
        if order is not None:
            columns = {"title": posts.c.title, "date": posts.c.date, "id": posts.c.id,
                       "modified": posts.c.modified_gmt, "menu_order": posts.c.menu_order}
            if order not in columns:
                raise ValueError(f"order is one of {sorted(columns)}")
            if descending:
                statement = statement.order_by(columns[order].desc(), posts.c.id.desc())
            else:
                statement = statement.order_by(columns[order], posts.c.id)
        return statement

    def _matching_once(self, where: list, searched):
        """The matching ids on PostgreSQL as CTEs it computes once per statement, whatever its plan.

        Used as `events.post_id IN (...)` under statistics older than the rows (a bulk import, before
        autovacuum's ANALYZE), PostgreSQL planned a nested loop that ran the search's text functions
        over every post once per event: 79 s for one anonymous calendar search of 250 events, 338 s
        for 500. Materialized, the search reads the GIN index once (`hits`: its condition alone, so no
        other index looks cheaper) and the other filters run once over the posts it leaves."""
        posts = tables(self.app)["posts"]
        hits = select(posts.c.id).where(searched).cte().prefix_with("MATERIALIZED")
        matched = select(posts.c.id).where(*where, posts.c.id.in_(select(hits.c.id))).cte().prefix_with("MATERIALIZED")
        return select(matched.c.id)

    # --- writing ---------------------------------------------------------------------------

    def create(self, request, post_type: str, *, title: str = "", content: str = "", excerpt: str = "",
               status: str = "draft", author: int | None = None, parent: int = 0, menu_order: int = 0,
               slug: str = "", meta: dict[str, Any] | None = None, password: str = "", featured_media: int = 0,
               date_gmt: datetime.datetime | None = None, terms: Mapping[str, Iterable[int]] | None = None,
               item_id: int | None = None, comment_status: str = "", ping_status: str = "", sticky: bool = False,
               format: str = "", template: str = "", date: datetime.datetime | None = None,
               modified_gmt: datetime.datetime | None = None) -> dict:
        new = self._new_row(request, post_type, title=title, content=content, excerpt=excerpt, status=status,
                            author=author, parent=parent, menu_order=menu_order, slug=slug, meta=meta,
                            password=password, featured_media=featured_media, date_gmt=date_gmt, terms=terms,
                            item_id=item_id, comment_status=comment_status, ping_status=ping_status, sticky=sticky,
                            format=format, template=template, date=date, modified_gmt=modified_gmt)
        session, app = request.session, self.app
        values = new.values
        item_id = _insert_keeping_id(app, session, values, new.item_id)
        wanted = new.slug or str(item_id)
        # The guid is the plain permalink on the site's address, as core/v2's creates give it.
        store.update_item(app, session, item_id, {
            "slug": "" if new.keeps_no_slug else store.unique_slug(app, session, wanted, post_type, item_id, int(parent)),
            "guid": permalink(request, {"id": item_id, "type": post_type}, site=guid_base(request))})
        for key, value in new.meta.items():
            store.set_meta(app, session, item_id, key, value, new=True)
        for taxonomy, term_ids in new.terms.items():
            store.set_terms(app, session, item_id, taxonomy, term_ids, new=True)
        item = store.get_item(app, session, item_id, post_type)
        self._announce_saved(request, item, created=True)
        return item

    def create_many(self, request, items: Sequence[Mapping[str, Any]], *, keep_ids: bool = False) -> list[dict]:
        """Many `create`s in a few statements: each entry is `create`'s keyword arguments plus `post_type`.

        The same checks, filtering, kept ids, unique slugs (each item sees the slugs given before
        it), guids, meta, term links and `content_saved` events as one `create` after another, but
        the rows, their meta and their term links are written by one multi-row INSERT each: an
        import of thousands of items spent most of its time in the statements of single creates.
        A ValueError for any entry writes nothing. Answers the items in order, as `get` would.
        keep_ids: every `item_id` given must be kept, else ItemIdsTaken (naming the held ones) and nothing
        is written: an import that wrote links to the ids it expects.
        """
        app, session = self.app, request.session
        new_rows: list[_NewRow] = []
        for entry in items:
            arguments = dict(entry)
            post_type = arguments.pop("post_type")
            unknown = set(arguments) - _create_arguments()
            if unknown:
                raise ValueError(f"create_many: unknown arguments {sorted(unknown)}")
            new_rows.append(self._new_row(request, post_type, **arguments))
        if not new_rows:
            return []
        ids = self._ids_of_new_rows(session, new_rows, keep_ids)
        if ids is None:  # a database without reserved ids: one create after another
            return [self.create(request, **dict(entry)) for entry in items]
        scopes: dict[tuple[str, int], list[int]] = {}  # where a slug is unique: (type, parent of a page) -> indexes
        for index, new in enumerate(new_rows):
            post_type = new.values["type"]
            by_parent = post_type == "page" or app.registry.post_types[post_type][0].hierarchical
            scopes.setdefault((post_type, new.values["parent"] if by_parent else 0), []).append(index)
        slugs: dict[int, str] = {}
        for (post_type, parent), indexes in scopes.items():
            slugs.update((index, "") for index in indexes if new_rows[index].keeps_no_slug)
            indexes = [index for index in indexes if not new_rows[index].keeps_no_slug]
            wanted = [new_rows[index].slug or str(ids[index]) for index in indexes]
            slugs.update(zip(indexes, store.unique_slugs(app, session, wanted, post_type, parent)))
        site = guid_base(request)
        by_columns: dict[tuple[str, ...], list[dict]] = {}  # insert_items needs rows of the same columns
        for index, (new, item_id) in enumerate(zip(new_rows, ids)):
            new.values.update(id=item_id, slug=slugs[index],
                              guid=permalink(request, {"id": item_id, "type": new.values["type"]}, site=site))
            by_columns.setdefault(tuple(sorted(new.values)), []).append(new.values)
        for rows in by_columns.values():
            store.insert_items(app, session, rows)
        store.catch_up_sequence(app, session)
        meta_rows = [{"post_id": item_id, "key": key, "value": json.dumps(value)}
                     for new, item_id in zip(new_rows, ids) for key, value in new.meta.items() if value is not None]
        if meta_rows:
            session.execute(app.db.prepared("core.insert_meta", lambda: insert(tables(app)["post_meta"])), meta_rows)
        known = store.terms_by_id(app, session, [term_id for new in new_rows for term_ids in new.terms.values()
                                                 for term_id in term_ids])
        links, linked_terms = [], []
        for new, item_id in zip(new_rows, ids):
            linked: dict[str, list[tuple[int, str]]] = {}
            for taxonomy, term_ids in new.terms.items():
                # as set_terms: ids that are not terms of the taxonomy are dropped, each linked once
                valid = {term_id: known[term_id][1] for term_id in term_ids
                         if term_id in known and known[term_id][0] == taxonomy}
                linked[taxonomy] = sorted(valid.items())
                links += [{"post_id": item_id, "term_id": term_id} for term_id in valid]
            linked_terms.append(linked)
        store.link_terms(app, session, links)
        answers = []
        for new, item_id, linked in zip(new_rows, ids, linked_terms):
            if new.values["parent"]:
                item = store.get_item(app, session, item_id, new.values["type"])
            else:
                item = store.new_item(app, item_id, new.values, linked, new.meta)
            self._announce_saved(request, item, created=True)
            answers.append(item)
        return answers

    def _new_row(self, request, post_type: str, *, title: str = "", content: str = "", excerpt: str = "",
                 status: str = "draft", author: int | None = None, parent: int = 0, menu_order: int = 0,
                 slug: str = "", meta: dict[str, Any] | None = None, password: str = "", featured_media: int = 0,
                 date_gmt: datetime.datetime | None = None, terms: Mapping[str, Iterable[int]] | None = None,
                 item_id: int | None = None, comment_status: str = "", ping_status: str = "", sticky: bool = False,
                 format: str = "", template: str = "", date: datetime.datetime | None = None,
                 modified_gmt: datetime.datetime | None = None) -> "_NewRow":
        """What `create` writes for these arguments, checked and filtered (ValueError when refused):
        the row's columns but id, slug and guid, the meta and terms to store, the slug wanted."""
        self._post_type(post_type)
        self._writable_status(post_type, status)
        meta = self._checked_meta(post_type, meta or {})
        title, content, excerpt = (_filtered(request, name, value) for name, value in
                                   (("title", title), ("content", content), ("excerpt", excerpt)))
        app = self.app
        local, utc = self._now()
        published_utc = utc if date_gmt is None else date_gmt
        values: dict[str, Any] = {
            "type": post_type, "status": status, "slug": "", "title": title, "content": content, "excerpt": excerpt,
            "author": request.user.id if author is None else int(author), "parent": int(parent),
            "menu_order": int(menu_order), "password": password, "featured_media": int(featured_media),
            "date": dates.utc_to_local(published_utc, app.timezone()),
            "date_gmt": None if status in FLOATING and date_gmt is None else published_utc,
            "modified": local, "modified_gmt": utc,
        }
        if date is not None and values["date_gmt"] is None:
            values["date"] = date  # a floating draft keeps the local date it had
        if modified_gmt is not None:
            values.update(modified=dates.utc_to_local(modified_gmt, app.timezone()), modified_gmt=modified_gmt)
        values.update({name: value for name, value in (("comment_status", comment_status), ("ping_status", ping_status),
                                                       ("format", format), ("template", template)) if value})
        values["sticky"] = bool(sticky)
        keeps_no_slug = not slug and status in FLOATING  # as WordPress's drafts: publishing gives one
        return _NewRow(values, meta, self._checked_terms(post_type, terms or {}),
                       "" if keeps_no_slug else store.sanitize_slug(slug or title),
                       None if item_id is None else int(item_id), keeps_no_slug)

    def _ids_of_new_rows(self, session, new_rows: list["_NewRow"], keep_ids: bool) -> list[int] | None:
        """An id for each new row: the one it asks for when no item (nor an earlier row) has it, as
        `create` keeps ids, else a reserved one above every id in use. None: the database reserves none."""
        app = self.app
        posts = tables(app)["posts"]
        asked = [new.item_id for new in new_rows if new.item_id is not None and new.item_id > 0]
        taken = set(session.scalars(select(posts.c.id).where(posts.c.id.in_(asked)))) if asked else set()
        kept: list[int | None] = []
        for new in new_rows:
            own = new.item_id if new.item_id is not None and new.item_id > 0 and new.item_id not in taken else None
            if own is not None:
                taken.add(own)
            kept.append(own)
        if keep_ids:
            refused = [new.item_id for new, own in zip(new_rows, kept) if new.item_id is not None and own is None]
            if refused:
                raise ItemIdsTaken(refused)
        wanted = kept.count(None)
        if not wanted:
            return [int(item_id) for item_id in kept]
        store.lock_slugs(app, session)  # the order of locks every write of posts keeps (store.lock_slugs)
        highest_kept = max((item_id for item_id in kept if item_id is not None), default=0)
        reserved = store.reserve_ids_above(app, session, wanted, highest_kept)
        if reserved is None:
            return None
        fresh = iter(reserved)
        return [item_id if item_id is not None else next(fresh) for item_id in kept]

    def create_attachment(self, request, name: str, data: bytes, *, title: str = "", caption: str = "",
                          description: str = "", alt_text: str = "", parent: int = 0, author: int | None = None,
                          status: str = "inherit", slug: str = "", date_gmt: datetime.datetime | None = None,
                          item_id: int | None = None, comment_status: str = "open",
                          modified_gmt: datetime.datetime | None = None) -> dict:
        """A media item with its file stored under uploads/ (in the year/month folder of its date), checked
        as core/v2/media checks uploads for the request's user."""
        if status not in ("inherit", "private"):
            raise ValueError("an attachment's status is inherit or private")
        app, session = self.app, request.session
        user = getattr(request, "user", None)
        name = name.replace("\\", "/").rsplit("/", 1)[-1]
        mime = check_file(name, data, user is None or user.can("unfiltered_html"))  # ValueError: refused
        utc = dates.utcnow() if date_gmt is None else date_gmt
        local = dates.utc_to_local(utc, app.timezone())
        relative = store_file(app, name, data, local, mime)
        size = image_size(data, mime) if mime.startswith("image/") else None
        details: dict[str, Any] = {"filesize": len(data)}
        if size:
            details = {"width": size[0], "height": size[1], "file": relative, "filesize": len(data),
                       "sizes": {}, "image_meta": {}}
        modified_utc = modified_gmt or utc
        stem = name.rsplit(".", 1)[0] if "." in name else name
        values: dict[str, Any] = {
            "type": "attachment", "status": status, "slug": "", "title": _filtered(request, "title", title) or stem,
            "content": _filtered(request, "content", description), "excerpt": _filtered(request, "excerpt", caption),
            "author": (user.id if user is not None else None) if author is None else int(author),
            "parent": int(parent), "comment_status": comment_status or "open", "ping_status": "closed",
            "date": local, "date_gmt": utc, "modified": dates.utc_to_local(modified_utc, app.timezone()),
            "modified_gmt": modified_utc, "mime_type": mime, "file": relative, "media_details": details,
            "alt_text": render.plain_text(alt_text), "guid": f"{guid_base(request)}/uploads/{relative}",
        }
        post_id = _insert_keeping_id(app, session, values, item_id)
        store.update_item(app, session, post_id, {"slug": store.unique_slug(
            app, session, store.sanitize_slug(slug or values["title"]) or str(post_id), "attachment", post_id)})
        item = store.get_item(app, session, post_id, "attachment")
        self._announce_saved(request, item, created=True)
        return item

    def clean_html(self, request, html: str) -> str:
        return render.sanitize_html(html) if html else html

    def update(self, request, item_id: int, *, revision: bool = False, **fields: Any) -> dict:
        unknown = set(fields) - UPDATABLE
        if unknown:
            raise ValueError(f"fields {sorted(unknown)} cannot be updated (updatable: {sorted(UPDATABLE)})")
        session, app = request.session, self.app
        current = store.get_item(app, session, int(item_id))
        if current is None:
            raise LookupError(f"no item {item_id}")
        post_type = current["type"]
        meta = self._checked_meta(post_type, fields.pop("meta", None) or {})
        terms = self._checked_terms(post_type, fields.pop("terms", None) or {})
        if "status" in fields:
            self._writable_status(post_type, fields["status"])
        local, utc = self._now()
        modified_gmt = fields.pop("modified_gmt", None) or utc
        values = {name: _filtered(request, name, value) if name in FILTERED else value
                  for name, value in fields.items()}
        if values.get("date_gmt") is not None:
            values["date"] = dates.utc_to_local(values["date_gmt"], app.timezone())
        elif "date_gmt" in values:
            del values["date_gmt"]
        status = values.get("status", current["stored_status"])
        if "slug" in values:
            values["slug"] = self._slug(request, values["slug"], None, status, post_type, int(item_id),
                                        int(values.get("parent", current["parent"])))
        elif not current["slug"] and status in ("publish", "future", "private"):
            # a draft without a slug gets one from its title when it is published, as in WordPress
            values["slug"] = self._slug(request, "", values.get("title", current["title"]), status, post_type,
                                        int(item_id), int(values.get("parent", current["parent"])))
        if values.get("status") and values["status"] not in FLOATING and current["date_gmt"] is None:
            values["date_gmt"] = utc
        values.update(modified=local if modified_gmt == utc else dates.utc_to_local(modified_gmt, app.timezone()),
                      modified_gmt=modified_gmt)
        store.update_item(app, session, int(item_id), values)
        for key, value in meta.items():
            store.set_meta(app, session, int(item_id), key, value)
        for taxonomy, term_ids in terms.items():
            store.set_terms(app, session, int(item_id), taxonomy, term_ids)
        if revision:
            save_revision(app, session, int(item_id), request.user.id)
        item = store.get_item(app, session, int(item_id), post_type)
        self._announce_saved(request, item, created=False)
        return item

    def trash(self, request, item_id: int) -> dict:
        session, app = request.session, self.app
        current = store.get_item(app, session, int(item_id))
        if current is None:
            raise LookupError(f"no item {item_id}")
        if current["stored_status"] == "trash":
            raise ValueError(f"item {item_id} is already in the trash")
        slug = current["slug"] + "__trashed" if current["slug"] else ""
        store.update_item(app, session, int(item_id), {
            "status": "trash", "pre_trash_status": current["stored_status"], "slug": slug})
        trashed = store.get_item(app, session, int(item_id), current["type"])
        request.after_commit(lambda: app.hook.content_deleted(app=app, event=ContentDeleted.of(trashed, False)))
        return trashed

    def delete(self, request, item_id: int) -> None:
        current = store.get_item(self.app, request.session, int(item_id))
        if current is None:
            raise LookupError(f"no item {item_id}")
        store.delete_item(self.app, request.session, int(item_id))
        app = self.app
        request.after_commit(lambda: app.hook.content_deleted(app=app, event=ContentDeleted.of(current, True)))

    def create_term(self, request, taxonomy: str, name: str, *, slug: str = "", description: str = "",
                    parent: int = 0) -> int:
        if taxonomy not in self.app.registry.taxonomies:
            raise ValueError(f"{taxonomy!r} is not a registered taxonomy")
        if not name.strip():
            raise ValueError("a term needs a name")
        terms = tables(self.app)["terms"]
        session = request.session
        wanted = store.sanitize_slug(slug or name) or "term"
        candidate, number = wanted, 1
        while session.execute(select(terms.c.id).where(terms.c.taxonomy == taxonomy,
                                                       terms.c.slug == candidate)).first() is not None:
            number += 1
            candidate = f"{wanted}-{number}"
        return session.execute(insert(terms).values(taxonomy=taxonomy, name=name.strip(), slug=candidate,
                                                    description=description, parent=int(parent))
                               ).inserted_primary_key[0]

    # --- checks ----------------------------------------------------------------------------

    def _post_type(self, post_type: str, reading: bool = False) -> None:
        """Refuse types the service does not write (revisions; attachments, which need their file).

        Reading an attachment is allowed (`reading`): another plugin may show a media item.
        """
        written_elsewhere = ("revision",) if reading else ("revision", "attachment")
        if post_type not in self.app.registry.post_types or post_type in written_elsewhere:
            raise ValueError(f"{post_type!r} is not a registered post type the content service stores")

    def _taxonomy(self, taxonomy: str) -> None:
        if taxonomy not in self.app.registry.taxonomies:
            raise ValueError(f"{taxonomy!r} is not a registered taxonomy")

    def _checked_terms(self, post_type: str, terms: Mapping[str, Iterable[int]]) -> dict[str, list[int]]:
        for taxonomy in terms:
            self._taxonomy(taxonomy)
            if post_type not in self.app.registry.taxonomies[taxonomy][0].object_types:
                raise ValueError(f"taxonomy {taxonomy!r} is not registered for {post_type!r}")
        return {taxonomy: [int(term_id) for term_id in term_ids] for taxonomy, term_ids in terms.items()}

    def _tax_clauses(self, post_type: str, terms: Mapping[str, Iterable[int]]) -> list:
        return [store.TaxClause(taxonomy, term_ids) for taxonomy, term_ids in self._checked_terms(post_type, terms).items()
                if term_ids]

    def _slug(self, request, slug: str, title: str | None, status: str, post_type: str, item_id: int,
              parent: int) -> str:
        """The unique slug of `slug`, else of `title`, else of the id. An unpublished item (draft, pending)
        given none keeps none, as WordPress keeps an empty post_name for them (core/v2 answers
        `generated_slug`; publishing gives it one)."""
        if not slug and status in FLOATING:
            return ""
        wanted = store.sanitize_slug(slug or title or "") or str(item_id)
        return store.unique_slug(self.app, request.session, wanted, post_type, item_id, parent)

    def _writable_status(self, post_type: str, status: str) -> None:
        allowed = self.app.registry.status_names(post_type, writable_only=True)
        if status not in allowed:
            raise ValueError(f"status {status!r} is not writable for {post_type!r} (allowed: {allowed})")

    def _checked_meta(self, post_type: str, meta: dict[str, Any]) -> dict[str, Any]:
        known = {key.key for key in self.app.registry.meta_keys(post_type)}
        unknown = set(meta) - known
        if unknown:
            raise ValueError(f"meta keys {sorted(unknown)} are not registered for {post_type!r}")
        for key in self.app.registry.meta_keys(post_type):
            if key.check is not None and meta.get(key.key) is not None:
                key.check(meta[key.key])  # ValueError names what is wrong
        return meta

    def _now(self):
        utc = dates.utcnow()
        return dates.utc_to_local(utc, self.app.timezone()), utc

    def _announce_saved(self, request, item: dict, created: bool) -> None:
        app = self.app
        request.after_commit(lambda: app.hook.content_saved(app=app, event=ContentSaved.of(item, created)))


@functools.cache
def _as_user(request, user):
    """`request` itself when `user` asks it, else a request of `user` that reads through its session."""
    if user is request.user:
        return request
    viewer = RestRequest(request.app, "GET", request.path, [], {}, environ=request.environ, base_url=request.base_url,
                         remote_addr=request.remote_addr, internal=True)
    viewer.user = user
    viewer.read_through(request)
    return viewer


def _create_arguments() -> frozenset[str]:
    """The keyword arguments of `create` (a `create_many` entry names nothing else)."""
    return frozenset(inspect.signature(CoreContentService.create).parameters) - {"self", "request", "post_type"}
