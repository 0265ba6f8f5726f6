"""RSS 2.0 and Atom feeds of the site's posts (all, per category, tag and author) and comments.

The addresses are WordPress's: `/feed/` and `/feed/atom/`, `/category/<slug>/feed/`,
`/tag/<slug>/feed/`, `/author/<slug>/feed/`, `/comments/feed/`, and one post's comments at
`/comments/feed/?p=<id>` (the plain `/?feed=rss2`, `/?feed=atom`, `/?feed=comments-rss2` and
`/?p=<id>&feed=rss2` redirect there). Only published items of public types are listed; a
password-protected post shows its title and link with WordPress's notice instead of its text,
and its comments stay out. The XML is written by feedgen; every feed is a cacheable page
(host.page_cache: the response cache keeps it until content changes, ETag and 304).
"""

from __future__ import annotations

import datetime
import html
from dataclasses import dataclass
from typing import Callable

import jinja2
from feedgen.feed import FeedGenerator
from sqlalchemy import and_, select

from host import ANONYMOUS, HtmlView, not_found, Page, PageAnswer, PageRequest, theme
from host.auth import users as user_service
from host.content import service_request

from . import dates, store
from .comments import render as render_comment
from .render import plain_text, render_content, render_excerpt, render_title
from .shaping import permalink
from .tables import tables

FEED_ITEMS = 10  # WordPress's posts_per_rss default; core has no such setting, so every feed lists this many
PROTECTED_NOTICE = "There is no excerpt because this is a protected post."
RSS_TYPE = "application/rss+xml; charset=UTF-8"
ATOM_TYPE = "application/atom+xml; charset=UTF-8"
EMPTY_FEED_DATE = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)  # a feed with nothing in it yet
MAX_ID_DIGITS = 18  # a longer `p` is no id of ours (and would not fit the column)
FEED_QUERIES = {"rss2": "/feed/", "rss": "/feed/", "atom": "/feed/atom/", "comments-rss2": "/comments/feed/",
                "comments-atom": "/comments/feed/atom/"}


@dataclass
class FeedEntry:
    """One entry, whatever it lists (a post or a comment), in the terms both formats need."""

    guid: str
    title: str
    link: str
    author: str
    published: datetime.datetime
    updated: datetime.datetime
    summary: str
    content: str
    categories: list[str]
    comments_link: str = ""


@dataclass
class FeedChannel:
    title: str
    link: str
    description: str
    self_path: str
    entries: list[FeedEntry]


def feed_pages() -> list[Page]:
    """Each feed in both formats (RSS 2.0 at the address, Atom under `atom/`)."""
    sources: list[tuple[str, Callable]] = [
        ("/feed/", _posts_feed), ("/category/<slug>/feed/", _category_feed), ("/tag/<slug>/feed/", _tag_feed),
        ("/author/<slug>/feed/", _author_feed), ("/comments/feed/", _comments_feed)]
    pages = []
    for path, source in sources:
        pages.append(Page(path, ("GET", "HEAD"), _handler(source, atom=False), cacheable=True))
        pages.append(Page(path + "atom/", ("GET", "HEAD"), _handler(source, atom=True), cacheable=True))
    return pages


def feed_redirect(app, request: PageRequest) -> HtmlView | None:
    """`/?feed=rss2` and the other plain feed addresses: 301 to the feed's own address (what WordPress
    answers once pretty permalinks are on); None when the query names no feed."""
    if "feed" not in request.query:
        return None
    feed = request.query_text("feed")
    site = request.site_url
    post_id = request.query_text("p") or request.query_text("page_id")
    if post_id and not (post_id.isdigit() and len(post_id) <= MAX_ID_DIGITS):
        return HtmlView("Page not found", theme.render(app, __package__, "public_message.html", {"done": "no-such-feed"}), status=404)
    if post_id:
        target = f"{site}/comments/feed/{'atom/' if feed.endswith('atom') else ''}?p={post_id}"
    elif feed in FEED_QUERIES:
        target = site + FEED_QUERIES[feed]
    else:
        return HtmlView("Page not found", theme.render(app, __package__, "public_message.html", {"done": "no-such-feed"}), status=404)
    return HtmlView("Moved", theme.render(app, __package__, "public_message.html", {"done": "feed-moved"}), status=301, headers=(("Location", target),))


