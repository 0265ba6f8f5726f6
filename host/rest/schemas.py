"""marshmallow -> JSON Schema, once, for discovery `args`, validation and OpenAPI alike.

apispec's converter does the field mapping (types, formats, enum from OneOf, bounds from
Range, items, nullable). On top of it we inline nested schemas (discovery shows
`properties`, not `$ref`) and keep the marshmallow field metadata that the interface uses:
`description`, `context`, `readonly`, explicit `type`, `default` and `format` overrides.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields, validate

from .validation import GUARD_MAX_LENGTH, GUARD_MAXIMUM, GUARDS

# The JSON-Schema keywords an arg keeps in the discovery documents, in this order.
ARG_KEYWORDS = (
    "title", "description", "default", "type", "format", "enum", "items", "properties",
    "additionalProperties", "patternProperties", "minProperties", "maxProperties", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf",
)
_METADATA_OVERRIDES = ("type", "default", "format", "description", "title", "enum", "pattern",
                       "minimum", "maximum", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf",
                       "additionalProperties", "properties", "items", "minLength", "maxLength", GUARD_MAX_LENGTH, GUARD_MAXIMUM)


@lru_cache(maxsize=1)
def _converter():
    plugin = MarshmallowPlugin()
    APISpec("sitehost", "1", "3.1.0", plugins=[plugin])
    return plugin.converter


def schema_instance(schema: Any) -> Schema | None:
    if schema is None:
        return None
    if isinstance(schema, Schema):
        return schema
    if isinstance(schema, type) and issubclass(schema, Schema):
        return schema()
    if isinstance(schema, dict):
        return Schema.from_dict(schema)()
    raise TypeError(f"expected a marshmallow Schema, got {schema!r}")


def required_schema_instance(schema: Any) -> Schema:
    """schema_instance where a schema must be given (a nested field's, a shape to describe): None is a clear error."""
    instance = schema_instance(schema)
    if instance is None:
        raise TypeError("expected a marshmallow Schema, got None")
    return instance


def field_to_json_schema(field: fields.Field) -> dict[str, Any]:
    """One marshmallow field as a JSON-Schema dict (nested schemas inlined)."""
    if isinstance(field, fields.Nested):
        nested = required_schema_instance(field.schema)
        properties = schema_properties(nested)
        for name, sub in nested.fields.items():
            if sub.required:  # per-property form, so it survives inside a top-level arg
                properties[sub.data_key or name]["required"] = True
        result: dict[str, Any] = {"type": "object", "properties": properties}
        if field.many:
            result = {"type": "array", "items": result}
    elif isinstance(field, fields.List) and isinstance(field.inner, fields.Nested):
        # apispec would register the nested schema as a component of its throwaway spec
        result = {"type": "array", "items": field_to_json_schema(field.inner)}
        for length in (validator for validator in field.validators if isinstance(validator, validate.Length)):
            if length.min is not None:
                result["minItems"] = length.min
            if length.max is not None:
                result["maxItems"] = length.max
    elif isinstance(field, fields.List):
        result = {"type": "array", "items": field_to_json_schema(field.inner)}
        result.update({key: value for key, value in _converter().field2property(field).items()
                       if key not in ("items", "type")})
    elif isinstance(field, fields.Dict) and field.value_field is not None:
        # Values inlined (discovery has no components to $ref), and a Length counts properties.
        result = {"type": "object", "additionalProperties": field_to_json_schema(field.value_field)}
        for length in (validator for validator in field.validators if isinstance(validator, validate.Length)):
            if length.min is not None:
                result["minProperties"] = length.min
            if length.max is not None:
                result["maxProperties"] = length.max
    else:
        result = dict(_converter().field2property(field))
        if isinstance(field, fields.Dict) and result.get("additionalProperties") == {}:
            result.pop("additionalProperties")
    result.pop("readOnly", None)
    result.pop("writeOnly", None)
    if "default" in result and callable(getattr(field, "load_default", None)):
        result.pop("default")
    for key in _METADATA_OVERRIDES:
        if key in field.metadata:
            result[key] = field.metadata[key]
    if "context" in field.metadata:
        result["context"] = list(field.metadata["context"])
    if field.metadata.get("readonly") or field.dump_only:
        result["readonly"] = True
    return result


def schema_properties(schema: Schema) -> dict[str, dict[str, Any]]:
    return {field.data_key or name: field_to_json_schema(field) for name, field in schema.fields.items()}


def args_from_schema(schema: Any, partial: bool = False) -> dict[str, dict[str, Any]]:
    """Route args: name -> JSON-Schema dict with `required` (bool) last.

    Read-only fields are not args. With `partial` (update endpoints) defaults and
    `required` are stripped, so absent fields stay untouched.
    """
    instance = schema_instance(schema)
    if instance is None:
        return {}
    args: dict[str, dict[str, Any]] = {}
    for name, field in instance.fields.items():
        if field.dump_only or field.metadata.get("readonly"):
            continue
        json_schema = field_to_json_schema(field)
        arg = {key: json_schema[key] for key in ARG_KEYWORDS if key in json_schema}
        for guard in GUARDS:  # validated, never described in discovery (Endpoint.described_args)
            if guard in json_schema:
                arg[guard] = json_schema[guard]
        if partial:
            arg.pop("default", None)
            arg["required"] = False
        else:
            arg["required"] = bool(field.required)
        args[field.data_key or name] = arg
    return args


def item_schema(schema: Any, title: str) -> dict[str, Any]:
    """A resource shape as the `schema` shown in help context and OPTIONS."""
    instance = required_schema_instance(schema)
    return {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "title": title,
        "type": "object",
        "properties": schema_properties(instance),
    }
