"""Base marshmallow schemas and field types for route args: subclass them, do not write arg dicts.

Every route declares its args as a marshmallow Schema class (`Route(..., args=MyArgs)`). The
host turns the class into the JSON-Schema arg dicts that discovery, OPTIONS and /openapi.json
show and that the request pipeline validates against (host.rest.schemas), so the three
cannot drift apart. Then the class itself loads the values that passed (host.rest.loading):
validators JSON Schema cannot express run, and handlers get the fields' types (`fields.Date`
gives a `datetime.date`). `Paged` declares `page` and `per_page`; a route with other bounds
uses `Paged.with_bounds(...)` (or `per_page_field`) instead of declaring `per_page` again.

    class LessonCollectionArgs(CollectionArgs):
        orderby = orderby_field(["date", "id", "title"], "date", "Sort collection by lesson attribute.")
        course = id_list("Limit result set to lessons of specific courses.")

Args that depend on what plugins registered (statuses, meta keys) are added to a subclass built
when the routes are registered: `MyArgs.from_dict({"status": ...}, name="...")` returns a
subclass of MyArgs, still a Schema class.

Field types for values a plain field cannot describe:
- `TermFilter`: an id array, or an object {terms, include_children, operator} (WordPress's
  `oneOf` pair for filtering a collection by a taxonomy).
- `RenderedText`: title/content/excerpt as WordPress declares them: an object with `raw`,
  `rendered` (and `protected`, `block_version` ...) that also accepts a plain string. The
  handler reads it (a string, or an object's `raw`); the pipeline does not validate it.
- `JsonSchemaField`: any other union, spelled as the JSON Schema it is (e.g. `["integer",
  "boolean"]`), validated by the pipeline exactly as written.
"""

from __future__ import annotations

from typing import Any, Sequence

from marshmallow import Schema, fields, validate

# Re-exported (the plugins' surface, docs/plugin-guide.md): a route that takes JSON Schema arguments of its
# own (the abilities' input) checks them as the REST server checks args, and reads a schema's properties.
from .rest.schemas import schema_instance, schema_properties
from .rest.validation import GUARD_MAX_LENGTH, GUARD_MAXIMUM, MAX_INTEGER, ParamError, sanitize_value, validate_value

CONTEXTS = ("view", "embed", "edit")
CONTEXT_DESCRIPTION = "Scope under which the request is made; determines fields present in response."


def context_field(default: str = "view") -> fields.Field:
    """`context`: view, embed or edit."""
    return fields.String(load_default=default, validate=validate.OneOf(list(CONTEXTS)),
                         metadata={"description": CONTEXT_DESCRIPTION})


def id_list(description: str, default: Any = None) -> fields.Field:
    """An array of integer ids (a query string may send `1,2,3`); `[]` when not sent."""
    return fields.List(fields.Integer(), load_default=list,
                       metadata={"description": description, "default": [] if default is None else default})


def string_list(description: str, enum: Sequence[str] | None = None, **keywords: Any) -> fields.Field:
    """An array of strings, optionally each from `enum`."""
    inner = fields.String(validate=validate.OneOf(list(enum))) if enum is not None else fields.String()
    return fields.List(inner, metadata={"description": description, **keywords})


def date_time(description: str, nullable: bool = False) -> fields.Field:
    """An ISO 8601 date-time as a string (validated by the pipeline's `date-time` format)."""
    metadata: dict[str, Any] = {"description": description, "format": "date-time"}
    if nullable:
        metadata["type"] = ["string", "null"]
    return fields.String(metadata=metadata)


def enum_field(values: Sequence[str], description: str, default: str | None = None) -> fields.Field:
    """A string from `values`."""
    keywords: dict[str, Any] = {} if default is None else {"load_default": default}
    return fields.String(validate=validate.OneOf(list(values)), metadata={"description": description}, **keywords)


def orderby_field(values: Sequence[str], default: str, description: str) -> fields.Field:
    """`orderby` of a collection: which attribute sorts it."""
    return enum_field(values, description, default)


def force_field(description: str = "Whether to bypass Trash and force deletion.") -> fields.Field:
    return fields.Boolean(load_default=False, metadata={"description": description})