def _handler(source: Callable, atom: bool):
    def handler(app, request: PageRequest, **params):
        with app.db.session() as session:
            content_request = service_request(app, session, ANONYMOUS)
            site = request.site_url
            channel = source(app, content_request, session, site, request, **params)
            if channel is None:
                return not_found()
            body = _atom(app, channel, site) if atom else _rss(app, channel, site)
        # revalidate: 304 while unchanged
        return PageAnswer(body, content_type=ATOM_TYPE if atom else RSS_TYPE, headers={"Cache-Control": "no-cache"})
    return handler


# --- what each feed lists ----------------------------------------------------------------------

def _posts_feed(app, content_request, session, site, request):
    identity = app.site_identity()
    return _post_channel(app, content_request, session, site, identity["name"], site + "/",
                         "/feed/", store.PostQuery("post", per_page=FEED_ITEMS))


def _category_feed(app, content_request, session, site, request, slug):
    return _term_feed(app, content_request, session, site, "category", slug)


def _tag_feed(app, content_request, session, site, request, slug):
    return _term_feed(app, content_request, session, site, "post_tag", slug)


def _term_feed(app, content_request, session, site, taxonomy: str, slug: str):
    terms = tables(app)["terms"]
    term = session.execute(select(terms.c.id, terms.c.name).where(
        terms.c.taxonomy == taxonomy, terms.c.slug == slug)).first()
    if term is None:
        return None
    query = store.PostQuery("post", per_page=FEED_ITEMS, tax_clauses=[
        store.TaxClause(taxonomy, [term.id], include_children=taxonomy == "category")])
    segment = "category" if taxonomy == "category" else "tag"
    return _post_channel(app, content_request, session, site, f"{app.site_identity()['name']} \u2013 {term.name}",
                         f"{site}/{segment}/{slug}/", f"/{segment}/{slug}/feed/", query)


def _author_feed(app, content_request, session, site, request, slug):
    users = user_service.tables(app)["users"]
    author = session.execute(select(users.c.id, users.c.display_name).where(users.c.slug == slug)).first()
    # Only authors of something published have a public archive (as the users route lists them).
    if author is None or not user_service.has_published(app, session, author.id):
        return None
    return _post_channel(app, content_request, session, site,
                         f"{app.site_identity()['name']} \u2013 {author.display_name}", f"{site}/author/{slug}/",
                         f"/author/{slug}/feed/", store.PostQuery("post", per_page=FEED_ITEMS, author=[author.id]))


def _post_channel(app, content_request, session, site, title, link, self_path, query) -> FeedChannel:
    rows, _total = store.list_rows(app, session, query, 1)
    items = [store.row_to_item(app, row, "post") for row in rows]
    authors = user_service.get_users(app, session, sorted({item["author"] for item in items if item["author"]}))
    term_names = _term_names(app, session, items)
    entries = []
    for item in items:
        author = authors.get(item["author"])
        if item.get("password"):
            summary = content = PROTECTED_NOTICE
        else:
            content = render_content(app, item, item["content"] or "")
            summary = plain_text(render_excerpt(app, item, item["excerpt"] or "", item["content"] or "")).strip()
        item_link = permalink(content_request, item, site)
        entries.append(FeedEntry(
            guid=item["guid"] or item_link, title=html.unescape(plain_text(render_title(item["title"] or ""))),
            link=item_link, author=author.display_name if author else "", published=_utc(app, item["date"],
                                                                                          item["date_gmt"]),
            updated=_aware(item["modified_gmt"]), summary=summary, content=content,
            categories=[term_names[term_id] for pairs in item["terms"].values() for term_id, _slug in pairs
                        if term_id in term_names],
            comments_link=item_link + "#comments"))
    return FeedChannel(title, link, app.site_identity()["description"] or title, self_path, entries)


