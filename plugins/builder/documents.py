"""Builder documents: which items are built with the builder (an index kept by the content
events), rendering an item's tree with the kit, and the meta keys that carry the tree."""

from __future__ import annotations

import datetime
import hashlib
import json
import logging

from sqlalchemy import delete, insert, select

from host import MetaKey, RestError, RestRequest

from . import elements as tree
from .kit import Kit, kit_version, load_kit
from .render import BUILDER_MODE, is_builder_item, render_document
from .settings import settings_of
from .tables import DOCUMENTS, table

log = logging.getLogger("sitehost.builder")

DOCUMENT_TYPES = ("post", "page", "builder_library")
TEMPLATE_TYPES = ["post", "wp-post", "wp-page", "kit", "not-supported", "page", "section", "container",
                  "floating-buttons", "cloud-template-preview", "calx_event_single_static", ""]
CALENDAR_TEMPLATE = "calx_event_single_static"
MAX_PAGE_SETTINGS_BYTES = 64 * 1024


def template_types(app) -> list[str]:
    """The `_builder_template_type` enum: the calendar's single-event template only while it is enabled."""
    return [name for name in TEMPLATE_TYPES if name != CALENDAR_TEMPLATE or tree.calendar_enabled(app)]


def library_types(app) -> list[str]:
    """Types a template saved from the editor may have (template-library POST)."""
    return [name for name in ("page", "section", "container", CALENDAR_TEMPLATE)
            if name != CALENDAR_TEMPLATE or tree.calendar_enabled(app)]


def meta_keys(app) -> list[MetaKey]:
    def check_data(value) -> None:
        tree.parse_data(value, settings_of(app))

    def check_page_settings(value) -> None:
        if len(json.dumps(value)) > MAX_PAGE_SETTINGS_BYTES or tree._depth(value) > tree.MAX_SETTINGS_DEPTH:
            raise ValueError(f"must be at most {MAX_PAGE_SETTINGS_BYTES} bytes of JSON and "
                             f"{tree.MAX_SETTINGS_DEPTH} levels deep")

    keys = []
    for object_type in DOCUMENT_TYPES:
        edit = ("edit",)
        keys += [
            MetaKey(object_type, "_builder_edit_mode", {"type": "string", "default": "", "enum": ["", BUILDER_MODE],
                                                        "description": "`builder` when the builder edits the item."},
                    context=edit),
            MetaKey(object_type, "_builder_template_type", {"type": "string", "default": "",
                                                            "enum": template_types(app),
                                                            "description": "Builder template type."}, context=edit),
            MetaKey(object_type, "_builder_data", {"type": "string", "default": "",
                                                   "description": "The builder's element tree as JSON text."},
                    context=edit, check=check_data),
            MetaKey(object_type, "_builder_page_settings", {
                "type": "object", "default": {}, "description": "Page settings of the builder document.",
                "properties": {"hide_title": {"type": "string", "enum": ["yes", "no", ""], "default": ""}},
                "additionalProperties": True}, context=edit, check=check_page_settings),
        ]
    return keys


# --- the index of builder documents -----------------------------------------------------------

def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def record_saved(app, event) -> None:
    """Keep `builder_documents` in step with a saved item (runs after the item's commit)."""
    if event.type not in DOCUMENT_TYPES:
        return
    documents = table(app, DOCUMENTS)
    meta = event.item.get("meta") or {}
    is_document = meta.get("_builder_edit_mode") == BUILDER_MODE
    if not is_document:
        # Most saves are of plain items: no write transaction (and no wait for the write lock) unless a row
        # is there to remove. A new item has none.
        if event.created:
            return
        with app.db.session() as session:
            if session.execute(select(documents.c.post_id).where(documents.c.post_id == event.id)).first() is None:
                return
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(documents).where(documents.c.post_id == event.id))
        if is_document:
            session.execute(insert(documents).values(post_id=event.id, type=event.type,
                                                     template_type=str(meta.get("_builder_template_type") or ""),
                                                     modified_gmt=_now()))


