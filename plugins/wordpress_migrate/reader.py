"""Reading a WordPress export (WXR 1.0 to 1.2) as a stream: authors, terms and items one by one.

The file comes from outside, so it is parsed by defusedxml's expat reader with DTDs, entity
declarations and external references refused (billion laughs, XXE), fed in chunks: memory stays
bounded whatever the file's size, because each item is handed on as soon as its </item> is read
and every text, nesting depth, count and unparsed stretch has a limit. Anything wrong ends the
read with one WxrError line naming the place.
"""

from __future__ import annotations

import posixpath
import urllib.parse
import xml.sax
import xml.sax.handler
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

import defusedxml.sax
from defusedxml import DefusedXmlException

from host.wxr import WxrAuthor, WxrComment, WxrItem, WxrTerm

CHUNK_BYTES = 256 * 1024
MAX_TEXT_CHARACTERS = 32 * 1024 * 1024  # one field (a post's content); WordPress's longtext holds more, no school does
MAX_DEPTH = 24  # a WXR nests 6 deep (rss/channel/item/wp:comment/wp:commentmeta/wp:meta_key)
MAX_UNPARSED_BYTES = 8 * 1024 * 1024  # bytes fed with no event read from them (a 2 GB tag or attribute)
MAX_META_PER_ITEM = 10_000
MAX_COMMENTS_PER_ITEM = 200_000
MAX_TERMS_PER_ITEM = 10_000
MAX_NAME_CHARACTERS = 1000  # logins, slugs, post types, meta keys ...

WP_NAMESPACE_PREFIX = "http://wordpress.org/export/"
EXCERPT_NAMESPACE_PREFIX = "http://wordpress.org/export/"  # excerpt:encoded is http://wordpress.org/export/1.x/excerpt/
CONTENT_NAMESPACE = "http://purl.org/rss/1.0/modules/content/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"

TAXONOMY_OF_OLD_DOMAIN = {"tag": "post_tag", "": "category"}  # WXR 1.0 item categories


class WxrError(ValueError):
    """The file is not a WXR this importer reads safely; the message is one line for the operator."""


@dataclass
class Channel:
    """What the <channel> says about the old site."""

    title: str = ""
    link: str = ""
    base_site_url: str = ""
    base_blog_url: str = ""
    wxr_version: str = ""
    language: str = ""


@dataclass
class _Open:
    """An element being read: its name and the text gathered so far (leaves only)."""

    name: str
    parts: list[str] = field(default_factory=list)
    size: int = 0


def _name(namespace: str | None, local: str) -> str:
    """A short name for an element: `wp:post_id`, `content:encoded`, `excerpt:encoded`, `dc:creator`, `title`."""
    namespace = namespace or ""
    if namespace.startswith(WP_NAMESPACE_PREFIX):
        return ("excerpt:" if namespace.rstrip("/").endswith("excerpt") else "wp:") + local
    if namespace == CONTENT_NAMESPACE:
        return "content:" + local
    if namespace == DC_NAMESPACE:
        return "dc:" + local
    return local if not namespace else f"{{{namespace}}}{local}"


def _number(text: str, what: str) -> int:
    text = text.strip()
    if not text:
        return 0
    if len(text) > 19 or not text.lstrip("-").isdigit():
        raise WxrError(f"{what} is not a number: {text[:40]!r}")
    return int(text)


def _slug_from(text: str) -> str:
    return urllib.parse.unquote(text.strip())


def safe_upload_path(relative: str) -> str:
    """An uploads-relative path (`2025/01/logo.png`) that stays inside the uploads folder, or WxrError."""
    relative = urllib.parse.unquote(relative.strip()).replace("\\", "/")
    normal = posixpath.normpath(relative) if relative else ""
    if (not relative or relative.startswith("/") or normal.startswith("..") or "/../" in f"/{relative}/"
            or "\x00" in relative or ":" in relative.split("/")[0]):
        raise WxrError(f"attachment path {relative[:200]!r} leaves the uploads folder")
    return normal