def _term_names(app, session, items: list[dict]) -> dict[int, str]:
    wanted = sorted({term_id for item in items for pairs in item["terms"].values() for term_id, _slug in pairs})
    if not wanted:
        return {}
    terms = tables(app)["terms"]
    return dict(session.execute(select(terms.c.id, terms.c.name).where(terms.c.id.in_(wanted))).all())


def _comments_feed(app, content_request, session, site, request):
    """The newest approved comments on published, unprotected items of public types; `?p=<id>`: one post's."""
    comments, posts = tables(app)["comments"], tables(app)["posts"]
    public_types = [name for name, (post_type, *_rest) in app.registry.post_types.items() if post_type.public]
    visible = and_(comments.c.status == "approved", posts.c.status == "publish", posts.c.password == "",
                   posts.c.type.in_(public_types))
    name = app.site_identity()["name"]
    post_id = request.query_text("p")
    if post_id:
        if not post_id.isdigit() or len(post_id) > MAX_ID_DIGITS:
            return None
        post = store.get_item(app, session, int(post_id))
        if post is None or post["status"] != "publish" or post["password"] or post["type"] not in public_types:
            return None
        visible = and_(visible, comments.c.post == post["id"])
        post_title = html.unescape(plain_text(render_title(post["title"] or "")))
        title, link = f"Comments on: {post_title}", permalink(content_request, post, site)
        self_path = f"/comments/feed/?p={post['id']}"
    else:
        title, link, self_path = f"Comments for {name}", site + "/", "/comments/feed/"
    rows = session.execute(
        select(comments.c.id, comments.c.post, comments.c.author_name, comments.c.date, comments.c.date_gmt,
               comments.c.content)
        .select_from(comments.join(posts, posts.c.id == comments.c.post)).where(visible)
        .order_by(comments.c.date_gmt.desc(), comments.c.id.desc()).limit(FEED_ITEMS)).all()
    commented = store.get_items(app, session, sorted({row.post for row in rows}))
    entries = []
    for row in rows:
        post = commented[row.post]
        post_link = permalink(content_request, post, site)
        post_title = html.unescape(plain_text(render_title(post["title"] or "")))
        text = render_comment(row.content)
        entries.append(FeedEntry(
            guid=f"{post_link}#comment-{row.id}", title=f"Comment on {post_title} by {row.author_name or 'Anonymous'}",
            link=f"{post_link}#comment-{row.id}", author=row.author_name or "Anonymous",
            published=_aware(row.date_gmt), updated=_aware(row.date_gmt), summary=plain_text(text).strip(),
            content=text, categories=[]))
    return FeedChannel(title, link, app.site_identity()["description"] or title, self_path, entries)


# --- writing the formats -----------------------------------------------------------------------

def _generator(app, channel: FeedChannel, site: str) -> FeedGenerator:
    generator = FeedGenerator()
    generator.load_extension("dc", atom=False, rss=True)
    generator.id(site + channel.self_path)
    generator.title(channel.title)
    generator.description(channel.description)
    generator.language("en")
    generator.generator("sitehost", uri="https://github.com/sitehost")
    generator.author({"name": app.site_identity()["name"] or "sitehost"})
    newest = max((entry.updated for entry in channel.entries), default=EMPTY_FEED_DATE)
    generator.updated(newest)
    generator.lastBuildDate(newest)
    for entry in channel.entries:
        added = generator.add_entry(order="append")
        added.id(entry.guid)
        added.guid(entry.guid, permalink=False)
        added.title(entry.title or "(no title)")
        added.link(href=entry.link)
        added.published(entry.published)
        added.updated(entry.updated)
        if entry.author:
            added.author({"name": entry.author})
            added.dc.dc_creator(entry.author)
        added.description(entry.summary or entry.title or "(no title)")
        if entry.content:
            added.content(entry.content, type="CDATA")
        for category in entry.categories:
            added.category(term=category)
        if entry.comments_link:
            added.comments(entry.comments_link)
    return generator


