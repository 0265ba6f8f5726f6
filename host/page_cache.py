"""Pages outside the REST root that offer their anonymous answers to the response cache.

A `host.Page` registered with `cacheable=True` (feeds, sitemaps, robots.txt, the calendar's and the
catalogue's pages ...) and core's public HTML pages (what answers at the front page address with a
query, and at the addresses `html_not_found` serves) go through the same `cached_response` /
`store_response` hooks as the REST reads, so the cache plugin keeps them and drops them when content
changes. Only a GET or HEAD without a Cookie or Authorization header is looked up or offered: a
signed-in visitor, a post-password or comment-author cookie, any cookie at all, is answered afresh
and never kept; nor is an answer that sets a cookie or says `Cache-Control: no-store` or `private`
(a password-protected post's page). The cache plugin keeps 200s only. An HTML answer varies on
Cookie and Authorization as well as Accept-Encoding.

An answer that may be kept carries an ETag (the body's hash, unless the handler set one) and a
Last-Modified: since when this process has answered the address with that body, so it moves forward
whenever the body changes, even when what changed is older than the rest or brings an earlier body
back (a post unpublished again). A matching If-None-Match, or an If-Modified-Since not older than
Last-Modified, answers 304 and no body.
"""

from __future__ import annotations

import datetime
import email.utils
import hashlib
from http import HTTPStatus
from typing import Any, Callable

import bottle

from .answer import deliver
from .compression import gzip_etag, holds_etag
from .lru import LruCache
from .request import environ_headers
from .rest.request import parse_query

# address -> (ETag, since when this process has answered that address with that body)
CHANGED_ENTRIES = 4096

# Only these survive into a cached page's headers: what the page says about its body.
_KEPT_HEADERS = ("content-type", "etag", "last-modified", "cache-control", "x-robots-tag", "link")


class PageCacheRequest:
    """What a response cache reads of a request (the attributes of a RestRequest it uses), for a page.

    `cacheable_page` tells the cache the page asked for caching, as `Route.cacheable` does for a route.
    """

    cacheable_page = True
    internal = False

    def __init__(self, app, environ: dict, keep_seconds: float | None = None):
        self.app = app
        self.keep_seconds = keep_seconds  # how long the cache may keep the answer at most (None: its own limit)
        self.method = "GET"  # HEAD is answered from the GET's entry (bottle drops the body)
        self.path = "/" + environ.get("PATH_INFO", "").lstrip("/")  # as bottle's `request.path` reads it
        # The pairs bottle's `request.query` holds, in the order they came (the parsed query is the same),
        # without building its multi-dict: every cached hit reads this.
        self.query = parse_query(bottle._parse_qsl(environ.get("QUERY_STRING", "")))
        self.environ = environ
        self._headers: dict[str, str] | None = None
        self.base_url = app.site_url(environ)

    @property
    def headers(self) -> dict[str, str]:
        """Every header by lower-case name, built on first use (a hit reads two or three by `header`)."""
        if self._headers is None:
            self._headers = request_headers(self.environ)
        return self._headers

    def header(self, name: str) -> str | None:
        name = name.lower()
        value = self.environ.get(_HEADER_KEYS.get(name) or "HTTP_" + name.upper().replace("-", "_"))
        return _decoded(value) if value is not None else None


_HEADER_KEYS = {"content-type": "CONTENT_TYPE", "content-length": "CONTENT_LENGTH"}  # not HTTP_* in WSGI


def _decoded(value):
    """A header value as bottle reads it: WSGI's latin-1 string, a non-ASCII one decoded as UTF-8."""
    return value if not isinstance(value, str) or value.isascii() else value.encode("latin1").decode("utf8")


def request_headers(environ: dict) -> dict[str, str]:
    """A request's headers by lower-case name, read as bottle's `request.headers` reads them (a non-ASCII
    value decoded as UTF-8)."""
    return {name: _decoded(value) for name, value in environ_headers(environ).items()}


# environ: the PageCacheRequest that `kept_page` looked up and missed with, for `answer_cacheable` to
# store the answer with (one lookup per request, one miss counted)
LOOKED_UP = "sitehost.page_cache.looked_up"
DEFAULT_CONTENT_TYPE = "text/html; charset=UTF-8"  # bottle's, for an answer that names none


