"""The site's sitemaps, as WordPress serves them (wp-includes/sitemaps), and its robots.txt.

`/wp-sitemap.xml` is the index: one `/wp-sitemap-posts-<type>-<n>.xml` per page of each public
post type (attachments excluded, as WordPress does), one `/wp-sitemap-taxonomies-<taxonomy>-<n>.xml`
per page of each taxonomy's terms in use, and `/wp-sitemap-users-<n>.xml` for the authors of
something published; each page holds at most 2,000 URLs, and a page past the last answers 404.
Only published, unprotected items appear; their `<loc>` is the item's REST `link` (core's
permalink), `<lastmod>` their modification time. The XSL stylesheets WordPress links for browsers
are left out: the sitemaps are for crawlers, and an XSL served by us would only restyle them.
"""

from __future__ import annotations

import datetime
import math
import xml.etree.ElementTree as ElementTree

from sqlalchemy import func, select

from host import ANONYMOUS, Page, PageAnswer, PageRequest, not_found, redirect
from host.auth import users as user_service
from host.content import service_request

from . import store
from .shaping import permalink
from .tables import tables
from .terms import term_link

SITEMAP_NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 2000  # per sitemap page: wp_sitemaps_get_max_urls()
MAX_PAGE_DIGITS = 6  # a page number longer than this is no page of ours (and costs no query)
XML_TYPE = "application/xml; charset=UTF-8"
EXCLUDED_POST_TYPES = ("attachment",)  # WordPress's posts provider leaves media out


def sitemap_pages() -> list[Page]:
    page = f"<page:re:[1-9][0-9]{{0,{MAX_PAGE_DIGITS - 1}}}>"  # 1 to 999999: page 0 is no page either
    methods = ("GET", "HEAD")
    return [
        Page("/wp-sitemap.xml", methods, _index, name="sitemap_index", cacheable=True),
        Page(f"/wp-sitemap-posts-<subtype>-{page}.xml", methods, _posts_sitemap, cacheable=True),
        Page(f"/wp-sitemap-taxonomies-<subtype>-{page}.xml", methods, _taxonomies_sitemap, cacheable=True),
        Page(f"/wp-sitemap-users-{page}.xml", methods, _users_sitemap, cacheable=True),
        Page("/sitemap.xml", methods, _to_index),  # WordPress redirects the usual guess to its index
        Page("/robots.txt", methods, _robots, cacheable=True),
    ]


# --- what is listed ------------------------------------------------------------------------------

def sitemap_post_types(app) -> list[str]:
    return [name for name, (post_type, *_rest) in app.registry.post_types.items()
            if post_type.public and name not in EXCLUDED_POST_TYPES]


def _post_query(post_type: str, per_page: int) -> store.PostQuery:
    return store.PostQuery(post_type, per_page=per_page, orderby="id", order="asc", hide_password_protected=True)


def _post_total(app, session, post_type: str) -> int:
    _rows, total = store.list_rows(app, session, _post_query(post_type, 1), 1)
    return total


def _used_terms(app, taxonomy: str):
    """Terms filed on something published (WordPress's `hide_empty`; the stored counts count only those)."""
    terms = tables(app)["terms"]
    return select(terms.c.id, terms.c.slug, terms.c.taxonomy).where(terms.c.taxonomy == taxonomy, terms.c.count > 0)


def _published_authors(app):
    """Authors of something published of a type that has a sitemap (the users provider's rule)."""
    users, posts = user_service.tables(app)["users"], tables(app)["posts"]
    authors = select(posts.c.author).where(posts.c.status == "publish", posts.c.type.in_(sitemap_post_types(app)))
    return select(users.c.id, users.c.slug).where(users.c.id.in_(authors))


def _count(session, statement) -> int:
    return session.execute(select(func.count()).select_from(statement.subquery())).scalar_one()


def _pages(total: int) -> int:
    return math.ceil(total / MAX_URLS)


# --- the answers ---------------------------------------------------------------------------------

