"""Route args of the content routes as marshmallow Schema classes, built from the registry.

Enums that depend on what plugins registered (statuses, meta keys, taxonomies) are read
from `app.registry` when routes are registered, so a disabled plugin's statuses and
meta keys vanish from the args and from validation alike. The fixed parts are classes
below; `collection_args`, `write_args` and friends add the registry's parts to a subclass.
"""

from __future__ import annotations

import json
from copy import deepcopy
from typing import Any

from marshmallow import Schema, fields, validate

from host.args import (
    CollectionArgs, ContextArgs, JsonSchemaField, RenderedText, TermFilter, date_time, enum_field, force_field,
    id_list, in_order, orderby_field, string_list,
)
from host.lru import LruCache

FORMATS = ["standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio"]
MEDIA_TYPES = ["image", "video", "text", "application", "audio"]
ORDERBY = ["author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title"]
SEARCH_COLUMNS = ["post_title", "post_content", "post_excerpt"]
# The reference's order of a post collection's args (discovery lists them in this order).
COLLECTION_ORDER = ("context", "page", "per_page", "search", "after", "modified_after", "author", "author_exclude",
                    "before", "modified_before", "exclude", "include", "search_semantics", "menu_order", "offset",
                    "order", "orderby", "parent", "parent_exclude", "search_columns", "slug", "status")
PATH_FIRST = ("parent", "id")  # path variables lead, as the reference declares them
REVISION_ORDERBY = ["date", "id", "include", "relevance", "slug", "include_slugs", "title"]
TERM_ORDERBY = ["id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"]


def read_statuses(app) -> list[str]:
    return app.registry.status_names()


def write_statuses(app, post_type: str) -> list[str]:
    """Every writable status, whichever type registered it: WordPress's status enum is the site's
    registered statuses (the interface lists the calendar's cal-ea-* and cal-ignored for posts)."""
    return app.registry.status_names(writable_only=True)


def meta_keys(app, post_type: str) -> list:
    return app.registry.meta_keys(post_type)


def _integer(description: str, **keywords: Any) -> fields.Integer:
    return fields.Integer(metadata={"description": description}, **keywords)


def _string(description: str, **keywords: Any) -> fields.String:
    return fields.String(metadata={"description": description}, **keywords)


def _build(base: type[Schema], name: str, declared: dict[str, fields.Field]) -> type[Schema]:
    """A subclass of `base` with the fields that depend on the type and the registry."""
    return base.from_dict(declared, name=name)


# Args classes built from the registry, kept per process by everything they were built from: two
# apps with the same statuses and meta keys share one class, so the host converts its args once
# (host.registry.compile_args keeps them per class). A test run builds thousands of apps, and
# building and converting these classes again was about a sixth of building each. Nothing writes to a class.
_SHARED_CLASSES = LruCache(512)  # distinct registries of one process; the least recently used go first


def _shared_class(key: tuple, build) -> type[Schema]:
    """The class `build()` makes for `key`, built once per process."""
    found = _SHARED_CLASSES.get(key)
    if found is None:
        found = build()
        _SHARED_CLASSES.put(key, found)
    return found


def _meta_fingerprint(app, post_type: str) -> tuple:
    """What `meta_arg` reads of the registered meta keys, as a hashable value (a schema that is not plain
    JSON is told by its repr, so it matches only itself)."""
    return tuple((key.key, json.dumps(key.schema, sort_keys=True, default=repr), tuple(key.context))
                 for key in meta_keys(app, post_type))


# --- collections ------------------------------------------------------------------------------

class PostCollectionArgs(CollectionArgs):
    """Query args every post type's collection understands."""

    after = date_time("Limit response to posts published after a given ISO8601 compliant date.")
    modified_after = date_time("Limit response to posts modified after a given ISO8601 compliant date.")
    author = id_list("Limit result set to posts assigned to specific authors.")
    author_exclude = id_list("Ensure result set excludes posts assigned to specific authors.")
    before = date_time("Limit response to posts published before a given ISO8601 compliant date.")
    modified_before = date_time("Limit response to posts modified before a given ISO8601 compliant date.")
    search_semantics = enum_field(["exact"], "How to interpret the search input.")
    orderby = orderby_field(ORDERBY, "date", "Sort collection by post attribute.")
    search_columns = fields.List(fields.String(validate=validate.OneOf(SEARCH_COLUMNS)),
                                 load_default=list, metadata={"description": "Array of column names to be searched.",
                                                              "default": []})
    slug = string_list("Limit result set to posts with one or more specific slugs.")


