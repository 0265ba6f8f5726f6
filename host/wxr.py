"""WordPress eXtended RSS (WXR): the shapes a WordPress export holds, shared by the importer, the exporter
and every plugin that brings its own post types across.

The dataclasses are plain values read from or written to a WXR file: no I/O, no database. Field
names follow WordPress's (`post_type`, `menu_order`, `comment_status` ...) and their values are the
OLD site's (ids, links, post type names), as the file writes them; meta values are the file's raw
strings (a PHP-serialized array stays a string: `php_unserialize` decodes it).

`WxrImport` is what the `import_wordpress_item` and `wordpress_item_imported` hooks receive for one
import run, and `WxrExport` what `export_wordpress_items` and `wordpress_item_exported` receive for
one export. The plugin that owns the importer and exporter (wordpress_migrate) subclasses them: the
id map, the site's sanitiser and links live in its tables and services; the counting, the list of
what was not imported and the after-all callbacks are here, the same for every run.
"""

from __future__ import annotations

import abc
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from .app import App

OUTCOMES = ("created", "unchanged", "updated")
ID_KINDS = ("post", "term", "user", "comment")


# --- what a WXR file holds ---------------------------------------------------------------

@dataclass
class WxrTerm:
    """A term: a channel-level <wp:category>/<wp:tag>/<wp:term> (every field), or an item's
    <category domain="..." nicename="..."> (taxonomy, slug and name only).

    `taxonomy` is WordPress's name (`category`, `post_tag`, `tribe_events_cat`); `term_id` the old id.
    """

    taxonomy: str
    slug: str
    name: str
    parent_slug: str = ""
    description: str = ""
    term_id: int = 0


@dataclass
class WxrComment:
    """A <wp:comment> of an item. `approved` as WordPress writes it ("1", "0", "spam", "trash"),
    dates "YYYY-MM-DD HH:MM:SS" (local and GMT), `parent` the old id of the comment it answers."""

    comment_id: int
    author: str
    author_email: str
    author_url: str
    author_ip: str
    date: str
    date_gmt: str
    content: str
    approved: str
    type: str
    parent: int
    user_id: int
    meta: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class WxrAuthor:
    """A channel-level <wp:author> (a user who wrote something on the old site). WordPress writes no
    role; `role` is read from a <wp:author_role> when an exporter added one ("" otherwise)."""

    author_id: int
    login: str
    email: str
    display_name: str
    first_name: str
    last_name: str
    role: str = ""


@dataclass
class WxrItem:
    """An <item>: a post of any post type (post, page, attachment, nav_menu_item, a plugin's types).

    `post_id`, `post_type`, `parent`, `link` and `guid` are the OLD site's. Dates are the file's
    "YYYY-MM-DD HH:MM:SS" strings, `date` in the old site's zone and `date_gmt` in UTC ("0000-00-00
    00:00:00" for an unscheduled draft). `attachment_url` is set for attachments only.
    """

    post_id: int
    post_type: str
    title: str
    slug: str
    status: str
    content: str
    excerpt: str
    date: str
    date_gmt: str
    modified: str
    modified_gmt: str
    author_login: str
    parent: int
    menu_order: int
    password: str
    is_sticky: bool
    comment_status: str
    ping_status: str
    guid: str
    link: str
    attachment_url: str = ""
    terms: list[WxrTerm] = field(default_factory=list)
    meta: list[tuple[str, str]] = field(default_factory=list)
    comments: list[WxrComment] = field(default_factory=list)

    def meta_value(self, key: str) -> str | None:
        """The first value stored under `key`, or None when the item has none."""
        for name, value in self.meta:
            if name == key:
                return value
        return None

    def meta_values(self, key: str) -> list[str]:
        """Every value stored under `key`, in the file's order (WordPress allows repeated keys)."""
        return [value for name, value in self.meta if name == key]

    def terms_of(self, taxonomy: str) -> list[WxrTerm]:
        """The item's terms of one WordPress taxonomy."""
        return [term for term in self.terms if term.taxonomy == taxonomy]


# --- PHP's serialize() format, as WordPress writes meta -----------------------------------

PHP_MAX_DEPTH = 32
PHP_MAX_ITEMS = 100_000  # elements of every array in one value, together
PHP_MAX_LENGTH = 16 * 1024 * 1024  # characters of the serialized text


