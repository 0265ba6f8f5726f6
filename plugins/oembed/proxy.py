"""`GET oembed/1.0/proxy`: oEmbed data for any URL, through providers or discovery, cached.

Providers come from every plugin's `oembed_providers` hook and are trusted: their `html`
is kept. An endpoint found by discovery on the target page is not: its `html` is reduced
to a sandboxed iframe (or a plain link). Successful results are cached in the database for
`cache_ttl_seconds`; this site's own URLs are answered locally and never cached.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import json
import logging
import re
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit, parse_qsl

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from host import RestError, linear
from host.text import split_markup, tag_name

from . import local
from .fetch import fetch
from .settings import config_of
from .templating import TEMPLATES

log = logging.getLogger("sitehost.oembed")

OEMBED_TYPES = {"photo", "video", "link", "rich"}
_CACHE_KEY_IGNORED = {"_wpnonce"}


# Route keywords of the proxy: editors only, refused in the real route's words.
PROXY_PERMISSION = {"capability": "edit_posts",
                    "refusal": ("rest_forbidden", "Sorry, you are not allowed to make proxied oEmbed requests.")}


def proxy(request):
    params = request.params
    url = params["url"]
    width, height = params.get("maxwidth"), params.get("maxheight")
    if local.is_local_url(request, url):
        return local.embed_data(request, url, width)
    key = _cache_key(params)
    cached = _cached(request.app, key)
    if cached is not None:
        return cached
    data = _resolve(request, url, width, height, params.get("discover", True))
    _store(request.app, key, data)
    return data


def _resolve(request, url: str, width, height, discover: bool) -> dict:
    config = config_of(request.app)
    size = {name: value for name, value in (("maxwidth", width), ("maxheight", height)) if value}
    endpoint = _provider_endpoint(request.app, url)
    if endpoint is not None:
        target = _with_query(endpoint, {"url": url, "format": "json", **size})
        trusted = True
    elif discover:
        page = fetch(url, config, "text/html,application/xhtml+xml")
        found = _discover(page.body, page.url)
        if found is None:
            raise local.not_found()
        target = _with_query(found, size)
        trusted = False
    else:
        raise local.not_found()
    answer = fetch(target, config, "application/json")
    try:
        data = json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise RestError("oembed_invalid_response", "The provider's answer is not valid JSON.", 502) from None
    if not isinstance(data, dict) or data.get("type") not in OEMBED_TYPES:
        raise RestError("oembed_invalid_response", "The provider's answer is not an oEmbed object.", 502)
    if not trusted:
        data["html"] = _untrusted_html(data, url)
    return data


def _provider_endpoint(app, url: str) -> str | None:
    for answer in app.hook.oembed_providers(app=app):
        for pattern, endpoint in answer or []:
            try:
                if linear.pattern(pattern).match(url):
                    return endpoint
            except linear.error:
                log.warning("oEmbed provider pattern %r does not compile; skipped", pattern)
    return None


class _DiscoveryParser(HTMLParser):
    """Collects `<link rel="alternate" type="application/json+oembed" href>` from a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag != "link" or self.found:
            return
        values = {name.lower(): (value or "") for name, value in attrs}
        if "alternate" in values.get("rel", "").lower().split() and \
                values.get("type", "").lower() == "application/json+oembed" and values.get("href"):
            self.found = values["href"]


def _discover(body: bytes, page_url: str) -> str | None:
    parser = _DiscoveryParser()
    try:
        parser.feed(body.decode("utf-8", "replace"))
        parser.close()
    except Exception:  # html.parser is lenient; a page it cannot read simply has no discovery link
        return None
    return urljoin(page_url, parser.found) if parser.found else None


def _with_query(url: str, extra: dict) -> str:
    parts = urlsplit(url)
    pairs = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if name not in extra]
    pairs.extend((name, str(value)) for name, value in extra.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(pairs), ""))


_SRC_ATTRIBUTE = re.compile(r"\bsrc\s*=\s*[\"']([^\"'<>]+)[\"']", re.IGNORECASE)
_DIMENSION = re.compile(r"^\d{1,4}$")


def _first_iframe_source(markup: str) -> "re.Match | None":
    """The `src` of the first <iframe> tag (tags found by a linear scan, then one attribute search)."""
    parts = split_markup(markup)
    for tag in parts[1::2]:
        if tag_name(tag) == "iframe" and not tag.startswith("</"):
            return _SRC_ATTRIBUTE.search(tag)
    return None


def _untrusted_html(data: dict, url: str) -> str:
    """Discovered providers' HTML is cut down to a sandboxed iframe, or a link when there is none."""
    raw = data.get("html") if isinstance(data.get("html"), str) else ""
    frame = _first_iframe_source(raw)
    page = TEMPLATES.get_template("oembed_untrusted.html")
    if frame and urlsplit(html.unescape(frame.group(1))).scheme in ("http", "https"):
        width = str(data.get("width", "")) if _DIMENSION.match(str(data.get("width", ""))) else "600"
        height = str(data.get("height", "")) if _DIMENSION.match(str(data.get("height", ""))) else "338"
        return page.render(kind="iframe", src=html.unescape(frame.group(1)), width=width, height=height,
                           title=str(data.get("title", "")))
    if data.get("type") == "photo" and isinstance(data.get("url"), str) and \
            urlsplit(data["url"]).scheme in ("http", "https"):
        return page.render(kind="photo", url=url, src=data["url"], title=str(data.get("title", "")))
    return page.render(kind="link", url=url, title=str(data.get("title") or url))


# --- the result cache ---------------------------------------------------------------------------

def _cache_key(params: dict) -> str:
    relevant = {name: value for name, value in params.items() if name not in _CACHE_KEY_IGNORED}
    return hashlib.sha256(json.dumps(relevant, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _cached(app, key: str) -> dict | None:
    table = app.db.metadata.tables["oembed_proxy_cache"]
    with app.db.read_connection() as connection:
        row = connection.execute(select(table.c.data, table.c.expires).where(table.c.key == key)).first()
    if row is None or row.expires <= _now():
        return None
    return row.data


def _store(app, key: str, data: dict) -> None:
    ttl = config_of(app).cache_ttl_seconds
    if not ttl:
        return
    table = app.db.metadata.tables["oembed_proxy_cache"]
    expires = _now() + datetime.timedelta(seconds=ttl)
    try:
        with app.db.session(write=True) as session, session.begin():
            session.execute(delete(table).where(table.c.key == key))
            session.execute(insert(table).values(key=key, data=data, expires=expires))
    except IntegrityError:  # the same result stored by a parallel request: theirs is as good
        pass
