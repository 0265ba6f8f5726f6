"""HTML views of published posts and pages at their plain permalinks (/?p=ID, /?page_id=ID).

Only what anyone may read is shown: published items (and scheduled ones whose time has
come). A password-protected item shows its title and a notice, never its content. Each
view sends the REST `alternate` link (header and head tag) and lets other plugins add
head tags (oEmbed discovery) through `html_head`.
"""

from __future__ import annotations

import html
import json

import jinja2
from markupsafe import Markup
from marshmallow import Schema, ValidationError, fields, validate
from sqlalchemy import select

from host import ANONYMOUS, HtmlView, MenuEntry, Page, PageRequest, redirect, theme
from host.content import service_request
from host.ratelimit import RateLimit, take
from host.signing import Signer
from host.text import without_style_attributes
from host.auth.users import get_user

from . import store
from .archives import list_view, pretty_list_view
from .render import autop, plain_text, render_content, render_excerpt, render_title, texturize
from .permalinks import page_path, resolve, structure
from .public_comments import section_context, thread
from .public_links import link_of as _link_of, not_found_view, public_link as public_link, viewable as _viewable
from .settings import settings_of
from .shaping import public_status, text_gated
from .tables import tables

PERMALINK_QUERIES = (("p", "post", "posts"), ("page_id", "page", "pages"), ("attachment_id", "attachment", "media"))
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"),
                               autoescape=True, undefined=jinja2.StrictUndefined)
PASSWORD_COOKIE = "wp-postpass"
MAX_PASSWORD = 255  # WordPress's post_password column


def permalink_view(app, request: PageRequest) -> HtmlView | None:
    """The view for `?p=`, `?page_id=`, `?attachment_id=` or `?post_type=X&p=`; None when the query is not a
    permalink. An item with a pretty link (permalink structure, a type's rewrite) is redirected there (301)."""
    for key, post_type, rest_base in PERMALINK_QUERIES:
        if key not in request.query:
            continue
        value = request.query_text(key)
        if key == "p" and request.query_text("post_type"):
            registered = app.registry.post_types.get(request.query_text("post_type"))
            if registered is None or not registered[0].public:  # a type without public pages (WordPress: 404)
                return not_found_view(app)
            post_type, rest_base = registered[0].name, registered[0].rest_base or registered[0].name
        item, version = _published_item(app, request, value, post_type)
        if item is None:
            return not_found_view(app)
        link = _link_of(app, request, item)
        if "?" not in link:
            return HtmlView("Moved", "", status=301, headers=(("Location", link),))
        if text_gated(app, item["type"]):  # whose text its plugin's own pages show, to whom it decides
            return not_found_view(app)
        return _view(app, request, item, rest_base, link, version)
    return list_view(app, request)


def pretty_view(app, request: PageRequest) -> HtmlView | None:
    """The item a pretty path names (`/2026/03/sports-day/`, `/about/history/`), shown when anyone may read
    it; a path that names it in another form (an old date) moves to its link. None: not ours (404)."""
    listed = pretty_list_view(app, request)
    if listed is not None:
        return listed
    with app.db.session() as session:
        version = _content_version(app, request, session)  # before the item: see _shared_parts
        item, path, here = resolve(app, session, request.path)
    if item is None or not _viewable(app, item):
        return None
    if not here:
        return HtmlView("Moved", "", status=301, headers=(("Location", request.site_url + path),))
    rest_base = {"page": "pages", "attachment": "media"}.get(item["type"], "posts")
    return _view(app, request, item, rest_base, request.site_url + path, version)


VERSION_READ = "sitehost.core.content_version"  # environ: the version an item view read before its item


def _content_version(app, request: PageRequest, session) -> int | None:
    """The content version now, noted in the request for the header menu (`menu_pages`) to use."""
    version = request.environ[VERSION_READ] = store.content_version(app, session)
    return version


def _published_item(app, request: PageRequest, value: str, post_type: str) -> tuple[dict | None, int | None]:
    """(the item anyone may read, or None; the content version read before it)."""
    if not value.isdigit() or len(value) > 10:
        return None, None
    with app.db.session() as session:
        version = _content_version(app, request, session)  # before the item: see _shared_parts
        item = store.get_item(app, session, int(value), post_type)
    if item is None or not _viewable(app, item):
        return None, version
    return item, version


def password_cookie_value(app, item: dict) -> str:
    """What the visitor's cookie holds after the right password: a keyed digest, never the password."""
    return app.signer("post_password").digest(f"{item['id']}:{item['password']}")


