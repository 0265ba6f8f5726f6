"""`sitehost import wordpress`: a WXR file into this site, one transaction per batch of items.

The run parses the file once: a check reads it all (so a malformed or hostile file fails with
one line and changes nothing), keeping the records it read in a temporary file, and the import
reads them back from there. Each batch of items is written in one transaction together with its
rows of the id map, so a run killed half-way leaves whole batches only, and the next run finds
them in the map and goes on without duplicates. Items are offered to the plugins first
(`import_wordpress_item`); core's own types come last. New posts of a batch wait in a queue and
are written together (`CoreImporter.flush_queue`, through the content service's `create_many`),
with their comments in one INSERT per level of replies; anything that looks one of them up
writes the queue first.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import json
import logging
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sqlalchemy import select

from host import ANONYMOUS
from host.auth.users import ROLES, UserError, create_user, find_user, get_user
from host.content import ItemIdsTaken, service_request
from host.wxr import WxrAuthor, WxrComment, WxrImport, WxrItem, WxrTerm, is_php_serialized, php_unserialize
from host.wxr_content import TRASHED_SUFFIX, before_trash

from . import redirects
from .reader import WxrError, safe_upload_path
from .tables import tables

log = logging.getLogger(__name__)

BATCH_ITEMS = 200
NO_DATE = "0000-00-00 00:00:00"
COMMENT_STATUS = {"1": "approved", "approved": "approved", "0": "hold", "hold": "hold", "spam": "spam",
                  "trash": "trash", "post-trashed": "trash"}
CORE_TAXONOMIES = {"category": "category", "post_tag": "post_tag"}
FORMAT_PREFIX = "post-format-"
NOT_KEPT_TYPES = {
    "nav_menu_item": "this site has no navigation menus yet",
    "revision": "revisions are not exported by WordPress and not imported",
    "customize_changeset": "theme customizer drafts belong to a WordPress theme",
    "custom_css": "theme CSS belongs to a WordPress theme",
    "wp_global_styles": "block theme styles belong to a WordPress theme",
    "wp_template": "block theme templates belong to a WordPress theme",
    "wp_template_part": "block theme templates belong to a WordPress theme",
    "wp_navigation": "this site has no navigation menus yet",
    "oembed_cache": "cached embeds are fetched again when shown",
    "user_request": "privacy requests stay with the old site",
}
# Meta WordPress keeps for its own bookkeeping; meaningless here (listed, with this reason).
BOOKKEEPING_META = {"_edit_last", "_edit_lock", "_wp_old_slug", "_wp_old_date", "_encloseme", "_pingme",
                    "_wp_desired_post_slug", "_wp_suggested_privacy_policy_text"}
# Meta core turns into fields of its own (a trashed item's earlier status is the one a restore gives back;
# its trash time is not kept: this site never empties its trash by age).
CORE_FIELD_META = {"_thumbnail_id", "_wp_page_template", "_wp_attached_file", "_wp_attachment_metadata",
                   "_wp_attachment_image_alt", "_wp_attachment_backup_sizes", "_wp_trash_meta_status",
                   "_wp_trash_meta_time"}


def parse_date(text: str) -> datetime.datetime | None:
    """A WXR date ("YYYY-MM-DD HH:MM:SS") as a naive datetime; None for WordPress's zero date or nothing."""
    text = (text or "").strip()
    if not text or text.startswith("0000-00-00"):
        return None
    try:
        return datetime.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def fingerprint(*parts) -> str:
    """A digest of what the file says about a thing: equal digests mean nothing changed since the last run."""
    return hashlib.sha256(json.dumps(parts, default=repr, ensure_ascii=False).encode()).hexdigest()


@dataclass
class Summary:
    """What a run did, per kind, and what it did not import and why."""

    by_kind: dict[str, Counter] = field(default_factory=dict)
    not_imported: list[tuple[str, str]] = field(default_factory=list)
    users_without_password: list[str] = field(default_factory=list)

    def totals(self) -> Counter:
        total: Counter = Counter()
        for counter in self.by_kind.values():
            total.update(counter)
        return total

    def headline(self) -> str:
        total = self.totals()
        return (f"{total['created']} created, {total['updated']} updated, {total['unchanged']} unchanged, "
                f"{total['not imported']} not imported")

    def lines(self) -> list[str]:
        lines = [f"WordPress import: {self.headline()}"]
        for kind in sorted(self.by_kind):
            counter = self.by_kind[kind]
            lines.append(f"  {kind}: {counter['created']} created, {counter['updated']} updated, "
                         f"{counter['unchanged']} unchanged, {counter['not imported']} not imported")
        if self.not_imported:
            lines.append("Not imported:")
            grouped = Counter(self.not_imported)
            for (label, reason), times in sorted(grouped.items()):
                lines.append(f"  - {label}: {reason}" + (f" ({times} times)" if times > 1 else ""))
        if self.users_without_password:
            lines.append("Imported users have no password (a WordPress export holds none). Give each one with "
                         "`sitehost user set-password LOGIN`, or let them use the sign-in page's reset mail: "
                         + ", ".join(self.users_without_password))
        return lines

    def as_dict(self) -> dict:
        return {"headline": self.headline(), "by_kind": {kind: dict(counter) for kind, counter in self.by_kind.items()},
                "not_imported": [list(pair) for pair in self.not_imported],
                "users_without_password": self.users_without_password}