def collection_args(app, post_type: str, kind: str) -> type[Schema]:
    """Query args of a posts/pages/media collection (kind: "post", "page" or "attachment")."""
    statuses = tuple(read_statuses(app)) if kind != "attachment" else ()
    return _shared_class(("collection", kind, statuses), lambda: _collection_args(list(statuses), kind))


def _collection_args(statuses: list[str], kind: str) -> type[Schema]:
    declared: dict[str, fields.Field] = {}
    if kind == "page":
        declared["menu_order"] = _integer("Limit result set to posts with a specific menu_order value.")
        declared["orderby"] = orderby_field(ORDERBY + ["menu_order"], "date", "Sort collection by post attribute.")
    if kind in ("page", "attachment"):
        declared["parent"] = id_list("Limit result set to items with particular parent IDs.")
        declared["parent_exclude"] = id_list("Limit result set to all items except those of a particular parent ID.")
    if kind == "attachment":
        declared["status"] = string_list("Limit result set to posts assigned one or more statuses.",
                                         ["inherit", "private", "trash"], default="inherit")
        declared["media_type"] = string_list("Limit result set to attachments of a particular media type or media "
                                             "types.", MEDIA_TYPES)
        declared["mime_type"] = string_list("Limit result set to attachments of a particular MIME type or MIME types.")
        return in_order(_build(PostCollectionArgs, "MediaCollectionArgs", declared), *COLLECTION_ORDER)
    declared["status"] = string_list("Limit result set to posts assigned one or more statuses.",
                                     statuses + ["any"], default="publish")
    if kind == "post":
        declared.update(
            tax_relation=enum_field(["AND", "OR"], "Limit result set based on relationship between multiple "
                                                   "taxonomies."),
            categories=TermFilter("Limit result set to items with specific terms assigned in the categories "
                                  "taxonomy.", children=True, operator=True),
            categories_exclude=TermFilter("Limit result set to items except those with specific terms assigned in "
                                          "the categories taxonomy.", children=True, operator=False),
            tags=TermFilter("Limit result set to items with specific terms assigned in the tags taxonomy.",
                            children=False, operator=True),
            tags_exclude=TermFilter("Limit result set to items except those with specific terms assigned in the "
                                    "tags taxonomy.", children=False, operator=False),
            sticky=fields.Boolean(metadata={"description": "Limit result set to items that are sticky."}),
            ignore_sticky=fields.Boolean(load_default=True,
                                         metadata={"description": "Whether to ignore sticky posts or not."}),
            format=string_list("Limit result set to items assigned one or more given formats.", FORMATS,
                               uniqueItems=True),
        )
    return in_order(_build(PostCollectionArgs, f"{kind.title()}CollectionArgs", declared), *COLLECTION_ORDER)


# --- items ------------------------------------------------------------------------------------

class PostIdArgs(Schema):
    id = _integer("Unique identifier for the post.")


class PostReadArgs(PostIdArgs, ContextArgs):
    excerpt_length = _integer("Override the default excerpt length.")
    password = _string("The password for the post if it is password protected.")


class PostDeleteArgs(PostIdArgs):
    force = force_field()


def meta_arg(app, post_type: str) -> fields.Field:
    """The `meta` object with one property per registered key (null deletes a key)."""
    properties = {}
    for key in meta_keys(app, post_type):
        schema = deepcopy(key.schema)
        kind = schema.get("type", "string")
        schema["type"] = (kind if isinstance(kind, list) else [kind]) + (["null"] if "null" not in kind else [])
        schema["context"] = list(key.context)
        properties[key.key] = schema
    return JsonSchemaField({"description": "Meta fields.", "type": "object", "properties": properties})


class DateAndSlugArgs(Schema):
    """The date, date_gmt and slug args every post type's write payload starts with."""

    date = date_time("The date the post was published, in the site's timezone.", nullable=True)
    date_gmt = date_time("The date the post was published, as GMT.", nullable=True)
    slug = _string("An alphanumeric identifier for the post unique to its type.")


PROTECTED_CONTEXT = ["view", "edit", "embed"]


def write_args(app, post_type: str, kind: str) -> type[Schema]:
    """Writable fields of a post or page (the create and update payload)."""
    key = ("write", kind, tuple(write_statuses(app, post_type)), _meta_fingerprint(app, post_type))
    return _shared_class(key, lambda: _write_args(app, post_type, kind))


