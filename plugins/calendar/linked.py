"""What an event shows of other things: venue and organizer objects, term objects and images.

Everything is read for a whole page at once through core's content service: one read per post
type, one per taxonomy and one for the images (as the caller may see them), whatever the number
of events.
"""

from __future__ import annotations

import json

from sqlalchemy import select

from host import invalid_param
from host.text import sanitize_text_field, sanitize_url

from . import common
from .names import CATEGORY, ORGANIZER_META, VENUE_META
from .tables import tables


def readable(request, item: dict) -> bool:
    return item["status"] == "publish" or request.user.can("read_post", item)


def _clean(text: str) -> str:
    return (text or "").strip()


def meta_text(meta: dict, key: str) -> str:
    """A venue's or organizer's one-line field as served: also rows stored before writes were cleaned."""
    value = meta.get(key) or ""
    if not isinstance(value, str) or not value:
        return value
    return sanitize_url(value) if key == "website" else sanitize_text_field(value)


# --- venues and organizers -------------------------------------------------------------------

def venue_object(request, item: dict, image: object = False, single: bool = False) -> dict:
    """§1.3: empty fields are left out, then show_map, show_map_link and the global-id fields."""
    meta = item["meta"]
    data = {"id": item["id"], "author": str(item["author"]), "status": item["status"], **common.post_dates(request, item),
            "url": common.permalink(request, item), "venue": _clean(item["title"]),
            "description": _clean(item["content"]), "excerpt": _clean(item["excerpt"]), "slug": item["slug"],
            "image": image}
    for key in VENUE_META:
        data[key] = meta_text(meta, key)
    if meta.get("geo_lat") is not None and meta.get("geo_lng") is not None:
        data["geo_lat"], data["geo_lng"] = meta["geo_lat"], meta["geo_lng"]
    data = {name: value for name, value in data.items() if value not in ("", None, False, [], {})}
    data["show_map"] = bool(meta.get("show_map", True))
    data["show_map_link"] = bool(meta.get("show_map_link", True))
    data.update(global_ids(request, item))
    if single:
        data["json_ld"] = place_json_ld(request, item)
    return data


def organizer_object(request, item: dict, image: object = False, single: bool = False) -> dict:
    meta = item["meta"]
    data = {"id": item["id"], "author": str(item["author"]), "status": item["status"], **common.post_dates(request, item),
            "url": common.permalink(request, item), "organizer": _clean(item["title"]),
            "description": _clean(item["content"]), "excerpt": _clean(item["excerpt"]), "slug": item["slug"],
            "image": image}
    for key in ORGANIZER_META:
        data[key] = meta_text(meta, key)
    data = {name: value for name, value in data.items() if value not in ("", None, False, [], {})}
    data.update(global_ids(request, item))
    if single:
        data["json_ld"] = organizer_json_ld(request, item)
    return data


def global_ids(request, item: dict, lineage: list | None = None) -> dict:
    """Ids other sites keep when they import the item: on the site address, never the request's Host."""
    host = request.app.site_address(request.session).split("://", 1)[-1]
    own = f"{host}?id={item['id']}"
    return {"global_id": own, "global_id_lineage": [own] + [entry for entry in (lineage or []) if entry != own]}


def place_json_ld(request, item: dict) -> dict:
    meta = item["meta"]
    address = {"@type": "PostalAddress", "streetAddress": meta_text(meta, "address"),
               "addressLocality": meta_text(meta, "city"),
               "addressRegion": meta_text(meta, "stateprovince") or meta_text(meta, "state") or meta_text(meta, "province"),
               "postalCode": meta_text(meta, "zip"), "addressCountry": meta_text(meta, "country")}
    data = {"@type": "Place", "name": _clean(item["title"]), "url": common.permalink(request, item),
            "address": {name: value for name, value in address.items() if value}}
    if meta.get("phone"):
        data["telephone"] = meta_text(meta, "phone")
    if meta.get("website"):
        data["sameAs"] = meta_text(meta, "website")
    if meta.get("geo_lat") is not None and meta.get("geo_lng") is not None:
        data["geo"] = {"@type": "GeoCoordinates", "latitude": meta["geo_lat"], "longitude": meta["geo_lng"]}
    return {"@context": "http://schema.org", **data}


def organizer_json_ld(request, item: dict) -> dict:
    meta = item["meta"]
    data = {"@context": "http://schema.org", "@type": "Person", "name": _clean(item["title"]),
            "url": meta_text(meta, "website") or common.permalink(request, item)}
    if meta.get("phone"):
        data["telephone"] = meta_text(meta, "phone")
    if meta.get("email"):
        data["email"] = meta_text(meta, "email")
    return data


# --- links between events and venues / organizers ---------------------------------------------

def links_of(request, event_ids: list[int]) -> dict[int, dict[str, list[int]]]:
    links = tables(request.app)["links"]
    found = {event_id: {"venue": [], "organizer": []} for event_id in event_ids}
    if not event_ids:
        return found
    rows = request.session.execute(select(links.c.event_id, links.c.kind, links.c.linked_id)
                                   .where(links.c.event_id.in_(event_ids))
                                   .order_by(links.c.event_id, links.c.kind, links.c.position)).all()
    for row in rows:
        found.setdefault(row.event_id, {"venue": [], "organizer": []})[row.kind].append(row.linked_id)
    return found