def php_unserialize(text: str) -> Any:
    """Decode the subset of PHP's serialize() that WordPress writes into meta: arrays (as dicts,
    or lists when the keys are 0..n-1 in order), strings, ints, floats, bools and null.

    Objects (`O:`, `C:`), references (`r:`, `R:`) and anything malformed raise ValueError, so a
    hostile value cannot build objects; depth, element count and length are bounded. String lengths
    are PHP's byte counts of UTF-8, as WordPress writes them.
    """
    if not isinstance(text, str):
        raise ValueError("a serialized PHP value is text")
    if len(text) > PHP_MAX_LENGTH:
        raise ValueError("serialized PHP value too long")
    data = text.encode("utf-8")
    reader = _PhpReader(data)
    value = reader.value(0)
    if reader.position != len(data):
        raise ValueError(f"unexpected data after the serialized value at byte {reader.position}")
    return value


def is_php_serialized(text: str) -> bool:
    """Whether `text` looks like a serialized PHP array or scalar (as WordPress's maybe_unserialize asks)."""
    stripped = text.strip()
    if stripped == "N;":
        return True
    return len(stripped) >= 4 and stripped[0] in "abdisS" and stripped[1] == ":" and stripped[-1] in ";}"


class _PhpReader:
    """A cursor over serialized bytes; each method reads one construct or raises ValueError."""

    def __init__(self, data: bytes):
        self.data = data
        self.position = 0
        self.items = 0

    def fail(self, what: str) -> ValueError:
        return ValueError(f"malformed serialized PHP value: {what} at byte {self.position}")

    def expect(self, token: bytes) -> None:
        if self.data[self.position:self.position + len(token)] != token:
            raise self.fail(f"expected {token.decode()!r}")
        self.position += len(token)

    def until(self, stop: bytes) -> bytes:
        end = self.data.find(stop, self.position, self.position + 400)
        if end < 0:
            raise self.fail(f"expected {stop.decode()!r}")
        chunk = self.data[self.position:end]
        self.position = end + len(stop)
        return chunk

    def integer(self, stop: bytes) -> int:
        chunk = self.until(stop)
        if not chunk or len(chunk) > 20 or not chunk.lstrip(b"-+").isdigit():
            raise self.fail("bad integer")
        return int(chunk)

    def value(self, depth: int) -> Any:
        if depth > PHP_MAX_DEPTH:
            raise self.fail("nested too deeply")
        kind = self.data[self.position:self.position + 2]
        if kind == b"N;":
            self.position += 2
            return None
        self.position += 2
        if kind == b"b:":
            flag = self.until(b";")
            if flag not in (b"0", b"1"):
                raise self.fail("bad boolean")
            return flag == b"1"
        if kind == b"i:":
            return self.integer(b";")
        if kind == b"d:":
            chunk = self.until(b";")
            try:
                return float(chunk.decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                raise self.fail("bad float") from None
        if kind == b"s:":
            length = self.integer(b":")
            if length < 0 or self.position + length + 3 > len(self.data):
                raise self.fail("bad string length")
            self.expect(b'"')
            raw = self.data[self.position:self.position + length]
            self.position += length
            self.expect(b'";')
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw.decode("latin-1")
        if kind == b"a:":
            return self.array(depth)
        self.position -= 2
        raise self.fail("unsupported type (objects and references are refused)")

    def array(self, depth: int) -> dict | list:
        count = self.integer(b":")
        self.items += max(count, 0)
        if count < 0 or self.items > PHP_MAX_ITEMS:
            raise self.fail("too many array elements")
        self.expect(b"{")
        result: dict = {}
        for _ in range(count):
            key = self.value(depth + 1)
            if not isinstance(key, (int, str)):
                raise self.fail("array keys are integers or strings")
            result[key] = self.value(depth + 1)
        self.expect(b"}")
        if list(result) == list(range(len(result))):
            return list(result.values())
        return result


def php_serialize(value: Any) -> str:
    """The inverse of `php_unserialize` for the same subset (the exporter writes meta with it):
    dicts and lists as arrays, str, int, float, bool and None."""
    if value is None:
        return "N;"
    if isinstance(value, bool):
        return f"b:{int(value)};"
    if isinstance(value, int):
        return f"i:{value};"
    if isinstance(value, float):
        return f"d:{value!r};"
    if isinstance(value, str):
        return f's:{len(value.encode("utf-8"))}:"{value}";'
    if isinstance(value, (list, tuple)):
        value = dict(enumerate(value))
    if isinstance(value, dict):
        parts = []
        for key, element in value.items():
            if not isinstance(key, (int, str)):
                raise ValueError("array keys are integers or strings")
            parts.append(php_serialize(key) + php_serialize(element))
        return f"a:{len(value)}:{{{''.join(parts)}}}"
    raise ValueError(f"cannot serialize {type(value).__name__}")


# --- one import run, as the hooks see it -----------------------------------------------

class WxrImport(abc.ABC):
    """One run of `sitehost import wordpress` (or the admin page / the `wordpress/import` ability).

    Attributes: `app`; `session`, the SQLAlchemy session of the current batch (write through it, never
    commit it: the batch is one transaction, so a run killed half-way leaves whole batches only);
    `site_zone`, the site's time zone name (IANA); `old_base_url`, the old site's address from the
    file's <wp:base_site_url> (no final slash); `new_base_url`, this site's.

    A hook that imports an item checks `new_id("post", item.post_id)` first (the item may come from an
    earlier run), writes it, calls `remember(...)` with the old link so it redirects, and `count(...)`
    the outcome. What it cannot represent goes to `not_imported(label, reason)`.
    """

    def __init__(self, app: App, session: Session, site_zone: str, old_base_url: str, new_base_url: str = ""):
        self.app = app
        self.session = session
        self.site_zone = site_zone
        self.old_base_url = old_base_url.rstrip("/")
        self.new_base_url = new_base_url.rstrip("/")
        self.outcomes: Counter[str] = Counter()
        self.outcomes_by_kind: dict[str, Counter[str]] = {}
        self.skipped: list[tuple[str, str]] = []
        self.claimed_meta: set[str] = set()  # emptied by the importer before each item
        self.kind = "item"  # the kind `count` books under; the importer sets it before each hook call
        self._after_all: list[Callable[[WxrImport], None]] = []

    # the id map and the site: stored by the importer (its tables, services)

    @abc.abstractmethod
    def new_id(self, kind: str, old_id: int) -> int | None:
        """The new id of an item an earlier run or this one imported, else None.

        `kind`: "post" (every post type, attachments included), "term", "user" or "comment".
        """

    @abc.abstractmethod
    def remember(self, kind: str, old_id: int, new_id: int, old_link: str | None = None) -> None:
        """Record that old `old_id` of `kind` is now `new_id`; `old_link` (the item's old permalink,
        absolute or a path) then answers 301 to the new item on this site."""

    @abc.abstractmethod
    def user_id(self, login: str) -> int | None:
        """The new user id of an old author's login, or None when the file had no such author."""

    @abc.abstractmethod
    def clean_html(self, html: str) -> str:
        """`html` as the user the import runs as may write it: kept as written for an administrator
        (unfiltered_html, as WordPress's importer runs), else sanitised as core/v2 sanitises that user's writes."""

    @abc.abstractmethod
    def rewrite_links(self, html: str) -> str:
        """`html` with links to the old site (posts, pages, /wp-content/uploads/ files already
        imported) pointing at their new addresses on this site."""

    # counting and reporting: the same for every run

    def claim_meta(self, *keys: str) -> None:
        """Say that your hook used these meta keys of the current item (a page builder reading
        `_elementor_data` of a page core imported), so the summary does not list them as not imported."""
        self.claimed_meta.update(keys)

    def not_imported(self, label: str, reason: str) -> None:
        """Name something of the file that this site does not keep, and why; the summary and the
        report file list it (and count it under the current kind)."""
        self.skipped.append((label, reason))
        self.outcomes_by_kind.setdefault(self.kind, Counter())["not imported"] += 1

    def count(self, outcome: str) -> None:
        """Count one written thing as "created", "unchanged" or "updated" (under the current kind)."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome is one of {', '.join(OUTCOMES)}, not {outcome!r}")
        self.outcomes[outcome] += 1
        self.outcomes_by_kind.setdefault(self.kind, Counter())[outcome] += 1

    def after_all(self, callback: Callable[[WxrImport], None]) -> None:
        """Run `callback(run)` once every item of the file is read (in the last batch's session), for
        references to items further down the file (an event whose venue comes after it)."""
        self._after_all.append(callback)

    def run_after_all(self) -> None:
        """Called by the importer at the end: each callback once, in the order they were added."""
        callbacks, self._after_all = self._after_all, []
        for callback in callbacks:
            callback(self)


# --- one export run ----------------------------------------------------------------------

class WxrExport(abc.ABC):
    """One run of `sitehost export wordpress`, as `export_wordpress_items` and `wordpress_item_exported`
    see it: `app`; `session` (read through it); `base_url`, this site's address (no final slash);
    `site_zone`, the site's time zone name. Items a hook yields carry this site's ids."""

    def __init__(self, app: App, session: Session, base_url: str, site_zone: str):
        self.app = app
        self.session = session
        self.base_url = base_url.rstrip("/")
        self.site_zone = site_zone

    @abc.abstractmethod
    def link(self, post_id: int) -> str:
        """The absolute permalink of this site's item `post_id` (what the file's <link> says)."""
