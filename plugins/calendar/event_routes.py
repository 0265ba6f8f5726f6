"""Single events by id and by slug: read (§1.4), create, update and trash (§1.5), with their permissions."""

from __future__ import annotations

from host import RestError, RestResponse, forbidden, invalid_param
from host.auth import users as user_service

from . import common, linked, places, recurrence, times
from .events import (
    check_readable, event_values, load_event, rows_of, shape_events, sync_status, write_links, write_row,
)
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE


# --- permissions -------------------------------------------------------------------------------

def _target(request, post_type: str):
    """The item the path names (by id or slug), or None; a by-slug path first checks the slug (400)."""
    params = request.params
    if "id" in request.url_params:
        return request.app.content.get(request, int(params["id"]))
    item = request.app.content.get_by_slug(request, post_type, params["slug"])
    if item is None:
        raise invalid_param({"slug": f"No {post_type.removeprefix('cal_')} has the slug {params['slug']}."})
    request.url_params["id"] = str(item["id"])
    request.params["id"] = item["id"]
    return item


def can_create(post_type: str) -> dict:
    """Route keywords of creating an item of `post_type`: edit_posts, refused in the real route's words."""
    return {"capability": "edit_posts", "refusal": (
        "rest_cannot_create", f"Sorry, you are not allowed to create {post_type.removeprefix('cal_')}s.")}


def _may(action: str, post_type: str):
    """The permission check of editing or deleting (`action`) an item of `post_type`: the item's own
    capability (edit_post / delete_post) when the id names one of that type, else the type's (the
    handler answers the 404 / 400)."""
    def check(request):
        item = _target(request, post_type)
        allowed = request.user.can(f"{action}_post", item) if item is not None and item["type"] == post_type \
            else request.user.can(f"{action}_posts")
        if not allowed:
            raise forbidden(request.user, f"rest_cannot_{action}", f"Sorry, you are not allowed to {action} this item.")
        return True
    return check


def can_edit(post_type: str):
    return _may("edit", post_type)


def can_delete(post_type: str):
    return _may("delete", post_type)


def readable_by_slug(post_type: str):
    """GET by slug is public; the slug must name an item (400 otherwise, as an argument check)."""
    def check(request):
        _target(request, post_type)
        return True
    return check


# --- handlers ----------------------------------------------------------------------------------

def get_event(request):
    item = load_event(request, int(request.params["id"]))
    unlocked = check_readable(request, item)
    return shape_events(request, [item], single=True, unlocked=unlocked)[0]


def _status(request, requested: str | None, current: dict | None) -> str | None:
    """§1.5: without publish rights, publish and future become pending; an empty status is draft."""
    if requested in (None, ""):
        return "draft" if current is None else None
    if requested in ("publish", "future", "private") and not request.user.can("publish_posts"):
        return "pending"
    return requested


def _author(request, current: dict | None) -> int | None:
    if not request.has_param("author") or request.params.get("author") is None:
        return None
    author = int(request.params["author"])
    if author != request.user.id and not request.user.can("edit_others_posts"):
        raise forbidden(request.user, "rest_cannot_edit_others",
                        "Sorry, you are not allowed to create or edit events as this user.")
    if author != (current or {}).get("author") and author != request.user.id:
        if user_service.get_user(request.app, request.session, author) is None:
            raise invalid_param({"author": "Invalid author ID."})
    return author


def _term_ids(request, name: str, taxonomy: str) -> list[int] | None:
    if not request.has_param(name) or request.params.get(name) is None:
        return None
    ids = list(dict.fromkeys(int(term_id) for term_id in request.params[name]))
    return linked.resolve_terms(request, taxonomy, [str(term_id) for term_id in ids], name)


def _linked(request, kind: str) -> list[int] | None:
    """Venue or organizer ids; objects create new ones (could-not-create-venue / -organizer)."""
    if not request.has_param(kind) or request.params.get(kind) is None:
        return None
    value = request.params[kind]
    entries = value if isinstance(value, list) else [value]
    post_type = VENUE if kind == "venue" else ORGANIZER
    ids = []
    for entry in entries:
        if isinstance(entry, dict):
            if entry.get("id") is not None:
                entry = entry["id"]
            else:
                ids.append(places.create_inline(request, kind, entry))
                continue
        if isinstance(entry, bool) or not isinstance(entry, int) and not (isinstance(entry, str) and entry.isdigit()):
            raise invalid_param({kind: f"A {kind} is an id or an object with its fields."})
        found = request.app.content.get(request, int(entry), post_type)
        if found is None:
            raise invalid_param({kind: f"{entry} is not the id of a {kind}."})
        ids.append(int(entry))
    return ids


