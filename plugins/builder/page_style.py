"""Stylesheets of builder pages: the layout CSS (a constant) and one per document.

The site's HTML views send `Content-Security-Policy: default-src 'self'`, under which browsers
ignore inline `style` attributes and `<style>` elements. So a view of a builder document links
two stylesheets served from the site itself: `/builder/page.css` (the layout) and
`/builder/css/ID.css` (the kit's custom properties and the document's element styles, the same
declarations its HTML carries inline for API readers). Both hold only values the renderer
checked; the document's is served only for items anyone may read.
"""

from __future__ import annotations

import hashlib

import bottle
from sqlalchemy import bindparam, select

from host import ANONYMOUS, Page, RestError, theme
from host.lru import LruCache
from host.stash import StashKey

from .documents import DOCUMENT_TYPES, render_both
from .kit import css_variables, kit_version, load_kit
from .tables import DOCUMENTS, KITS, table

PAGE_CSS = (
    ".builder-page{font-family:var(--builder-font-text-family,system-ui,sans-serif);"
    "color:var(--builder-color-text,#333);line-height:1.5}"
    ".builder-section{padding:2.5rem 1rem}"
    ".builder-section-inner{display:flex;flex-wrap:wrap;gap:2rem;max-width:1140px;margin:0 auto}"
    ".builder-column{flex-grow:1;flex-shrink:1;min-width:260px;box-sizing:border-box}"
    ".builder-container{display:flex;gap:1rem;max-width:1140px;margin:0 auto;box-sizing:border-box}"
    ".builder-heading{font-family:var(--builder-font-primary-family,Georgia,serif);"
    "font-weight:var(--builder-font-primary-weight,700);color:var(--builder-color-primary,#1F4E79);margin:0 0 .5em}"
    ".builder-widget{margin-bottom:1.25rem}"
    ".builder-text{font-family:var(--builder-font-text-family,system-ui,sans-serif)}"
    ".builder-button{display:inline-block;padding:.8em 1.6em;border-radius:4px;text-decoration:none;"
    "font-weight:600;font-family:var(--builder-font-accent-family,system-ui,sans-serif);"
    "background-color:var(--builder-color-accent,#2E8540);color:#fff}"
    ".builder-button:focus,.builder-button:hover{outline:3px solid var(--builder-color-secondary,#F2A900);"
    "outline-offset:2px}"
    ".builder-image{margin:0}.builder-image img{display:block;border-radius:4px;max-width:100%;height:auto}"
    ".builder-image figcaption{font-size:.9em;color:#555;margin-top:.4em}"
    ".builder-icon-list,.builder-events{list-style:none;padding:0;margin:0}"
    ".builder-icon-list li{padding:.3em 0}.builder-icon{display:inline-block;width:1.5em}"
    ".builder-events li{padding:.6em 0;border-bottom:1px solid #ddd}"
    ".builder-events time{display:block;font-size:.9em;color:#555}"
    ".builder-video{position:relative;padding-top:56.25%}"
    ".builder-video iframe{position:absolute;top:0;left:0;width:100%;height:100%;border:0}"
)
DOCUMENT_CSS_ENTRIES = 200
DOCUMENT_CSS = StashKey["LruCache"]("builder.document_css")


def head_links(app, item: dict, site: str) -> str | None:
    """The two stylesheet links for views of builder documents; nothing for other items.

    `site` is the site's address (not read from the item's link, which a pretty permalink makes a path)."""
    if item.get("type") not in DOCUMENT_TYPES or not isinstance(item.get("id"), int):
        return None
    documents, kits = table(app, DOCUMENTS), table(app, KITS)
    statement = app.db.prepared("builder.head_links", lambda: select(
        documents.c.modified_gmt, select(kits.c.version).order_by(kits.c.id).limit(1).scalar_subquery().label("kit"))
        .where(documents.c.post_id == bindparam("post_id")))
    with app.db.session() as session:
        row = session.execute(statement, {"post_id": item["id"]}).first()
    if row is None:
        return None
    version = f"{row.kit or 0}-{int(row.modified_gmt.timestamp())}"
    return theme.render(app, __package__, "builder_head.html", {"site": site, "post_id": item["id"], "version": version})


class _ReadRequest:
    """What the content service reads of a request: a session and the (anonymous) reader."""

    def __init__(self, app, session):
        self.app, self.session, self.user = app, session, ANONYMOUS


def _css_response(body: str) -> bottle.HTTPResponse:
    return bottle.HTTPResponse(body, status=200, headers={"Content-Type": "text/css; charset=utf-8",
                                                          "Cache-Control": "no-cache"})


def serve_page_css(app, request):
    return _css_response(PAGE_CSS)


def serve_document_css(app, request, post_id):
    with app.db.session() as session:
        item = app.content.get(_ReadRequest(app, session), int(post_id))
    status = app.registry.statuses.get(item["status"]) if item else None
    if item is None or item["type"] not in DOCUMENT_TYPES or status is None or not status[0].public \
            or item.get("password"):
        raise bottle.HTTPError(404)
    cache = app.stash.setdefault_by(DOCUMENT_CSS, lambda: LruCache(DOCUMENT_CSS_ENTRIES))
    with app.db.session() as session:
        key = (item["id"], item.get("modified"), kit_version(app, session),
               hashlib.sha1(str(item["meta"].get("_builder_data")).encode("utf-8")).hexdigest())
    found = cache.get(key)
    if found is None:
        rendered = render_both(app, item)
        if rendered is None:
            raise bottle.HTTPError(404)
        found = rendered[1]
        cache.put(key, found)
    return _css_response(found)


def theme_stylesheets(app, request) -> list[str]:
    """The kit's colours and fonts for the site theme: `/builder/kit.css`, versioned by the kit."""
    with app.db.session() as session:
        version = kit_version(app, session)
    return [f"{app.site_url(request.environ)}/builder/kit.css?ver={version}"]


def serve_kit_css(app, request):
    """`:root{--builder-color-primary:...}`: the kit's globals, which the theme's stylesheet reads."""
    with app.db.session() as session:
        try:
            kit = load_kit(app, session)
        except RestError:  # no kit row: the theme keeps its own colours
            return _css_response("")
    return _css_response(f":root{{{css_variables(app, kit)}}}")


def pages() -> list[Page]:
    return [Page("/builder/page.css", ("GET", "HEAD"), serve_page_css, name="builder-page-css"),
            Page("/builder/kit.css", ("GET", "HEAD"), serve_kit_css, name="builder-kit-css"),
            Page("/builder/css/<post_id:int>.css", ("GET", "HEAD"), serve_document_css, name="builder-document-css")]