def _write_args(app, post_type: str, kind: str) -> type[Schema]:
    declared: dict[str, fields.Field] = {
        "status": enum_field(write_statuses(app, post_type), "A named status for the post."),
        "password": _string("A password to protect access to the content and excerpt."),
    }
    if kind == "page":
        declared["parent"] = _integer("The ID for the parent of the post.")
    declared["title"] = RenderedText("The title for the post.", "Title for the post, as it exists in the database.",
                                     "HTML title for the post, transformed for display.")
    declared["content"] = RenderedText(
        "The content for the post.", "Content for the post, as it exists in the database.",
        "HTML content for the post, transformed for display.", rendered_context=("view", "edit"), extra={
            "block_version": {"description": "Version of the content block format used by the post.",
                              "type": "integer", "context": ["edit"], "readonly": True},
            "protected": {"description": "Whether the content is protected with a password.", "type": "boolean",
                          "context": PROTECTED_CONTEXT, "readonly": True}})
    declared["author"] = _integer("The ID for the author of the post.")
    declared["excerpt"] = RenderedText(
        "The excerpt for the post.", "Excerpt for the post, as it exists in the database.",
        "HTML excerpt for the post, transformed for display.", extra={
            "protected": {"description": "Whether the excerpt is protected with a password.", "type": "boolean",
                          "context": PROTECTED_CONTEXT, "readonly": True}})
    declared["featured_media"] = _integer("The ID of the featured media for the post.")
    declared["comment_status"] = enum_field(["open", "closed"], "Whether or not comments are open on the post.")
    declared["ping_status"] = enum_field(["open", "closed"], "Whether or not the post can be pinged.")
    if kind == "page":
        declared["menu_order"] = _integer("The order of the post in relation to other posts.")
    if kind == "post":
        declared["format"] = enum_field(FORMATS, "The format for the post.")
    declared["meta"] = meta_arg(app, post_type)
    if kind == "post":
        declared["sticky"] = fields.Boolean(metadata={"description": "Whether or not the post should be treated as "
                                                                     "sticky."})
    declared["template"] = _string("The theme file to use to display the post.")
    if kind == "post":
        declared["categories"] = fields.List(fields.Integer(), metadata={
            "description": "The terms assigned to the post in the category taxonomy."})
        declared["tags"] = fields.List(fields.Integer(), metadata={
            "description": "The terms assigned to the post in the post_tag taxonomy."})
    return _build(DateAndSlugArgs, f"{kind.title()}WriteArgs", declared)


def with_id(id_args: type[Schema], write: type[Schema]) -> type[Schema]:
    """The write args after `id_args` (the item's id on update; an autosave's parent).

    `id_args` comes first in the args; a field of the same name in `write` wins over it. One class
    per pair (see `_shared_class`), as `write` is shared.
    """
    return _shared_class(("with_id", id_args, write),
                         lambda: type(write.__name__.replace("Write", "Update"), (write, id_args), {}))


class MediaReadArgs(PostIdArgs, ContextArgs):
    pass


def media_write_args(app) -> type[Schema]:
    """Writable fields of an attachment (the upload's metadata and the update payload)."""
    return _build(DateAndSlugArgs, "MediaWriteArgs", {
        "status": enum_field(["publish", "future", "draft", "pending", "private"], "A named status for the post."),
        "title": JsonSchemaField({"description": "The title for the post.", "type": ["string", "object"],
                                  "properties": {"raw": {"type": "string"}}}),
        "author": fields.Integer(metadata={"description": "The ID for the author of the post."}),
        "featured_media": fields.Integer(metadata={"description": "The ID of the featured media for the post."}),
        "comment_status": enum_field(["open", "closed"], "Whether or not comments are open on the post."),
        "ping_status": enum_field(["open", "closed"], "Whether or not the post can be pinged."),
        "meta": meta_arg(app, "attachment"),
        "template": fields.String(metadata={"description": "The theme file to use to display the post."}),
        "alt_text": fields.String(metadata={"description": "Alternative text to display when attachment is not "
                                                          "displayed."}),
        "caption": JsonSchemaField({"description": "The attachment caption.", "type": ["string", "object"],
                                    "properties": {"raw": {"type": "string"}}}),
        "description": JsonSchemaField({"description": "The attachment description.",
                                        "type": ["string", "object"], "properties": {"raw": {"type": "string"}}}),
        "post": fields.Integer(metadata={"description": "The ID for the associated post of the attachment."}),
    })