class _Handler(xml.sax.handler.ContentHandler):
    """SAX events -> finished records in `self.ready` (the reader hands them on after each chunk)."""

    def __init__(self):
        super().__init__()
        self.stack: list[_Open] = []
        self.ready: list[tuple[str, object]] = []
        self.channel = Channel()
        self.item: dict | None = None
        self.record: dict | None = None  # an author or term being read
        self.comment: dict | None = None
        self.pair: dict | None = None  # a postmeta / commentmeta / termmeta being read
        self.category_attributes: dict[str, str] = {}
        self.seen_rss = False

    # --- structure ---------------------------------------------------------------------

    def startElementNS(self, name, qname, attributes):
        namespace, local = name
        element = _name(namespace, local)
        if not self.stack:
            if element != "rss":
                raise WxrError(f"not a WordPress export: the document is <{local}>, not <rss>")
            self.seen_rss = True
        if len(self.stack) >= MAX_DEPTH:
            raise WxrError(f"elements nested more than {MAX_DEPTH} deep at <{local}>")
        parent = self.stack[-1].name if self.stack else ""
        self.stack.append(_Open(element))
        if element == "item" and parent == "channel":
            self.item = {"meta": [], "comments": [], "terms": []}
        elif self.item is None and parent == "channel" and element in ("wp:author", "wp:category", "wp:tag", "wp:term"):
            self.record = {}
        elif self.item is not None and element == "wp:comment" and parent == "item":
            if len(self.item["comments"]) >= MAX_COMMENTS_PER_ITEM:
                raise WxrError(f"an item has more than {MAX_COMMENTS_PER_ITEM} comments")
            self.comment = {"meta": []}
        elif element in ("wp:postmeta", "wp:commentmeta", "wp:termmeta"):
            self.pair = {}
        elif element == "category" and self.item is not None:
            self.category_attributes = {key[1]: value for key, value in attributes.items()}

    def characters(self, content):
        if not self.stack:
            return
        top = self.stack[-1]
        top.size += len(content)
        if top.size > MAX_TEXT_CHARACTERS:
            raise WxrError(f"the text of <{top.name}> is longer than {MAX_TEXT_CHARACTERS:,} characters")
        if len(self.stack) >= 3:  # text directly under rss/channel (whitespace) is not kept
            top.parts.append(content)

    def endElementNS(self, name, qname):
        finished = self.stack.pop()
        text = "".join(finished.parts)
        element = finished.name
        parent = self.stack[-1].name if self.stack else ""
        if self.pair is not None and element in ("wp:meta_key", "wp:meta_value"):
            self.pair[element] = text
            return
        if element in ("wp:postmeta", "wp:commentmeta", "wp:termmeta") and self.pair is not None:
            pair = (self.pair.get("wp:meta_key", "")[:MAX_NAME_CHARACTERS], self.pair.get("wp:meta_value", ""))
            self.pair = None
            if element == "wp:commentmeta" and self.comment is not None:
                self.comment["meta"].append(pair)
            elif element == "wp:postmeta" and self.item is not None:
                if len(self.item["meta"]) >= MAX_META_PER_ITEM:
                    raise WxrError(f"an item has more than {MAX_META_PER_ITEM} meta values")
                self.item["meta"].append(pair)
            return
        if self.comment is not None:
            if element == "wp:comment":
                self.item["comments"].append(self.comment)
                self.comment = None
            else:
                self.comment[element] = text
            return
        if self.item is not None:
            if element == "item":
                self.ready.append(("item", self._item(self.item)))
                self.item = None
            elif element == "category" and parent == "item":
                if len(self.item["terms"]) >= MAX_TERMS_PER_ITEM:
                    raise WxrError(f"an item has more than {MAX_TERMS_PER_ITEM} terms")
                domain = self.category_attributes.get("domain", "")
                taxonomy = TAXONOMY_OF_OLD_DOMAIN.get(domain, domain)
                nicename = _slug_from(self.category_attributes.get("nicename", "")) or text.strip().lower()
                self.item["terms"].append(WxrTerm(taxonomy[:MAX_NAME_CHARACTERS], nicename[:MAX_NAME_CHARACTERS],
                                                  text.strip()[:MAX_NAME_CHARACTERS]))
            elif parent == "item":
                self.item[element] = text
            return
        if self.record is not None:
            if element in ("wp:author", "wp:category", "wp:tag", "wp:term"):
                self.ready.append(self._record(element, self.record))
                self.record = None
            else:
                self.record[element] = text
            return
        if parent == "channel":
            fields = {"title": "title", "link": "link", "wp:base_site_url": "base_site_url", "language": "language",
                      "wp:base_blog_url": "base_blog_url", "wp:wxr_version": "wxr_version"}
            if element in fields:
                setattr(self.channel, fields[element], text.strip()[:MAX_NAME_CHARACTERS])

    # --- records -----------------------------------------------------------------------

    @staticmethod
    def _record(element: str, record: dict) -> tuple[str, object]:
        get = lambda key: record.get(key, "").strip()[:MAX_NAME_CHARACTERS]  # noqa: E731
        if element == "wp:author":
            login = get("wp:author_login")
            if not login:
                raise WxrError("an author has no login")
            return "author", WxrAuthor(_number(get("wp:author_id"), "an author id"), login, get("wp:author_email"),
                                       get("wp:author_display_name"), get("wp:author_first_name"),
                                       get("wp:author_last_name"), get("wp:author_role"))
        if element == "wp:category":
            return "term", WxrTerm("category", _slug_from(get("wp:category_nicename")), get("wp:cat_name"),
                                   _slug_from(get("wp:category_parent")), record.get("wp:category_description", ""),
                                   _number(get("wp:term_id"), "a term id"))
        if element == "wp:tag":
            return "term", WxrTerm("post_tag", _slug_from(get("wp:tag_slug")), get("wp:tag_name"), "",
                                   record.get("wp:tag_description", ""), _number(get("wp:term_id"), "a term id"))
        return "term", WxrTerm(get("wp:term_taxonomy"), _slug_from(get("wp:term_slug")), get("wp:term_name"),
                               _slug_from(get("wp:term_parent")), record.get("wp:term_description", ""),
                               _number(get("wp:term_id"), "a term id"))

    @staticmethod
    def _item(fields: dict) -> WxrItem:
        get = fields.get
        post_type = get("wp:post_type", "post").strip()[:MAX_NAME_CHARACTERS] or "post"
        attachment_url = get("wp:attachment_url", "").strip()
        item = WxrItem(
            post_id=_number(get("wp:post_id", ""), "a post id"), post_type=post_type, title=get("title", ""),
            slug=_slug_from(get("wp:post_name", ""))[:MAX_NAME_CHARACTERS], status=get("wp:status", "").strip(),
            content=get("content:encoded", ""), excerpt=get("excerpt:encoded", ""),
            date=get("wp:post_date", "").strip(), date_gmt=get("wp:post_date_gmt", "").strip(),
            modified=get("wp:post_modified", "").strip(), modified_gmt=get("wp:post_modified_gmt", "").strip(),
            author_login=get("dc:creator", "").strip()[:MAX_NAME_CHARACTERS],
            parent=_number(get("wp:post_parent", ""), "a post parent"),
            menu_order=_number(get("wp:menu_order", ""), "a menu order"), password=get("wp:post_password", ""),
            is_sticky=get("wp:is_sticky", "0").strip() == "1", comment_status=get("wp:comment_status", "").strip(),
            ping_status=get("wp:ping_status", "").strip(), guid=get("guid", "").strip(), link=get("link", "").strip(),
            attachment_url=attachment_url, terms=fields["terms"], meta=fields["meta"],
            comments=[_comment(comment) for comment in fields["comments"]])
        if post_type == "attachment":
            attached = item.meta_value("_wp_attached_file")
            if attached:
                safe_upload_path(attached)
            if attachment_url:
                safe_upload_path(Path(urllib.parse.urlsplit(attachment_url).path).name)
        return item


