"""oEmbed data for this site's own published posts and pages (the `embed` route).

Items, their authors and featured images are read through core's services as the caller may see them
(`app.content.view`, `app.users.profile` with the request's user), so the content plugin's own visibility
rules apply; on top of that only published posts and pages are embeddable.
"""

from __future__ import annotations

import html
import math
import re
import secrets
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree

from host import RawBody, RestError
from host.text import strip_tags
from markupsafe import Markup

from .templating import TEMPLATES

XML_CONTENT_TYPE = "text/xml; charset=UTF-8"
MIN_WIDTH, MAX_WIDTH, MIN_HEIGHT = 200, 600, 200
# Which plain permalink query names which post type.
PERMALINK_QUERIES = (("p", "post"), ("page_id", "page"))
EMBEDDABLE_TYPES = {"post", "page"}
_LEADING_INTEGER = re.compile(r"^\s*[+-]?\d+")
MAX_ID = 2**63 - 1  # the largest id a row can have: a longer number names nothing


def absint(value) -> int:
    """PHP's absint: the absolute value of the leading integer, 0 when there is none."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return abs(int(value))
    found = _LEADING_INTEGER.match(str(value)) if value is not None else None
    return abs(int(found.group(0))) if found else 0


def dimensions(maxwidth) -> tuple[int, int]:
    """Width clamped to 200..600; height 16:9 of it, at least 200 (600 -> 600x338)."""
    width = min(max(MIN_WIDTH, absint(maxwidth)), MAX_WIDTH)
    return width, max(math.ceil(width * 9 / 16), MIN_HEIGHT)


def site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    base = request.base_url
    return base[: -len(prefix)] if prefix and base.endswith(prefix) else base


def is_local_url(request, url: str) -> bool:
    """Whether `url` is on this site's host (scheme aside)."""
    target = urlsplit(url)
    return bool(target.netloc) and target.netloc.lower() == urlsplit(site_url(request)).netloc.lower()


def not_found() -> RestError:
    return RestError("oembed_invalid_url", "Not Found", 404)


def local_item(request, url: str) -> tuple[str, int]:
    """(post type, id) of the item a local permalink names, or 404 oembed_invalid_url."""
    if not is_local_url(request, url):
        raise not_found()
    parts = urlsplit(url)
    if parts.path not in ("", "/", "/index.php"):
        raise not_found()
    query = parse_qs(parts.query)
    for name, post_type in PERMALINK_QUERIES:
        values = query.get(name)
        if values and values[-1].isdigit() and 0 < int(values[-1]) <= MAX_ID:
            return post_type, int(values[-1])
    raise not_found()


def embed_data(request, url: str, maxwidth) -> dict:
    """The oEmbed response (type rich) for a published post or page of this site."""
    post_type, item_id = local_item(request, url)
    item = request.app.content.view(request, item_id, user=request.user, post_type=post_type)
    if item is None or item.get("type") not in EMBEDDABLE_TYPES or not _publicly_viewable(request, item):
        raise not_found()
    site = site_url(request)
    settings_site = request.app.settings.site
    provider_name = settings_site.get("name", "")
    provider_url = (settings_site.get("home") or site).rstrip("/")
    author = request.app.users.profile(request, int(item["author"]), user=request.user) if item.get("author") else None
    title = (item.get("title") or {}).get("rendered", "")
    width, height = dimensions(maxwidth)
    data = {
        "version": "1.0",
        "provider_name": provider_name,
        "provider_url": provider_url,
        "author_name": author.get("name", "") if author else provider_name,
        "author_url": author.get("link", "") if author else provider_url,
        "title": title,
        "type": "rich",
        "width": width,
        "height": height,
        "html": _embed_html(item["link"], title, provider_name, width, height),
    }
    thumbnail = _thumbnail(request, item)
    if thumbnail:
        data.update(thumbnail)
    return data


def _publicly_viewable(request, item: dict) -> bool:
    registered = request.app.registry.statuses.get(item.get("status"))
    return item.get("status") == "publish" or bool(registered and registered[0].public)


def _thumbnail(request, item: dict) -> dict | None:
    media_id = item.get("featured_media")
    if not media_id:
        return None
    media = request.app.content.view(request, int(media_id), user=request.user, post_type="attachment")
    if not media or not media.get("source_url"):
        return None
    details = media.get("media_details") or {}
    result = {"thumbnail_url": media["source_url"]}
    if isinstance(details.get("width"), int) and isinstance(details.get("height"), int):
        result.update(thumbnail_width=details["width"], thumbnail_height=details["height"])
    return result


def _embed_html(link: str, title: str, site_name: str, width: int, height: int) -> str:
    """A link in a blockquote (for consumers without iframes) and a sandboxed iframe of the embed view;
    `title` is the item's rendered title, HTML the content service already made safe."""
    secret = secrets.token_hex(5)
    separator = "&" if "?" in link else "?"
    embed_url = f"{link}{separator}embed=true#?secret={secret}"
    plain_title = html.unescape(strip_tags(title))
    return TEMPLATES.get_template("oembed_embed.html").render(
        secret=secret, link=link, title=Markup(title), embed_url=embed_url, width=width, height=height,
        frame_title=f"\u201c{plain_title}\u201d \u2014 {site_name}")


def to_xml(data: dict) -> RawBody:
    """`<oembed>` with one child per key; nested objects nest, numeric keys become `<oembed>`."""
    root = ElementTree.Element("oembed")
    _append(root, data)
    text = '<?xml version="1.0"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
    return RawBody(text, XML_CONTENT_TYPE)


def _append(parent, value) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        name = "oembed" if isinstance(key, int) or str(key).isdigit() else _element_name(str(key))
        element = ElementTree.SubElement(parent, name)
        if isinstance(child, (dict, list)):
            _append(element, child)
        elif isinstance(child, bool):
            element.text = "1" if child else "0"
        elif child is not None:
            element.text = str(child)


def _element_name(key: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", key)
    return name if re.match(r"^[A-Za-z_]", name) else "_" + name
