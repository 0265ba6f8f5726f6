"""What a page says about itself: title, description, image and icon, read from its <head>.

The stdlib HTML parser reads the page once, in linear time, and stops at </head> or <body>:
everything url-details needs is in the head, and the rest of the page is never looked at.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

MAX_TITLE = 300
MAX_DESCRIPTION = 1000
MAX_URL = 2000
ICON_RELS = ("icon", "shortcut icon", "apple-touch-icon", "apple-touch-icon-precomposed")


class _HeadReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title_parts: list[str] = []
        self.in_title = False
        self.meta: dict[str, str] = {}
        self.icons: list[tuple[int, str]] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if self.done:
            return
        values = {name.lower(): (value or "") for name, value in attrs}
        if tag == "title":
            self.in_title = True
        elif tag == "meta":
            key = (values.get("property") or values.get("name") or "").strip().lower()
            if key and key not in self.meta and values.get("content"):
                self.meta[key] = values["content"]
        elif tag == "link":
            rel = " ".join(values.get("rel", "").lower().split())
            if rel in ICON_RELS and values.get("href"):
                self.icons.append((ICON_RELS.index(rel), values["href"]))
        elif tag == "body":
            self.done = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag == "head":
            self.done = True

    def handle_data(self, data: str) -> None:
        if self.in_title and not self.done and sum(map(len, self.title_parts)) < MAX_TITLE * 4:
            self.title_parts.append(data)


def _clean(text: str, limit: int) -> str:
    text = " ".join(html.unescape(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _absolute(base: str, href: str) -> str:
    if not href:
        return ""
    url = urljoin(base, href.strip())
    return url if urlsplit(url).scheme in ("http", "https") and len(url) <= MAX_URL else ""


def details_of(page_html: str, page_url: str) -> dict[str, str]:
    """{title, icon, description, image} of a page, each "" when the page does not say."""
    reader = _HeadReader()
    position, step = 0, 64 * 1024
    while position < len(page_html) and not reader.done:  # feed in slices so the head alone is parsed
        reader.feed(page_html[position: position + step])
        position += step
    reader.close()
    meta = reader.meta
    title = "".join(reader.title_parts) or meta.get("og:title", "")
    description = meta.get("description") or meta.get("og:description") or ""
    image = meta.get("og:image") or meta.get("og:image:url") or meta.get("twitter:image") or ""
    icon = min(reader.icons)[1] if reader.icons else ""
    return {
        "title": _clean(title, MAX_TITLE),
        "icon": _absolute(page_url, icon),
        "description": _clean(description, MAX_DESCRIPTION),
        "image": _absolute(page_url, image),
    }