def _unlocked(app, request: PageRequest, item: dict) -> bool:
    if not item.get("password"):
        return True
    sent = request.cookie(f"{PASSWORD_COOKIE}-{item['id']}") or ""
    return Signer.matches(sent, password_cookie_value(app, item))


def _view(app, request: PageRequest, item: dict, rest_base: str, link: str, version: int | None) -> HtmlView:
    rest_url = f"{app.rest_base_url(request.environ)}/core/v2/{rest_base}/{item['id']}"
    title = plain_text(render_title(item["title"] or ""))  # the page title, og:title and JSON-LD carry no markup
    unlocked = _unlocked(app, request, item)
    context = {"item": item, "link": link, "unlocked": unlocked, "site_url": request.site_url,
               "wrong_password": request.query_text("password") == "wrong", "content": "", "meta": None, "image": None,
               "attachment": None}
    parts = _shared_parts(app, request, item, link, version)
    if unlocked:
        # The view's CSP refuses inline styles; the stylesheets that plugins link (html_head) carry them.
        context["content"] = Markup(without_style_attributes(render_content(app, item, item["content"] or "")))
        context["image"] = parts["image"]
    context["meta"] = parts["meta"]
    if item["type"] == "attachment":
        context["attachment"] = _attachment_file(app, request, item)
    body = theme.render(app, __package__, "public_item.html", context)
    personal = False  # the page names the signed-in visitor (the comment form)
    if unlocked and item["type"] in ("post", "page"):
        section = section_context(app, request, item, link, parts["comments"], parts["comment_list"])
        if item["type"] == "post" or section["open"] or section["comments"]:  # a page with none shows no section
            body += theme.render(app, __package__, "public_comments.html", section)
            personal = section["user"] is not None
    head = str(theme.render(app, __package__, "public_json_link.html", {"rest_url": rest_url}))
    head += _summary_tags(app, item, parts["image"]) if unlocked else ""
    head += _sharing_tags(app, request, item, title, link, context["image"] if unlocked else None, unlocked)
    view_item = {"id": item["id"], "type": item["type"], "status": item["status"], "link": link,
                 "rest_url": rest_url, "title": title, "protected": bool(item.get("password"))}
    headers = [("Link", f'<{rest_url}>; rel="alternate"; title="JSON"; type="application/json"')]
    if personal:
        headers.append(("Cache-Control", "private, no-store"))
    elif item.get("password"):
        headers.append(("Cache-Control", "no-store"))  # what it shows depends on the visitor's cookie
    return HtmlView(title=title, body_html=body, item=view_item, head_html=head, headers=tuple(headers))


VIEW_PARTS_ENTRIES = 64  # items whose shared parts a process keeps
VIEW_PARTS_LIST_CHARS = 256 * 1024  # a longer comment list's HTML is built per request, not kept


def _shared_parts(app, request: PageRequest, item: dict, link: str, version: int | None) -> dict:
    """What an item's page shows every visitor alike: its featured image, a post's date, author and terms,
    and the approved comments of a post or page (with their list's HTML). Kept per content version
    (triggers bump it with every write to items, terms, comments, users and settings), read before the
    item, so that a write committed in between leaves these parts under the older version, built again on
    the next request."""
    site = request.site_url
    kept = app.kept("core.view_parts", VIEW_PARTS_ENTRIES)
    key = (item["id"], site, link)
    found = kept.get(key, version)
    if found is None:
        comments = thread(app, item["id"]) if item["type"] in ("post", "page") else []
        found = {"image": _featured_image(app, request, item),
                 "meta": _post_meta(app, request, item) if item["type"] == "post" else None,
                 "comments": comments,
                 "comment_list": theme.render(app, __package__, "public_comment_list.html", {
                     "comments": comments, "open": item.get("comment_status") == "open", "link": link})}
        if len(found["comment_list"]) <= VIEW_PARTS_LIST_CHARS:
            kept.put(key, version, found)
    return found


