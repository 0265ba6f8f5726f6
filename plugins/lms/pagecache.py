"""Keeping the catalogue's anonymous pages, and validating them with an ETag.

The response cache plugin keeps anonymous REST reads only, so the public pages keep their own
anonymous answers here, the way answers.py keeps lms/v1's: per address, with the versions they
were built from (the content store's, bumped by every change to an item, its meta or terms, and
this plugin's, bumped by every rating written) and the site's name. A page is served from here
only while both versions are unchanged and for at most KEEP_SECONDS (what neither version sees:
a teacher's new display name, the theme's menu settings). The same versions make the page's
ETag, so a browser or proxy revalidating with If-None-Match gets 304 until something changes.

A signed-in visitor (session cookie or application password) never reads or fills this store:
their page says whether they are enrolled, so it is built afresh and sent `private, no-store`.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from typing import Callable, Iterator

import bottle

from host import HtmlView, RestRequest
from host.lru import LruCache
from host.stash import StashKey

from .answers import lms_version

KEEP_SECONDS = 60.0
ENTRIES = 256
MAX_BODY = 512 * 1024  # a larger page is answered, not kept
PAGES = StashKey[LruCache]("lms.pages")
ANONYMOUS_HEADERS = {"Cache-Control": "public, no-cache", "Vary": "Cookie, Authorization"}
PERSONAL_HEADERS = {"Cache-Control": "private, no-store", "Vary": "Cookie, Authorization"}


@contextlib.contextmanager
def page_reader(app, request, user) -> Iterator[RestRequest]:
    """A request for the content service, as the visitor (the page's own transaction)."""
    reader = RestRequest(app, request.method, request.path, [], {}, environ=request.environ,
                         base_url=app.rest_base_url(request.environ))
    reader.user = user
    succeeded = False
    try:
        yield reader
        succeeded = True
    finally:
        reader.finish(success=succeeded)


def answer(app, request, build: Callable, not_found: Callable) -> str | bottle.HTTPResponse:
    """The page `build(reader, site)` makes (an HtmlView, or None for `not_found(app)`), kept for anonymous visitors."""
    user = app.page_user(request.environ)
    site = app.site_url(request.environ)
    with page_reader(app, request, user) as reader:
        if user.is_authenticated:
            view = build(reader, site)
            headers = PERSONAL_HEADERS
            etag = ""
        else:
            content_version = app.content.version(reader)
            versions = (content_version, lms_version(reader), app.site_identity()["name"])
            key = (site, request.path, request.query_string)
            etag = _etag(key, versions) if content_version is not None else ""
            if etag and etag in _tags(request.headers.get("If-None-Match", "")):
                return bottle.HTTPResponse("", 304, headers={"ETag": etag, **ANONYMOUS_HEADERS})
            pages = app.stash.setdefault_by(PAGES, lambda: LruCache(ENTRIES))
            kept = pages.get(key) if etag else None
            if kept is not None and kept[0] == etag and kept[1] > time.monotonic():
                return _send(kept[2], 200, {"ETag": etag, **ANONYMOUS_HEADERS}, kept[3])
            view = build(reader, site)
            headers = ANONYMOUS_HEADERS
    if view is None:
        return not_found(app)
    headers = {**headers, **({"ETag": etag} if etag else {})}
    view = HtmlView(view.title, view.body_html, view.status, view.headers + tuple(headers.items()), view.item,
                    view.head_html)
    page = app.render_view(view)
    if etag and len(page) <= MAX_BODY:
        pages.put(key, (etag, time.monotonic() + KEEP_SECONDS, page, view.headers))
    return page


def _send(page: str, status: int, headers: dict, view_headers: tuple) -> str:
    bottle.response.status = status
    for name, value in view_headers:
        if name not in headers:
            bottle.response.add_header(name, value)
    for name, value in headers.items():
        bottle.response.set_header(name, value)
    return page


def _etag(key: tuple, versions: tuple) -> str:
    digest = hashlib.blake2b(repr((key, versions)).encode("utf-8"), digest_size=12).hexdigest()
    return f'W/"lms-{digest}"'


def _tags(header: str) -> set[str]:
    """The entity tags of an If-None-Match header (at most 20 are read; `*` is not honoured here)."""
    return {tag.strip() for tag in header[:2000].split(",")[:20] if tag.strip()}