def _post_fields(request, current: dict | None) -> dict:
    params, sent = request.params, request.has_param
    fields = {}
    for name, column in (("title", "title"), ("description", "content"), ("excerpt", "excerpt"), ("slug", "slug")):
        if sent(name) and params.get(name) is not None:
            fields[column] = params[name]
    status = _status(request, params.get("status") if sent("status") else None, current)
    if status is not None:
        fields["status"] = status
    if sent("image"):
        fields["featured_media"] = linked.image_id(request, params.get("image"))
    published = common.publication_date(request, params)
    if published is not None:
        fields["date_gmt"] = published
        if fields.get("status", (current or {}).get("stored_status")) == "publish" and published > times.utcnow():
            fields["status"] = "future"  # published later, as core/v2 schedules posts
    if current is not None and sent("password") and params.get("password") is not None:
        fields["password"] = params["password"]
    return fields


def create_event(request):
    content = request.app.content
    author = _author(request, None)
    terms = {taxonomy: ids for taxonomy, ids in ((CATEGORY, _term_ids(request, "categories", CATEGORY)),
                                                (TAG, _term_ids(request, "tags", TAG))) if ids is not None}
    fields = _post_fields(request, None)
    values = event_values(request, request.params, None)
    venues, organizers = _linked(request, "venue"), _linked(request, "organizer")
    item = content.create(request, EVENT, author=author, terms=terms, **fields)
    write_row(request, item, values, created=True)
    recurrence.apply(request, item["id"])
    for kind, ids in (("venue", venues), ("organizer", organizers)):
        if ids:
            write_links(request, item["id"], kind, ids)
    data = shape_events(request, [content.get(request, item["id"], EVENT)], single=True, unlocked={item["id"]})[0]
    return RestResponse.created(data, data["rest_url"])


def update_event(request):
    content = request.app.content
    current = load_event(request, int(request.params["id"]))
    if current["stored_status"] == "trash" and request.params.get("status") in (None, ""):
        raise RestError("event-is-in-trash", "The event is in the trash.", 410)
    author = _author(request, current)
    terms = {taxonomy: ids for taxonomy, ids in ((CATEGORY, _term_ids(request, "categories", CATEGORY)),
                                                (TAG, _term_ids(request, "tags", TAG))) if ids is not None}
    fields = _post_fields(request, current)
    row = rows_of(request, [current["id"]]).get(current["id"])
    values = event_values(request, request.params, row)
    venues, organizers = _linked(request, "venue"), _linked(request, "organizer")
    if author is not None:
        fields["author"] = author
    if fields.get("status") == "trash":
        raise invalid_param({"status": "Events are trashed with DELETE."})
    try:
        item = content.update(request, current["id"], revision=True, terms=terms, **fields)
    except (ValueError, LookupError):
        raise RestError("could-not-update-event", "The event could not be updated.", 403) from None
    write_row(request, item, values, created=False)
    recurrence.apply(request, item["id"])
    for kind, ids in (("venue", venues), ("organizer", organizers)):
        if ids is not None:
            write_links(request, item["id"], kind, ids)
    return shape_events(request, [content.get(request, item["id"], EVENT)], single=True, unlocked={item["id"]})[0]


def delete_event(request):
    item = load_event(request, int(request.params["id"]))
    if item["stored_status"] == "trash":
        raise RestError("event-is-in-trash", "The event is already in the trash.", 410)
    data = shape_events(request, [item], unlocked={item["id"]})[0]
    try:
        trashed = request.app.content.trash(request, item["id"])
    except (ValueError, LookupError):
        raise RestError("could-not-delete-event", "The event could not be deleted.", 500) from None
    sync_status(request.app, request.session, item["id"], "trash", trashed["parent"])
    data["status"] = "trash"
    return data