def _index(app, request: PageRequest):
    site = request.site_url
    sitemaps = []
    with app.db.session() as session:
        for post_type in sitemap_post_types(app):
            total = _post_total(app, session, post_type)
            if post_type == "page" and _home_listed(app):
                total += 1
            sitemaps += [f"{site}/wp-sitemap-posts-{post_type}-{n}.xml" for n in range(1, _pages(total) + 1)]
        for taxonomy in app.registry.taxonomies:
            total = _count(session, _used_terms(app, taxonomy))
            sitemaps += [f"{site}/wp-sitemap-taxonomies-{taxonomy}-{n}.xml" for n in range(1, _pages(total) + 1)]
        total = _count(session, _published_authors(app))
        sitemaps += [f"{site}/wp-sitemap-users-{n}.xml" for n in range(1, _pages(total) + 1)]
    root = ElementTree.Element("sitemapindex", xmlns=SITEMAP_NAMESPACE)
    for address in sitemaps:
        ElementTree.SubElement(ElementTree.SubElement(root, "sitemap"), "loc").text = address
    return _xml(root)


def _posts_sitemap(app, request: PageRequest, subtype: str, page: str):
    if subtype not in sitemap_post_types(app):
        return not_found()
    number = int(page)
    site = request.site_url
    urls: list[tuple[str, datetime.datetime | None]] = []
    home = subtype == "page" and _home_listed(app)
    with app.db.session() as session:
        content_request = service_request(app, session, ANONYMOUS)
        # The home page is the first URL of the pages' first sitemap, when the front page lists posts.
        rows, _total = _page_rows(app, session, _post_query(subtype, MAX_URLS), number, home)
        if home and number == 1:
            urls.append((site + "/", None))
        for row in rows:
            item = store.row_to_item(app, row, subtype)
            urls.append((permalink(content_request, item, site), item["modified_gmt"]))
    if not urls:
        return not_found()
    return _urlset(urls)


def _page_rows(app, session, query: store.PostQuery, number: int, home: bool):
    """The rows of sitemap page `number`; with the home URL first on page 1, every page shifts by one."""
    if not home:
        return store.list_rows(app, session, query, number)
    query.offset = max(0, (number - 1) * MAX_URLS - 1)
    query.per_page = MAX_URLS - 1 if number == 1 else MAX_URLS
    return store.list_rows(app, session, query, 1)


def _taxonomies_sitemap(app, request: PageRequest, subtype: str, page: str):
    if subtype not in app.registry.taxonomies:
        return not_found()
    site = request.site_url
    terms = tables(app)["terms"]
    with app.db.session() as session:
        content_request = service_request(app, session, ANONYMOUS)
        rows = session.execute(_used_terms(app, subtype).order_by(terms.c.id)
                               .offset((int(page) - 1) * MAX_URLS).limit(MAX_URLS)).all()
        urls = [(term_link(content_request, subtype, dict(row._mapping), site), None) for row in rows]
    if not urls:
        return not_found()
    return _urlset(urls)


def _users_sitemap(app, request: PageRequest, page: str):
    site = request.site_url
    users = user_service.tables(app)["users"]
    with app.db.session() as session:
        rows = session.execute(_published_authors(app).order_by(users.c.id)
                               .offset((int(page) - 1) * MAX_URLS).limit(MAX_URLS)).all()
    if not rows:
        return not_found()
    return _urlset([(f"{site}/author/{row.slug}/", None) for row in rows])


def _home_listed(app) -> bool:
    """WordPress lists the home page in the pages' sitemap when the front page shows the latest posts."""
    return str(app.settings.site.get("show_on_front", "posts")) == "posts"


def _urlset(urls: list[tuple[str, datetime.datetime | None]]) -> PageAnswer:
    root = ElementTree.Element("urlset", xmlns=SITEMAP_NAMESPACE)
    for address, modified in urls:
        entry = ElementTree.SubElement(root, "url")
        ElementTree.SubElement(entry, "loc").text = address
        if modified is not None:
            ElementTree.SubElement(entry, "lastmod").text = modified.replace(
                tzinfo=datetime.timezone.utc, microsecond=0).isoformat()
    return _xml(root)


def _xml(root) -> PageAnswer:
    return PageAnswer(ElementTree.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n",
                      content_type=XML_TYPE,
                      headers={"X-Robots-Tag": "noindex, follow"})  # as WordPress: crawl the sitemap, list its URLs


def _to_index(app, request: PageRequest):
    return redirect(request.site_url + "/wp-sitemap.xml", 301)


# --- robots.txt ----------------------------------------------------------------------------------

def _robots(app, request: PageRequest):
    """WordPress's default rules with our admin area's address, and where the sitemap is."""
    site = request.site_url
    return PageAnswer(f"User-agent: *\nDisallow: /admin/\n\nSitemap: {site}/wp-sitemap.xml\n",
                      content_type="text/plain; charset=utf-8")
