"""HTML views of published posts and pages at their plain permalinks (/?p=ID, /?page_id=ID).

Only what anyone may read is shown: published items (and scheduled ones whose time has
come). A password-protected item shows its title and a notice, never its content. Each
view sends the REST `alternate` link (header and head tag) and lets other plugins add
head tags (oEmbed discovery) through `html_head`.
"""

from __future__ import annotations

import html

import jinja2

from host import ANONYMOUS, HtmlView, MenuEntry
from host.content import service_request
from host.text import without_style_attributes

from . import store
from .render import plain_text, render_content, render_excerpt, render_title
from .shaping import public_status

PERMALINK_QUERIES = (("p", "post", "posts"), ("page_id", "page", "pages"))
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"),
                               autoescape=True, undefined=jinja2.StrictUndefined)


def permalink_view(app, request) -> HtmlView | None:
    """The view for `?p=` or `?page_id=`; None when the query is not a permalink."""
    for key, post_type, rest_base in PERMALINK_QUERIES:
        value = request.query.get(key)
        if value is None:
            continue
        item = _published_item(app, value, post_type)
        if item is None:
            return HtmlView("Page not found", "<p>Nothing is published at this address.</p>", status=404)
        return _view(app, request, item, rest_base)
    return None


def _published_item(app, value: str, post_type: str) -> dict | None:
    if not value.isdigit():
        return None
    with app.db.session() as session:
        item = store.get_item(app, session, int(value), post_type)
    if item is None or not public_status(app, item["status"]):
        return None
    return item


def _view(app, request, item: dict, rest_base: str) -> HtmlView:
    site = app.site_url(request.environ)
    rest_url = f"{app.rest_base_url(request.environ)}/core/v2/{rest_base}/{item['id']}"
    query = "page_id" if item["type"] == "page" else "p"
    title = render_title(item["title"] or "")
    if item.get("password"):
        body = "<p>This content is password protected.</p>"
    else:
        # The view's CSP refuses inline styles; the stylesheets that plugins link (html_head) carry them.
        body = f"<article>{without_style_attributes(render_content(app, item, item['content'] or ''))}</article>"
    head = f'<link rel="alternate" title="JSON" type="application/json" href="{html.escape(rest_url)}">'
    head += _summary_tags(app, request, item)
    view_item = {"id": item["id"], "type": item["type"], "status": item["status"],
                 "link": f"{site}/?{query}={item['id']}", "rest_url": rest_url}
    return HtmlView(
        title=html.unescape(title), body_html=body, item=view_item, head_html=head,
        headers=(("Link", f'<{rest_url}>; rel="alternate"; title="JSON"; type="application/json"'),),
    )


DESCRIPTION_LENGTH = 300  # characters of the summary a link preview shows


def _summary_tags(app, request, item: dict) -> str:
    """<meta name="description"> (the excerpt as text) and <meta property="og:image"> (the featured
    image): what link previews (block-editor/v1/url-details, other sites) read of the page. A
    password-protected item gives no summary."""
    if item.get("password"):
        return ""
    summary = plain_text(render_excerpt(app, item, item.get("excerpt") or "", item.get("content") or "")).strip()
    if len(summary) > DESCRIPTION_LENGTH:
        summary = summary[:DESCRIPTION_LENGTH - 1].rstrip() + "\u2026"
    return TEMPLATES.get_template("summary_tags.html").render(description=summary,
                                                              image=_featured_image(app, request, item))


def _featured_image(app, request, item: dict) -> str:
    """The address of the item's featured image, when it is a file anyone may read."""
    if not item.get("featured_media"):
        return ""
    with app.db.session() as session:
        media = store.get_item(app, session, int(item["featured_media"]), "attachment")
    if media is None or not media.get("file") or (not public_status(app, media["status"]) and media["status"] != "inherit"):
        return ""
    return f"{app.site_url(request.environ)}/uploads/{media['file']}"


MENU_PAGES = 12  # top-level pages the header menu shows at most; a longer list belongs in a page of its own


def menu_pages(app) -> list[MenuEntry]:
    """The site menu's share of core: published top-level pages by `menu_order`, then title."""
    with app.db.session() as session:
        pages, _total = app.content.query(service_request(app, session, ANONYMOUS), "page", parent=[0],
                                          orderby="menu_order", order="asc", per_page=MENU_PAGES)
    return [MenuEntry(html.unescape(render_title(page["title"] or "")) or f"#{page['id']}",
                      f"/?page_id={page['id']}", order=page.get("menu_order") or 0) for page in pages]
