"""Args of the abilities/v1 routes and the JSON Schemas of what they answer."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from host.args import ContextArgs, JsonSchemaField, PagedArgs
from host.args import schema_instance, schema_properties

NAME_PART = r"[a-z0-9-]+"
# A name longer than this is refused when the plugin registers it (and cannot match a route).
MAX_NAME_PART = 64


class AbilityCollectionArgs(PagedArgs.with_bounds(default=50)):
    category = fields.String(validate=validate.Length(max=MAX_NAME_PART),
                             metadata={"description": "Limit results to abilities in specific ability category."})


class CategoryCollectionArgs(PagedArgs.with_bounds(default=50)):
    """page, and per_page 1 to 100 (default 50)."""


class AbilityArgs(ContextArgs):
    namespace = fields.String(required=True, metadata={"description": "Namespace part of the ability's name."})
    ability = fields.String(required=True, metadata={"description": "Ability part of the ability's name."})


class CategoryArgs(ContextArgs):
    slug = fields.String(required=True, metadata={"description": "Unique identifier for the ability category."})


class RunArgs(Schema):
    namespace = fields.String(required=True, metadata={"description": "Namespace part of the ability's name."})
    ability = fields.String(required=True, metadata={"description": "Ability part of the ability's name."})
    input = JsonSchemaField({"type": ["integer", "number", "boolean", "string", "array", "object", "null"]}, metadata={
        "description": "Input parameters for the ability execution (a JSON value; in a query string, JSON text)."})


class AbilitySchema(Schema):
    name = fields.String(dump_only=True, metadata={"description": "Unique identifier for the ability."})
    label = fields.String(dump_only=True, metadata={"description": "Display label for the ability."})
    description = fields.String(dump_only=True, metadata={"description": "Description of the ability."})
    category = fields.String(dump_only=True, metadata={"description": "Ability category this ability belongs to."})
    input_schema = fields.Dict(dump_only=True, metadata={"description": "JSON Schema for the ability input."})
    output_schema = fields.Dict(dump_only=True, metadata={"description": "JSON Schema for the ability output."})
    meta = fields.Dict(dump_only=True, metadata={"description": "Meta information about the ability."})


class CategorySchema(Schema):
    slug = fields.String(dump_only=True, metadata={"description": "Unique identifier for the ability category."})
    label = fields.String(dump_only=True, metadata={"description": "Display label for the ability category."})
    description = fields.String(dump_only=True, metadata={"description": "Description of the ability category."})
    meta = fields.Dict(dump_only=True, metadata={"description": "Meta information about the ability category."})


def json_schema_of(declared: Any) -> dict:
    """An ability's input or output schema as JSON Schema: a dict as given, a Schema class converted."""
    if declared is None:
        return {}
    if isinstance(declared, dict):
        return declared
    instance = schema_instance(declared)
    properties = schema_properties(instance)
    required = [field.data_key or name for name, field in instance.fields.items() if field.required]
    for value in properties.values():
        value.pop("required", None)
    result: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        result["required"] = required
    return result
