"""Pretty permalinks: the `[site] permalink_structure` of posts and the hierarchical paths of pages.

With the plain structure ("", a fresh site's default) every item keeps its query link (`/?p=ID`).
With a structure, a published post links to e.g. `/2026/03/sports-day/` and a published page to
`/<parent slug>/<slug>/`; `resolve` finds the item a path names, so the theme can show it.
Structures are checked when the settings load (host.config), so the patterns made here are
plain sequences of bounded groups: they run in linear time.
"""

from __future__ import annotations

import re
from functools import lru_cache

from sqlalchemy import select

from . import store
from .tables import tables

MAX_PAGE_DEPTH = 20  # ancestors followed when a page's path is made or read
_TAG_PATTERNS = {"%year%": r"(?P<year>\d{4})", "%monthnum%": r"(?P<monthnum>\d{2})", "%day%": r"(?P<day>\d{2})",
                 "%hour%": r"(?P<hour>\d{2})", "%minute%": r"(?P<minute>\d{2})", "%second%": r"(?P<second>\d{2})",
                 "%postname%": r"(?P<postname>[^/]{1,200})", "%post_id%": r"(?P<post_id>\d{1,10})"}
_TAG = re.compile("|".join(re.escape(tag) for tag in _TAG_PATTERNS))


def structure(app) -> str:
    return str(app.settings.site.get("permalink_structure") or "")


def post_path(permalink_structure: str, item: dict) -> str:
    """The site-relative path of a published post under `permalink_structure`."""
    date = item["date"]
    values = {"%year%": f"{date.year:04d}", "%monthnum%": f"{date.month:02d}", "%day%": f"{date.day:02d}",
              "%hour%": f"{date.hour:02d}", "%minute%": f"{date.minute:02d}", "%second%": f"{date.second:02d}",
              "%postname%": item["slug"] or str(item["id"]), "%post_id%": str(item["id"])}
    return _TAG.sub(lambda match: values[match.group(0)], permalink_structure)


def post_template(permalink_structure: str, item: dict) -> str:
    """`permalink_template`: the path with `%postname%` left for the editor to fill."""
    return post_path(permalink_structure, {**item, "slug": "%postname%"})


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


def resolve(app, session, path: str) -> tuple[dict | None, str]:
    """(item, its canonical path) for a site path: a page at its hierarchical path, else a post by the
    structure; (None, "") when neither names a stored item. The caller checks that it may be shown."""
    permalink_structure = structure(app)
    if not permalink_structure or len(path) > 2000:
        return None, ""
    segments = [segment for segment in path.strip("/").split("/") if segment]
    if 0 < len(segments) <= MAX_PAGE_DEPTH:
        page = _item_by_slug(app, session, "page", segments[-1])
        if page is not None and page_path(app, session, page) == "/" + "/".join(segments) + "/":
            return page, page_path(app, session, page)
    match = _structure_pattern(permalink_structure).fullmatch(path)
    if match is None:
        return None, ""
    found = match.groupdict()
    if found.get("post_id"):
        post = store.get_item(app, session, int(found["post_id"]), "post")
    else:
        post = _item_by_slug(app, session, "post", found["postname"])
    if post is None:
        return None, ""
    return post, post_path(permalink_structure, post)


def _item_by_slug(app, session, post_type: str, slug: str) -> dict | None:
    posts = tables(app)["posts"]
    found = session.execute(select(posts.c.id).where(posts.c.type == post_type, posts.c.slug == slug)
                            .order_by(posts.c.id).limit(1)).scalar()
    return store.get_item(app, session, found, post_type) if found is not None else None
