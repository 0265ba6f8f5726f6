"""Old links keep working: an old permalink (`/2025/01/slug/`, `/?p=OLD_ID`, `/event/slug/`,
`/wp-content/uploads/...`) that nothing on this site answers is redirected (301) to the item it became.

Only addresses nothing else serves are looked up (the 404 path, and `/?p=` / `/?page_id=` of ids that
are not this site's), so the site's own pages are never shadowed; and only items anyone may read are
redirected to, so the table tells nobody about drafts or private items.
"""

from __future__ import annotations

import urllib.parse

from sqlalchemy import bindparam, select

from host import ANONYMOUS, HtmlView, theme
from host.content import service_request

from .tables import tables

MAX_PATH = 500
PUBLIC_STATUSES = ("publish", "inherit")
# Every `/?p=ID` page view asks for an old-id redirect first: the answers (mostly "none") are kept while
# nothing at all was committed (`app.kept` tied to the commit mark), so a page read costs a commit-mark probe,
# not a session and a query. An import, a new item or a changed setting is a commit: asked again after it.
KEPT_LOOKUP_ENTRIES = 1024
KEPT_LOOKUP_SECONDS = 60.0  # a bound for what no commit shows (a database file swapped under the site)
_NO_REDIRECT = ""  # kept for a key without a redirect (None means "not kept")


def old_path(link: str, old_base_url: str = "") -> str | None:
    """The key of an old link: its path below the old site's base, without the final slash, with its query
    (`/2025/01/welcome-back`, `/?p=21`); None for a link to another site or one too long to keep."""
    link = (link or "").strip()
    if not link:
        return None
    parts = urllib.parse.urlsplit(link)
    base = urllib.parse.urlsplit(old_base_url or "")
    if parts.netloc:
        if not base.netloc or parts.netloc.lower() != base.netloc.lower():
            return None
    path = urllib.parse.unquote(parts.path or "/")
    base_path = base.path.rstrip("/")
    if parts.netloc and base_path and path.startswith(base_path + "/"):
        path = path[len(base_path):]
    path = "/" + path.strip("/") if path.strip("/") else "/"
    query = "&".join(sorted(part for part in parts.query.split("&") if part))
    key = path + ("?" + query if query else "")
    return key if len(key) <= MAX_PATH else None


def target_of(item: dict) -> str | None:
    """This site's address (a path) of an item anyone may read, or None."""
    if (item.get("stored_status") or item.get("status")) not in PUBLIC_STATUSES or item.get("password"):
        return None
    kind, item_id = item["type"], item["id"]
    if kind == "attachment":
        return f"/uploads/{item['file']}" if item.get("file") else None
    if kind == "page":
        return f"/?page_id={item_id}"
    if kind == "post":
        return f"/?p={item_id}"
    return f"/?post_type={urllib.parse.quote(kind)}&p={item_id}"


def lookup(app, key: str) -> str | None:
    """The redirect target (absolute) of an old path key, or None."""
    mark = app.db.commit_mark()  # before the reads: a commit in between makes the entry stale at once
    kept = app.kept("wordpress_migrate.lookups", KEPT_LOOKUP_ENTRIES, KEPT_LOOKUP_SECONDS)
    return kept.get_or_build(key, mark, lambda: _read_target(app, key) or _NO_REDIRECT) or None


def _read_target(app, key: str) -> str | None:
    table = tables(app)["wordpress_redirects"]
    statement = app.db.prepared("wordpress_migrate.redirect_target", lambda: select(table.c.new_id).where(
        table.c.path == bindparam("path")))
    with app.db.session() as session:
        new_id = session.execute(statement, {"path": key}).scalar()
        if new_id is None:
            return None
        request = service_request(app, session, ANONYMOUS)
        item = app.content.get(request, new_id)
        if item is None:
            return None
        target = target_of(item)
        return app.site_address(session) + target if target else None


def _moved(app, location: str) -> HtmlView:
    return HtmlView("Moved", theme.render(app, __package__, "wordpress_moved.html", {}), status=301, headers=(("Location", location),))


def permalink_redirect(app, request) -> HtmlView | None:
    """`/?p=OLD`, `/?page_id=OLD`, `/?attachment_id=OLD` of an imported item whose id is not this site's."""
    for name in ("p", "page_id", "attachment_id"):
        value = request.query_text(name)
        if not value.isdigit() or len(value) > 18:
            continue
        location = lookup(app, f"/?{name}={int(value)}")  # first: most addresses have no redirect
        if location is None:
            return None
        with app.db.session() as session:
            if app.content.get(service_request(app, session, ANONYMOUS), int(value)) is not None:
                return None  # this site's own item: core shows it
        return _moved(app, location)
    return None


def path_redirect(app, request) -> HtmlView | None:
    """An old permalink path that this site does not serve."""
    raw_query = request.query_string or ""
    key = old_path(request.path + ("?" + raw_query if raw_query else ""))
    if key is None:
        return None
    location = lookup(app, key)
    if location is None and raw_query:
        location = lookup(app, old_path(request.path) or "")
    return _moved(app, location) if location else None