def editor_url(item: dict, rest_url: str) -> str | None:
    """Where a builder document is edited: the builder's documents (what its own navigation's
    `edit_url` names); None for items the builder did not build."""
    if item.get("type") in DOCUMENT_TYPES and (item.get("meta") or {}).get("_builder_edit_mode") == BUILDER_MODE:
        return f"{rest_url}/builder/v1/documents"
    return None


def record_deleted(app, event) -> None:
    if event.type not in DOCUMENT_TYPES or not event.force:
        return
    documents = table(app, DOCUMENTS)
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(documents).where(documents.c.post_id == event.id))


def document_ids(request, limit: int | None = None) -> list[int]:
    documents = table(request.app, DOCUMENTS)
    query = select(documents.c.post_id).order_by(documents.c.modified_gmt.desc(), documents.c.post_id.desc())
    if limit:
        query = query.limit(limit)
    return [row.post_id for row in request.session.execute(query)]


def load_document(request, post_id: int) -> dict:
    """The builder document `post_id` the caller may edit; 404/403 otherwise."""
    item = request.app.content.get(request, post_id)
    if item is None or item["type"] not in DOCUMENT_TYPES or item["status"] == "trash":
        raise RestError("invalid_document_id", "There is no builder document with that id.", 404)
    if not request.user.can("edit_post", item):
        raise RestError("rest_cannot_edit", "Sorry, you are not allowed to edit this document.",
                        401 if not request.user.is_authenticated else 403)
    if (item.get("meta") or {}).get("_builder_edit_mode") != BUILDER_MODE:
        raise RestError("invalid_document_id", "That item is not built with the builder.", 404)
    return item


def elements_of(request, item: dict) -> list:
    try:
        return tree.parse_data((item.get("meta") or {}).get("_builder_data") or "", settings_of(request.app))
    except tree.TreeError as error:
        raise RestError("builder_invalid_data", f"The document's stored data is unusable: {error}", 409) from None


# --- rendering -------------------------------------------------------------------------------------

def render_cache_key(app, item: dict):
    """(kit version, digest of the tree) for builder items; False when the tree lists events (live data)."""
    if not is_builder_item(item):
        return None
    data = str(item["meta"]["_builder_data"])
    if tree.EVENTS_WIDGET in data and tree.calendar_enabled(app):
        return False
    with app.db.session() as session:
        version = kit_version(app, session)
    return version, hashlib.sha1(data.encode("utf-8")).hexdigest()


def render_item(app, item: dict) -> str | None:
    """The item's tree as HTML, or None when it has none (or it cannot be read: logged)."""
    rendered = render_both(app, item)
    return rendered[0] if rendered is not None else None


def render_both(app, item: dict) -> tuple[str, str] | None:
    """(HTML, CSS) of the item's tree, or None when it has none or it cannot be read (logged)."""
    if not is_builder_item(item):
        return None
    try:
        elements = tree.parse_data(str(item["meta"]["_builder_data"]), settings_of(app))
    except tree.TreeError as error:
        log.warning("builder document %s has unusable data (%s); its content is shown instead", item.get("id"), error)
        return None
    with app.db.session() as session:
        try:
            kit = load_kit(app, session)
        except RestError:
            kit = Kit(0, "", {}, {}, 0)
    events = events_reader(app) if tree.calendar_enabled(app) else None
    return render_document(app, item.get("id"), elements, kit, events)


def events_reader(app):
    """Upcoming events as anyone may read them: an anonymous internal GET of the calendar's event list."""
    def read(count: int):
        request = RestRequest(app, "GET", "/cal/events/v1/events", [("per_page", str(count))], {}, internal=True,
                              base_url=app.site_address() + app.settings.rest_prefix)
        try:
            status, _headers, data = app.rest.run_and_shape(request)
        finally:
            request.finish(success=False)
        if status != 200 or not isinstance(data, dict) or not isinstance(data.get("events"), list):
            log.warning("the events list could not read cal/events/v1/events (status %s)", status)
            return None
        return [event for event in data["events"] if isinstance(event, dict)]
    return read


def encoded(elements: list) -> str:
    return json.dumps(elements, separators=(",", ":"), ensure_ascii=False)
