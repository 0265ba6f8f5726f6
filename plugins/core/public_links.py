"""Where a public item lives and whether visitors may see it: shared by the item, archive and comment views."""

from __future__ import annotations

from host import ANONYMOUS, HtmlView, theme
from host.content import service_request

from .permalinks import page_path, post_path, structure
from .shaping import permalink, public_status, readable_by_anyone


def public_link(app, site: str, item: dict) -> str:
    """The public address of a published post or page (pretty under a permalink structure)."""
    permalink_structure = structure(app)
    if not permalink_structure:
        return f"{site}/?page_id={item['id']}" if item["type"] == "page" else f"{site}/?p={item['id']}"
    with app.db.session() as session:
        if item["type"] == "page":
            return site + page_path(app, session, item)
        return site + post_path(app, session, permalink_structure, item)


def not_found_view(app) -> HtmlView:
    return HtmlView("Page not found", theme.render(app, __package__, "public_message.html", {"done": "nothing-here"}), status=404)


def link_of(app, request, item: dict) -> str:
    with app.db.session() as session:
        reader = service_request(app, session, ANONYMOUS)
        reader.base_url = app.rest_base_url(request.environ)
        return permalink(reader, item)


def viewable(app, item: dict) -> bool:
    if item["status"] == "inherit":  # an attachment: public when what it is attached to is (or nothing)
        return item["type"] == "attachment" and readable_by_anyone(app, item)
    return public_status(app, item["status"])