class ImportRun(WxrImport):
    """host.wxr.WxrImport over this plugin's id map and redirects and core's content services."""

    def __init__(self, app, site_zone: str, old_base_url: str, new_base_url: str, *,
                 uploads_dir: Path | None = None, fetch_media: Callable[[str], bytes] | None = None,
                 writer_id: int = 0):
        super().__init__(app, None, site_zone, old_base_url, new_base_url)
        self.writer_id = writer_id  # the user the import writes as; 0: the operator's command
        self.writer = None
        self.uploads_dir = uploads_dir
        self.fetch_media = fetch_media
        self.request = None
        self.taxonomy_map: dict[str, str] = {}
        self.users_by_login: dict[str, int] = {}
        self.terms_by_slug: dict[tuple[str, str], int] = {}
        self.links: dict[str, str] = {}  # old path -> new address, found this run
        self.pending_links: set[int] = set()  # new ids whose content still links to the old site
        self.new_users: list[str] = []
        tables_ = tables(app)
        self.id_map, self.redirect_table = tables_["wordpress_id_map"], tables_["wordpress_redirects"]
        # The id map and the redirects, read once: a run looks every item up in them (tens of thousands of
        # rows at most); rows of earlier runs, and of batches of this run, are all in here.
        self.known: dict[tuple[str, int], tuple[int, str]] = {}
        self.redirect_ids: dict[str, int] = {}
        self.targets: dict[int, str | None] = {}  # new id -> its address, for items imported by this run
        # Posts waiting for the batch's create_many (CoreImporter.flush_queue): a lookup of one of them,
        # by old id or old path, writes the queue first, so it answers as if each item was written at once.
        self.queued_ids: set[int] = set()
        self.queued_paths: set[str] = set()
        self.flush_queue: Callable[[], None] = lambda: None
        self.predicted_links: dict[str, str] = {}  # old path -> address, of the posts being written now
        # Rows of the id map and the redirects not written yet: one executemany per batch (write_buffered).
        self._new_map_rows: dict[tuple[str, int], dict] = {}
        self._new_redirect_rows: dict[str, dict] = {}
        old = urllib.parse.urlsplit(self.old_base_url)
        host = re.escape(old.netloc or "old-site.invalid")
        self._old_url = re.compile(rf"(?:https?:)?//{host}(?P<path>/[^\s\"'<>()\[\]]*)?", re.IGNORECASE)

    def use_session(self, session) -> None:
        """Write the next batch through `session` (a request for the content services goes with it)."""
        first = self.session is None
        self.session = session
        if first and self.writer_id:
            self.writer = get_user(self.app, session, self.writer_id) or ANONYMOUS
        self.request = service_request(self.app, session, self.writer)
        if first:
            for row in session.execute(select(self.id_map.c.kind, self.id_map.c.old_id, self.id_map.c.new_id,
                                              self.id_map.c.fingerprint)):
                self.known[(row.kind, row.old_id)] = (row.new_id, row.fingerprint)
            self.redirect_ids = dict(session.execute(select(self.redirect_table.c.path, self.redirect_table.c.new_id)).all())

    # --- the id map -----------------------------------------------------------------------

    def mapped(self, kind: str, old_id: int) -> tuple[int, str] | None:
        if kind == "post" and int(old_id) in self.queued_ids:
            self.flush_queue()
        return self.known.get((kind, int(old_id)))

    def new_id(self, kind: str, old_id: int) -> int | None:
        found = self.mapped(kind, old_id)
        return found[0] if found else None

    def remember(self, kind: str, old_id: int, new_id: int, old_link: str | None = None, digest: str = "") -> None:
        table = self.id_map
        key = (kind, int(old_id))
        if key not in self.known:
            self._new_map_rows[key] = {"kind": kind, "old_id": int(old_id), "new_id": int(new_id), "fingerprint": digest}
        elif key in self._new_map_rows:
            self._new_map_rows[key].update(new_id=int(new_id), fingerprint=digest)
        elif self.known[key] != (int(new_id), digest):
            self.session.execute(table.update().where(table.c.kind == kind, table.c.old_id == int(old_id))
                                 .values(new_id=int(new_id), fingerprint=digest))
        self.known[key] = (int(new_id), digest)
        if old_link:
            self.redirect(old_link, new_id)

    def redirect(self, old_link: str, new_id: int) -> None:
        """Make `old_link` (absolute on the old site, or a path) answer 301 to item `new_id`."""
        path = redirects.old_path(old_link, self.old_base_url)
        if path is None or path in ("/", ""):
            return
        table = self.redirect_table
        known = self.redirect_ids.get(path)
        if known is None:
            self._new_redirect_rows[path] = {"path": path, "new_id": int(new_id)}
        elif path in self._new_redirect_rows:
            self._new_redirect_rows[path]["new_id"] = int(new_id)
        elif known != int(new_id):
            self.session.execute(table.update().where(table.c.path == path).values(new_id=int(new_id)))
        self.redirect_ids[path] = int(new_id)
        self.links.pop(path, None)

    def write_buffered(self) -> None:
        """Write the id map's and the redirects' new rows, one executemany each (before the batch commits)."""
        for rows, table, name in ((self._new_map_rows, self.id_map, "wordpress_migrate.remember"),
                                  (self._new_redirect_rows, self.redirect_table, "wordpress_migrate.redirect")):
            if rows:
                self.session.execute(self.app.db.prepared(name, lambda table=table: table.insert()), list(rows.values()))
                rows.clear()

    def user_id(self, login: str) -> int | None:
        return self.users_by_login.get(login)

    # --- HTML -------------------------------------------------------------------------------

    def trusts_html(self) -> bool:
        """Whether HTML is kept as the file has it: the import writes as the user who runs it, as WordPress's
        importer does, and an administrator (unfiltered_html) or the operator's command keeps markup
        as written; anyone else's import is filtered as core/v2 filters that user's writes."""
        return self.writer is None or self.writer.can("unfiltered_html")

    def clean_html(self, html_text: str) -> str:
        return html_text if self.trusts_html() else self.app.content.clean_html(self.request, html_text)

    def rewrite_links(self, html_text: str) -> str:
        if not html_text or not self.old_base_url:
            return html_text

        def replace(match: re.Match) -> str:
            path = match.group("path") or "/"
            target = self.address_of(html.unescape(path))
            return target if target is not None else match.group(0)

        return self._old_url.sub(replace, html_text)

    def _kept_id(self, path: str) -> int | None:
        """`/?p=N` (or page_id, attachment_id) of an item that kept its old id: no redirect row names it."""
        name, _, value = path.removeprefix("/?").partition("=")
        if path.startswith("/?") and name in ("p", "page_id", "attachment_id") and value.isdigit():
            return self.new_id("post", int(value))
        return None

    def links_to_old_site(self, html_text: str) -> bool:
        return bool(self.old_base_url) and self._old_url.search(html_text or "") is not None

    def address_of(self, old_link: str) -> str | None:
        """This site's address for an old link, when the item it named is imported already."""
        path = redirects.old_path(old_link, self.old_base_url)
        if path is None:
            return None
        if path in self.queued_paths:
            self.flush_queue()
        if path in self.links:
            return self.links[path]
        if path in self.predicted_links:
            return self.predicted_links[path]
        new_id = self.redirect_ids.get(path) or self._kept_id(path)
        if new_id is None:
            return None
        if new_id in self.targets:
            target = self.targets[new_id]
        else:
            item = self.app.content.get(self.request, new_id)
            target = redirects.target_of(item) if item else None
        if target is None:
            return None
        self.links[path] = self.new_base_url + target
        return self.links[path]