# --- revisions and autosaves ------------------------------------------------------------------

class RevisionParentArgs(Schema):
    parent = _integer("The ID for the parent of the revision.")


class RevisionIdArgs(Schema):
    id = _integer("Unique identifier for the revision.")


class RevisionCollectionArgs(RevisionParentArgs, CollectionArgs.with_bounds(default=None)):
    orderby = orderby_field(REVISION_ORDERBY, "date", "Sort collection by object attribute.")


class RevisionReadArgs(RevisionParentArgs, RevisionIdArgs, ContextArgs):
    pass


class RevisionDeleteArgs(RevisionParentArgs, RevisionIdArgs):
    force = force_field("Required to be true, as revisions do not support trashing.")


class AutosaveParentArgs(Schema):
    parent = _integer("The ID for the parent of the autosave.")


class AutosaveIdArgs(Schema):
    id = _integer("The ID for the autosave.")


class AutosaveCollectionArgs(AutosaveParentArgs, ContextArgs):
    pass


class AutosaveReadArgs(AutosaveParentArgs, AutosaveIdArgs, ContextArgs):
    pass


# --- terms ------------------------------------------------------------------------------------

class TermCollectionArgs(CollectionArgs):
    order = enum_field(["asc", "desc"], "Order sort attribute ascending or descending.", "asc")
    orderby = orderby_field(TERM_ORDERBY, "name", "Sort collection by term attribute.")
    hide_empty = fields.Boolean(load_default=False,
                                metadata={"description": "Whether to hide terms not assigned to any posts."})
    # Core declares `default: null`; the kernel would validate that null as an integer, so no default.
    post = _integer("Limit result set to terms assigned to a specific post.")
    slug = string_list("Limit result set to terms with one or more specific slugs.")


class HierarchicalTermCollectionArgs(TermCollectionArgs):
    """Categories: a parent filter, and no offset (WordPress pages hierarchical terms by page alone)."""

    parent = _integer("Limit result set to terms assigned to a specific parent.")

    class Meta:
        exclude = ("offset",)


class TermWriteArgs(Schema):
    description = _string("HTML description of the term.")
    name = _string("HTML title for the term.", required=True)
    slug = _string("An alphanumeric identifier for the term unique to its type.")
    meta = JsonSchemaField({"description": "Meta fields.", "type": "object", "properties": {}})


class HierarchicalTermWriteArgs(TermWriteArgs):
    parent = _integer("The parent term ID.")


class TermIdArgs(Schema):
    id = _integer("Unique identifier for the term.")


class TermUpdateArgs(TermIdArgs, TermWriteArgs):
    pass


class HierarchicalTermUpdateArgs(TermIdArgs, HierarchicalTermWriteArgs):
    pass


class TermReadArgs(TermIdArgs, ContextArgs):
    pass


class TermDeleteArgs(TermIdArgs):
    force = force_field("Required to be true, as terms do not support trashing.")


# Path variables first, as the reference lists them.
PostReadArgs = in_order(PostReadArgs, *PATH_FIRST)
MediaReadArgs = in_order(MediaReadArgs, *PATH_FIRST)
RevisionCollectionArgs = in_order(RevisionCollectionArgs, *PATH_FIRST)
RevisionReadArgs = in_order(RevisionReadArgs, *PATH_FIRST)
RevisionDeleteArgs = in_order(RevisionDeleteArgs, *PATH_FIRST)
AutosaveCollectionArgs = in_order(AutosaveCollectionArgs, *PATH_FIRST)
AutosaveReadArgs = in_order(AutosaveReadArgs, *PATH_FIRST)
TermReadArgs = in_order(TermReadArgs, *PATH_FIRST)
HierarchicalTermWriteArgs = in_order(HierarchicalTermWriteArgs, "description", "name", "slug", "parent", "meta")
TermUpdateArgs = in_order(TermUpdateArgs, *PATH_FIRST)
HierarchicalTermUpdateArgs = in_order(HierarchicalTermUpdateArgs, "id", "description", "name", "slug", "parent", "meta")
HierarchicalTermCollectionArgs = in_order(HierarchicalTermCollectionArgs, "context", "page", "per_page", "search",
                                          "exclude", "include", "order", "orderby", "hide_empty", "parent")
