"""How WordPress's importer plugin (wordpress-importer 0.9) reads a WXR file, restated in Python so a
test can hold our export to it. Written from reading the plugin's parsers and WP_Import (not a copy):
no package on the registries CI reaches (Debian, PyPI, npm) carries that plugin or its parser, so its
rules are checked here instead of running it (see docs/wordpress_migrate.md, "Checked against
WordPress's importer").

Three readers, as the plugin has:
- `read_like_simplexml`, its first choice (SimpleXML over a DOMDocument): the document must be
  well-formed and have no DOCTYPE; `/rss/channel/wp:wxr_version` must be `digits.digits`; the `wp`
  and `excerpt` namespaces are the document's (1.1's when undeclared); authors are keyed by login;
  an item's <category> counts only with a `nicename` attribute.
- `read_like_xml_extension`, its fallback when SimpleXML is missing (PHP's expat `xml_parser`
  without namespace processing): it matches tag names LITERALLY (`wp:post_id`, `content:encoded`,
  `excerpt:encoded`, `dc:creator`), so a file using other prefixes for the same namespaces reads
  as empty there.
- `read_like_regex`, WXR_Parser_Regex (chosen with PREFERRED_WXR_PARSER = "regex"): line by line with
  regular expressions, no XML parser. It reads an author only from a line holding the whole
  <wp:author> element (WordPress writes each on one line), returns text outside CDATA as written
  (entities not decoded), and drops the trailing whitespace of every line it reads.

`import_problems` then applies what WP_Import does with the parsed data and names every place where
WordPress would print "Failed to import ..." or drop something silently.
"""

from __future__ import annotations

import re
import xml.sax
from collections import Counter
from pathlib import Path

from lxml import etree

VERSION = re.compile(r"^\d+\.\d+$")
MAX_WXR_VERSION = 1.2
CONTENT = "http://purl.org/rss/1.0/modules/content/"
DC = "http://purl.org/dc/elements/1.1/"
DEFAULT_WP = "http://wordpress.org/export/1.1/"
DEFAULT_EXCERPT = "http://wordpress.org/export/1.1/excerpt/"
# A stock WordPress's post types and taxonomies (what exists on the importing site without plugins).
WORDPRESS_POST_TYPES = {"post", "page", "attachment", "revision", "nav_menu_item", "custom_css", "customize_changeset",
                        "oembed_cache", "user_request", "wp_block", "wp_template", "wp_template_part",
                        "wp_global_styles", "wp_navigation", "wp_font_family", "wp_font_face"}
