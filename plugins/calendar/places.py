"""Venues and organizers: list (§1.6), single, by slug, create, update and trash, with their own codes."""

from __future__ import annotations

from sqlalchemy import exists, func, select

from host import RestError, RestResponse, invalid_param
from host.text import sanitize_text_field, sanitize_url

from . import common, linked, times
from .names import ORGANIZER, ORGANIZER_META, VENUE, VENUE_META
from .tables import tables

KINDS = {
    "venue": {"type": VENUE, "plural": "venues", "name_field": "venue", "meta": VENUE_META,
              "label": "venue", "shape": linked.venue_object},
    "organizer": {"type": ORGANIZER, "plural": "organizers", "name_field": "organizer", "meta": ORGANIZER_META,
                  "label": "organizer", "shape": linked.organizer_object},
}
FLAGS = ("show_map", "show_map_link")


def _flag(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no", "off")
    return bool(value)


def shape_all(request, kind: str, items: list[dict], single: bool = False) -> list[dict]:
    images = linked.images_by_id(request, [item["featured_media"] for item in items])
    shape = KINDS[kind]["shape"]
    return [shape(request, item, images.get(item["featured_media"], False), single) for item in items]


# --- list ------------------------------------------------------------------------------------

def list_places(kind: str):
    spec = KINDS[kind]

    def handler(request):
        params, app = request.params, request.app
        search = params.get("search")  # a value that is not a string was refused by the argument check
        statuses = common.statuses_for(request, spec["type"], params.get("status"))
        events, links = tables(app)["events"], tables(app)["links"]
        ids_query = app.content.matching_ids(request, spec["type"], status=statuses, search=search or "",
                                             order="title")
        post_id = ids_query.selected_columns[0]
        where = []
        has_link = exists().where(links.c.linked_id == post_id, links.c.kind == kind)
        if params.get("event") is not None:
            where.append(exists().where(links.c.linked_id == post_id, links.c.kind == kind,
                                        links.c.event_id == int(params["event"])))
        if params.get("has_events") is True:
            where.append(has_link)
        elif params.get("has_events") is False:
            where.append(~has_link)
        if params.get("only_with_upcoming"):
            where.append(exists().where(links.c.linked_id == post_id, links.c.kind == kind,
                                        events.c.post_id == links.c.event_id, events.c.status == "publish",
                                        events.c.end_utc >= times.utcnow()))
        ids_query = ids_query.where(*where)
        total = request.session.execute(
            select(func.count()).select_from(ids_query.order_by(None).subquery())).scalar() or 0
        size, page = common.per_page(request), int(params.get("page") or 1)
        found = [row[0] for row in request.session.execute(ids_query.limit(size).offset((page - 1) * size)).all()]
        if page > 1 and not found:
            raise RestError(f"{kind}-archive-page-not-found", f"The requested {kind} archive page does not exist.",
                            404)
        items = app.content.get_many(request, found, spec["type"])
        shaped = shape_all(request, kind, [items[item_id] for item_id in found if item_id in items])
        pages = common.total_pages(total, size)
        query = {"page": page, "per_page": size}
        for name in ("search", "event", "has_events", "only_with_upcoming"):
            if request.has_param(name) and params.get(name) not in (None, ""):
                query[name] = params[name]
        query["status"] = common.status_in_url(request, params.get("status"))
        body = {spec["plural"]: shaped,
                **common.page_links(request, spec["plural"], query, page, pages, lambda: True, lambda: total > 0,
                                    page_in_url=True),
                "total": total, "total_pages": pages}
        return RestResponse(body, 200, {"X-CAL-Total": str(total), "X-CAL-TotalPages": str(pages)})
    return handler


# --- single ----------------------------------------------------------------------------------

def load(request, kind: str) -> dict:
    spec = KINDS[kind]
    item = request.app.content.get(request, int(request.params["id"]))
    if item is None:
        raise RestError(f"{kind}-not-found", f"The requested {kind} could not be found.", 404)
    if item["type"] != spec["type"]:
        raise RestError(f"rest-invalid-{kind}-id", f"The requested post id is not a {kind}.", 400)
    return item


def get_place(kind: str):
    def handler(request):
        item = load(request, kind)
        if item["stored_status"] == "trash":
            raise RestError(f"{kind}-no-longer-available", f"The {kind} is no longer available.", 403)
        if item["status"] != "publish" and not request.user.can("read_post", item):
            raise RestError(f"{kind}-not-accessible", f"The requested {kind} is not accessible.", 403)
        return shape_all(request, kind, [item], single=True)[0]
    return handler


# --- writes ----------------------------------------------------------------------------------

def _fields(request, kind: str, values: dict, current: dict | None) -> tuple[dict, dict]:
    """(post fields, meta) from the sent values."""
    spec = KINDS[kind]
    post: dict = {}
    meta: dict = {}
    sent = (lambda name: name in values) if values is not request.params else request.has_param
    if sent(spec["name_field"]) and values.get(spec["name_field"]) is not None:
        post["title"] = str(values[spec["name_field"]])
    if sent("description") and values.get("description") is not None:
        post["content"] = str(values["description"])
    if sent("status") and values.get("status"):
        status = values["status"]
        if status not in request.app.registry.status_names(spec["type"], writable_only=True) or status == "trash":
            raise invalid_param({"status": f"{status} is not a status a {kind} can be given."})
        if status in ("publish", "future", "private") and not request.user.can("publish_posts"):
            status = "pending"
        post["status"] = status
    elif current is None:
        post["status"] = "publish" if request.user.can("publish_posts") else "pending"
    if sent("image"):
        post["featured_media"] = linked.image_id(request, values.get("image"))
    if sent("author") and values.get("author") is not None:
        author = int(values["author"])
        if author != request.user.id and not request.user.can("edit_others_posts"):
            raise invalid_param({"author": "Only editors may name another author."})
        post["author"] = author
    dates_source = {name: values.get(name) for name in ("date", "date_utc") if values.get(name)}
    if dates_source:
        published = common.publication_date(request, dates_source)
        if published is not None:
            post["date_gmt"] = published
    for key in spec["meta"]:
        if sent(key) and values.get(key) is not None:
            text = str(values[key]).strip()
            if key == "website" and text and not text.lower().startswith(("http://", "https://")):
                raise invalid_param({"website": "The website must be an http or https URL."})
            if key == "email" and text and ("@" not in text or " " in text or len(text) > 254):
                raise invalid_param({"email": "The email address is not valid."})
            # One line of text each (phone, address, ...): shown on other people's pages, so no markup.
            meta[key] = sanitize_url(text) if key == "website" else sanitize_text_field(text)
    if kind == "venue":
        for flag in FLAGS:
            if sent(flag) and values.get(flag) is not None:
                meta[flag] = _flag(values[flag])
    return post, meta


def create_inline(request, kind: str, values: dict) -> int:
    """A venue or organizer sent inside an event: created with it, or could-not-create-<kind>."""
    spec = KINDS[kind]
    name = values.get(spec["name_field"])
    if not isinstance(name, str) or not name.strip() or len(name) > 500 or len(values) > 30:
        raise RestError(f"could-not-create-{kind}", f"The {kind} could not be created: its name "
                                                    f"({spec['name_field']}) is missing or too long.", 400)
    if not request.user.can("edit_posts"):
        raise RestError(f"could-not-create-{kind}", f"You may not create a {kind}.", 400)
    clean = {key: value for key, value in values.items()
             if key in (spec["name_field"], "description", "status", *spec["meta"], *FLAGS)
             and (value is None or isinstance(value, (str, bool, int, float)))}
    try:
        post, meta = _fields(request, kind, clean, None)
    except RestError as error:
        raise RestError(f"could-not-create-{kind}", f"The {kind} could not be created: {error.message}", 400) \
            from None
    return request.app.content.create(request, spec["type"], meta=meta, **post)["id"]


def create_place(kind: str):
    spec = KINDS[kind]

    def handler(request):
        post, meta = _fields(request, kind, request.params, None)
        item = request.app.content.create(request, spec["type"], meta=meta, **post)
        data = shape_all(request, kind, [item], single=True)[0]
        return RestResponse.created(data, common.rest_url(request, f"{spec['plural']}/{item['id']}"))
    return handler


def update_place(kind: str):
    def handler(request):
        current = load(request, kind)
        post, meta = _fields(request, kind, request.params, current)
        if current["stored_status"] == "trash" and "status" not in post:
            raise RestError(f"{kind}-is-in-trash", f"The {kind} is in the trash.", 410)
        try:
            item = request.app.content.update(request, current["id"], revision=True, meta=meta, **post)
        except (ValueError, LookupError):
            raise RestError(f"could-not-update-{kind}", f"The {kind} could not be updated.", 403) from None
        return shape_all(request, kind, [item], single=True)[0]
    return handler


def delete_place(kind: str):
    def handler(request):
        item = load(request, kind)
        if item["stored_status"] == "trash":
            raise RestError(f"{kind}-is-in-trash", f"The {kind} is already in the trash.", 410)
        data = shape_all(request, kind, [item])[0]
        try:
            request.app.content.trash(request, item["id"])
        except (ValueError, LookupError):
            raise RestError(f"could-not-delete-{kind}", f"The {kind} could not be deleted.", 500) from None
        data["status"] = "trash"
        return data
    return handler