# --- core's own part: users, terms, posts, attachments, comments ------------------------------

class CoreImporter:
    """Writes what core stores; everything else is offered to the plugins first."""

    def __init__(self, run: ImportRun, importing_user_id: int):
        self.run = run
        self.app = run.app
        self.importing_user_id = importing_user_id
        self.pending_parents: list[tuple[int, int]] = []  # (new id, old parent id)
        self.pending_featured: list[tuple[int, int]] = []  # (new id, old attachment id)
        self.pending_term_parents: list[tuple[int, str, str]] = []
        self.queue: list[QueuedPost] = []  # new posts of this batch, written together by flush_queue
        run.flush_queue = self.flush_queue

    # --- authors ---------------------------------------------------------------------------

    def author(self, author: WxrAuthor) -> None:
        run = self.run
        run.kind = "users"
        existing = run.new_id("user", author.author_id) if author.author_id else None
        if existing is None:
            found = find_user(self.app, run.session, author.login)
            if found is None and author.email:
                found = find_user(self.app, run.session, author.email)
            if found is not None:
                existing = found.id
                run.remember("user", author.author_id or found.id, found.id)
        if existing is not None:
            run.users_by_login[author.login] = existing
            run.count("unchanged")
            return
        role = author.role if author.role in ROLES else "author"
        email = author.email or f"{author.login}@invalid.invalid"
        try:
            user = create_user(self.app, run.session, author.login[:60], email, role,
                               display_name=author.display_name or author.login, first_name=author.first_name,
                               last_name=author.last_name)
        except UserError as refused:
            run.not_imported(f"author {author.login}", str(refused))
            return
        except TypeError:  # first/last name are not columns of this site's users
            user = create_user(self.app, run.session, author.login[:60], email, role,
                               display_name=author.display_name or author.login)
        run.remember("user", author.author_id or user.id, user.id)
        run.users_by_login[author.login] = user.id
        run.new_users.append(author.login)
        run.count("created")

    # --- terms ---------------------------------------------------------------------------

    def term(self, term: WxrTerm) -> None:
        run = self.run
        run.kind = "terms"
        taxonomy = run.taxonomy_map.get(term.taxonomy)
        label = f"term {term.taxonomy}/{term.slug}"
        if taxonomy is None:
            run.not_imported(label, self._unknown_taxonomy(term.taxonomy))
            return
        name = html.unescape(term.name).strip() or term.slug
        digest = fingerprint(taxonomy, term.slug, name, term.parent_slug, term.description)
        found = run.mapped("term", term.term_id) if term.term_id else None
        if found is not None:
            run.terms_by_slug[(term.taxonomy, term.slug)] = found[0]
            run.count("unchanged")
            return
        parent = run.terms_by_slug.get((term.taxonomy, term.parent_slug), 0) if term.parent_slug else 0
        existing = [row for row in self.app.content.terms(run.request, taxonomy, names=[name])
                    if row["slug"] == term.slug or row["name"].lower() == name.lower()]
        if existing:
            new_id = existing[0]["id"]
            outcome = "unchanged"
        else:
            new_id = self.app.content.create_term(run.request, taxonomy, name[:200], slug=term.slug,
                                                  description=html.unescape(term.description), parent=parent)
            outcome = "created"
            if term.parent_slug and not parent:
                self.pending_term_parents.append((new_id, term.taxonomy, term.parent_slug))
        if term.term_id:
            run.remember("term", term.term_id, new_id, digest=digest)
        run.terms_by_slug[(term.taxonomy, term.slug)] = new_id
        run.count(outcome)

    def _unknown_taxonomy(self, taxonomy: str) -> str:
        if taxonomy == "nav_menu":
            return "this site has no navigation menus yet"
        if taxonomy == "post_format":
            return "post formats are kept as each post's format, not as terms"
        return f"no plugin of this site takes the taxonomy {taxonomy!r}"

    def item_terms(self, item: WxrItem, post_type: str) -> tuple[dict[str, list[int]], str]:
        """{site taxonomy: [term ids]} of an item, and its post format."""
        run = self.run
        linked: dict[str, list[int]] = {}
        post_format = ""
        registered = self.app.registry.taxonomies
        for term in item.terms:
            if term.taxonomy == "post_format":
                post_format = term.slug.removeprefix(FORMAT_PREFIX)
                continue
            taxonomy = run.taxonomy_map.get(term.taxonomy)
            if taxonomy is None or post_type not in registered[taxonomy][0].object_types:
                run.kind = "terms"
                run.not_imported(f"{item.post_type} {item.post_id} term {term.taxonomy}/{term.slug}",
                                 self._unknown_taxonomy(term.taxonomy) if taxonomy is None
                                 else f"{taxonomy!r} is not a taxonomy of {post_type!r} here")
                continue
            term_id = run.terms_by_slug.get((term.taxonomy, term.slug))
            if term_id is None:
                name = html.unescape(term.name).strip() or term.slug
                found = self.app.content.terms(run.request, taxonomy, names=[name], create=True)
                term_id = found[0]["id"]
                run.terms_by_slug[(term.taxonomy, term.slug)] = term_id
            linked.setdefault(taxonomy, []).append(term_id)
        run.kind = item.post_type
        return linked, post_format

    # --- items -------------------------------------------------------------------------------

    def item(self, item: WxrItem) -> None:
        run = self.run
        run.kind = item.post_type
        run.claimed_meta = set()
        claimed = self.app.hook.import_wordpress_item(app=self.app, item=item, run=run)
        if claimed:
            return
        if item.post_type in NOT_KEPT_TYPES:
            run.not_imported(f"{item.post_type} {item.post_id} {html.unescape(item.title)!r}".rstrip(), NOT_KEPT_TYPES[item.post_type])
            return
        if item.post_type == "attachment":
            self.attachment(item)
            return
        if item.post_type not in self.app.registry.post_types or item.post_type == "revision":
            run.not_imported(f"{item.post_type} {item.post_id} {html.unescape(item.title)!r}",
                             f"no plugin of this site takes the post type {item.post_type!r}")
            return
        self.post(item)

    def _status(self, item: WxrItem, post_type: str) -> str | None:
        status = item.status or "draft"
        if status == "auto-draft":
            return None
        if status == "trash":
            return status if status in self.app.registry.status_names(post_type) else None
        allowed = self.app.registry.status_names(post_type, writable_only=True)
        return status if status in allowed else None

    def _author(self, item: WxrItem) -> int:
        return self.run.user_id(item.author_login) or self.importing_user_id

    def post(self, item: WxrItem) -> None:
        run = self.run
        post_type = item.post_type
        label = f"{post_type} {item.post_id} {html.unescape(item.title)!r}"
        status = self._status(item, post_type)
        if status is None:
            run.not_imported(label, f"the status {item.status!r} is not one this site keeps for {post_type!r}")
            return
        terms, post_format = self.item_terms(item, post_type)
        meta, skipped = self._meta(item, post_type)
        digest = fingerprint(item.title, item.content, item.excerpt, item.slug, status, item.date, item.date_gmt,
                             item.modified_gmt, item.author_login, item.parent, item.menu_order, item.password,
                             item.is_sticky, item.comment_status, item.ping_status, post_format, item.terms, item.meta)
        parent = run.new_id("post", item.parent) if item.parent else 0
        trashed = status == "trash"
        # A trashed item is stored in the status it had and then moved to the trash, as WordPress trashes it:
        # the trash keeps that status for a restore and suffixes the slug again.
        slug = item.slug.removesuffix(TRASHED_SUFFIX) if trashed else item.slug
        fields = dict(
            title=item.title, content=item.content, excerpt=item.excerpt,
            status=before_trash(self.run, item, post_type) if trashed else status, author=self._author(item),
            parent=parent or 0, menu_order=item.menu_order, slug=slug, password=item.password,
            date_gmt=parse_date(item.date_gmt), terms=terms, meta=meta,
            comment_status=item.comment_status if item.comment_status in ("open", "closed") else "",
            ping_status=item.ping_status if item.ping_status in ("open", "closed") else "",
            sticky=item.is_sticky and post_type == "post", format=post_format,
            template=self._template(item))

        def updates() -> dict:
            changes = {name: value for name, value in self._rewritten(fields).items()
                       if value or name not in ("date_gmt", "comment_status", "ping_status")}
            changes["modified_gmt"] = parse_date(item.modified_gmt)
            if trashed:  # an item in the trash keeps its trashed slug and status; it is moved there in _imported
                del changes["status"], changes["slug"]
            return changes

        new_id = self._kept_or_updated(item, digest, updates)
        if new_id is None:
            self._queue(QueuedPost(item, fields, digest, parent, skipped, set(run.claimed_meta), status=status))
            return
        self._imported(item, new_id, status, parent, skipped)

    def _imported(self, item: WxrItem, new_id: int, status: str, parent: int, skipped: list[str],
                  comments_written: bool = False, links_left: bool | None = None) -> None:
        """What follows the write of a post: the move to the trash of an item that was there, its address and
        old links, what waits for later items, its comments, the plugins' `wordpress_item_imported` and the
        meta it could not keep. `links_left`: whether what was written still links to the old site (None: as
        the file's text does)."""
        run = self.run
        content = self.app.content
        if status == "trash" and (content.get(run.request, new_id) or {}).get("stored_status") != "trash":
            content.trash(run.request, new_id)  # stored in its earlier status first, as WordPress trashes it
        run.targets[new_id] = redirects.target_of({"id": new_id, "type": item.post_type, "status": status,
                                                   "password": item.password})
        self._links_of(item, new_id)
        if item.parent and not parent:
            self.pending_parents.append((new_id, item.parent))
        thumbnail = item.meta_value("_thumbnail_id")
        if thumbnail and thumbnail.strip().isdigit():
            self.pending_featured.append((new_id, int(thumbnail)))
        if links_left is None:
            links_left = run.links_to_old_site(item.content) or run.links_to_old_site(item.excerpt)
        if links_left:
            run.pending_links.add(new_id)
        if not comments_written:
            self.comments(item, new_id)
        self.app.hook.wordpress_item_imported(app=self.app, item=item, new_id=new_id, run=run)
        self._report_meta(item, skipped)

    def _rewritten(self, fields: dict) -> dict:
        run = self.run
        return {**fields, "title": run.rewrite_links(fields["title"]), "content": run.rewrite_links(fields["content"]),
                "excerpt": run.rewrite_links(fields["excerpt"])}

    # --- new posts, a batch at a time ---------------------------------------------------------

    def _queue(self, queued: QueuedPost) -> None:
        run = self.run
        self.queue.append(queued)
        run.queued_ids.add(queued.item.post_id)
        queued.old_paths = self._old_paths(queued.item)
        run.queued_paths.update(queued.old_paths)

    def _old_paths(self, item: WxrItem) -> list[str]:
        """The old paths that lead to the item once it is written: its permalink and `?p=` (`?page_id=`,
        `?attachment_id=`) of its old id (redirected by `_links_of`, or answered by the id it kept)."""
        links = [item.link] if item.link else []
        links.append(f"/?p={item.post_id}")
        if item.post_type in ("page", "attachment"):
            links.append(f"/?{item.post_type}_id={item.post_id}")
        paths = (redirects.old_path(link, self.run.old_base_url) for link in links)
        return [path for path in paths if path not in (None, "", "/")]

    def flush_queue(self) -> None:
        """Write the queued posts with one `create_many`, then their comments together, then what follows
        each (as `_imported`). Links between the queued posts are rewritten to the addresses they get
        keeping their old ids (`keep_ids`); one whose id is held here is written under a new id, and
        links to it are left to `finish`."""
        run, queue = self.run, self.queue
        if not queue:
            return
        self.queue = []
        run.queued_ids.clear()
        run.queued_paths.clear()
        keeping = {queued.item.post_id for queued in queue if queued.item.post_id > 0}
        while True:
            run.predicted_links = {}
            for queued in queue:
                item = queued.item
                if item.post_id in keeping:
                    target = redirects.target_of({"id": item.post_id, "type": item.post_type,
                                                  "status": queued.fields["status"], "password": item.password})
                    if target is not None:
                        for path in queued.old_paths:
                            run.predicted_links[path] = run.new_base_url + target
            entries = [{**self._rewritten(queued.fields), "post_type": queued.item.post_type,
                        "item_id": queued.item.post_id if queued.item.post_id in keeping else None,
                        "date": parse_date(queued.item.date), "modified_gmt": parse_date(queued.item.modified_gmt)}
                       for queued in queue]
            try:
                created = self.app.content.create_many(run.request, entries, keep_ids=True)
                break
            except ItemIdsTaken as taken:
                keeping -= set(taken.ids)
            finally:
                run.predicted_links = {}
        # A lookup in the middle of another item's import may have written the queue: that item's kind and claims stay.
        previous_kind, previous_claims = run.kind, run.claimed_meta
        for queued, item in zip(queue, created):
            run.kind = queued.item.post_type
            run.remember("post", queued.item.post_id, item["id"], digest=queued.digest)
            run.count("created")
        self.comments_of([(queued.item, item["id"]) for queued, item in zip(queue, created)])
        for queued, entry, item in zip(queue, entries, created):
            run.kind = queued.item.post_type
            run.claimed_meta = queued.claimed_meta
            links_left = run.links_to_old_site(entry["content"]) or run.links_to_old_site(entry["excerpt"])
            self._imported(queued.item, item["id"], queued.status or queued.fields["status"], queued.parent,
                           queued.skipped, comments_written=True, links_left=links_left)
        run.kind, run.claimed_meta = previous_kind, previous_claims

    def _kept_or_updated(self, item: WxrItem, digest: str, updates: dict | Callable[[], dict]) -> int | None:
        """The id of an item an earlier run imported and that still exists here, counted unchanged, or
        updated with `updates` (or what it answers) when the file says something else now; None when
        it is to be created."""
        run = self.run
        found = run.mapped("post", item.post_id)
        if found is None or self.app.content.get(run.request, found[0]) is None:
            return None
        if found[1] == digest:
            run.count("unchanged")
        else:
            self.app.content.update(run.request, found[0], **(updates() if callable(updates) else updates))
            run.remember("post", item.post_id, found[0], digest=digest)
            run.count("updated")
        return found[0]

    def _links_of(self, item: WxrItem, new_id: int) -> None:
        """The old addresses of an item that redirect to it: its permalink, and ?p= / ?page_id= of its old id."""
        run = self.run
        if item.link:
            run.redirect(item.link, new_id)
        if new_id != item.post_id:
            run.redirect(f"/?p={item.post_id}", new_id)
            if item.post_type == "page":
                run.redirect(f"/?page_id={item.post_id}", new_id)
            if item.post_type == "attachment":
                run.redirect(f"/?attachment_id={item.post_id}", new_id)

    def _template(self, item: WxrItem) -> str:
        template = (item.meta_value("_wp_page_template") or "").strip()
        return "" if template in ("", "default") else template[:200]

    def _meta(self, item: WxrItem, post_type: str) -> tuple[dict, list[str]]:
        """Registered meta keys of the post type (decoded to their schema's type); the names of the others."""
        registered = {key.key: key for key in self.app.registry.meta_keys(post_type)}
        kept: dict = {}
        skipped: list[str] = []
        for key, value in item.meta:
            if key in CORE_FIELD_META:
                continue
            meta_key = registered.get(key)
            if meta_key is None:
                skipped.append(key)
                continue
            decoded = _decode_meta(value, str(meta_key.schema.get("type", "string")))
            try:
                if decoded is not None and meta_key.check is not None:
                    meta_key.check(decoded)
            except ValueError as refused:
                self.run.not_imported(f"{post_type} {item.post_id} meta {key}", str(refused))
                continue
            kept[key] = decoded
        return kept, skipped

    def _report_meta(self, item: WxrItem, skipped: list[str]) -> None:
        run = self.run
        run.kind = "post meta"
        for key in skipped:
            if key in run.claimed_meta:
                continue
            if key in BOOKKEEPING_META:
                run.not_imported(f"post meta {key}", "WordPress's own bookkeeping (edit locks, old slugs); not needed here")
            else:
                run.not_imported(f"post meta {key}", f"no plugin of this site registers the key for {item.post_type!r}; "
                                 "core stores registered meta keys only")

    # --- attachments --------------------------------------------------------------------

    def attachment(self, item: WxrItem) -> None:
        run, content = self.run, self.app.content
        label = f"attachment {item.post_id} {html.unescape(item.title)!r}"
        relative = (item.meta_value("_wp_attached_file") or "").strip()
        if not relative and item.attachment_url:
            path = urllib.parse.urlsplit(item.attachment_url).path
            relative = path.split("/wp-content/uploads/", 1)[1] if "/wp-content/uploads/" in path else Path(path).name
        try:
            relative = safe_upload_path(relative)
        except WxrError as refused:
            run.not_imported(label, str(refused))
            return
        digest = fingerprint(item.title, item.content, item.excerpt, item.slug, item.status, item.date_gmt,
                             item.parent, relative, item.meta_value("_wp_attachment_image_alt"))
        parent = run.new_id("post", item.parent) if item.parent else 0
        alt_text = item.meta_value("_wp_attachment_image_alt") or ""
        new_id = self._kept_or_updated(item, digest, dict(title=item.title, excerpt=item.excerpt, content=item.content,
                                                          parent=parent or 0, alt_text=alt_text))
        if new_id is None:
            data = self._file(item, relative, label)
            if data is None:
                return
            try:
                created = content.create_attachment(
                    run.request, Path(relative).name, data, title=html.unescape(item.title), caption=item.excerpt,
                    description=item.content, alt_text=alt_text, parent=parent or 0, author=self._author(item),
                    status="private" if item.status == "private" else "inherit", slug=item.slug,
                    date_gmt=parse_date(item.date_gmt) or parse_date(item.date), item_id=item.post_id,
                    comment_status=item.comment_status if item.comment_status in ("open", "closed") else "open",
                    modified_gmt=parse_date(item.modified_gmt))
            except ValueError as refused:
                run.not_imported(label, f"the file {relative} is refused: {refused}")
                return
            new_id = created["id"]
            run.targets[new_id] = redirects.target_of(created)
            run.remember("post", item.post_id, new_id, digest=digest)
            run.count("created")
        self._links_of(item, new_id)
        run.redirect(f"/wp-content/uploads/{relative}", new_id)
        if item.attachment_url:
            run.redirect(item.attachment_url, new_id)
        if item.parent and not parent:
            self.pending_parents.append((new_id, item.parent))
        self.comments(item, new_id)

    def _file(self, item: WxrItem, relative: str, label: str) -> bytes | None:
        run = self.run
        if run.uploads_dir is not None:
            path = (run.uploads_dir / relative).resolve()
            if run.uploads_dir.resolve() not in path.parents:
                run.not_imported(label, f"{relative} leaves the uploads folder")
                return None
            if path.is_file():
                return path.read_bytes()
        if run.fetch_media is not None and item.attachment_url:
            try:
                return run.fetch_media(item.attachment_url)
            except Exception as failed:  # the outbound guard's RestError, or a network failure
                run.not_imported(label, f"fetching {item.attachment_url} failed: {getattr(failed, 'message', failed)}")
                return None
        where = "--uploads folder" if run.uploads_dir is not None else "file: give --uploads DIR or --fetch-media"
        run.not_imported(label, f"{relative} is not in the {where}")
        return None

    # --- comments -----------------------------------------------------------------------------

    def comments(self, item: WxrItem, post_id: int) -> None:
        self.comments_of([(item, post_id)])

    def comments_of(self, posts: list[tuple[WxrItem, int]]) -> None:
        """The comments of these posts (new id each), written with the comment service's `create_many`:
        first those that answer no comment of the file (or one stored already), then, round by round,
        the replies to those just written, so each thread keeps its parents."""
        run = self.run
        service = self.app.comments
        previous_kind = run.kind
        waiting: list[tuple[WxrComment, int, str]] = []  # (comment, new post id, status)
        waiting_ids: set[int] = set()
        for item, post_id in posts:
            for comment in sorted(item.comments, key=lambda c: (c.parent != 0, c.comment_id)):
                status = self._comment_status(comment, item, waiting_ids)
                if status is not None:
                    waiting.append((comment, post_id, status))
                    waiting_ids.add(comment.comment_id)
        run.kind = "comments"
        while waiting:
            unwritten = {comment.comment_id for comment, _, _ in waiting if comment.comment_id}
            ready = [entry for entry in waiting if entry[0].parent not in unwritten]
            if not ready:  # comments that answer each other: the first is written without its parent
                ready = waiting[:1]
            written = {id(entry) for entry in ready}
            waiting = [entry for entry in waiting if id(entry) not in written]
            created = service.create_many(run.request, [self._comment_values(comment, post_id, status)
                                                        for comment, post_id, status in ready])
            for (comment, _post_id, _status), stored in zip(ready, created):
                if comment.comment_id:
                    run.remember("comment", comment.comment_id, stored["id"])
                run.count("created")
        run.kind = previous_kind

    def _comment_status(self, comment: WxrComment, item: WxrItem, waiting_ids: set[int]) -> str | None:
        """The status to store the comment with; None (counted, or named as not imported) when it is
        stored already or this site does not keep it."""
        run = self.run
        run.kind = "comment meta"
        for key, _value in comment.meta:
            run.not_imported(f"comment meta {key}", "this site keeps no comment meta (spam-filter history, "
                             "trash bookkeeping)")
        run.kind = "comments"
        label = f"comment {comment.comment_id} on {item.post_type} {item.post_id}"
        if comment.comment_id and (comment.comment_id in waiting_ids or run.new_id("comment", comment.comment_id) is not None):
            run.count("unchanged")
            return None
        status = COMMENT_STATUS.get(comment.approved)
        if status is None:
            run.not_imported(label, f"the comment status {comment.approved!r} is not one this site keeps")
            return None
        if comment.type not in ("", "comment"):
            run.not_imported(label, f"comments of type {comment.type!r} ({'pingbacks and trackbacks' if comment.type in ('pingback', 'trackback') else 'a plugin type'}) are not kept by core")
            return None
        return status

    def _comment_values(self, comment: WxrComment, post_id: int, status: str) -> dict:
        run = self.run
        parent = run.new_id("comment", comment.parent) if comment.parent else 0
        author = run.new_id("user", comment.user_id) if comment.user_id else None
        return dict(post_id=post_id, content=run.rewrite_links(comment.content), status=status, parent=parent or 0,
                    author=author or 0, author_name=html.unescape(comment.author), author_email=comment.author_email,
                    author_url=comment.author_url, author_ip=comment.author_ip,
                    date_gmt=parse_date(comment.date_gmt) or parse_date(comment.date), type="comment")

    # --- after every item -------------------------------------------------------------------

    def finish(self) -> None:
        """Parents, featured images and links to items that came later in the file."""
        run, content = self.run, self.app.content
        for new_id, old_parent in self.pending_parents:
            parent = run.new_id("post", old_parent)
            current = content.get(run.request, new_id)
            if parent and current is not None:
                content.update(run.request, new_id, parent=parent, modified_gmt=current["modified_gmt"])
            else:
                run.not_imported(f"parent {old_parent} of item {new_id}", "the parent is not in the file")
        for new_id, old_attachment in self.pending_featured:
            media = run.new_id("post", old_attachment)
            current = content.get(run.request, new_id)
            if media and current is not None and current.get("featured_media") != media:
                content.update(run.request, new_id, featured_media=media, modified_gmt=current["modified_gmt"])
        for new_id, wp_taxonomy, parent_slug in self.pending_term_parents:
            run.kind = "terms"
            run.not_imported(f"parent {wp_taxonomy}/{parent_slug} of term {new_id}", "the parent term is not in the file")
        for new_id in sorted(run.pending_links):
            current = content.get(run.request, new_id)
            if current is None:
                continue
            changes = {name: run.rewrite_links(current[name]) for name in ("content", "excerpt")
                       if current.get(name) and run.rewrite_links(current[name]) != current[name]}
            if changes:
                content.update(run.request, new_id, modified_gmt=current["modified_gmt"], **changes)


@dataclass
class QueuedPost:
    """A new post waiting for its batch's `create_many`: what `post` found out about it."""

    item: WxrItem
    fields: dict  # `create`'s arguments, links not rewritten yet
    digest: str
    parent: int  # the new id of its parent, 0 when the parent is not written yet
    skipped: list[str]  # its meta keys no plugin registers
    claimed_meta: set[str]  # what the plugins' import hooks said they used
    old_paths: list[str] = field(default_factory=list)  # the old paths that lead to it (CoreImporter._old_paths)
    status: str = ""  # the status in the file ("trash" while `fields` holds the status it had before)


def _decode_meta(value: str, kind: str):
    """A meta string of the file as the registered key's type (JSON numbers and booleans, else the text)."""
    if kind in ("integer", "number"):
        try:
            return int(value) if kind == "integer" else float(value)
        except ValueError:
            return None
    if kind == "boolean":
        return value.strip().lower() in ("1", "true", "yes", "on")
    if kind in ("array", "object"):
        if is_php_serialized(value):
            try:
                return php_unserialize(value)
            except ValueError:
                return None
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