def kept_page(app, environ: dict, through: str) -> tuple[str, list[tuple[str, str]], bytes] | None:
    """The kept answer of a plain anonymous GET of a page that `answer_cacheable` answers, without bottle:
    (status line, headers, body) ready for `start_response`, with the headers bottle's path would send on a
    hit (Vary, Content-Length, the gzip ETag, the site's own). `through` is how bottle would have answered
    the address (App._through_page_cache): "route" (the front page, a cacheable page) or "not found".

    None sends the request on through bottle: not a GET, a cookie or Authorization header, a conditional
    request (validators are compared there), a path that bottle would decode, or no answer kept (the
    looked-up request is left in the environ, so the built answer is stored without a second lookup).
    A hit is the common case of a busy public page: bottle's routing and header objects cost several
    times what the lookup does."""
    if environ.get("REQUEST_METHOD") != "GET" or environ.get("HTTP_AUTHORIZATION") or environ.get("HTTP_COOKIE") \
            or "HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MODIFIED_SINCE" in environ \
            or not environ.get("PATH_INFO", "").isascii():
        return None
    request = PageCacheRequest(app, environ)
    cached = app.hook.cached_response(app=app, request=request)
    if cached is None:
        environ[LOOKED_UP] = request
        return None
    status, kept, body = cached
    wire_forms: WireForms = app.page_wire_forms
    wire = wire_forms.get(kept, request.base_url)
    if wire is None:
        wire = _wire_form(app, environ, through, status, kept, body)
        wire_forms.put(kept, request.base_url, *wire)
    status_line, header_list = wire
    return status_line, list(header_list), body  # a copy: a WSGI server may change the list it is given


def _wire_form(app, environ: dict, through: str, status: int, kept: dict[str, str], body: bytes):
    """(status line, header list) of a kept answer as bottle's path would send it."""
    # bottle's spelling of header names, except the tag, which the lookups below (and HTTP's own spelling) call ETag
    headers = {("ETag" if name.lower() == "etag" else name.title()): value for name, value in kept.items()}
    headers.setdefault("Content-Type", DEFAULT_CONTENT_TYPE)
    _vary_and_tag(headers)
    headers["Content-Length"] = str(len(body))
    if through == "not found":  # bottle adds the site's headers before its not-found handler runs,
        site_headers: dict[str, str] = {}  # so they were kept with the page, and the kept ones win
        app.add_site_headers(environ, site_headers)
        headers = {**site_headers, **headers}
    else:
        app.add_site_headers(environ, headers)
    return f"{status} {HTTPStatus(status).phrase}", list(headers.items())


class WireForms:
    """Kept pages' answers ready to send, so a busy page's hit does not rebuild the same headers each time.

    A response cache hands every hit of one entry the same headers dict (the `cached_response` hook
    says the caller must not change it), so the finished (status line, header list) is memoized by
    that dict's identity. The dict itself is held in the memo, so its id cannot be reused by another
    while the memo holds it; `site_url` (part of the cache's key, and of the Link header) is checked too.
    """

    def __init__(self, entries: int = 512):
        self._memo = LruCache(entries)

    def get(self, kept: dict, site_url: str) -> tuple[str, list[tuple[str, str]]] | None:
        found = self._memo.get(id(kept))
        if found is not None and found[0] is kept and found[1] == site_url:
            return found[2], found[3]
        return None

    def put(self, kept: dict, site_url: str, status_line: str, header_list: list[tuple[str, str]]) -> None:
        self._memo.put(id(kept), (kept, site_url, status_line, header_list))


def _vary_and_tag(headers) -> None:
    """Vary (an HTML answer varies on Cookie and Authorization too) and the gzip form's own ETag."""
    html_page = headers.get("Content-Type", "text/html").startswith("text/html")  # bottle's default
    headers["Vary"] = "Accept-Encoding, Cookie, Authorization" if html_page else "Accept-Encoding"
    etag = headers.get("ETag")
    if etag and headers.get("Content-Encoding") == "gzip":  # another representation, another tag
        headers["ETag"] = gzip_etag(etag)


def answer_page(app, page, request: bottle.BaseRequest, url_params: dict[str, Any]):
    """Run a cacheable page: from the cache when it holds the answer, else through its handler."""
    return answer_cacheable(app, request, lambda: deliver(page.handler(app, app.page_request(), **url_params)),
                            page.keep_seconds)


