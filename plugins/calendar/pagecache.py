"""Keeping the calendar's public pages for anonymous visitors, and validating them with an ETag.

The response cache plugin keeps anonymous REST reads only, so these pages keep their own answers
here: per address, with the versions they were built from (the content store's, which every
change to an event, venue, organizer, their meta or terms bumps; the calendar's, which every
write of an event's dates, cost or links bumps) and the site's name. A kept page is served only
while those are unchanged and for at most KEEP_SECONDS (what no version sees: time passing, so
an event that is over leaves the upcoming lists within a minute; a changed time zone setting).
The same versions make the ETag, so a browser revalidating with If-None-Match gets 304 until
something changes. A request with a cookie or credentials is built afresh and never kept (the
theme around the page may show who is signed in).
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from typing import Callable

import bottle

from host import HtmlView
from host.lru import LruCache
from host.stash import StashKey

from . import state
from .views import anonymous_reader

KEEP_SECONDS = 60.0
ENTRIES = 256
MAX_BODY = 512 * 1024  # a larger page is answered, not kept
PAGES = StashKey[LruCache]("calendar.pages")
KEPT_HEADERS = {"Cache-Control": "public, no-cache", "Vary": "Cookie, Authorization"}


def answer(app, request, build: Callable):
    """What `build(reader)` answers: an HtmlView is rendered in the site layout (and kept for
    anonymous GETs); anything else (a file, a form asking for a password) is sent as it is."""
    keepable = request.method in ("GET", "HEAD") and not request.headers.get("Cookie") \
        and not request.headers.get("Authorization")
    etag, key = "", None
    with anonymous_reader(app, app.rest_base_url(request.environ)) as reader:
        content_version = app.content.version(reader) if keepable else None
        if content_version is not None:
            key = (app.site_url(request.environ), request.path, request.query_string)
            etag = _etag(key, (content_version, state.read(reader.session, app)[0], app.site_identity()["name"]))
            if etag in _tags(request.headers.get("If-None-Match", "")):
                return bottle.HTTPResponse("", 304, headers={"ETag": etag, **KEPT_HEADERS})
            kept = _pages(app).get(key)
            if kept is not None and kept[0] == etag and kept[1] > time.monotonic():
                for name, value in {"ETag": etag, **KEPT_HEADERS}.items():
                    bottle.response.set_header(name, value)
                return kept[2]
        view = build(reader)
    if not isinstance(view, HtmlView):
        return view
    if etag:
        view = dataclasses.replace(view, headers=(*view.headers, ("ETag", etag), *KEPT_HEADERS.items()))
    page = app.render_view(view)
    if etag and view.status == 200 and len(page) <= MAX_BODY:
        _pages(app).put(key, (etag, time.monotonic() + KEEP_SECONDS, page))
    return page


def _pages(app) -> LruCache:
    return app.stash.setdefault_by(PAGES, lambda: LruCache(ENTRIES))


def _etag(key: tuple, versions: tuple) -> str:
    digest = hashlib.blake2b(repr((key, versions)).encode("utf-8"), digest_size=12).hexdigest()
    return f'W/"calendar-{digest}"'


def _tags(header: str) -> set[str]:
    """The entity tags of an If-None-Match header (at most 20 are read)."""
    return {tag.strip() for tag in header[:2000].split(",")[:20] if tag.strip()}