def _rss(app, channel: FeedChannel, site: str) -> bytes:
    generator = _generator(app, channel, site)
    generator.link(href=site + channel.self_path, rel="self")
    generator.link(href=channel.link, rel="alternate")  # feedgen gives RSS's <link> the last one
    return generator.rss_str(pretty=True)


def _atom(app, channel: FeedChannel, site: str) -> bytes:
    generator = _generator(app, channel, site)
    generator.id(site + _atom_path(channel.self_path))
    generator.link(href=site + _atom_path(channel.self_path), rel="self")
    generator.link(href=channel.link, rel="alternate")
    for entry in generator.entry():
        content = entry.content()
        if content:  # Atom carries the HTML escaped, typed html
            entry.content(content["content"], type="html")
    return generator.atom_str(pretty=True)


def _atom_path(self_path: str) -> str:
    path, _, query = self_path.partition("?")
    return path + "atom/" + (f"?{query}" if query else "")


def _utc(app, local, gmt) -> datetime.datetime:
    """A floating date (GMT unset) is read in the site's zone."""
    if gmt is None and local is not None:
        gmt = dates.local_to_utc(local, app.timezone())
    return _aware(gmt)


def _aware(value: datetime.datetime | None) -> datetime.datetime:
    return (value or EMPTY_FEED_DATE.replace(tzinfo=None)).replace(tzinfo=datetime.timezone.utc, microsecond=0)


# --- discovery ---------------------------------------------------------------------------------

TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                               undefined=jinja2.StrictUndefined)
TERM_FEEDS = {"category": ("category", "Category"), "post_tag": ("tag", "Tag")}


def site_feed_links(app, request) -> str:
    site, name = request.site_url, app.site_identity()["name"]
    return _links([(RSS_TYPE, f"{name} \u00bb Feed", f"{site}/feed/"),
                   (RSS_TYPE, f"{name} \u00bb Comments Feed", f"{site}/comments/feed/")])


def item_feed_links(app, request, item: dict) -> str | None:
    """A published post's comments feed; a category's or tag's posts feed, for an archive view whose
    item names its `taxonomy` and `slug`."""
    site, name = request.site_url, app.site_identity()["name"]
    if item.get("taxonomy") in TERM_FEEDS and item.get("slug"):
        segment, label = TERM_FEEDS[item["taxonomy"]]
        title = f"{name} \u00bb {item.get('title') or item['slug']} {label} Feed"
        return _links([(RSS_TYPE, title, f"{site}/{segment}/{item['slug']}/feed/")])
    registered = app.registry.post_types.get(item.get("type", ""))
    if not registered or "comments" not in registered[0].supports or not str(item.get("id", "")).isdigit():
        return None
    if "protected" in item:  # core's own item view: its status and plain title as read, no second read
        status, protected, title = item["status"], item["protected"], html.unescape(item["title"])
    else:
        with app.db.session() as session:
            post = store.get_item(app, session, int(item["id"]), item["type"])
        if post is None:
            return None
        status, protected = post["status"], bool(post["password"])
        title = html.unescape(plain_text(render_title(post["title"] or "")))
    if status != "publish" or protected:
        return None
    return _links([(RSS_TYPE, f"{name} \u00bb {title} Comments Feed", f"{site}/comments/feed/?p={item['id']}")])


def _links(feeds: list[tuple[str, str, str]]) -> str:
    return TEMPLATES.get_template("feed_links.html").render(
        feeds=[{"type": kind.split(";")[0], "title": title, "href": href} for kind, title, href in feeds])
