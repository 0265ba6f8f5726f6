"""Route args of the content routes as JSON-Schema dicts, built from the registry.

Enums that depend on what plugins registered (statuses, meta keys, taxonomies) are read
from `app.registry` when routes are registered, so a disabled plugin's statuses and
meta keys vanish from the args and from validation alike.
"""

from __future__ import annotations

from copy import deepcopy

FORMATS = ["standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio"]
MEDIA_TYPES = ["image", "video", "text", "application", "audio"]
ORDERBY = ["author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title"]
SEARCH_COLUMNS = ["post_title", "post_content", "post_excerpt"]
CONTEXT = {"description": "Scope under which the request is made; determines fields present in response.",
           "type": "string", "enum": ["view", "embed", "edit"], "default": "view"}


def _registry(app):
    """The registry once it exists; while routes are registered it is still being built."""
    return getattr(app, "registry", None)


def read_statuses(app) -> list[str]:
    registry = _registry(app)
    if registry is None:
        from . import CORE_STATUSES

        return [status.name for status in CORE_STATUSES]
    return registry.status_names()


def write_statuses(app, post_type: str) -> list[str]:
    registry = _registry(app)
    if registry is None:
        from . import CORE_STATUSES

        return [status.name for status in CORE_STATUSES if status.writable]
    return registry.status_names(post_type, writable_only=True)


def meta_keys(app, post_type: str) -> list:
    registry = _registry(app)
    if registry is None:
        from . import register_meta

        return [key for key in register_meta() if key.object_type == post_type]
    return registry.meta_keys(post_type)


def _int_list(description: str) -> dict:
    return {"description": description, "type": "array", "items": {"type": "integer"}, "default": []}


def _date(description: str) -> dict:
    return {"description": description, "type": "string", "format": "date-time"}


def _rich_text(description: str) -> dict:
    """title/content/excerpt: an object {raw} on the wire, though a plain string is accepted too."""
    return {"description": description, "type": "object",
            "properties": {"raw": {"description": f"{description} as it exists in the database.", "type": "string",
                                   "context": ["edit"]},
                           "rendered": {"description": f"HTML {description.lower()}, transformed for display.",
                                        "type": "string", "context": ["view", "edit"], "readonly": True}},
            "anyOf": [{"type": "object", "properties": {"raw": {"type": "string"}}}, {"type": "string"}]}


def _term_filter(description: str, children: bool, operator: bool) -> dict:
    query_properties = {"terms": {"description": "Term IDs.", "type": "array", "items": {"type": "integer"},
                                  "default": []}}
    if children:
        query_properties["include_children"] = {"description": "Whether to include child terms in the terms "
                                                "limiting the result set.", "type": "boolean", "default": False}
    if operator:
        query_properties["operator"] = {"description": "Whether items must be assigned all or any of the "
                                        "specified terms.", "type": "string", "enum": ["AND", "OR"], "default": "OR"}
    variants = [
        {"title": "Term ID List", "description": "Match terms with the listed IDs.", "type": "array",
         "items": {"type": "integer"}},
        {"title": "Term ID Taxonomy Query", "description": "Perform an advanced term query.", "type": "object",
         "properties": query_properties, "additionalProperties": False},
    ]
    return {"description": description, "type": ["object", "array"], "anyOf": variants, "default": []}


def collection_args(app, post_type: str, kind: str) -> dict:
    """Query args of a posts/pages/media collection (kind: "post", "page" or "attachment")."""
    args = {
        "context": dict(CONTEXT),
        "page": {"description": "Current page of the collection.", "type": "integer", "default": 1, "minimum": 1},
        "per_page": {"description": "Maximum number of items to be returned in result set.", "type": "integer",
                     "default": 10, "minimum": 1, "maximum": 100},
        "search": {"description": "Limit results to those matching a string.", "type": "string"},
        "after": _date("Limit response to posts published after a given ISO8601 compliant date."),
        "modified_after": _date("Limit response to posts modified after a given ISO8601 compliant date."),
        "author": _int_list("Limit result set to posts assigned to specific authors."),
        "author_exclude": _int_list("Ensure result set excludes posts assigned to specific authors."),
        "before": _date("Limit response to posts published before a given ISO8601 compliant date."),
        "modified_before": _date("Limit response to posts modified before a given ISO8601 compliant date."),
        "exclude": _int_list("Ensure result set excludes specific IDs."),
        "include": _int_list("Limit result set to specific IDs."),
        "search_semantics": {"description": "How to interpret the search input.", "type": "string",
                             "enum": ["exact"]},
    }
    if kind == "page":
        args["menu_order"] = {"description": "Limit result set to posts with a specific menu_order value.",
                              "type": "integer"}
    orderby = list(ORDERBY) + (["menu_order"] if kind == "page" else [])
    args.update({
        "offset": {"description": "Offset the result set by a specific number of items.", "type": "integer"},
        "order": {"description": "Order sort attribute ascending or descending.", "type": "string",
                  "default": "desc", "enum": ["asc", "desc"]},
        "orderby": {"description": "Sort collection by post attribute.", "type": "string", "default": "date",
                    "enum": orderby},
    })
    if kind in ("page", "attachment"):
        args["parent"] = _int_list("Limit result set to items with particular parent IDs.")
        args["parent_exclude"] = _int_list("Limit result set to all items except those of a particular parent ID.")
    args.update({
        "search_columns": {"description": "Array of column names to be searched.", "type": "array",
                           "items": {"type": "string", "enum": list(SEARCH_COLUMNS)}, "default": []},
        "slug": {"description": "Limit result set to posts with one or more specific slugs.", "type": "array",
                 "items": {"type": "string"}},
    })
    if kind == "attachment":
        args["status"] = {"description": "Limit result set to posts assigned one or more statuses.",
                          "type": "array", "items": {"type": "string", "enum": ["inherit", "private", "trash"]},
                          "default": "inherit"}
        args["media_type"] = {"description": "Limit result set to attachments of a particular media type or "
                              "media types.", "type": "array", "items": {"type": "string", "enum": MEDIA_TYPES}}
        args["mime_type"] = {"description": "Limit result set to attachments of a particular MIME type or MIME "
                             "types.", "type": "array", "items": {"type": "string"}}
        return args
    statuses = read_statuses(app) + ["any"]
    args["status"] = {"description": "Limit result set to posts assigned one or more statuses.", "type": "array",
                      "items": {"type": "string", "enum": statuses}, "default": "publish"}
    if kind == "post":
        args["tax_relation"] = {"description": "Limit result set based on relationship between multiple "
                                "taxonomies.", "type": "string", "enum": ["AND", "OR"]}
        args["categories"] = _term_filter("Limit result set to items with specific terms assigned in the "
                                          "categories taxonomy.", True, True)
        args["categories_exclude"] = _term_filter("Limit result set to items except those with specific terms "
                                                  "assigned in the categories taxonomy.", True, False)
        args["tags"] = _term_filter("Limit result set to items with specific terms assigned in the tags "
                                    "taxonomy.", False, True)
        args["tags_exclude"] = _term_filter("Limit result set to items except those with specific terms "
                                            "assigned in the tags taxonomy.", False, False)
        args["sticky"] = {"description": "Limit result set to items that are sticky.", "type": "boolean"}
        args["ignore_sticky"] = {"description": "Whether to ignore sticky posts or not.", "type": "boolean",
                                 "default": True}
        args["format"] = {"description": "Limit result set to items assigned one or more given formats.",
                          "type": "array", "uniqueItems": True, "items": {"enum": list(FORMATS), "type": "string"}}
    return args


