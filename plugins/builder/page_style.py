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
from pathlib import Path

from sqlalchemy import bindparam, select

from host import ANONYMOUS, Kept, not_found, Page, PageAnswer, PageRequest, RestError, theme

from .documents import DOCUMENT_TYPES, render_both
from .kit import KIT_KEEP_SECONDS, css_variables, kit_version, load_kit
from .tables import DOCUMENTS, KITS, table

# The rules every builder document shares (served at /builder/page.css), read once at import.
PAGE_CSS = (Path(__file__).resolve().parent / "assets" / "page.css").read_text(encoding="utf-8")
DOCUMENT_CSS_ENTRIES = 200


# What every page of the site reads for its stylesheet links (the kit's version, an item's document
# version), kept while nothing at all was committed (the commit mark as the version): a page read
# costs one commit-mark probe instead of a session and a query. Where there is no mark (PostgreSQL)
# they are read every time.
STYLE_VERSIONS_ENTRIES = 256  # items whose document version a process keeps, and the kit's
_NO_DOCUMENT = ""  # kept for an item without a builder document (None means "not kept")


def _kept_style_versions(app) -> Kept:
    return app.kept("builder.style_versions", STYLE_VERSIONS_ENTRIES, KIT_KEEP_SECONDS)


def _document_style_version(app, post_id: int) -> str:
    """`KIT-MODIFIED` of an item's builder document (its stylesheet's `ver`), or _NO_DOCUMENT."""
    mark = app.db.commit_mark()  # before the read: a commit in between makes the entry stale at once
    return _kept_style_versions(app).get_or_build(("document", post_id), mark,
                                                  lambda: _read_document_style_version(app, post_id))


def _read_document_style_version(app, post_id: int) -> str:
    documents, kits = table(app, DOCUMENTS), table(app, KITS)
    statement = app.db.prepared("builder.head_links", lambda: select(
        documents.c.modified_gmt, select(kits.c.version).order_by(kits.c.id).limit(1).scalar_subquery().label("kit"))
        .where(documents.c.post_id == bindparam("post_id")))
    with app.db.session() as session:
        row = session.execute(statement, {"post_id": post_id}).first()
    return f"{row.kit or 0}-{int(row.modified_gmt.timestamp())}" if row is not None else _NO_DOCUMENT


def head_links(app, item: dict, site: str) -> str | None:
    """The two stylesheet links for views of builder documents; nothing for other items.

    `site` is the site's address (not read from the item's link, which a pretty permalink makes a path)."""
    if item.get("type") not in DOCUMENT_TYPES or not isinstance(item.get("id"), int):
        return None
    version = _document_style_version(app, item["id"])
    if version == _NO_DOCUMENT:
        return None
    return theme.render(app, __package__, "builder_head.html", {"site": site, "post_id": item["id"], "version": version})


class _ReadRequest:
    """What the content service reads of a request: a session and the (anonymous) reader."""

    def __init__(self, app, session):
        self.app, self.session, self.user = app, session, ANONYMOUS


def _css_response(body: str) -> PageAnswer:
    return PageAnswer(body, content_type="text/css; charset=utf-8", headers={"Cache-Control": "no-cache"})


def serve_page_css(app, request: PageRequest):
    return _css_response(PAGE_CSS)


def serve_document_css(app, request: PageRequest, post_id):
    with app.db.session() as session:
        item = app.content.get(_ReadRequest(app, session), int(post_id))
    status = app.registry.statuses.get(item["status"]) if item else None
    if item is None or item["type"] not in DOCUMENT_TYPES or status is None or not status[0].public \
            or item.get("password"):
        return not_found()
    cache = app.kept("builder.document_css", DOCUMENT_CSS_ENTRIES)
    with app.db.session() as session:
        version = (item.get("modified"), kit_version(app, session),
                   hashlib.sha1(str(item["meta"].get("_builder_data")).encode("utf-8")).hexdigest())
    found = cache.get(item["id"], version)
    if found is None:
        rendered = render_both(app, item)
        if rendered is None:
            return not_found()
        found = rendered[1]
        cache.put(item["id"], version, found)
    return _css_response(found)


def theme_stylesheets(app, request: PageRequest) -> list[str]:
    """The kit's colours and fonts for the site theme: `/builder/kit.css`, versioned by the kit (its version
    kept while nothing was committed, as a document's: every page of the site links it)."""
    version = _kept_style_versions(app).get_or_build("kit", app.db.commit_mark(), lambda: _read_kit_version(app))
    return [f"{request.site_url}/builder/kit.css?ver={version}"]


def _read_kit_version(app) -> int:
    with app.db.session() as session:
        return kit_version(app, session)


def serve_kit_css(app, request: PageRequest):
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