def _post_meta(app, request: PageRequest, item: dict) -> dict:
    """Date, author and terms of a post, with the links of their archives."""
    site = request.site_url
    with app.db.session() as session:
        author = get_user(app, session, int(item["author"])) if item.get("author") else None
        ids = [term_id for pairs in (item.get("terms") or {}).values() for term_id, _slug in pairs]
        names = dict(session.execute(select(tables(app)["terms"].c.id, tables(app)["terms"].c.name)
                                     .where(tables(app)["terms"].c.id.in_(ids))).all()) if ids else {}
    terms = item.get("terms") or {}
    return {
        "date": item["date"], "date_text": f"{item['date']:%B} {item['date'].day}, {item['date']:%Y}",
        "author": {"name": author.display_name, "url": f"{site}/author/{author.slug}/"} if author else None,
        "categories": [{"name": names.get(term_id, slug),
                        "url": f"{site}/category/{slug}/" if structure(app) else f"{site}/?cat={term_id}"}
                       for term_id, slug in terms.get("category", [])],
        "tags": [{"name": names.get(term_id, slug), "url": f"{site}/tag/{slug}/" if structure(app) else f"{site}/?tag={slug}"}
                 for term_id, slug in terms.get("post_tag", [])],
    }


def _attachment_file(app, request: PageRequest, item: dict) -> dict | None:
    """What an attachment's page shows of its file: the image (with its alt text) or a link to the file,
    and the caption; None when no file is stored."""
    if not item.get("file"):
        return None
    caption = autop(texturize(item["excerpt"])) if item.get("excerpt") else ""  # as core/v2/media's caption
    return {"url": f"{request.site_url}/uploads/{item['file']}",
            "is_image": (item.get("mime_type") or "").startswith("image/"), "alt": item.get("alt_text") or "",
            "name": item["file"].rsplit("/", 1)[-1], "caption": Markup(without_style_attributes(caption))}


def _sharing_tags(app, request: PageRequest, item: dict, title: str, link: str, image: dict | None, unlocked: bool) -> str:
    """<link rel="canonical">, Open Graph and a JSON-LD `BlogPosting` (posts) or `WebPage` block. The JSON is
    a data block (`type="application/ld+json"`), which CSP `script-src` does not run; `<`, `>` and `&` are
    written as \\u escapes so no text of the item can close the element."""
    description = _summary(app, item) if unlocked else ""
    data = {"@context": "https://schema.org", "@type": "BlogPosting" if item["type"] == "post" else "WebPage",
            "headline" if item["type"] == "post" else "name": title, "url": link, "mainEntityOfPage": link}
    if item["type"] == "post":
        data["datePublished"] = item["date_gmt"].isoformat() + "Z" if item.get("date_gmt") else item["date"].isoformat()
        data["dateModified"] = item["modified_gmt"].isoformat() + "Z" if item.get("modified_gmt") else data["datePublished"]
    if description:
        data["description"] = description
    if image:
        data["image"] = image["src"]
    publisher = app.site_identity()["name"]
    if publisher:
        data["publisher"] = {"@type": "Organization", "name": publisher}
    json_ld = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return str(theme.render(app, __package__, "public_head.html", {
        "link": link, "title": title, "og_type": "article" if item["type"] == "post" else "website",
        "site_name": publisher, "description": description, "json_ld": Markup(json_ld)}))


def _summary(app, item: dict) -> str:
    summary = plain_text(render_excerpt(app, item, item.get("excerpt") or "", item.get("content") or "")).strip()
    if len(summary) > DESCRIPTION_LENGTH:
        summary = summary[:DESCRIPTION_LENGTH - 1].rstrip() + "\u2026"
    return summary


DESCRIPTION_LENGTH = 300  # characters of the summary a link preview shows


def _summary_tags(app, item: dict, image: dict | None) -> str:
    """<meta name="description"> (the excerpt as text) and <meta property="og:image"> (the featured
    image): what link previews (block-editor/v1/url-details, other sites) read of the page. A
    password-protected item gives no summary."""
    if item.get("password"):
        return ""
    summary = _summary(app, item)
    return TEMPLATES.get_template("summary_tags.html").render(description=summary, image=image["src"] if image else "")


def _featured_image(app, request: PageRequest, item: dict) -> dict | None:
    """{"src", "alt"} of the item's featured image, when it is a file anyone may read."""
    if not item.get("featured_media"):
        return None
    with app.db.session() as session:
        media = store.get_item(app, session, int(item["featured_media"]), "attachment")
    if media is None or not media.get("file") or (not public_status(app, media["status"]) and media["status"] != "inherit"):
        return None
    alt = media.get("alt_text") or ""
    return {"src": f"{request.site_url}/uploads/{media['file']}", "alt": alt}


MENU_PAGES = 12  # top-level pages the header menu shows at most; a longer list belongs in a page of its own


