"""What the public-site tests share: strict HTML parsing and the addresses they use."""

from __future__ import annotations

import html5lib

COMMENTS = "/wp-json/core/v2/comments"
PAGES = "/wp-json/core/v2/pages"
POSTS = "/wp-json/core/v2/posts"
SITE = "http://school.test"


def parse_strict(text: str):
    """The page as html5lib parses it in strict mode: any markup error fails the test."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def menu_titles(document) -> list[str]:
    return ["".join(link.itertext()) for link in document.iterfind(".//nav[@aria-label='Site']//a")]


def sports_day_site(make_app, **site):
    """(app, administrator, post): a core site with pretty links, no flood wait and one published post
    (/sports-day/) for the comment tests; `site` settings are added."""
    from host.testing import create_test_user

    app = make_app(plugins=["core"], site={"permalink_structure": "/%postname%/", "comment_flood": 0, **site})
    admin = create_test_user(app, "administrator")
    post = app.client.post_json(POSTS, {"title": "Sports day", "slug": "sports-day", "status": "publish"},
                                headers=admin.headers).json
    return app, admin, post
