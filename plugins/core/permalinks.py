"""Pretty permalinks: the `[site] permalink_structure` of posts and the hierarchical paths of pages.

With the plain structure ("", a fresh site's default) every item keeps its query link (`/?p=ID`).
With a structure, a published post links to e.g. `/2026/03/sports-day/` and a published page to
`/<parent slug>/<slug>/`; `resolve` finds the item a path names, so the theme can show it.
Structures are checked when the settings load (host.config), so the patterns made here are
plain sequences of bounded groups: they run in linear time.

WordPress's tags: the date's (%year% %monthnum% %day% %hour% %minute% %second%), %postname%,
%post_id%, %category% (the path of the post's category with the lowest id, its parents first, as
`/news/sport/`; the default category when it has none) and %author% (the author's nicename). As
WordPress's redirect_canonical does, a path that names the post with another of its categories
shows it there (its canonical link stays the permalink), one with a category that is not the
post's moves to the permalink, and one with another author moves there when the structure
names the post by %postname% (WordPress finds it by name after the author's query found nothing)
and answers 404 when only %post_id% names it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from sqlalchemy import select

from host.auth.users import tables as user_tables

from . import store
from .tables import tables

MAX_PAGE_DEPTH = 20  # ancestors followed when a page's path is made or read
MAX_CATEGORY_DEPTH = 20  # ancestors of a category in a %category% path
_TAG_PATTERNS = {"%year%": r"(?P<year>\d{4})", "%monthnum%": r"(?P<monthnum>\d{2})", "%day%": r"(?P<day>\d{2})",
                 "%hour%": r"(?P<hour>\d{2})", "%minute%": r"(?P<minute>\d{2})", "%second%": r"(?P<second>\d{2})",
                 "%postname%": r"(?P<postname>[^/]{1,200})", "%post_id%": r"(?P<post_id>\d{1,10})",
                 # each segment starts after a "/": a match tries at most MAX_CATEGORY_DEPTH splits of the path
                 "%category%": r"(?P<category>[^/]{1,200}(?:/[^/]{1,200}){0,%d})" % (MAX_CATEGORY_DEPTH - 1),
                 "%author%": r"(?P<author>[^/]{1,200})"}
_TAG = re.compile("|".join(re.escape(tag) for tag in _TAG_PATTERNS))
DEFAULT_CATEGORY = 1  # core's "Uncategorized", until the `default_category` setting names another
MAX_SAME_SLUG = 20  # attachments sharing a slug (under different parents) tried for one path
NO_AUTHOR = "author"  # the %author% of a post whose author is gone (WordPress leaves the segment empty)


def structure(app) -> str:
    return str(app.settings.site.get("permalink_structure") or "")


def post_path(app, session, permalink_structure: str, item: dict) -> str:
    """The site-relative path of a published post under `permalink_structure`."""
    date = item["date"]
    values = {"%year%": f"{date.year:04d}", "%monthnum%": f"{date.month:02d}", "%day%": f"{date.day:02d}",
              "%hour%": f"{date.hour:02d}", "%minute%": f"{date.minute:02d}", "%second%": f"{date.second:02d}",
              "%postname%": item["slug"] or str(item["id"]), "%post_id%": str(item["id"])}
    if "%category%" in permalink_structure:
        values["%category%"] = post_category_path(app, session, item)
    if "%author%" in permalink_structure:
        values["%author%"] = author_nicename(app, session, item)
    return _TAG.sub(lambda match: values[match.group(0)], permalink_structure)


def post_template(app, session, permalink_structure: str, item: dict) -> str:
    """`permalink_template`: the path with `%postname%` left for the editor to fill."""
    return post_path(app, session, permalink_structure, {**item, "slug": "%postname%"})


def attachment_path(app, session, permalink_structure: str, item: dict, parent: dict | None) -> str:
    """WordPress's get_attachment_link under a structure: `<parent's path><slug>/` for an attachment of a
    published post or page (`<parent's path>attachment/<slug>/` when the slug is a number, which the parent's
    path would read as a page number, or the structure holds %category%), `/<slug>/` for one attached to
    nothing. The caller has checked that `parent`, when there is one, is published; "" for no slug."""
    slug = item.get("slug") or ""
    if not slug:
        return ""
    if parent is None:
        return f"/{slug}/"
    if parent["type"] == "page":
        base = page_path(app, session, parent)
    else:
        base = post_path(app, session, permalink_structure, parent)
    name = f"attachment/{slug}" if slug.isdigit() or "%category%" in permalink_structure else slug
    return base.rstrip("/") + f"/{name}/"


def _category_ids(app, session, item: dict) -> list[int]:
    if "terms" not in item:  # a partial row: read the item's terms
        item = store.get_item(app, session, int(item["id"]), item["type"]) or item
    return sorted(term_id for term_id, _slug in (item.get("terms") or {}).get("category", []))


def post_category_path(app, session, item: dict) -> str:
    """%category%: the path of the post's category with the lowest id (WordPress sorts by term_id), else the
    default category's."""
    ids = _category_ids(app, session, item)
    return category_path(app, session, ids[0] if ids else _default_category(app, session)) or "uncategorized"


def category_path(app, session, term_id: int) -> str:
    """`parent/child` slugs of a category, its ancestors first; "" when there is no such category."""
    terms = tables(app)["terms"]
    slugs: list[str] = []
    current = term_id
    for _depth in range(MAX_CATEGORY_DEPTH):
        if not current:
            break
        row = session.execute(select(terms.c.slug, terms.c.parent).where(
            terms.c.id == current, terms.c.taxonomy == "category")).first()
        if row is None:
            break
        slugs.append(row.slug)
        current = row.parent
    return "/".join(reversed(slugs))