def linked_items(request, ids: list[int], post_type: str) -> dict[int, dict]:
    """The readable items among `ids`: a draft venue of a published event stays hidden from visitors."""
    items = request.app.content.get_many(request, ids, post_type)
    return {item_id: item for item_id, item in items.items()
            if item["status"] != "trash" and readable(request, item)}


# --- terms -----------------------------------------------------------------------------------

def _term_urls(request, term: dict, taxonomy: str) -> dict:
    """`urls`: this API's address of the term, of its list and (for a child) of its parent."""
    base = "categories" if taxonomy == CATEGORY else "tags"
    urls = {"self": common.rest_url(request, f"{base}/{term['id']}"), "collection": common.rest_url(request, base)}
    if term.get("parent"):
        urls["up"] = common.rest_url(request, f"{base}/{term['parent']}")
    return urls


def term_object(request, term: dict, taxonomy: str) -> dict:
    """§1.6, a term of the term routes: core/v2's term (with its `meta`) with `link` renamed `url`, and `urls`."""
    data = {name: value for name, value in term.items() if name not in ("_links", "link")}
    data["url"] = term.get("link", "")
    data.setdefault("parent", 0)
    data.setdefault("meta", {})
    data["urls"] = _term_urls(request, data, taxonomy)
    return data


def event_term_object(request, term: dict, taxonomy: str) -> dict:
    """A term inside an event: the stored term record as the real plugin casts it (no link, no meta).

    One term belongs to one taxonomy here, so its term-taxonomy id is its id; term groups
    (an old aliasing feature) are not kept, so the group is 0; `filter` says the values are raw.
    """
    data = {"id": term["id"], "name": term["name"], "slug": term["slug"], "term_group": 0,
            "term_taxonomy_id": term["id"], "taxonomy": term["taxonomy"], "description": term.get("description", ""),
            "parent": term.get("parent", 0), "count": term.get("count", 0), "filter": "raw"}
    data["urls"] = _term_urls(request, data, taxonomy)
    return data


def terms_by_id(request, taxonomy: str, ids: list[int]) -> dict[int, dict]:
    if not ids:
        return {}
    found = request.app.content.terms(request, taxonomy, ids=sorted(set(ids)))
    return {term["id"]: event_term_object(request, {**term, "count": term["published_count"]}, taxonomy)
            for term in found}


def resolve_terms(request, taxonomy: str, values: list[str], name: str) -> list[int]:
    """Ids of the terms named by id or slug; an unknown one is a 400 naming it."""
    ids = [int(value) for value in values if value.isdigit()]
    slugs = [value for value in values if not value.isdigit()]
    found: set[int] = set()
    if ids:
        found.update(terms_by_id(request, taxonomy, ids))
        missing = [term_id for term_id in ids if term_id not in found]
        if missing:
            raise invalid_param({name: f"{missing[0]} is not a term of {taxonomy}."})
    for slug in slugs:
        named = request.app.content.terms(request, taxonomy, slugs=[slug])
        if not named:
            raise invalid_param({name: f"{slug} is not a term of {taxonomy}."})
        found.update(term["id"] for term in named)
    return sorted(found)


# --- images ----------------------------------------------------------------------------------

def images_by_id(request, ids: list[int]) -> dict[int, dict]:
    ids = sorted({media_id for media_id in ids if media_id})
    if not ids:
        return {}
    shown = request.app.content.view_many(request, ids, "attachment", user=request.user)
    return {media_id: image_object(media) for media_id, media in shown.items()}


def image_object(media: dict) -> dict:
    details = media.get("media_details") or {}
    url = media.get("source_url", "")
    data = {"url": url, "id": media["id"], "extension": url.rsplit(".", 1)[-1].lower() if "." in url else "",
            "width": details.get("width", 0), "height": details.get("height", 0)}
    if details.get("filesize"):
        data["filesize"] = details["filesize"]
    data["sizes"] = {name: {"width": size.get("width", 0), "height": size.get("height", 0),
                            "mime-type": size.get("mime_type", ""), "url": size.get("source_url", "")}
                     for name, size in (details.get("sizes") or {}).items()}
    return data


def image_id(request, value, name: str = "image") -> int:
    """The media id an `image` value names: an id, or the URL of an image in this site's library."""
    if value in (None, "", 0, "0"):
        return 0
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        media = request.app.content.get(request, int(value))
        if media is None or media["type"] != "attachment" or not (media.get("mime_type") or "").startswith("image/"):
            raise invalid_param({name: f"{value} is not an image of the media library."})
        return int(value)
    media = request.app.content.media_by_url(request, str(value), user=request.user)
    if media is not None and media["media_type"] == "image":
        return int(media["id"])
    raise invalid_param({name: "Images are taken from the media library: upload it to core/v2/media and "
                               "send its id (or its URL there)."})


def decode(text: str, default):
    try:
        return json.loads(text) if text else default
    except ValueError:
        return default
