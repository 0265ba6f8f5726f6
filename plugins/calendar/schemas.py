"""Route arguments of cal/events/v1 (marshmallow, on host.args) and the resource shapes it answers."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from host.args import MAX_SEARCH_LENGTH, JsonSchemaField, Paged, id_list

MAX_DATE = 64
MAX_TEXT = 100_000
MAX_NAME = 500
MAX_LINKED = 20  # venues or organizers one event may name
MAX_TERMS = 100
EVENTS_PER_PAGE_CAP = 50  # a larger per_page is cut down to this, not refused (reference §1.2)


def _meta(description: str, **extra) -> dict:
    return {"description": description, **extra}


def _date(description: str, **keywords) -> fields.Field:
    return fields.String(validate=validate.Length(max=MAX_DATE), metadata=_meta(description), **keywords)


def _text(description: str, maximum: int = MAX_TEXT, **keywords) -> fields.Field:
    return fields.String(validate=validate.Length(max=maximum), metadata=_meta(description), **keywords)


def _website() -> fields.Field:
    """A website: empty, or an http or https address. The pattern says in the schema what the write checks
    (places.py), so a client generated from the schema never sends a value the server refuses."""
    return fields.String(validate=[validate.Length(max=2000), validate.Regexp(r"^$|^[Hh][Tt][Tt][Pp][Ss]?://")],
                         metadata=_meta("Website: an http or https address, or empty."))


def _flag(description: str) -> fields.Field:
    return fields.Boolean(metadata=_meta(description))


def _image() -> fields.Field:
    return JsonSchemaField({"type": ["integer", "string"], "maxLength": 2000,
                            "description": "The id of an image in the media library (or its URL on this site)."})


LINKED = {"type": ["array", "integer", "object"], "maxItems": MAX_LINKED,
          "items": {"type": ["integer", "object"]}}


class PageArgs(Paged.with_bounds(maximum=None, description="The number of items to return on each page (at most 50).",
                                  page_description="The archive page to return.")):
    """page and per_page as this namespace has them: per_page defaults to 10, anything above 50 is cut."""


# --- events ---------------------------------------------------------------------------------

class EventListArgs(PageArgs):
    start_date = _date("Events that start on or after this date (default: yesterday, in the site's time zone).")
    end_date = _date("Events that end on or before this date (default: 24 months from now).")
    search = _text("Events that contain this text.", MAX_SEARCH_LENGTH)
    categories = fields.List(fields.String(validate=validate.Length(min=1, max=200)),
                             validate=validate.Length(max=MAX_TERMS),
                             metadata=_meta("Event categories (ids or slugs; any of them)."))
    tags = fields.List(fields.String(validate=validate.Length(min=1, max=200)), validate=validate.Length(max=MAX_TERMS),
                       metadata=_meta("Event tags (ids or slugs; any of them)."))
    venue = fields.List(fields.Integer(), validate=validate.Length(max=MAX_TERMS),
                        metadata=_meta("Events at these venues (ids)."))
    organizer = fields.List(fields.Integer(), validate=validate.Length(max=MAX_TERMS),
                            metadata=_meta("Events of these organizers (ids)."))
    featured = _flag("Only featured events (true) or only events that are not featured (false).")
    status = _text("Post statuses, comma-separated (only publish unless the caller can edit events).", 200)
    geoloc = _flag("Only events with a geocoded venue (needs the calendar's geolocation extension).")
    geoloc_lat = fields.Float(metadata=_meta("Latitude of the centre of a proximity search (needs geoloc_lng)."))
    geoloc_lng = fields.Float(metadata=_meta("Longitude of the centre of a proximity search (needs geoloc_lat)."))
    include = id_list("Only these events; date filters are then ignored.")
    post_parent = fields.Integer(validate=validate.Range(min=0), metadata=_meta("Events whose parent is this event."))
    strict_dates = fields.Boolean(load_default=False, metadata=_meta(
        "Use start_date and end_date exactly as given; when false whole days are included."))
    starts_before = _date("Events that start on or before this date.")
    starts_after = _date("Events that start after this date.")
    ends_before = _date("Events that end on or before this date.")
    ends_after = _date("Events that end after this date.")
    ticketed = _flag("Only events with tickets (needs the ticketing extension).")


class EventIdArgs(Schema):
    id = fields.Integer(required=True, metadata=_meta("The event id."))


class EventReadArgs(EventIdArgs):
    password = _text("The event's password, when it has one.", 255)


class SlugArgs(Schema):
    slug = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata=_meta("The slug."))


class EventSlugReadArgs(SlugArgs):
    password = _text("The event's password, when it has one.", 255)


class EventFields(Schema):
    """The writable fields of an event (interface: "Calendar event")."""

    author = fields.Integer(metadata=_meta("The event's author (a user id)."))
    date = _date("The event's publication date, in the site's time zone.")
    date_utc = _date("The event's publication date, in UTC.")
    title = _text("The event's title.", MAX_NAME, required=True)
    description = _text("The event's description (HTML).")
    slug = _text("The event's slug.", 200)
    excerpt = _text("The event's excerpt.", 10_000)
    status = fields.String(metadata=_meta("The event's status."))
    timezone = _text("An IANA time zone (default: the site's).", 64)
    all_day = fields.Boolean(load_default=False, metadata=_meta("Whether the event lasts whole days."))
    start_date = _date("The event's start, in its time zone.")
    end_date = _date("The event's end, in its time zone.")
    image = _image()
    cost = JsonSchemaField({"type": ["string", "number"], "maxLength": 255,
                            "description": "The event's cost (a number, a range or free text)."})
    website = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=2000),
                            metadata=_meta("The event's website.", format="uri", type=["string", "null"]))
    show_map = _flag("Whether to show a map of the venue.")
    show_map_link = _flag("Whether to show a link to a map of the venue.")
    hide_from_listings = _flag("Whether to leave the event out of lists.")
    sticky = _flag("Whether the event sticks to the top of month views.")
    featured = _flag("Whether the event is featured.")
    categories = fields.List(fields.Integer(), allow_none=True, load_default=None,
                             validate=validate.Length(max=MAX_TERMS),
                             metadata=_meta("Event category ids.", type=["array", "null"]))
    tags = fields.List(fields.Integer(), allow_none=True, load_default=None, validate=validate.Length(max=MAX_TERMS),
                       metadata=_meta("Event tag ids.", type=["array", "null"]))
    venue = JsonSchemaField({**LINKED, "type": ["array", "integer", "object", "null"], "default": None,
                             "description": "Venue ids, or venue objects to create."})
    organizer = JsonSchemaField({**LINKED, "type": ["array", "integer", "object", "null"], "default": None,
                                 "description": "Organizer ids, or organizer objects to create."})
    custom_fields = fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=100)),
                                values=fields.String(validate=validate.Length(max=2000)),
                                validate=validate.Length(max=50),
                                metadata=_meta("Additional fields: {name: value}."))
    recurrence = JsonSchemaField({
        "type": ["object", "null"], "additionalProperties": False, "required": ["rule"],
        "properties": {"rule": {"type": "string", "maxLength": 500,
                                "description": "An RFC 5545 RRULE value, such as FREQ=WEEKLY;BYDAY=MO;COUNT=10."},
                       "exdates": {"type": "array", "maxItems": 500, "items": {"type": "string", "maxLength": 64},
                                   "description": "Occurrence starts to leave out, in the event's time zone."}},
        "description": "How the event repeats (null: it does not)."})


class EventCreateArgs(EventFields):
    start_date = _date("The event's start, in its time zone.", required=True)
    end_date = _date("The event's end, in its time zone.", required=True)


class EventUpdateArgs(EventFields):
    id = fields.Integer(required=True, metadata=_meta("The event id."))
    password = _text("A password that protects the event ('' removes it).", 255)


class EventSlugUpdateArgs(EventFields):
    slug = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata=_meta("The slug."))
    password = _text("A password that protects the event ('' removes it).", 255)


class EventSlugDeleteArgs(SlugArgs):
    pass


# --- venues and organizers ------------------------------------------------------------------

class LinkedListArgs(PageArgs):
    search = JsonSchemaField({"type": "string", "maxLength": MAX_SEARCH_LENGTH,
                              "description": "Items that contain this text."})
    event = fields.Integer(validate=validate.Range(min=1), metadata=_meta("Only those linked to this event."))
    has_events = _flag("Only those with events (true) or without (false).")
    only_with_upcoming = fields.Boolean(load_default=False, metadata=_meta("Only those with upcoming events."))
    status = _text("Post statuses, comma-separated (only publish unless the caller can edit them).", 200)


class ItemIdArgs(Schema):
    id = fields.Integer(required=True, metadata=_meta("The item id."))


class VenueFields(Schema):
    author = fields.Integer(metadata=_meta("The venue's author."))
    date = _date("Publication date, site time.")
    date_utc = _date("Publication date, UTC.")
    venue = _text("The venue's name.", MAX_NAME, required=True)
    description = _text("The venue's description.")
    status = fields.String(metadata=_meta("The venue's status."))
    show_map = JsonSchemaField({"type": ["boolean", "string"], "maxLength": 10, "description": "Show a map."})
    show_map_link = JsonSchemaField({"type": ["boolean", "string"], "maxLength": 10,
                                     "description": "Show a link to a map."})
    address = _text("Street address.", 500)
    city = _text("City.", 200)
    country = _text("Country.", 200)
    province = _text("Province.", 200)
    state = _text("State.", 200)
    zip = _text("Postal code.", 50)
    phone = _text("Phone number.", 100)
    stateprovince = _text("State or province.", 200)
    website = _website()
    image = _image()


class OrganizerFields(Schema):
    author = fields.Integer(metadata=_meta("The organizer's author."))
    date = _date("Publication date, site time.")
    date_utc = _date("Publication date, UTC.")
    organizer = _text("The organizer's name.", MAX_NAME, required=True)
    description = _text("The organizer's description.")
    status = fields.String(metadata=_meta("The organizer's status."))
    phone = _text("Phone number.", 100)
    website = _website()
    email = _text("Email address.", 254)
    image = _image()


class VenueUpdateArgs(VenueFields):
    id = fields.Integer(required=True, metadata=_meta("The venue id."))


class VenueSlugUpdateArgs(VenueFields):
    slug = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata=_meta("The slug."))


class OrganizerUpdateArgs(OrganizerFields):
    id = fields.Integer(required=True, metadata=_meta("The organizer id."))


class OrganizerSlugUpdateArgs(OrganizerFields):
    slug = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata=_meta("The slug."))


# --- event categories and tags ----------------------------------------------------------------

class TagListArgs(PageArgs):
    search = _text("Terms that contain this text.", MAX_SEARCH_LENGTH)
    exclude = id_list("Leave these terms out.")
    include = id_list("Only these terms.")
    order = fields.String(load_default="asc", validate=validate.OneOf(["asc", "desc"]), metadata=_meta("Sort order."))
    orderby = fields.String(load_default="name", validate=validate.OneOf(
        ["id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"]),
        metadata=_meta("Sort terms by this attribute."))
    hide_empty = fields.Boolean(load_default=True, metadata=_meta("Leave out terms no event uses."))
    post = fields.Integer(validate=validate.Range(min=1), metadata=_meta("Only terms of this event."))
    event = fields.Integer(validate=validate.Range(min=1), metadata=_meta("Only terms of this event (alias of post)."))
    slug = _text("Only the term with this slug.", 200)


class CategoryListArgs(TagListArgs):
    parent = fields.Integer(validate=validate.Range(min=0), metadata=_meta("Only children of this category."))


class TagFields(Schema):
    name = _text("The term's name.", 200, required=True)
    description = _text("The term's description.", 10_000)
    slug = _text("The term's slug.", 200)


class CategoryFields(TagFields):
    parent = fields.Integer(validate=validate.Range(min=0), metadata=_meta("The parent category."))


class TagUpdateArgs(TagFields):
    id = fields.Integer(required=True, metadata=_meta("The term id."))


class CategoryUpdateArgs(CategoryFields):
    id = fields.Integer(required=True, metadata=_meta("The term id."))


class TermIdArgs(Schema):
    id = fields.Integer(required=True, metadata=_meta("The term id."))
