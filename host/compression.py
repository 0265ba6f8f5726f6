"""gzip for REST answers over 1 KB, when the client says it accepts gzip.

Only text answers are compressed (JSON, JSONP, text/*, XML); media files and other binary
bodies are already compressed or streamed, and pass as they are. Every answer that could be
compressed says `Vary: Accept-Encoding`, whether or not this client got gzip, so a shared
cache never hands the gzip form to a client that did not ask for it (or the reverse).

The host compresses at a fast level (the answer is built for this request alone); the cache
plugin keeps a better-compressed form once per entry (`KEPT_LEVEL`), so a hit never compresses.
brotli is not offered: every client that accepts br accepts gzip too, and keeping one
compressed form per cache entry keeps the cache simple.
"""

from __future__ import annotations

import gzip

MIN_BYTES = 1024  # "answers over 1 KB"
FAST_LEVEL = 1  # per request: about a sixth of level 6's time, 15% larger on a list page
KEPT_LEVEL = 6  # compressed once and served many times
_TEXT_TYPES = ("application/json", "application/javascript", "application/xml", "application/rss+xml",
               "application/atom+xml", "text/")


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header admits gzip (q above 0 for gzip, or for * when gzip is not named)."""
    if not header:
        return False
    named = star = None
    for part in header.lower().split(",")[:32]:  # a client controls the header: look at 32 codings at most
        coding, _, params = part.strip().partition(";")
        coding = coding.strip()
        if coding not in ("gzip", "x-gzip", "*"):
            continue
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value.strip()[:8])
                except ValueError:
                    quality = 0.0
        if coding == "*":
            star = quality
        else:
            named = quality if named is None else max(named, quality)
    if named is not None:
        return named > 0
    return bool(star and star > 0)


def compressible(headers: dict[str, str], body) -> bool:
    """A text body over MIN_BYTES that no one encoded yet (headers named as the host names them)."""
    if not isinstance(body, (bytes, bytearray)) or len(body) <= MIN_BYTES or "Content-Encoding" in headers:
        return False
    content_type = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return content_type.startswith(_TEXT_TYPES) or content_type.endswith(("+json", "+xml"))


def gzip_bytes(body: bytes, level: int = FAST_LEVEL) -> bytes:
    """The gzip member of `body`, with no time stamp (the same body always gives the same bytes)."""
    return gzip.compress(body, compresslevel=level, mtime=0)


def add_vary(headers: dict[str, str], value: str = "Accept-Encoding") -> None:
    """Add `value` to the Vary header, once."""
    current = headers.get("Vary")
    if not current:
        headers["Vary"] = value
    elif value.lower() not in (part.strip().lower() for part in current.split(",")):
        headers["Vary"] = f"{current}, {value}"


def negotiate(environ: dict, status: int, headers: dict[str, str], body):
    """(headers, body) as this client gets them: gzip when it accepts it and the body is worth it.

    A body that arrives already gzip-encoded (a cache hit kept compressed) only gets its Vary.
    A HEAD answer is negotiated the same way: its Content-Length is the one the GET would send.
    """
    if status in (204, 304) or not isinstance(body, (bytes, bytearray)):
        return headers, body
    encoding = headers.get("Content-Encoding")
    if encoding is not None:  # a kept gzip form may itself be under 1 KB: it still varies
        if encoding.lower() == "gzip":
            add_vary(headers)
        return headers, body
    if len(body) <= MIN_BYTES or not compressible(headers, body):
        return headers, body
    add_vary(headers)
    if not accepts_gzip(environ.get("HTTP_ACCEPT_ENCODING")):
        return headers, body
    headers["Content-Encoding"] = "gzip"
    return headers, gzip_bytes(bytes(body))


def gzip_etag(etag: str) -> str:
    """The ETag of the gzip form of the answer tagged `etag`: another representation, another tag."""
    if etag.endswith(('-gzip"', "-gzip")):  # tagged already (a kept answer's gzip form)
        return etag
    return etag[:-1] + '-gzip"' if etag.endswith('"') else etag + "-gzip"


def holds_etag(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 13.1.2) or is `*`."""
    if not if_none_match or not etag:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")[:64]]  # a client controls the header
    return etag.removeprefix("W/") in tags or "*" in tags
