"""`sitehost export wordpress`: the whole site as one WXR 1.2 file, as WordPress's Tools → Export
writes it (authors, then categories, tags and the other taxonomies' terms, then every item with its
meta and comments), read and written in pages so that memory stays bounded whatever the site's size.

Core's posts, pages and attachments come through this plugin's own `export_wordpress_items`
implementation (`core_items`), the other plugins' items through theirs; the exporter writes the
authors and terms itself. Everything is read in one transaction (REPEATABLE READ on PostgreSQL), so
the file is one consistent moment of the site.

Where the data comes from: items through the content service (`app.content`: `matching_ids` pages
of ids, `get_many` for their columns, registered meta and terms); users through `host.auth.users`.
The content service has no listing of terms or comments, so those two are read from the stored
`terms` and `comments` tables by name from the app's metadata (as the backup plugin reads every
table), in pages of the items being written.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from sqlalchemy import select

from host.content import service_request
from host.wxr import WxrAuthor, WxrComment, WxrExport, WxrItem, WxrTerm, php_serialize
from host import ANONYMOUS

from .writer import NO_DATE, Channel, open_wxr

# Attachments first: the posts and pages after them find their featured images and uploaded files
# already imported (an importer rewrites links to them as it reads the content).
CORE_TYPES = ("attachment", "page", "post")
PAGE_SIZE = 200  # items read, converted and written at a time
# WordPress's comment_approved values of sitehost's comment statuses.
APPROVED = {"approved": "1", "hold": "0", "spam": "spam", "trash": "trash"}
# Post formats travel as terms of WordPress's `post_format` taxonomy (slug post-format-NAME).
FORMAT_NAMES = {"aside": "Aside", "gallery": "Gallery", "link": "Link", "image": "Image", "quote": "Quote",
                "status": "Status", "video": "Video", "audio": "Audio", "chat": "Chat"}


def wxr_date(value: datetime.datetime | None) -> str:
    """WordPress's "YYYY-MM-DD HH:MM:SS" (its zero date for none: an unscheduled draft)."""
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else NO_DATE


def utc_to_zone(value: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    return value.replace(tzinfo=datetime.timezone.utc).astimezone(zone).replace(tzinfo=None)


def meta_text(value: Any) -> str:
    """A meta value as WordPress stores it: text as it is, numbers as their text, true as "1" and false
    as "", arrays and objects PHP-serialized (what `host.wxr.php_unserialize` reads back)."""
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, (int, float, str)):
        return str(value)
    return php_serialize(value)


def plain_permalink(base_url: str, post_id: int, post_type: str = "") -> str:
    """The site's permalinks are WordPress's plain ones: ?page_id=, ?attachment_id=, ?p= (which
    WordPress answers for any post type)."""
    if post_type == "page":
        return f"{base_url}/?page_id={post_id}"
    if post_type == "attachment":
        return f"{base_url}/?attachment_id={post_id}"
    return f"{base_url}/?p={post_id}"


class SiteExport(WxrExport):
    """One export run as the hooks see it, plus what the exporter keeps for it: the content service's
    request (`request`, as the first administrator), user logins by id, and every term by id."""

    def __init__(self, app, session, base_url: str, site_zone: str, request):
        super().__init__(app, session, base_url, site_zone)
        self.request = request
        self.zone = app.timezone()
        self.logins: dict[int, str] = {}
        self.terms: dict[int, Any] = {}  # term id -> its row (taxonomy, name, slug, description, parent)
        self.taxonomy_names: dict[str, str] = {}  # this site's taxonomy -> WordPress's name
        self._meta_defaults: dict[str, dict[str, Any]] = {}

    def link(self, post_id: int) -> str:
        return plain_permalink(self.base_url, post_id)

    def meta_defaults(self, post_type: str) -> dict[str, Any]:
        """{key: default} of the type's registered meta keys (looked up once per type)."""
        if post_type not in self._meta_defaults:
            self._meta_defaults[post_type] = {key.key: key.schema.get("default")
                                              for key in self.app.registry.meta_keys(post_type)}
        return self._meta_defaults[post_type]

    def wordpress_taxonomy(self, taxonomy: str) -> str:
        return self.taxonomy_names.get(taxonomy, taxonomy)

    def item_term(self, term_id: int) -> WxrTerm | None:
        row = self.terms.get(term_id)
        if row is None:
            return None
        return WxrTerm(self.wordpress_taxonomy(row.taxonomy), row.slug, row.name)


