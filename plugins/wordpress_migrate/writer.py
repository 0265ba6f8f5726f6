"""Writing WordPress eXtended RSS 1.2, element by element, as WordPress's Tools → Export lays it out.

lxml's incremental writer (`etree.xmlfile`) streams the document: the channel header, the authors,
the terms and then every item are written as they are handed over and never held together, so a
100,000-post site costs the memory of one item. Free text goes into CDATA sections, split around
`]]>` the way WordPress's `wxr_cdata` does (`]]` closes one section, `>` opens the next); characters
XML 1.0 does not allow (control characters, lone surrogates, U+FFFE/U+FFFF) are dropped, since no
parser would read the file otherwise.
"""

from __future__ import annotations

import contextlib
import datetime
import re
from dataclasses import dataclass
from email.utils import format_datetime
from typing import BinaryIO, Iterator

from lxml import etree

from host.wxr import WxrAuthor, WxrItem, WxrTerm

WXR_VERSION = "1.2"
WP = "http://wordpress.org/export/1.2/"
EXCERPT = "http://wordpress.org/export/1.2/excerpt/"
CONTENT = "http://purl.org/rss/1.0/modules/content/"
WFW = "http://wellformedweb.org/CommentAPI/"
DC = "http://purl.org/dc/elements/1.1/"
# WordPress's own prefixes: its XML-extension parser matches tag names literally ("wp:post_id").
NAMESPACES = {"excerpt": EXCERPT, "content": CONTENT, "wfw": WFW, "dc": DC, "wp": WP}
NO_DATE = "0000-00-00 00:00:00"

# Everything outside XML 1.0's Char production (one character class: linear time).
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: object) -> str:
    """`value` as text an XML 1.0 document can hold."""
    return _NOT_XML.sub("", "" if value is None else str(value))


def cdata_sections(value: object) -> list[etree.CDATA]:
    """`value` as CDATA sections: one, or one more per `]]>` inside (split between `]]` and `>`)."""
    parts = xml_text(value).split("]]>")
    if len(parts) == 1:
        return [etree.CDATA(parts[0])]
    sections = [parts[0] + "]]"] + [">" + part + "]]" for part in parts[1:-1]] + [">" + parts[-1]]
    return [etree.CDATA(section) for section in sections]


