"""What the public-site tests share: strict HTML parsing and the addresses they use."""

from __future__ import annotations

import html5lib

PAGES = "/wp-json/core/v2/pages"
POSTS = "/wp-json/core/v2/posts"
SITE = "http://school.test"


def parse_strict(text: str):
    """The page as html5lib parses it in strict mode: any markup error fails the test."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def menu_titles(document) -> list[str]:
    return ["".join(link.itertext()) for link in document.iterfind(".//nav[@aria-label='Site']//a")]
