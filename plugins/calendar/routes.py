"""cal/events/v1: the route table (permissions and handlers live beside it), and /doc."""

from __future__ import annotations

import json

from host import Route, openapi_document

from . import event_routes as events, places, terms
from .common import TOTAL_HEADERS, site_url
from .listing import list_events
from .names import EVENT, NAMESPACE, ORGANIZER, VENUE
from marshmallow import fields, validate

from .schemas import (
    CategoryFields, CategoryListArgs, CategoryUpdateArgs, EventCreateArgs as EventCreate, EventListArgs,
    EventReadArgs, EventSlugDeleteArgs, EventSlugReadArgs, EventSlugUpdateArgs as EventSlugUpdate,
    EventUpdateArgs as EventUpdate, ItemIdArgs, LinkedListArgs, OrganizerFields as OrganizerCreate,
    OrganizerSlugUpdateArgs as OrganizerSlugUpdate, OrganizerUpdateArgs as OrganizerUpdate, SlugArgs, TagFields,
    TagListArgs, TagUpdateArgs, TermIdArgs, VenueFields as VenueCreate, VenueSlugUpdateArgs as VenueSlugUpdate,
    VenueUpdateArgs as VenueUpdate,
)

ID = r"/(?P<id>\d+)"
SLUG = r"/by-slug/(?P<slug>[^/]+)"
WRITE = "POST, PUT, PATCH"


def namespace_document(request, namespace: str = NAMESPACE):
    """An OpenAPI description of this namespace, cut from the site's document (the same schemas)."""
    document = openapi_document(request.app, site_url(request))
    prefix = f"{request.app.settings.rest_prefix}/{namespace}"
    paths = {path: operations for path, operations in document.get("paths", {}).items()
             if path == prefix or path.startswith(prefix + "/")}
    schemas = document.get("components", {}).get("schemas", {})
    wanted: set[str] = set()
    pending = [json.dumps(paths)]
    while pending:
        text = pending.pop()
        for part in text.split('"#/components/schemas/')[1:]:
            name = part.split('"', 1)[0]
            if name in schemas and name not in wanted:
                wanted.add(name)
                pending.append(json.dumps(schemas[name]))
    components = {**document.get("components", {}), "schemas": {name: schemas[name] for name in sorted(wanted)}}
    return {**{key: value for key, value in document.items() if key not in ("paths", "components", "tags")},
            "tags": [tag for tag in document.get("tags", []) if tag.get("name") == namespace],
            "paths": paths, "components": components}


def _places(kind: str, post_type: str, fields, update_args, slug_update_args) -> list[Route]:
    base = "/" + places.KINDS[kind]["plural"]
    return [
        Route(NAMESPACE, base, "GET", places.list_places(kind), args=LinkedListArgs, cacheable=True, title=kind,
              expose_headers=TOTAL_HEADERS),
        Route(NAMESPACE, base, "POST", places.create_place(kind), args=fields,
              **events.can_create(post_type), title=kind),
        Route(NAMESPACE, base + ID, "GET", places.get_place(kind), args=ItemIdArgs, cacheable=True, title=kind),
        Route(NAMESPACE, base + ID, WRITE, places.update_place(kind), args=update_args, partial_args=True,
              permission=events.can_edit(post_type), title=kind),
        Route(NAMESPACE, base + ID, "DELETE", places.delete_place(kind), args=ItemIdArgs,
              permission=events.can_delete(post_type), title=kind),
        Route(NAMESPACE, base + SLUG, "GET", places.get_place(kind), args=SlugArgs,
              permission=events.readable_by_slug(post_type), cacheable=True, title=kind),
        Route(NAMESPACE, base + SLUG, WRITE, places.update_place(kind), args=slug_update_args, partial_args=True,
              permission=events.can_edit(post_type), title=kind),
        Route(NAMESPACE, base + SLUG, "DELETE", places.delete_place(kind), args=SlugArgs,
              permission=events.can_delete(post_type), title=kind),
    ]