def rss_date(gmt: str) -> str:
    """RSS's pubDate ("Mon, 06 Jan 2025 09:30:00 +0000") of a "YYYY-MM-DD HH:MM:SS" UTC time."""
    try:
        moment = datetime.datetime.strptime(gmt, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return ""
    return format_datetime(moment.replace(tzinfo=datetime.timezone.utc))


@dataclass(frozen=True)
class Channel:
    """The channel's header: the site's title, address, description and language, and where the
    file comes from (`base_site_url`: the address old links and uploads start with)."""

    title: str
    link: str
    description: str
    language: str
    base_site_url: str
    base_blog_url: str
    generator: str
    created: datetime.datetime


@contextlib.contextmanager
def open_wxr(stream: BinaryIO, channel: Channel) -> Iterator["WxrWriter"]:
    """A WXR document on the binary `stream`: the header is written at once, then the block writes
    authors, terms and items through the writer it gets; the document is closed when the block ends.
    A block that fails leaves the document unclosed (a truncated file no parser reads as complete)."""
    stream.write(b'<?xml version="1.0" encoding="UTF-8" ?>\n')
    stream.write(b"<!-- A WordPress eXtended RSS file written by sitehost (sitehost export wordpress). -->\n"
                 b"<!-- WordPress's importer (Tools > Import > WordPress) reads it, and so does -->\n"
                 b"<!-- sitehost import wordpress. -->\n")
    with etree.xmlfile(stream, encoding="UTF-8") as xf:
        with xf.element("rss", {"version": "2.0"}, nsmap=NAMESPACES):
            xf.write("\n")
            with xf.element("channel"):
                writer = WxrWriter(xf)
                writer.header(channel)
                yield writer
                xf.write("\n")
            xf.write("\n")
    stream.write(b"\n")


class WxrWriter:
    """Writes the parts of an open document (`open_wxr`): `author` and `term` for each, then `item`."""

    def __init__(self, xf):
        self._xf = xf

    # --- low level ------------------------------------------------------------------------

    def _element(self, tag: str, value: object = "", *, cdata: bool = False, indent: str = "\n\t\t",
                 attributes: dict[str, str] | None = None) -> None:
        xf = self._xf
        xf.write(indent)
        with xf.element(tag, attributes or {}):
            if cdata:
                xf.write(*cdata_sections(value))
            else:
                text = xml_text(value)
                if text:
                    xf.write(text)

    def _wp(self, name: str, value: object = "", *, cdata: bool = False, indent: str = "\n\t\t") -> None:
        self._element(f"{{{WP}}}{name}", value, cdata=cdata, indent=indent)

    # --- the document -----------------------------------------------------------------------

    def header(self, channel: Channel) -> None:
        """Everything of the channel before its authors, in WordPress's order."""
        created = channel.created.astimezone(datetime.timezone.utc)
        for tag, value in (("title", channel.title), ("link", channel.link), ("description", channel.description),
                           ("pubDate", format_datetime(created)), ("language", channel.language)):
            self._element(tag, value, indent="\n\t")
        self._wp("wxr_version", WXR_VERSION, indent="\n\t")
        self._wp("base_site_url", channel.base_site_url, indent="\n\t")
        self._wp("base_blog_url", channel.base_blog_url, indent="\n\t")
        self._element("generator", channel.generator, indent="\n\t")
        self._xf.write("\n")

    def _wp_group(self, tag: str, children: list[tuple[str, object]], indent: str = "\n\t",
                  nested: list[tuple[str, list[tuple[str, object]]]] = (), one_line: bool = False) -> None:
        """<wp:TAG> with a <wp:NAME> per child (numbers as text, the rest in CDATA, as WordPress
        writes them), then the `nested` groups (a comment's meta); `one_line`: all on one line."""
        xf = self._xf
        xf.write(indent)
        with xf.element(f"{{{WP}}}{tag}"):
            for name, value in children:
                self._wp(name, value, cdata=not isinstance(value, int), indent="" if one_line else indent + "\t")
            for nested_tag, nested_children in nested:
                self._wp_group(nested_tag, nested_children, indent + "\t")
            if not one_line:
                xf.write(indent)

    def author(self, author: WxrAuthor) -> None:
        children = [("author_id", author.author_id), ("author_login", author.login), ("author_email", author.email),
                    ("author_display_name", author.display_name), ("author_first_name", author.first_name),
                    ("author_last_name", author.last_name)]
        if author.role:  # not WordPress's (it writes no role): sitehost's importer reads it back
            children.append(("author_role", author.role))
        # On one line, as WordPress writes it: its importer's fallback parser (WXR_Parser_Regex) reads an
        # author only from a line holding the whole <wp:author> element.
        self._wp_group("author", children, one_line=True)

    def term(self, term: WxrTerm) -> None:
        """A channel-level term: <wp:category> for categories, <wp:tag> for tags, <wp:term> otherwise
        (as WordPress writes them; its importer expects a parent before its children)."""
        if term.taxonomy == "category":
            self._wp_group("category", [("term_id", term.term_id), ("category_nicename", term.slug),
                                        ("category_parent", term.parent_slug), ("cat_name", term.name),
                                        ("category_description", term.description)])
        elif term.taxonomy == "post_tag":
            self._wp_group("tag", [("term_id", term.term_id), ("tag_slug", term.slug), ("tag_name", term.name),
                                   ("tag_description", term.description)])
        else:
            self._wp_group("term", [("term_id", term.term_id), ("term_taxonomy", term.taxonomy),
                                    ("term_slug", term.slug), ("term_parent", term.parent_slug),
                                    ("term_name", term.name), ("term_description", term.description)])

    def item(self, item: WxrItem) -> None:
        xf = self._xf
        xf.write("\n\t")
        with xf.element("item"):
            self._element("title", item.title, cdata=True)
            self._element("link", item.link)
            self._element("pubDate", rss_date(item.date_gmt if item.date_gmt != NO_DATE else ""))
            self._element(f"{{{DC}}}creator", item.author_login, cdata=True)
            # In CDATA: WordPress's fallback parser (WXR_Parser_Regex) reads other text as written, entities
            # and all, and a plugin type's guid has an `&` (`/?post_type=cal_event&p=40`).
            self._element("guid", item.guid, cdata=True, attributes={"isPermaLink": "false"})
            self._element("description")
            self._element(f"{{{CONTENT}}}encoded", item.content, cdata=True)
            self._element(f"{{{EXCERPT}}}encoded", item.excerpt, cdata=True)
            self._wp("post_id", item.post_id)
            self._wp("post_date", item.date, cdata=True)
            self._wp("post_date_gmt", item.date_gmt, cdata=True)
            self._wp("post_modified", item.modified, cdata=True)
            self._wp("post_modified_gmt", item.modified_gmt, cdata=True)
            self._wp("comment_status", item.comment_status, cdata=True)
            self._wp("ping_status", item.ping_status, cdata=True)
            self._wp("post_name", item.slug, cdata=True)
            self._wp("status", item.status, cdata=True)
            self._wp("post_parent", item.parent)
            self._wp("menu_order", item.menu_order)
            self._wp("post_type", item.post_type, cdata=True)
            self._wp("post_password", item.password, cdata=True)
            self._wp("is_sticky", int(bool(item.is_sticky)))
            if item.attachment_url:
                self._wp("attachment_url", item.attachment_url, cdata=True)
            for term in item.terms:
                self._element("category", term.name, cdata=True,
                              attributes={"domain": xml_text(term.taxonomy), "nicename": xml_text(term.slug)})
            for key, value in item.meta:
                self._wp_group("postmeta", [("meta_key", key), ("meta_value", value)], "\n\t\t")
            for comment in item.comments:
                self._wp_group("comment", [
                    ("comment_id", comment.comment_id), ("comment_author", comment.author),
                    ("comment_author_email", comment.author_email), ("comment_author_url", comment.author_url),
                    ("comment_author_IP", comment.author_ip), ("comment_date", comment.date),
                    ("comment_date_gmt", comment.date_gmt), ("comment_content", comment.content),
                    ("comment_approved", comment.approved), ("comment_type", comment.type),
                    ("comment_parent", comment.parent), ("comment_user_id", comment.user_id)], "\n\t\t",
                    nested=[("commentmeta", [("meta_key", key), ("meta_value", value)]) for key, value in comment.meta])
            xf.write("\n\t")
        xf.write("\n")