WORDPRESS_TAXONOMIES = {"category", "post_tag", "nav_menu", "link_category", "post_format", "wp_theme",
                        "wp_template_part_area", "wp_pattern_category"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")


class WxrReadError(Exception):
    """Where WordPress's importer stops with "Sorry, there has been an error"."""


def _text(element) -> str:
    return "" if element is None else "".join(element.itertext())


def read_like_simplexml(path: Path) -> dict:
    """The parsed data as the plugin's SimpleXML parser returns it (the keys it uses)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        tree = etree.parse(str(path), parser)
    except etree.XMLSyntaxError as error:
        raise WxrReadError(f"There was an error when reading this WXR file: {error}") from error
    if tree.docinfo.doctype:
        raise WxrReadError("There was an error when reading this WXR file (a DOCTYPE)")
    root = tree.getroot()
    namespaces = {prefix: uri for prefix, uri in (root.nsmap or {}).items() if prefix}
    wp = namespaces.get("wp", DEFAULT_WP)
    excerpt = namespaces.get("excerpt", DEFAULT_EXCERPT)
    ns = {"wp": wp}
    versions = tree.xpath("/rss/channel/wp:wxr_version", namespaces=ns)
    version = _text(versions[0]).strip() if versions else ""
    if not VERSION.match(version):
        raise WxrReadError("This does not appear to be a WXR file, missing/invalid WXR version number")
    base_url = tree.xpath("/rss/channel/wp:base_site_url", namespaces=ns)
    base_blog = tree.xpath("/rss/channel/wp:base_blog_url", namespaces=ns)

    def child(element, name, uri=wp) -> str:
        return _text(element.find(f"{{{uri}}}{name}"))

    def metas(element, tag) -> list[tuple[str, str]]:
        return [(child(meta, "meta_key"), child(meta, "meta_value")) for meta in element.findall(f"{{{wp}}}{tag}")]

    authors = {}
    for author in tree.xpath("/rss/channel/wp:author", namespaces=ns):
        login = child(author, "author_login")
        authors[login] = {"author_id": int(child(author, "author_id") or 0), "author_login": login,
                          "author_email": child(author, "author_email"),
                          "author_display_name": child(author, "author_display_name")}
    categories = [{"term_id": int(child(term, "term_id") or 0), "category_nicename": child(term, "category_nicename"),
                   "category_parent": child(term, "category_parent"), "cat_name": child(term, "cat_name")}
                  for term in tree.xpath("/rss/channel/wp:category", namespaces=ns)]
    tags = [{"term_id": int(child(term, "term_id") or 0), "tag_slug": child(term, "tag_slug"),
             "tag_name": child(term, "tag_name")} for term in tree.xpath("/rss/channel/wp:tag", namespaces=ns)]
    terms = [{"term_id": int(child(term, "term_id") or 0), "term_taxonomy": child(term, "term_taxonomy"),
              "slug": child(term, "term_slug"), "term_parent": child(term, "term_parent"),
              "term_name": child(term, "term_name")} for term in tree.xpath("/rss/channel/wp:term", namespaces=ns)]
    posts = []
    for item in root.find("channel").findall("item"):
        post = {"post_title": _text(item.find("title")), "guid": _text(item.find("guid")),
                "post_author": child(item, "creator", DC), "post_content": child(item, "encoded", CONTENT),
                "post_excerpt": child(item, "encoded", excerpt)}
        for name in ("post_date", "post_date_gmt", "comment_status", "ping_status", "post_name", "status",
                     "post_type", "post_password"):
            post[name] = child(item, name)
        for name in ("post_id", "post_parent", "menu_order", "is_sticky"):
            post[name] = int(child(item, name) or 0)
        if item.find(f"{{{wp}}}attachment_url") is not None:
            post["attachment_url"] = child(item, "attachment_url")
        post["terms"] = [{"name": _text(c), "slug": c.get("nicename"), "domain": c.get("domain", "")}
                         for c in item.findall("category") if c.get("nicename") is not None]
        post["postmeta"] = metas(item, "postmeta")
        post["comments"] = [{
            "comment_id": int(child(c, "comment_id") or 0), "comment_author": child(c, "comment_author"),
            "comment_date": child(c, "comment_date"), "comment_date_gmt": child(c, "comment_date_gmt"),
            "comment_content": child(c, "comment_content"), "comment_approved": child(c, "comment_approved"),
            "comment_parent": child(c, "comment_parent"), "comment_user_id": int(child(c, "comment_user_id") or 0),
            "commentmeta": metas(c, "commentmeta")} for c in item.findall(f"{{{wp}}}comment")]
        posts.append(post)
    return {"authors": authors, "posts": posts, "categories": categories, "tags": tags, "terms": terms,
            "base_url": _text(base_url[0]).strip() if base_url else "",
            "base_blog_url": _text(base_blog[0]).strip() if base_blog else "", "version": version}


class _LiteralTags(xml.sax.ContentHandler):
    """Counts what the expat fallback parser would find: tag names compared as written."""

    def __init__(self):
        super().__init__()
        self.counts: Counter = Counter()
        self.post_types: Counter = Counter()
        self.version = ""
        self._text: list[str] = []
        self._in_item = False

    def startElement(self, name, attrs):
        self._text = []
        if name == "item":
            self._in_item = True
        if name in ("item", "wp:author", "wp:category", "wp:tag", "wp:term", "wp:comment", "wp:postmeta",
                    "content:encoded", "excerpt:encoded", "dc:creator", "wp:post_id"):
            self.counts[name] += 1

    def characters(self, content):
        self._text.append(content)

    def endElement(self, name):
        if name == "wp:wxr_version":
            self.version = "".join(self._text)
        elif name == "wp:post_type" and self._in_item:
            self.post_types["".join(self._text)] += 1
        elif name == "item":
            self._in_item = False


def read_like_xml_extension(path: Path) -> tuple[str, Counter, Counter]:
    """(version, element counts, post types) as the literal-tag expat parser sees the file."""
    handler = _LiteralTags()
    parser = xml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setContentHandler(handler)
    parser.parse(str(path))
    if not VERSION.match(handler.version):
        raise WxrReadError("This does not appear to be a WXR file, missing/invalid WXR version number")
    return handler.version, handler.counts, handler.post_types


# --- WXR_Parser_Regex: the plugin's line-by-line parser (PREFERRED_WXR_PARSER = "regex") ------------------

PHP_TRIM = " \t\n\r\0\x0b"  # what PHP's trim and rtrim strip (not Python's wider whitespace)
FGETS_BYTES = 8191  # its fgets($fp, 8192) reads at most 8191 bytes: a longer line comes in pieces


def _regex_lines(path: Path):
    """The pieces the regex parser reads, each `rtrim`med: up to a newline or 8191 bytes."""
    with open(path, "rb") as handle:
        for line in handle:
            for start in range(0, len(line), FGETS_BYTES):
                yield line[start:start + FGETS_BYTES].decode("utf-8", "surrogateescape").rstrip(PHP_TRIM)


def _regex_tag(text: str, tag: str) -> str:
    """get_tag: the first <tag ...>…</tag>; CDATA unwrapped (split sections joined), other text AS WRITTEN
    (entities are not decoded)."""
    found = re.search(f"<{tag}.*?>(.*?)</{tag}>", text, re.S | re.I)
    if found is None:
        return ""
    inner = found.group(1)
    if not inner.startswith("<![CDATA["):
        return inner
    if "]]]]><![CDATA[>" in inner:
        return "".join(re.findall(r"<!\[CDATA\[(.*?)\]\]>", inner, re.S))
    return re.sub(r"^<!\[CDATA\[(.*)\]\]>$", r"\1", inner, flags=re.S)


def _regex_meta(text: str, tag: str) -> list[tuple[str, str]]:
    return [(_regex_tag(meta, "wp:meta_key"), _regex_tag(meta, "wp:meta_value"))
            for meta in re.findall(f"<{tag}>(.+?)</{tag}>", text, re.S | re.I)]


def _regex_post(text: str) -> dict:
    post = {name: _regex_tag(text, tag) for name, tag in (
        ("post_id", "wp:post_id"), ("post_title", "title"), ("post_date", "wp:post_date"),
        ("post_date_gmt", "wp:post_date_gmt"), ("comment_status", "wp:comment_status"),
        ("ping_status", "wp:ping_status"), ("status", "wp:status"), ("post_name", "wp:post_name"),
        ("post_parent", "wp:post_parent"), ("menu_order", "wp:menu_order"), ("post_type", "wp:post_type"),
        ("post_password", "wp:post_password"), ("is_sticky", "wp:is_sticky"), ("guid", "guid"),
        ("post_author", "dc:creator"), ("post_excerpt", "excerpt:encoded"), ("post_content", "content:encoded"))}
    for name in ("post_excerpt", "post_content"):  # upper-case tag names lowered, <br> and <hr> closed
        value = re.sub(r"<(/?[A-Z]+)", lambda match: "<" + match.group(1).lower(), post[name])
        post[name] = value.replace("<br>", "<br />").replace("<hr>", "<hr />")
    attachment_url = _regex_tag(text, "wp:attachment_url")
    if attachment_url:
        post["attachment_url"] = attachment_url
    post["terms"] = [{"slug": slug, "domain": domain, "name": name.replace("<![CDATA[", "").replace("]]>", "")}
                     for domain, slug, name in re.findall(r'<category domain="([^"]+?)" nicename="([^"]+?)">(.+?)</category>',
                                                          text, re.S | re.I)]
    post["comments"] = [{**{name: _regex_tag(comment, f"wp:{name}") for name in (
        "comment_id", "comment_author", "comment_author_email", "comment_author_IP", "comment_author_url",
        "comment_date", "comment_date_gmt", "comment_content", "comment_approved", "comment_type",
        "comment_parent", "comment_user_id")}, "commentmeta": _regex_meta(comment, "wp:commentmeta")}
        for comment in re.findall(r"<wp:comment>(.+?)</wp:comment>", text, re.S | re.I)]
    post["postmeta"] = _regex_meta(text, "wp:postmeta")
    return post


def read_like_regex(path: Path) -> dict:
    """The parsed data as WXR_Parser_Regex returns it (strings throughout, as it reads them). It reads the
    file line by line: an author only from a line holding the whole <wp:author>; items, categories, tags
    and terms across lines, each line's trailing whitespace dropped (and a line longer than 8191 bytes cut
    into pieces, each ending in a newline)."""
    authors: dict[str, dict] = {}
    found: dict[str, list] = {"posts": [], "categories": [], "tags": [], "terms": []}
    version = base_url = base_blog_url = ""

    def category(text):
        return {name: _regex_tag(text, f"wp:{name}") for name in
                ("term_id", "cat_name", "category_nicename", "category_parent", "category_description")}

    def tag(text):
        return {name: _regex_tag(text, f"wp:{name}") for name in ("term_id", "tag_name", "tag_slug", "tag_description")}

    def term(text):
        return {"term_id": _regex_tag(text, "wp:term_id"), "term_taxonomy": _regex_tag(text, "wp:term_taxonomy"),
                "slug": _regex_tag(text, "wp:term_slug"), "term_parent": _regex_tag(text, "wp:term_parent"),
                "term_name": _regex_tag(text, "wp:term_name"), "term_description": _regex_tag(text, "wp:term_description")}

    multiline_tags = {"item": ("posts", _regex_post), "wp:category": ("categories", category),
                      "wp:tag": ("tags", tag), "wp:term": ("terms", term)}
    in_multiline, multiline = "", ""
    for line in _regex_lines(path):
        is_tag_line = False
        if not version:
            match = re.search(r"<wp:wxr_version>(\d+\.\d+)</wp:wxr_version>", line)
            version = match.group(1) if match else ""
        if "<wp:base_site_url>" in line:
            match = re.search(r"<wp:base_site_url>(.*?)</wp:base_site_url>", line, re.S | re.I)
            base_url = match.group(1) if match else ""
            continue
        if "<wp:base_blog_url>" in line:
            match = re.search(r"<wp:base_blog_url>(.*?)</wp:base_blog_url>", line, re.S | re.I)
            base_blog_url = match.group(1) if match else ""
            continue
        if not base_blog_url:
            base_blog_url = base_url
        if "<wp:author>" in line:
            match = re.search(r"<wp:author>(.*?)</wp:author>", line, re.S | re.I)
            if match:
                author = {name: _regex_tag(match.group(1), f"wp:{name}") for name in (
                    "author_id", "author_login", "author_email", "author_display_name", "author_first_name",
                    "author_last_name")}
                authors[author["author_login"]] = author
            continue
        for name, (key, handler) in multiline_tags.items():
            opening, closing = line.find(f"<{name}>"), line.find(f"</{name}>")
            whole = re.search(f"<{name}>(.*?)</{name}>", line, re.S | re.I)
            if whole:
                found[key].append(handler(whole.group(1)))
            elif opening != -1:
                multiline = line[opening + len(name) + 2:].strip(PHP_TRIM)
                in_multiline, is_tag_line = name, True
            elif closing != -1:
                in_multiline = ""
                multiline += line[:closing].strip(PHP_TRIM)
                found[key].append(handler(multiline))
        if in_multiline and not is_tag_line:
            multiline += line + "\n"
    if not version:
        raise WxrReadError("This does not appear to be a WXR file, missing/invalid WXR version number")
    return {"authors": authors, **found, "base_url": base_url, "base_blog_url": base_blog_url, "version": version}


def import_problems(data: dict, post_types: set[str] = WORDPRESS_POST_TYPES,
                    taxonomies: set[str] = WORDPRESS_TAXONOMIES) -> list[str]:
    """What WP_Import would fail on or drop, for a site with these post types and taxonomies."""
    problems = []
    if float(data["version"]) > MAX_WXR_VERSION:
        problems.append(f"WXR version {data['version']} is newer than the importer supports")
    if not data["base_url"].startswith(("http://", "https://")):
        problems.append(f"base_site_url {data['base_url']!r} is not an address (attachments' paths start there)")
    seen: set[str] = set()
    for category in data["categories"]:  # a parent is looked up by nicename when its child is created
        if not category["category_nicename"]:
            problems.append(f"category {category['cat_name']!r} without a nicename")
        if category["category_parent"] and category["category_parent"] not in seen:
            problems.append(f"category {category['category_nicename']} comes before its parent")
        seen.add(category["category_nicename"])
    for tag in data["tags"]:
        if not tag["tag_slug"] or not tag["tag_name"]:
            problems.append(f"tag {tag} without slug or name")
    seen_terms: set[tuple[str, str]] = set()
    for term in data["terms"]:
        if term["term_taxonomy"] not in taxonomies:
            problems.append(f"Failed to import {term['term_taxonomy']} {term['term_name']} (no such taxonomy)")
        if term["term_parent"] and (term["term_taxonomy"], term["term_parent"]) not in seen_terms:
            problems.append(f"term {term['slug']} comes before its parent")
        seen_terms.add((term["term_taxonomy"], term["slug"]))
    for post in data["posts"]:
        label = f"{post['post_type']} {post['post_id']} {post['post_title']!r}"
        if post["post_type"] not in post_types:
            problems.append(f"Failed to import {label}: Invalid post type")
            continue
        if post["post_author"] not in data["authors"]:
            problems.append(f"{label}: author {post['post_author']!r} is not among the file's authors")
        for name in ("post_date", "post_date_gmt"):
            if not DATE.match(post[name]):
                problems.append(f"{label}: {name} {post[name]!r} is not YYYY-MM-DD HH:MM:SS")
        if post["post_type"] == "attachment":
            remote = post.get("attachment_url") or post["guid"]
            if not remote.startswith(("http://", "https://", "/")):
                problems.append(f"{label}: attachment without a URL to fetch")
        for term in post["terms"]:
            taxonomy = "post_tag" if term["domain"] == "tag" else term["domain"]
            if taxonomy not in taxonomies:
                problems.append(f"{label}: Failed to import {taxonomy} {term['name']}")
        inserted: set[int] = set()
        for comment in sorted(post["comments"], key=lambda c: c["comment_id"]):  # WP_Import ksorts by id
            parent = int(comment["comment_parent"] or 0)
            if parent and parent not in inserted:
                problems.append(f"{label}: comment {comment['comment_id']} before its parent {parent}")
            if comment["comment_approved"] not in ("0", "1", "spam", "trash", "post-trashed"):
                problems.append(f"{label}: comment {comment['comment_id']} approval {comment['comment_approved']!r}")
            for name in ("comment_date", "comment_date_gmt"):
                if not DATE.match(comment[name]):
                    problems.append(f"{label}: comment {comment['comment_id']} {name} {comment[name]!r}")
            inserted.add(comment["comment_id"])
    return problems