@dataclass
class ExportSummary:
    """What one export wrote: items by WordPress post type, comments, terms and authors."""

    items: Counter = field(default_factory=Counter)
    comments: int = 0
    terms: int = 0
    authors: int = 0

    def lines(self) -> list[str]:
        kinds = ", ".join(f"{count:,} {post_type}" for post_type, count in sorted(self.items.items())) or "no items"
        return [f"Exported {kinds}; {self.comments:,} comments, {self.terms:,} terms, {self.authors:,} authors."]


# --- reading the site --------------------------------------------------------------------------

def _stored_table(app, name: str):
    return app.db.metadata.tables[name]


def exported_taxonomies(app) -> dict[str, str]:
    """{this site's taxonomy: WordPress's name} for every registered taxonomy: the `wordpress_taxonomies`
    answers read in reverse; a taxonomy nobody maps keeps its own name (WordPress's importer creates
    terms of taxonomies registered there by that name)."""
    wordpress_to_site: dict[str, str] = {"category": "category", "post_tag": "post_tag"}
    for answer in app.hook.wordpress_taxonomies(app=app):
        wordpress_to_site.update(answer or {})
    reverse = {site: wordpress for wordpress, site in wordpress_to_site.items()}
    return {name: reverse.get(name, name) for name in app.registry.taxonomies}


def parents_first(rows: list) -> list:
    """Terms ordered so that each parent comes before its children (WordPress's importer looks a parent
    up by slug when it reaches the child); a term whose parent is missing counts as a top-level one."""
    by_parent: dict[int, list] = defaultdict(list)
    ids = {row.id for row in rows}
    for row in rows:
        by_parent[row.parent if row.parent in ids and row.parent != row.id else 0].append(row)
    ordered, stack, seen = [], list(reversed(by_parent.get(0, []))), set()
    while stack:
        row = stack.pop()
        if row.id in seen:
            continue
        seen.add(row.id)
        ordered.append(row)
        stack.extend(reversed(by_parent.get(row.id, [])))
    ordered.extend(row for row in rows if row.id not in seen)  # a cycle: written last, as top-level terms
    return ordered


def channel_terms(export: SiteExport) -> Iterator[WxrTerm]:
    """Every term of every registered taxonomy, parents first; remembers them for the items' terms."""
    terms = _stored_table(export.app, "terms")
    for taxonomy, wordpress_name in export.taxonomy_names.items():
        rows = export.session.execute(select(terms.c.id, terms.c.taxonomy, terms.c.name, terms.c.slug,
                                             terms.c.description, terms.c.parent)
                                      .where(terms.c.taxonomy == taxonomy).order_by(terms.c.id)).all()
        for row in rows:
            export.terms[row.id] = row
        for row in parents_first(rows):
            parent = export.terms.get(row.parent)
            yield WxrTerm(wordpress_name, row.slug, row.name, parent_slug=parent.slug if parent is not None else "",
                          description=row.description, term_id=row.id)


def authors(export: SiteExport) -> Iterator[WxrAuthor]:
    """Every user (WordPress lists those who wrote something; commenters' accounts come along too)."""
    from host.auth.users import list_users

    for user in list_users(export.app, export.session):
        export.logins[user.id] = user.login
        yield WxrAuthor(user.id, user.login, user.email, user.display_name, user.first_name, user.last_name,
                        role=user.roles[0] if user.roles else "")


