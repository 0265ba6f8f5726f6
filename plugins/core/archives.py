"""Lists of posts on the public site: the blog home, category, tag and author archives and search.

Plain addresses (`/?cat=ID`, `/?tag=slug`, `/?s=words`, `/?paged=2`) always work; with a permalink
structure the archives also live at `/category/<slug>/`, `/tag/<slug>/`, and every list pages on
at `.../page/N/`. Authors are at `/author/<slug>/` (their REST `link`) whatever the structure.
Only published posts are listed; an author with none published has no archive (404), so the
list never tells who writes only drafts.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

from sqlalchemy import select

from host import ANONYMOUS, HtmlView, PageRequest, theme
from host.auth.users import tables as user_tables, User, has_published
from host.content import service_request

from .render import plain_text, render_excerpt, render_title
from .tables import tables
from .public_links import public_link

MAX_PAGE = 1000  # pages of a list a visitor may ask for
MAX_SEARCH_PAGE = 10  # a search pages through at most this many pages (it merges posts and pages)
MAX_SEARCH_LENGTH = 200
LIST_QUERY_KEYS = frozenset({"paged", "s", "cat", "tag"})
_PRETTY = re.compile(r"/(?:(?P<kind>category|tag|author)/(?P<slug>[^/]{1,200})/)?(?:page/(?P<page>\d{1,4})/?)?")


def list_view(app, request: PageRequest) -> HtmlView | None:
    """The list a front-page query asks for; None when the query holds anything else (another plugin's)."""
    keys = set(request.query.keys())
    if not keys <= LIST_QUERY_KEYS:
        return None
    page = _page_number(request.query_text("paged", "1"))
    if page is None:
        return _not_found(app)
    if "s" in keys:
        return _search(app, request, request.query_text("s"), page)
    if "cat" in keys:
        term = _term(app, "category", term_id=request.query_text("cat"))
        return _term_archive(app, request, term, "Category", page)
    if "tag" in keys:
        term = _term(app, "post_tag", slug=request.query_text("tag"))
        return _term_archive(app, request, term, "Tag", page)
    return _home(app, request, page)


def pretty_list_view(app, request: PageRequest) -> HtmlView | None:
    """`/page/2/`, `/category/<slug>/`, `/tag/<slug>/`, `/author/<slug>/` and their `page/N/`; None: not a list."""
    match = _PRETTY.fullmatch(request.path)
    if match is None or request.path == "/":
        return None
    page = _page_number(match["page"] or "1")
    if page is None:
        return None
    kind, slug = match["kind"], match["slug"]
    if kind == "author":
        return _author_archive(app, request, slug, page)
    if kind is not None and not app.settings.site.get("permalink_structure"):
        return None
    if kind == "category":
        return _term_archive(app, request, _term(app, "category", slug=slug), "Category", page)
    if kind == "tag":
        return _term_archive(app, request, _term(app, "post_tag", slug=slug), "Tag", page)
    return _home(app, request, page)


def _page_number(text: str) -> int | None:
    return int(text) if text.isdigit() and 1 <= int(text) <= MAX_PAGE else None


def _not_found(app) -> HtmlView:
    return HtmlView("Page not found", theme.render(app, __package__, "public_message.html", {"done": "nothing-here"}), status=404)


def _per_page(app, session) -> int:
    stored = session.execute(select(tables(app)["site_settings"].c.value)
                             .where(tables(app)["site_settings"].c.key == "posts_per_page")).scalar()
    return int(stored) if stored and stored.isdigit() and 1 <= int(stored) <= 100 else 10


def _term(app, taxonomy: str, *, term_id: str | None = None, slug: str = "") -> dict | None:
    terms = tables(app)["terms"]
    query = select(terms.c.id, terms.c.name, terms.c.slug, terms.c.description).where(terms.c.taxonomy == taxonomy)
    if term_id is not None:
        if not term_id.isdigit() or len(term_id) > 10:
            return None
        query = query.where(terms.c.id == int(term_id))
    else:
        query = query.where(terms.c.slug == slug[:200])
    with app.db.session() as session:
        row = session.execute(query.limit(1)).first()
    return dict(row._mapping) if row is not None else None


def _list(app, request: PageRequest, title: str, page: int, *, intro: str = "", search: str | None = None, **filters) -> HtmlView:
    with app.db.session() as session:
        reader = service_request(app, session, ANONYMOUS)
        per_page = _per_page(app, session)
        items, total = app.content.query(reader, "post", per_page=per_page, page=page, **filters)
    return _answer(app, request, title, page, items, total, per_page, intro=intro, search=search)


def _answer(app, request: PageRequest, title, page, items, total, per_page, *, intro="", search=None) -> HtmlView:
    pages = max(1, -(-total // per_page))
    if page > pages:
        return _not_found(app)
    site = request.site_url
    entries = [_entry(app, site, item) for item in items]
    context = {"entries": entries, "intro": intro, "search": search, "site_url": site,
               "newer": _page_url(app, request, page - 1) if page > 1 else "",
               "older": _page_url(app, request, page + 1) if page < pages else "",
               "page": page, "pages": pages, "total": total}
    heading = title if page == 1 else f"{title} (page {page} of {pages})"
    return HtmlView(heading, theme.render(app, __package__, "public_list.html", context))


def _entry(app, site: str, item: dict) -> dict:
    summary = plain_text(render_excerpt(app, item, item.get("excerpt") or "", item.get("content") or "")).strip()
    if item.get("password"):
        summary = "This content is password protected."
    date = item["date"]
    return {"title": html.unescape(render_title(item["title"] or "")) or "(no title)", "link": public_link(app, site, item),
            "date": date, "date_text": f"{date:%B} {date.day}, {date:%Y}", "summary": summary[:300],
            "type": item["type"]}


def _page_url(app, request: PageRequest, page: int) -> str:
    """The same list's address at `page`: `.../page/N/` for pretty paths, `?paged=N` for queries."""
    site = request.site_url
    home_pretty = request.path == "/" and set(request.query.keys()) <= {"paged"} \
        and app.settings.site.get("permalink_structure")
    if request.path != "/" or home_pretty:
        base = re.sub(r"page/\d+/?$", "", request.path)
        base = base if base.endswith("/") else base + "/"
        return site + base + (f"page/{page}/" if page > 1 else "")
    query = [(key, value) for key, value in request.query_pairs if key != "paged"]
    if page > 1:
        query.append(("paged", str(page)))
    return f"{site}/" + (f"?{urlencode(query)}" if query else "")


def _home(app, request: PageRequest, page: int) -> HtmlView:
    identity = app.site_identity()
    return _list(app, request, identity["name"] or "Latest news", page, intro=identity["description"])


def _term_archive(app, request: PageRequest, term: dict | None, label: str, page: int) -> HtmlView:
    if term is None:
        return _not_found(app)
    taxonomy = "category" if label == "Category" else "post_tag"
    return _list(app, request, f"{label}: {term['name']}", page, intro=plain_text(term["description"] or ""),
                 terms={taxonomy: [term["id"]]})


def _author_archive(app, request: PageRequest, slug: str, page: int) -> HtmlView:
    users = user_tables(app)["users"]
    with app.db.session() as session:
        row = session.execute(select(users).where(users.c.slug == slug[:200])).first()
        author = User(app, row) if row is not None else None
        if author is None or not has_published(app, session, author.id):
            return _not_found(app)
    return _list(app, request, f"Author: {author.display_name}", page, intro=plain_text(author.description or ""),
                 author=[author.id])


def _search(app, request: PageRequest, words: str, page: int) -> HtmlView:
    """Published posts and pages matching `words`, newest first (at most MAX_SEARCH_PAGE pages)."""
    words = words.strip()
    if not words:
        return HtmlView("Search", theme.render(app, __package__, "public_list.html", {
            "entries": [], "intro": "", "search": "", "site_url": request.site_url, "newer": "",
            "older": "", "page": 1, "pages": 1, "total": 0}))
    if len(words) > MAX_SEARCH_LENGTH or page > MAX_SEARCH_PAGE:
        return HtmlView("Search", theme.render(app, __package__, "public_message.html", {"done": "search-too-long"}), status=400)
    with app.db.session() as session:
        reader = service_request(app, session, ANONYMOUS)
        per_page = _per_page(app, session)
        window = min(100, per_page * page)
        found, total = [], 0
        for post_type in ("post", "page"):
            items, count = app.content.query(reader, post_type, search=words, per_page=window, page=1)
            found.extend(items)
            total += count
    found.sort(key=lambda item: (item["date"], item["id"]), reverse=True)
    shown = found[(page - 1) * per_page: page * per_page]
    total = min(total, MAX_SEARCH_PAGE * per_page)
    return _answer(app, request, f"Search results for “{words}”", page, shown, total, per_page, search=words)