class JsonSchemaField(fields.Field):
    """A value described by a JSON Schema written out (unions such as `["integer", "boolean"]`).

    The pipeline validates and sanitizes it with exactly that schema; use it only where no
    marshmallow field says the same thing.
    """

    def __init__(self, json_schema: dict[str, Any], **kwargs: Any):
        metadata = dict(kwargs.pop("metadata", {}))
        metadata.update(json_schema)
        super().__init__(metadata=metadata, **kwargs)


class TermFilter(JsonSchemaField):
    """Filter a collection by a taxonomy: an id array, or {terms, include_children, operator}.

    Declared as WordPress declares it: `type: ["object", "array"]` and a `oneOf` of the two
    forms, without a default (an absent filter filters nothing). `children` offers
    include_children (hierarchical taxonomies), `operator` offers AND/OR (not for *_exclude).
    """

    def __init__(self, description: str, *, children: bool, operator: bool, **kwargs: Any):
        query: dict[str, Any] = {"terms": {"description": "Term IDs.", "type": "array", "items": {"type": "integer"},
                                           "default": []}}
        if children:
            query["include_children"] = {"description": "Whether to include child terms in the terms limiting "
                                         "the result set.", "type": "boolean", "default": False}
        if operator:
            query["operator"] = {"description": "Whether items must be assigned all or any of the specified terms.",
                                 "type": "string", "enum": ["AND", "OR"], "default": "OR"}
        super().__init__({
            "description": description, "type": ["object", "array"],
            "oneOf": [
                {"title": "Term ID List", "description": "Match terms with the listed IDs.", "type": "array",
                 "items": {"type": "integer"}},
                {"title": "Term ID Taxonomy Query", "description": "Perform an advanced term query.",
                 "type": "object", "properties": query, "additionalProperties": False},
            ],
        }, **kwargs)


class RenderedText(JsonSchemaField):
    """title, content or excerpt: `{raw, rendered, ...}` in answers; a string or `{raw}` when written.

    Declared as WordPress declares it (an object whose `properties` say what answers carry).
    Like WordPress, the pipeline leaves the value to the handler, which takes a string or the
    object's `raw` string and rejects anything else.
    """

    handler_validates = True

    def __init__(self, description: str, raw: str, rendered: str, *, rendered_context=("view", "edit", "embed"),
                 extra: dict[str, dict] | None = None, **kwargs: Any):
        properties = {
            "raw": {"description": raw, "type": "string", "context": ["edit"]},
            "rendered": {"description": rendered, "type": "string", "context": list(rendered_context),
                         "readonly": True},
            **(extra or {}),
        }
        super().__init__({"description": description, "type": "object", "properties": properties}, **kwargs)


def in_order(schema: type[Schema], *names: str) -> type[Schema]:
    """`schema` with the args `names` first, in that order, and the others after them as declared.

    Discovery, OPTIONS and /openapi.json list args in field order, and a subclass's fields come
    after its bases'; this puts path variables (`parent`, `id`) or a reference order first.
    """
    excluded = set(getattr(getattr(schema, "Meta", None), "exclude", ()) or ())
    declared = [name for name in schema._declared_fields if name not in excluded]
    order = [name for name in names if name in declared] + [name for name in declared if name not in names]
    meta = type("Meta", (getattr(schema, "Meta", object),), {"fields": tuple(order), "exclude": (), "register": False})
    return type(schema.__name__, (schema,), {"Meta": meta, "__doc__": schema.__doc__})


def handler_validated_args(schema: type[Schema] | None) -> tuple[str, ...]:
    """Names of the args whose field leaves validation to the handler (`RenderedText`)."""
    if schema is None:
        return ()
    instance = schema()
    return tuple(field.data_key or name for name, field in instance.fields.items()
                 if getattr(field, "handler_validates", False))


# --- base schemas -----------------------------------------------------------------------------

class ContextArgs(Schema):
    """Args of a route that reads one thing: `context`."""

    context = context_field()