def _default_category(app, session) -> int:
    settings = tables(app)["site_settings"]
    stored = session.execute(select(settings.c.value).where(settings.c.key == "default_category")).scalar()
    return int(stored) if stored and stored.isdigit() else DEFAULT_CATEGORY


def author_nicename(app, session, item: dict) -> str:
    users = user_tables(app)["users"]
    slug = session.execute(select(users.c.slug).where(users.c.id == int(item.get("author") or 0))).scalar() \
        if item.get("author") else None
    return slug or NO_AUTHOR


def page_path(app, session, item: dict) -> str:
    """`/<ancestor slugs>/<slug>/` of a page."""
    slugs = [item["slug"] or str(item["id"])]
    parent = item.get("parent") or 0
    posts = tables(app)["posts"]
    for _depth in range(MAX_PAGE_DEPTH):
        if not parent:
            break
        row = session.execute(select(posts.c.slug, posts.c.parent).where(posts.c.id == parent)).first()
        if row is None:
            break
        slugs.append(row.slug or str(parent))
        parent = row.parent
    return "/" + "/".join(reversed(slugs)) + "/"


@lru_cache(maxsize=8)
def _structure_pattern(permalink_structure: str) -> re.Pattern:
    parts, position = [], 0
    for match in _TAG.finditer(permalink_structure):
        parts.append(re.escape(permalink_structure[position:match.start()]))
        parts.append(_TAG_PATTERNS[match.group(0)])
        position = match.end()
    parts.append(re.escape(permalink_structure[position:].rstrip("/")))
    return re.compile("".join(parts) + "/?")


def resolve(app, session, path: str) -> tuple[dict | None, str, bool]:
    """(item, its canonical path, whether `path` shows it in place) for a site path: a page at its
    hierarchical path, else a post by the structure; (None, "", False) when neither names a stored
    item. A path other than the canonical one shows the post in place only when it names it with
    another of its categories; else the caller moves the visitor to the canonical path. The caller
    checks that the item may be shown."""
    permalink_structure = structure(app)
    if not permalink_structure or len(path) > 2000:
        return None, "", False
    segments = [segment for segment in path.strip("/").split("/") if segment]
    if 0 < len(segments) <= MAX_PAGE_DEPTH:
        page = _item_by_slug(app, session, "page", segments[-1])
        if page is not None and page_path(app, session, page) == "/" + "/".join(segments) + "/":
            return page, page_path(app, session, page), True
    match = _structure_pattern(permalink_structure).fullmatch(path)
    found = match.groupdict() if match is not None else {}
    if found.get("post_id"):
        post = store.get_item(app, session, int(found["post_id"]), "post")
    else:
        post = _item_by_slug(app, session, "post", found["postname"]) if found else None
    if post is None:
        return _attachment_at(app, session, permalink_structure, segments)
    canonical = post_path(app, session, permalink_structure, post)
    if found.get("author") is not None and "%postname%" not in permalink_structure \
            and found["author"] != author_nicename(app, session, post):
        return None, "", False  # WordPress's query for the id and that author finds nothing, nor does its guess
    here = path == canonical
    if not here and found.get("category") is not None:
        here = _names_with_another_category(app, session, permalink_structure, post, found["category"], path)
    return post, canonical, here


def _attachment_at(app, session, permalink_structure: str, segments: list[str]) -> tuple[dict | None, str, bool]:
    """The attachment whose pretty path is exactly `segments` (its last segment is the slug); the caller
    checks that anyone may read it, and an attachment of an unpublished item has no pretty path."""
    if not segments or len(segments) > MAX_PAGE_DEPTH + MAX_CATEGORY_DEPTH + 10:
        return None, "", False
    posts = tables(app)["posts"]
    path = "/" + "/".join(segments) + "/"
    ids = session.execute(select(posts.c.id).where(posts.c.type == "attachment", posts.c.slug == segments[-1])
                          .order_by(posts.c.id).limit(MAX_SAME_SLUG)).scalars().all()
    for attachment_id in ids:
        item = store.get_item(app, session, attachment_id, "attachment")
        parent = store.get_item(app, session, int(item["parent"])) if item and item.get("parent") else None
        if item is None or (item.get("parent") and (parent is None or parent["type"] not in ("post", "page"))):
            continue
        if attachment_path(app, session, permalink_structure, item, parent) == path:
            return item, path, True
    return None, "", False


def _names_with_another_category(app, session, permalink_structure: str, post: dict, category: str,
                                 path: str) -> bool:
    """Whether `path` is the post's permalink made with `category`, the full path of one of its categories."""
    paths = {category_path(app, session, term_id) for term_id in _category_ids(app, session, post)[:50]}
    if category not in paths:
        return False
    values = {"%category%": category}
    made = _TAG.sub(lambda match: values.get(match.group(0), match.group(0)), permalink_structure)
    return path == post_path(app, session, made, post)


def _item_by_slug(app, session, post_type: str, slug: str) -> dict | None:
    posts = tables(app)["posts"]
    found = session.execute(select(posts.c.id).where(posts.c.type == post_type, posts.c.slug == slug)
                            .order_by(posts.c.id).limit(1)).scalar()
    return store.get_item(app, session, found, post_type) if found is not None else None