def _terms(kind: str, list_args, fields, update_args) -> list[Route]:
    base = "/" + kind
    return [
        Route(NAMESPACE, base, "GET", terms.list_terms(kind), args=list_args, cacheable=True, title=kind,
              expose_headers=TOTAL_HEADERS),
        Route(NAMESPACE, base, "POST", terms.create_term(kind), args=fields, **terms.can_create(kind),
              title=kind),
        Route(NAMESPACE, base + ID, "GET", terms.get_term(kind), args=TermIdArgs, cacheable=True, title=kind),
        Route(NAMESPACE, base + ID, WRITE, terms.update_term(kind), args=update_args, partial_args=True,
              **terms.MANAGE, title=kind),
        Route(NAMESPACE, base + ID, "DELETE", terms.delete_term(kind), args=TermIdArgs, **terms.MANAGE,
              title=kind),
    ]


def _with_statuses(app, schema, post_type: str):
    """The write args with `status` from the registered statuses (a disabled plugin's ones are gone)."""
    statuses = [name for name in app.registry.status_names(post_type, writable_only=True)
                if name != "trash" and not app.registry.statuses[name][0].internal]
    return schema.from_dict({"status": fields.String(validate=validate.OneOf(statuses), metadata={
        "description": "The item's status (without the right to publish, publish becomes pending)."})},
        name=schema.__name__)


def routes(app) -> list[Route]:
    EventCreateArgs, EventUpdateArgs, EventSlugUpdateArgs = (  # noqa: N806 (classes)
        _with_statuses(app, schema, EVENT) for schema in (EventCreate, EventUpdate, EventSlugUpdate))
    VenueFields, VenueUpdateArgs, VenueSlugUpdateArgs = (  # noqa: N806
        _with_statuses(app, schema, VENUE) for schema in (VenueCreate, VenueUpdate, VenueSlugUpdate))
    OrganizerFields, OrganizerUpdateArgs, OrganizerSlugUpdateArgs = (  # noqa: N806
        _with_statuses(app, schema, ORGANIZER) for schema in (OrganizerCreate, OrganizerUpdate, OrganizerSlugUpdate))
    return [
        Route(NAMESPACE, "/doc", "GET", namespace_document, title="doc", cacheable=True, changes_with=("settings",)),
        Route(NAMESPACE, "/events", "GET", list_events, args=EventListArgs, cacheable=True, title="events",
              expose_headers=TOTAL_HEADERS),
        Route(NAMESPACE, "/events", "POST", events.create_event, args=EventCreateArgs,
              **events.can_create(EVENT), title="events"),
        Route(NAMESPACE, "/events" + ID, "GET", events.get_event, args=EventReadArgs, cacheable=True, title="event"),
        Route(NAMESPACE, "/events" + ID, WRITE, events.update_event, args=EventUpdateArgs, partial_args=True,
              permission=events.can_edit(EVENT), title="event"),
        Route(NAMESPACE, "/events" + ID, "DELETE", events.delete_event, args=EventReadArgs,
              permission=events.can_delete(EVENT), title="event"),
        Route(NAMESPACE, "/events" + SLUG, "GET", events.get_event, args=EventSlugReadArgs,
              permission=events.readable_by_slug(EVENT), cacheable=True, title="event"),
        Route(NAMESPACE, "/events" + SLUG, WRITE, events.update_event, args=EventSlugUpdateArgs, partial_args=True,
              permission=events.can_edit(EVENT), title="event"),
        Route(NAMESPACE, "/events" + SLUG, "DELETE", events.delete_event, args=EventSlugDeleteArgs,
              permission=events.can_delete(EVENT), title="event"),
        *_places("venue", VENUE, VenueFields, VenueUpdateArgs, VenueSlugUpdateArgs),
        *_places("organizer", ORGANIZER, OrganizerFields, OrganizerUpdateArgs, OrganizerSlugUpdateArgs),
        *_terms("categories", CategoryListArgs, CategoryFields, CategoryUpdateArgs),
        *_terms("tags", TagListArgs, TagFields, TagUpdateArgs),
    ]