# The last page number taken: (page - 1) * per_page is an SQL OFFSET, a 64-bit integer, and no site has
# two billion pages. WordPress declares `page` without a maximum, so this is a guard discovery does not
# show; /openapi.json advertises it.
MAX_PAGE = 2**31 - 1


def page_field(description: str = "Current page of the collection.") -> fields.Field:
    """`page`: from 1 (the default), refused past MAX_PAGE."""
    return fields.Integer(load_default=1, validate=validate.Range(min=1),
                          metadata={"description": description, GUARD_MAXIMUM: MAX_PAGE})


PER_PAGE_DESCRIPTION = "Maximum number of items to be returned in result set."


def per_page_field(default: int | None = 10, maximum: int | None = 100, minimum: int = 1,
                   description: str = PER_PAGE_DESCRIPTION) -> fields.Field:
    """`per_page` from `minimum` to `maximum` (None: no maximum), `default` when not sent (None: absent)."""
    keywords: dict[str, Any] = {} if default is None else {"load_default": default}
    return fields.Integer(validate=validate.Range(min=minimum, max=maximum), metadata={"description": description},
                          **keywords)


class Paged(Schema):
    """`page` (from 1) and `per_page` (1 to 100, default 10), as WordPress's collections declare them.

    A route whose bounds differ says so: `class Args(Paged.with_bounds(default=50))`, or on any
    subclass (`CollectionArgs.with_bounds(default=None)` for a per_page without default).
    """

    page = page_field()
    per_page = per_page_field()

    @classmethod
    def with_bounds(cls, *, default: int | None = 10, maximum: int | None = 100, minimum: int = 1,
                    description: str = PER_PAGE_DESCRIPTION, page_description: str | None = None) -> type[Schema]:
        """A subclass whose `per_page` has these bounds (and `page` this description)."""
        attributes: dict[str, Any] = {"per_page": per_page_field(default, maximum, minimum, description),
                                      "__doc__": cls.__doc__}
        if page_description is not None:
            attributes["page"] = page_field(page_description)
        return type(cls.__name__, (cls,), attributes)


class PagedArgs(Paged, ContextArgs):
    """Args of a collection that pages and nothing more: `context`, `page` and `per_page` (1 to 100)."""


# A search longer than this is refused (400): SQLite refuses LIKE patterns past 50,000 bytes
# (a 500 before), and no reader types 1,000 characters into a search box. WordPress publishes
# `search` without a maxLength, so the limit is a guard that discovery does not show.
MAX_SEARCH_LENGTH = 1000


def search_field() -> fields.Field:
    """`search` as WordPress publishes it (no maxLength), refused past MAX_SEARCH_LENGTH all the same."""
    return fields.String(metadata={"description": "Limit results to those matching a string.",
                                   GUARD_MAX_LENGTH: MAX_SEARCH_LENGTH})


class CollectionArgs(PagedArgs):
    """Args every collection understands: paging, search, include/exclude and order.

    Subclasses set `orderby` (its values and default) and may change `order`'s default or
    leave a field out with `class Meta: exclude = ("offset",)`. Declare only what the
    handler implements: a collection that only pages subclasses PagedArgs.
    """

    search = search_field()
    exclude = id_list("Ensure result set excludes specific IDs.")  # type: ignore[assignment]  # marshmallow's SchemaMeta removes declared fields from the class, so WordPress's `exclude` arg never shadows Schema.exclude
    include = id_list("Limit result set to specific IDs.")
    offset = fields.Integer(metadata={"description": "Offset the result set by a specific number of items."})
    order = enum_field(["asc", "desc"], "Order sort attribute ascending or descending.", "desc")
    orderby = fields.String(metadata={"description": "Sort collection by object attribute."})


__all__ = [
    "CONTEXTS", "CollectionArgs", "ContextArgs", "JsonSchemaField", "PER_PAGE_DESCRIPTION", "Paged", "PagedArgs", "RenderedText", "TermFilter", "context_field",
    "date_time", "enum_field", "force_field", "handler_validated_args", "id_list", "in_order", "orderby_field", "page_field", "per_page_field", "search_field",
    "string_list", "MAX_INTEGER", "ParamError", "sanitize_value", "schema_instance", "schema_properties",
    "validate_value",
]