def menu_pages(app, request: PageRequest) -> list[MenuEntry]:
    """The site menu's share of core: published top-level pages by `menu_order`, then title.

    Every page of the site shows it, so the entries are kept per content version (bumped in the writing
    transaction by every change to an item): read before the pages, so that a write committed between
    the two reads leaves the entries under the older version, built again on the next request. An item
    view has read the version already (VERSION_READ): kept entries of that version answer without a
    read of their own, as of the same moment as the item. Other pages (the calendar's, the catalogue's)
    skip the version's read too while nothing at all was committed since the entries were built (the
    database's commit mark, host `Database.commit_mark`, on an SQLite file). A scheduled page joins
    when the publishing job publishes it (within its 30 seconds)."""
    kept = app.kept("core.menu_pages", 1)  # "menu": (entries, the commit mark read before), at a content version
    held = kept.stored("menu")
    if held is not None and held[0] == request.environ.get(VERSION_READ):
        return held[1][0]
    mark = app.db.commit_mark()  # before the version: a commit in between changes the next mark
    if held is not None and mark is not None and held[1][1] == mark:
        return held[1][0]
    with app.db.session() as session:
        reader = service_request(app, session, ANONYMOUS)
        version = app.content.version(reader)
        held = kept.stored("menu")
        if version is not None and held is not None and held[0] == version:
            kept.put("menu", version, (held[1][0], mark))
            return held[1][0]
        pages, _total = app.content.query(reader, "page", parent=[0], orderby="menu_order", order="asc",
                                          per_page=MENU_PAGES)
        paths = {page["id"]: page_path(app, session, page) if structure(app) else f"/?page_id={page['id']}"
                 for page in pages}
    entries = [MenuEntry(html.unescape(render_title(page["title"] or "")) or f"#{page['id']}",
                         paths[page["id"]], order=page.get("menu_order") or 0) for page in pages]
    kept.put("menu", version, (entries, mark))  # (nothing is kept without a version)
    return entries


class PasswordFormArgs(Schema):
    """The password form of a protected item (`POST /postpass`)."""

    post_id = fields.Integer(required=True, strict=False, validate=validate.Range(min=1, max=2**31 - 1))
    post_password = fields.String(required=True, validate=validate.Length(max=MAX_PASSWORD))


def password_page() -> Page:
    return Page("/postpass", ("POST",), submit_password, name="core-postpass")


POSTPASS_SCOPE = "core.postpass"


def _postpass_wait(app, request: PageRequest) -> int:
    """Count one password form from the client's address (host.ratelimit, `[plugins.core] postpass_limit` per
    `postpass_window_seconds`); the seconds to wait when its window is already full, else 0."""
    settings = settings_of(app)
    rule = RateLimit(POSTPASS_SCOPE, settings.postpass_limit, settings.postpass_window_seconds)
    with app.db.session(write=True) as session, session.begin():
        return take(app, session, rule, request.client_address or "-")


def submit_password(app, request: PageRequest):
    """WordPress's `post_password` flow: the right password sets a cookie that unlocks the item, and the
    visitor goes back to it (303); a wrong one goes back with a notice. Only public items take part.
    Every submission counts against the client address's limit; past it the answer is 429 and no password
    is compared, so the form cannot be used to guess one."""
    wait = _postpass_wait(app, request)
    if wait:
        body = theme.render(app, __package__, "public_postpass_limited.html", {"minutes": -(-wait // 60)})
        return app.render_view(HtmlView("Too many attempts", body, status=429, headers=(
            ("Retry-After", str(wait)), ("Cache-Control", "no-store"))))
    try:
        args = PasswordFormArgs().load({key: request.form[key] for key in ("post_id", "post_password")
                                        if key in request.form})
    except ValidationError:
        return app.render_view(HtmlView("Bad request", theme.render(app, __package__, "public_message.html", {"done": "bad-form"}), status=400))
    with app.db.session() as session:
        item = store.get_item(app, session, args["post_id"])
    if item is None or not item.get("password") or not _viewable(app, item):
        return app.render_view(not_found_view(app))
    link = _link_of(app, request, item)
    if Signer.matches(args["post_password"], item["password"]):
        response = redirect(link)
        response.set_cookie(f"{PASSWORD_COOKIE}-{item['id']}", password_cookie_value(app, item), path="/",
                            httponly=True, samesite="lax", max_age=10 * 24 * 3600)
    else:
        response = redirect(link + ("&" if "?" in link else "?") + "password=wrong")
    response.set_header("Cache-Control", "no-store")
    return response