def comments_of(export: SiteExport, post_ids: list[int]) -> dict[int, list[WxrComment]]:
    """The comments of these items, in id order (parents before their replies, as WordPress's importer
    needs), with WordPress's approval values; a trashed comment keeps its earlier status as meta."""
    comments = _stored_table(export.app, "comments")
    found: dict[int, list[WxrComment]] = defaultdict(list)
    rows = export.session.execute(select(comments).where(comments.c.post.in_(post_ids))
                                  .order_by(comments.c.post, comments.c.id))
    for row in rows:
        meta = []
        if row.status == "trash" and row.pre_trash_status:
            meta.append(("_wp_trash_meta_status", APPROVED.get(row.pre_trash_status, "0")))
        found[row.post].append(WxrComment(
            comment_id=row.id, author=row.author_name, author_email=row.author_email, author_url=row.author_url,
            author_ip=row.author_ip, date=wxr_date(utc_to_zone(row.date_gmt, export.zone)),
            date_gmt=wxr_date(row.date_gmt), content=row.content, approved=APPROVED.get(row.status, "0"),
            type=row.type or "comment", parent=row.parent, user_id=row.author or 0, meta=meta))
    return found


def core_item(export: SiteExport, item: dict, comments: list[WxrComment]) -> WxrItem:
    """A stored post, page or attachment in WordPress's shape: its columns as WXR fields, the columns
    WordPress keeps as meta (`_thumbnail_id`, `_wp_page_template`, `_wp_attached_file`,
    `_wp_attachment_metadata`, `_wp_attachment_image_alt`, `_wp_trash_meta_status`) as meta, the post
    format as a `post_format` term, and the registered meta keys that differ from their defaults."""
    post_id, post_type = item["id"], item["type"]
    terms = [term for taxonomy_terms in item["terms"].values() for term_id, _slug in taxonomy_terms
             if (term := export.item_term(term_id)) is not None]
    if item.get("format") and item["format"] != "standard":
        terms.append(WxrTerm("post_format", f"post-format-{item['format']}",
                             FORMAT_NAMES.get(item["format"], item["format"].title())))
    meta: list[tuple[str, str]] = []
    defaults = export.meta_defaults(post_type)
    for key, value in item["meta"].items():
        if value is not None and value != defaults.get(key):
            meta.append((key, meta_text(value)))
    if item.get("featured_media"):
        meta.append(("_thumbnail_id", str(item["featured_media"])))
    if item.get("template"):
        meta.append(("_wp_page_template", item["template"]))
    attachment_url = ""
    if post_type == "attachment" and item.get("file"):
        attachment_url = f"{export.base_url}/uploads/{item['file']}"
        meta.append(("_wp_attached_file", item["file"]))
        if item.get("media_details"):
            meta.append(("_wp_attachment_metadata", php_serialize(item["media_details"])))
        if item.get("alt_text"):
            meta.append(("_wp_attachment_image_alt", item["alt_text"]))
    if item["status"] == "trash" and item.get("pre_trash_status"):
        meta.append(("_wp_trash_meta_status", item["pre_trash_status"]))
    return WxrItem(
        post_id=post_id, post_type=post_type, title=item["title"], slug=item["slug"], status=item["status"],
        content=item["content"], excerpt=item["excerpt"], date=wxr_date(item["date"]),
        date_gmt=wxr_date(item["date_gmt"]), modified=wxr_date(item["modified"]),
        modified_gmt=wxr_date(item["modified_gmt"]), author_login=export.logins.get(item["author"], ""),
        parent=item["parent"], menu_order=item["menu_order"], password=item["password"],
        is_sticky=bool(item.get("sticky")), comment_status=item.get("comment_status") or "closed",
        ping_status=item.get("ping_status") or "closed", guid=item.get("guid") or "",
        link=plain_permalink(export.base_url, post_id, post_type), attachment_url=attachment_url,
        terms=terms, meta=meta, comments=comments)