def answer_cacheable(app, request: bottle.BaseRequest, build: Callable[[], Any], keep_seconds: float | None = None):
    """The anonymous answer kept by the response cache, else what `build()` answers (kept when it may be).

    `build` returns the body (str or bytes) after setting status and headers on `bottle.response` (a page's
    PageAnswer, through host.answer.deliver); a `bottle.HTTPResponse` it returns (a stored file) is sent as
    it is and never kept.
    """
    environ = request.environ
    looked_up = environ.pop(LOOKED_UP, None)
    if looked_up is not None:  # kept_page missed with it: build, and store with what its lookup noted
        cache_request, cached = looked_up, None
        cache_request.keep_seconds = keep_seconds
    else:
        anonymous = request.method in ("GET", "HEAD") and not environ.get("HTTP_AUTHORIZATION") \
            and not environ.get("HTTP_COOKIE")
        cache_request = PageCacheRequest(app, environ, keep_seconds) if anonymous else None
        cached = app.hook.cached_response(app=app, request=cache_request) if cache_request else None
    response = bottle.response
    if cached is not None:
        status, headers, body = cached
        response.status = status
        for name, value in headers.items():
            response.set_header(name, value)
    else:
        body = build()
        if isinstance(body, bottle.HTTPResponse):
            return body
        body = body.encode("utf-8") if isinstance(body, str) else body
        shared = cache_request is not None and _shared(response)
        if shared and response.status_code == 200:
            _validators(app, body)
        if shared:
            kept = {name: value for name, value in response.headers.items() if name.lower() in _KEPT_HEADERS}
            app.hook.store_response(app=app, request=cache_request, status=response.status_code,
                                    headers=kept, body=body)
    headers = response.headers  # one case-insensitive view (bottle builds a new one on every access)
    _vary_and_tag(headers)
    if response.status_code == 200 and not_modified(request, headers):
        response.status = 304
        for name in ("Content-Type", "Content-Length", "Content-Encoding"):
            if name in headers:
                del headers[name]
        return b""
    return body


def _shared(response: bottle.BaseResponse) -> bool:
    """Whether an anonymous answer is everyone's: it sets no cookie and says neither `Cache-Control: no-store`
    nor `private` (RFC 9111 3: a shared cache must not keep it). Only such an answer gets validators or is kept.
    A download (`Content-Disposition: attachment`, an event's .ics) is a file handed over, never kept."""
    directives = {part.split("=", 1)[0].strip().lower() for part in response.headers.get("Cache-Control", "").split(",")}
    download = response.headers.get("Content-Disposition", "").lower().startswith("attachment")
    return not directives & {"no-store", "private"} and not download \
        and all(name != "Set-Cookie" for name, _ in response.headerlist)


def _validators(app, body: bytes) -> None:
    """ETag (unless the handler chose one) and Last-Modified of a freshly built answer."""
    if "ETag" not in bottle.response.headers:
        bottle.response.set_header("ETag", '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
    changed = app.kept("host.page_changed", CHANGED_ENTRIES)
    etag, address = bottle.response.headers["ETag"], (bottle.request.path, bottle.request.query_string)
    # Kept at the body's ETag: a body this address had before counts as a change too.
    known = changed.get_or_build(address, etag, lambda: datetime.datetime.now(datetime.timezone.utc).replace(
        microsecond=0))
    bottle.response.set_header("Last-Modified", email.utils.format_datetime(known, usegmt=True))


def not_modified(request: bottle.BaseRequest, headers) -> bool:
    """Whether the client holds this answer already (RFC 9110 13.1: If-None-Match wins over If-Modified-Since)."""
    if "HTTP_IF_NONE_MATCH" not in request.environ and "HTTP_IF_MODIFIED_SINCE" not in request.environ:
        return False  # the usual request: no validator to compare
    if_none_match = request.get_header("If-None-Match")
    etag = headers.get("ETag")
    if if_none_match is not None:
        return etag is not None and holds_etag(if_none_match, etag)
    since, modified = request.get_header("If-Modified-Since"), headers.get("Last-Modified")
    if not since or not modified:
        return False
    try:
        return email.utils.parsedate_to_datetime(modified) <= email.utils.parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False