def _comment(fields: dict) -> WxrComment:
    get = lambda key: fields.get(key, "").strip()  # noqa: E731
    return WxrComment(
        comment_id=_number(get("wp:comment_id"), "a comment id"), author=get("wp:comment_author")[:MAX_NAME_CHARACTERS],
        author_email=get("wp:comment_author_email")[:MAX_NAME_CHARACTERS],
        author_url=get("wp:comment_author_url")[:MAX_NAME_CHARACTERS],
        author_ip=get("wp:comment_author_IP")[:100], date=get("wp:comment_date"), date_gmt=get("wp:comment_date_gmt"),
        content=fields.get("wp:comment_content", ""), approved=get("wp:comment_approved") or "1",
        type=get("wp:comment_type")[:MAX_NAME_CHARACTERS], parent=_number(get("wp:comment_parent"), "a comment parent"),
        user_id=_number(get("wp:comment_user_id"), "a comment user id"), meta=fields["meta"])


class WxrReader:
    """Iterate over a WXR file's records: ("author", WxrAuthor), ("term", WxrTerm), ("item", WxrItem).

    `channel` fills in as the file is read (the base URL comes before the first record in every
    export WordPress writes); `bytes_read` and `size` drive a progress bar.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.size = self.path.stat().st_size
        self.bytes_read = 0
        self.channel = Channel()

    def __iter__(self) -> Iterator[tuple[str, object]]:
        with open(self.path, "rb") as handle:
            yield from self._records(handle)

    def _records(self, handle: BinaryIO) -> Iterator[tuple[str, object]]:
        handler = _Handler()
        self.channel = handler.channel
        parser = defusedxml.sax.make_parser()
        parser.forbid_dtd = True
        parser.forbid_entities = True
        parser.forbid_external = True
        parser.setFeature(xml.sax.handler.feature_namespaces, True)
        parser.setFeature(xml.sax.handler.feature_external_ges, False)
        parser.setContentHandler(handler)
        try:
            while True:
                chunk = handle.read(CHUNK_BYTES)
                if not chunk:
                    parser.close()
                    break
                self.bytes_read += len(chunk)
                parser.feed(chunk)
                self._check_progress(parser)
                if handler.ready:
                    records, handler.ready = handler.ready, []
                    yield from records
        except WxrError:
            raise
        except DefusedXmlException:
            raise WxrError("refused: the file has a DTD, an entity declaration or an external reference "
                           "(an export never has them; they are never read)") from None
        except xml.sax.SAXParseException as malformed:
            raise WxrError(f"malformed XML at line {malformed.getLineNumber()}, column "
                           f"{malformed.getColumnNumber()}: {malformed.getMessage()}") from None
        except xml.sax.SAXException as malformed:
            raise WxrError(f"malformed XML: {malformed.getMessage()}") from None
        if not handler.seen_rss:
            raise WxrError("not a WordPress export: the file is empty")
        if handler.ready:
            yield from handler.ready

    def _check_progress(self, parser) -> None:
        """Refuse a stretch expat buffers without producing an event (a huge tag, attribute or name):
        its CurrentByteIndex is where the last event began."""
        expat = getattr(parser, "_parser", None)
        if expat is None:
            return
        position = expat.CurrentByteIndex
        if position >= 0 and self.bytes_read - position > MAX_UNPARSED_BYTES:
            raise WxrError(f"more than {MAX_UNPARSED_BYTES:,} bytes without a complete tag near byte {position:,} "
                           "(a line, tag or attribute too long to be an export)")