def id_pages(export: SiteExport, post_type: str) -> Iterator[list[int]]:
    """The ids of every stored item of `post_type` (any status), in pages, by id (keyset paging: each
    page is one indexed range read, however far into the site it is)."""
    statement = export.app.content.matching_ids(export.request, post_type, status=None, order="id")
    id_column = statement.selected_columns[0]
    last = 0
    while True:
        ids = list(export.session.execute(statement.where(id_column > last).limit(PAGE_SIZE)).scalars())
        if not ids:
            return
        yield ids
        last = ids[-1]


def exported_post_types(app) -> list[str]:
    """Core's types, then every type a plugin registered but gives no items of its own for (it has no
    `export_wordpress_items`): those go out under this site's name for them, which is how an importer
    that knows the type by name (sitehost's) takes them back."""
    exporting = {implementation.plugin_name for implementation in app.hook.export_wordpress_items.get_hookimpls()}
    others = [name for name, (_post_type, owner) in app.registry.post_types.items()
              if name not in CORE_TYPES and name != "revision" and owner not in exporting]
    return [name for name in CORE_TYPES if name in app.registry.post_types] + others


def core_items(export: SiteExport) -> Iterator[WxrItem]:
    """Posts, pages and attachments (every status but auto-draft), and the items of plugins that export
    none themselves, each with its comments; other plugins add their part of an item through
    `wordpress_item_exported`."""
    app = export.app
    for post_type in exported_post_types(app):
        for ids in id_pages(export, post_type):
            items = app.content.get_many(export.request, ids, post_type)
            comments = comments_of(export, ids)
            for post_id in ids:
                item = items.get(post_id)
                if item is None or item["status"] == "auto-draft":
                    continue
                exported = core_item(export, item, comments.get(post_id, []))
                app.hook.wordpress_item_exported(app=app, item=exported, post_id=post_id, export=export)
                yield exported


# --- the run -----------------------------------------------------------------------------------

def _administrator(app, session):
    from host.auth.users import list_users

    return next((user for user in list_users(app, session) if "administrator" in user.roles), ANONYMOUS)


def _consistent_reads(session) -> None:
    """One snapshot for the whole file: PostgreSQL's default isolation would let each page see a later
    moment (an item moved between pages is written twice, or never); SQLite's read transaction is one
    snapshot already."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection(execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True})


def export_site(app, stream: BinaryIO, *, progress: Callable[[WxrItem], None] | None = None) -> ExportSummary:
    """Write the whole site to `stream` as WXR 1.2 and answer what was written."""
    summary = ExportSummary()
    with app.db.session() as session:
        _consistent_reads(session)
        base_url = app.site_address(session).rstrip("/")
        request = service_request(app, session, _administrator(app, session))
        export = SiteExport(app, session, base_url, app.settings.site.get("timezone_string") or "UTC", request)
        export.taxonomy_names = exported_taxonomies(app)
        identity = app.site_identity(session)
        channel = Channel(
            title=identity.get("name", ""), link=base_url, description=identity.get("description", ""),
            language=str(app.settings.site.get("language") or "en_US").replace("_", "-"),
            base_site_url=base_url, base_blog_url=base_url, generator="sitehost",
            created=datetime.datetime.now(datetime.timezone.utc))
        with open_wxr(stream, channel) as writer:
            for author in authors(export):
                writer.author(author)
                summary.authors += 1
            for term in channel_terms(export):
                writer.term(term)
                summary.terms += 1
            for items in app.hook.export_wordpress_items(app=app, export=export):
                for item in items or ():
                    writer.item(item)
                    summary.items[item.post_type] += 1
                    summary.comments += len(item.comments)
                    if progress is not None:
                        progress(item)
        session.rollback()  # read only: nothing to keep
    return summary


def export_item_hook(app, export: WxrExport) -> Iterable[WxrItem] | None:
    """Core's part of `export_wordpress_items` (this plugin owns core's types in a migration)."""
    if not isinstance(export, SiteExport):
        return None
    return core_items(export)