def meta_arg(app, post_type: str) -> dict:
    """The `meta` object with one property per registered key (null deletes a key)."""
    properties = {}
    for key in meta_keys(app, post_type):
        schema = deepcopy(key.schema)
        kind = schema.get("type", "string")
        schema["type"] = (kind if isinstance(kind, list) else [kind]) + (["null"] if "null" not in kind else [])
        schema["context"] = list(key.context)
        properties[key.key] = schema
    return {"description": "Meta fields.", "type": "object", "properties": properties}


def date_and_slug_args() -> dict:
    """The date, date_gmt and slug args every post type's write payload starts with."""
    return {
        "date": {"description": "The date the post was published, in the site's timezone.",
                 "type": ["string", "null"], "format": "date-time"},
        "date_gmt": {"description": "The date the post was published, as GMT.", "type": ["string", "null"],
                     "format": "date-time"},
        "slug": {"description": "An alphanumeric identifier for the post unique to its type.", "type": "string"},
    }


def write_args(app, post_type: str, kind: str) -> dict:
    """Writable fields of a post or page (the create and update payload)."""
    args = {
        **date_and_slug_args(),
        "status": {"description": "A named status for the post.", "type": "string",
                   "enum": write_statuses(app, post_type)},
        "password": {"description": "A password to protect access to the content and excerpt.", "type": "string"},
    }
    if kind == "page":
        args["parent"] = {"description": "The ID for the parent of the post.", "type": "integer"}
    args["title"] = _rich_text("The title for the post.")
    args["content"] = _rich_text("The content for the post.")
    args["content"]["properties"].update({
        "block_version": {"description": "Version of the content block format used by the post.",
                          "type": "integer", "context": ["edit"], "readonly": True},
        "protected": {"description": "Whether the content is protected with a password.", "type": "boolean",
                      "context": ["view", "edit", "embed"], "readonly": True}})
    args["author"] = {"description": "The ID for the author of the post.", "type": "integer"}
    args["excerpt"] = _rich_text("The excerpt for the post.")
    args["excerpt"]["properties"]["protected"] = {"description": "Whether the excerpt is protected with a "
                                                  "password.", "type": "boolean", "readonly": True,
                                                  "context": ["view", "edit", "embed"]}
    args["featured_media"] = {"description": "The ID of the featured media for the post.", "type": "integer"}
    args["comment_status"] = {"description": "Whether or not comments are open on the post.", "type": "string",
                              "enum": ["open", "closed"]}
    args["ping_status"] = {"description": "Whether or not the post can be pinged.", "type": "string",
                           "enum": ["open", "closed"]}
    if kind == "page":
        args["menu_order"] = {"description": "The order of the post in relation to other posts.", "type": "integer"}
    if kind == "post":
        args["format"] = {"description": "The format for the post.", "type": "string", "enum": list(FORMATS)}
    args["meta"] = meta_arg(app, post_type)
    if kind == "post":
        args["sticky"] = {"description": "Whether or not the post should be treated as sticky.", "type": "boolean"}
    args["template"] = {"description": "The theme file to use to display the post.", "type": "string"}
    if kind == "post":
        args["categories"] = {"description": "The terms assigned to the post in the category taxonomy.",
                              "type": "array", "items": {"type": "integer"}}
        args["tags"] = {"description": "The terms assigned to the post in the post_tag taxonomy.",
                        "type": "array", "items": {"type": "integer"}}
    return args


def item_args(extra: dict | None = None) -> dict:
    args = {"id": {"description": "Unique identifier for the post.", "type": "integer"}}
    args.update(extra or {})
    return args
