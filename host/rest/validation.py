"""Validation and sanitization of request parameters against their arg schemas.

The arg schemas are the JSON-Schema dicts that the discovery documents show (derived from
each route's marshmallow schema), so what a client reads in `args` is exactly what is
enforced. Rules, codes and messages follow the REST conventions reference (section 3):
loose types as query strings need them ("5" is an integer, "1,2" is an array), then the
keyword checks, then `enum`, then `format`. Every format a field advertises is enforced
(`date`, `date-time`, `email`, `ip`, `uuid`, `hex-color`) except `uri`, which WordPress
sanitizes rather than refuses (a route that needs a real URL answers its own error, as
oembed's `oembed_invalid_url` does).
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from typing import Any

from .. import linear
from ..text import strip_tags

_NUMERIC = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
_DATE_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}(:?\d{2})?)?$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_HEX_COLOR = re.compile(r"^#([A-Fa-f0-9]{3}){1,2}$")
_LIST_SPLIT = re.compile(r"[\s,]+")


# An array argument that declares no maxItems takes at most this many (a million
# `include` ids reached SQL). Far above any page size (100); WordPress declares no bound.
MAX_ARRAY_ITEMS = 1000


class ParamError(Exception):
    """One parameter's failure: a code, a message, and optional extra data."""

    def __init__(self, code: str, message: str, data: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


# --- type tests ------------------------------------------------------------------------

def is_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return not (isinstance(value, float) and (math.isnan(value) or math.isinf(value)))
    return isinstance(value, str) and bool(_NUMERIC.match(value))


# The largest integer a database column (BIGINT, SQLite INTEGER) holds; larger input is not an integer here.
MAX_INTEGER = 2**63 - 1


def is_integer(value: Any) -> bool:
    if not is_numeric(value):
        return False
    if _is_whole_number_text(value):
        return abs(int(value)) <= MAX_INTEGER
    number = float(value)
    return number.is_integer() and abs(number) <= MAX_INTEGER


def _is_whole_number_text(value: Any) -> bool:
    """An int, or digits: converted exactly (through float, 9007199254740993 would become ...992)."""
    return isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("+-").isdigit())


def is_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value in (0, 1)
    return isinstance(value, str) and value.lower() in ("true", "false", "1", "0")


def parse_list(value: Any) -> list:
    """Split a scalar on commas and white space, as query strings send lists ("1,2,3")."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value.values())
    return [part for part in _LIST_SPLIT.split(str(value)) if part != ""]


def is_array(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, dict):
        return all(isinstance(key, str) and key.isdigit() for key in value)
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def is_object(value: Any) -> bool:
    return isinstance(value, (dict, list)) or value == ""


_TYPE_TESTS = {
    "string": lambda v: isinstance(v, str),
    "integer": is_integer,
    "number": is_numeric,
    "boolean": is_boolean,
    "array": is_array,
    "object": is_object,
    "null": lambda v: v is None,
}


def best_type(value: Any, types: list[str]) -> str | None:
    """The first listed type the value conforms to ("" prefers string when listed)."""
    if value == "" and "string" in types:
        return "string"
    for candidate in types:
        test = _TYPE_TESTS.get(candidate)
        if test is not None and test(value):
            return candidate
    return None


def _types_of(schema: dict) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        return []
    return list(kind) if isinstance(kind, list) else [kind]


# --- validation ------------------------------------------------------------------------

def validate_value(value: Any, schema: dict, param: str) -> None:
    """Raise ParamError when `value` does not satisfy `schema`."""
    if "anyOf" in schema:
        _validate_any_of(value, schema, param)
        return
    if "oneOf" in schema:
        _validate_one_of(value, schema, param)
        return
    types = _types_of(schema)
    kind = None
    if types:
        kind = best_type(value, types) if len(types) > 1 else (types[0] if _TYPE_TESTS.get(types[0], lambda v: True)(value) else None)
        if kind is None:
            raise ParamError("rest_invalid_type", f"{param} is not of type {','.join(types)}.", {"param": param})
    if kind == "array":
        _validate_array(parse_list(value), schema, param)
    elif kind == "object":
        _validate_object(_as_object(value), schema, param)
    elif kind == "string":
        _validate_string(value, schema, param)
    elif kind in ("integer", "number"):
        _validate_number(value, schema, param)
    if "enum" in schema:
        _validate_enum(sanitize_value(value, schema), schema, param)
    if kind in ("string", None) and "format" in schema and isinstance(value, str):
        _validate_format(value, schema["format"], param)


def _validate_any_of(value, schema, param):
    for sub in schema["anyOf"]:
        try:
            validate_value(value, sub, param)
            return
        except ParamError:
            continue
    raise ParamError("rest_no_matching_schema", f"{param} does not match any of the expected formats.")


def _validate_one_of(value, schema, param):
    matches = 0
    for sub in schema["oneOf"]:
        try:
            validate_value(value, sub, param)
            matches += 1
        except ParamError:
            continue
    if matches == 0:
        raise ParamError("rest_no_matching_schema", f"{param} does not match any of the expected formats.")
    if matches > 1:
        raise ParamError("rest_one_of_multiple_matches", f"{param} matches more than one of the expected formats.")


def _validate_array(items: list, schema: dict, param: str) -> None:
    item_schema = schema.get("items")
    if len(items) > schema.get("maxItems", MAX_ARRAY_ITEMS):
        count = schema.get("maxItems", MAX_ARRAY_ITEMS)  # checked first, before any work per item
        raise ParamError("rest_too_many_items", f"{param} must contain at most {count} {'item' if count == 1 else 'items'}.")
    if item_schema:
        for index, item in enumerate(items):
            validate_value(item, item_schema, f"{param}[{index}]")
    if "minItems" in schema and len(items) < schema["minItems"]:
        count = schema["minItems"]
        raise ParamError("rest_too_few_items", f"{param} must contain at least {count} {'item' if count == 1 else 'items'}.")
    if schema.get("uniqueItems"):
        sanitized = [sanitize_value(item, item_schema) if item_schema else item for item in items]
        seen = set()
        for item in sanitized:
            key = json.dumps(item, sort_keys=True, default=str)
            if key in seen:
                raise ParamError("rest_duplicate_items", f"{param} has duplicate items.")
            seen.add(key)


def _as_object(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    if isinstance(value, list):
        return {str(index): item for index, item in enumerate(value)}
    return {}


def _validate_object(value: dict, schema: dict, param: str) -> None:
    properties = schema.get("properties") or {}
    required = schema.get("required")
    if isinstance(required, list):
        for name in required:
            if name not in value:
                raise ParamError("rest_property_required", f"{name} is a required property of {param}.")
    else:
        for name, sub in properties.items():
            if isinstance(sub, dict) and sub.get("required") is True and name not in value:
                raise ParamError("rest_property_required", f"{name} is a required property of {param}.")
    for key, item in value.items():
        sub = _property_schema(key, schema)
        if sub is False:
            raise ParamError("rest_additional_properties_forbidden", f"{key} is not a valid property of Object.")
        if isinstance(sub, dict) and sub:
            validate_value(item, sub, f"{param}[{key}]")
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        raise ParamError("rest_too_few_properties", f"{param} must contain at least {schema['minProperties']} properties.")
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        raise ParamError("rest_too_many_properties", f"{param} must contain at most {schema['maxProperties']} properties.")


def _property_schema(key: str, schema: dict):
    properties = schema.get("properties") or {}
    if key in properties:
        return properties[key]
    for pattern, sub in (schema.get("patternProperties") or {}).items():
        if linear.pattern(pattern).search(key):
            return sub
    return schema.get("additionalProperties", None)


def looks_like_email(value: str) -> bool:
    """local@domain.tld with no white space or second `@`: WordPress's is_email() shape, without a regex."""
    local, at, domain = value.partition("@")
    if not at or not local or "@" in domain or any(character.isspace() for character in value):
        return False
    return "." in domain[1:-1]


# A length limit the host enforces without advertising it: discovery shows only JSON-Schema keywords
# (schemas.ARG_KEYWORDS), so an arg keeps WordPress's published shape while the guard still holds.
GUARD_MAX_LENGTH = "guardMaxLength"
# The same for a number's upper bound (a page number past which the offset would not fit a column).
GUARD_MAXIMUM = "guardMaximum"
# Both guards; the OpenAPI document advertises them as the JSON-Schema keyword they stand for.
GUARDS = {GUARD_MAX_LENGTH: "maxLength", GUARD_MAXIMUM: "maximum"}


def _validate_string(value: str, schema: dict, param: str) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        count = schema["minLength"]
        raise ParamError("rest_too_short", f"{param} must be at least {count} {'character' if count == 1 else 'characters'} long.")
    limit = schema.get("maxLength", schema.get(GUARD_MAX_LENGTH))
    if limit is not None and len(value) > limit:
        count = limit
        raise ParamError("rest_too_long", f"{param} must be at most {count} {'character' if count == 1 else 'characters'} long.")
    if "pattern" in schema and not linear.pattern(schema["pattern"]).search(value):
        raise ParamError("rest_invalid_pattern", f"{param} does not match pattern {schema['pattern']}.")


def _validate_number(value: Any, schema: dict, param: str) -> None:
    number = float(value)
    if "multipleOf" in schema and schema["multipleOf"]:
        ratio = number / schema["multipleOf"]
        if not float(ratio).is_integer():
            raise ParamError("rest_invalid_multiple", f"{param} must be a multiple of {_fmt(schema['multipleOf'])}.")
    guard = schema.get(GUARD_MAXIMUM)
    if guard is not None and number > guard and schema.get("maximum") is None:  # WordPress's messages otherwise
        raise ParamError("rest_out_of_bounds", f"{param} must be less than or equal to {_fmt(guard)}")
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    exclusive_min = schema.get("exclusiveMinimum") is True
    exclusive_max = schema.get("exclusiveMaximum") is True
    low_fail = minimum is not None and (number <= minimum if exclusive_min else number < minimum)
    high_fail = maximum is not None and (number >= maximum if exclusive_max else number > maximum)
    if not (low_fail or high_fail):
        return
    if minimum is not None and maximum is not None:
        low = "exclusive" if exclusive_min else "inclusive"
        high = "exclusive" if exclusive_max else "inclusive"
        message = f"{param} must be between {_fmt(minimum)} ({low}) and {_fmt(maximum)} ({high})"
    elif minimum is not None:
        message = f"{param} must be greater than {_fmt(minimum)}" if exclusive_min else f"{param} must be greater than or equal to {_fmt(minimum)}"
    else:
        if maximum is None:  # neither bound failed: returned above
            raise RuntimeError(f"{param}: a bound failed without a bound")
        message = f"{param} must be less than {_fmt(maximum)}" if exclusive_max else f"{param} must be less than or equal to {_fmt(maximum)}"
    raise ParamError("rest_out_of_bounds", message)


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _validate_enum(value: Any, schema: dict, param: str) -> None:
    options = schema["enum"]
    for option in options:
        if option == value or (is_numeric(option) and is_numeric(value) and not isinstance(option, str)
                               and float(option) == float(value)):
            return
    names = [json.dumps(option) if not isinstance(option, str) else option for option in options]
    if len(names) == 1:
        message = f"{param} is not {names[0]}."
    elif len(names) == 2:
        message = f"{param} is not one of {names[0]} and {names[1]}."
    else:
        message = f"{param} is not one of {', '.join(names[:-1])}, and {names[-1]}."
    raise ParamError("rest_not_in_enum", message)


def _validate_format(value: str, fmt: str, param: str) -> None:
    if fmt == "date-time" and not valid_date_time(value):
        raise ParamError("rest_invalid_date", "Invalid date.")
    if fmt == "date" and not valid_date(value):  # fields.Date: YYYY-MM-DD (WordPress has no such format)
        raise ParamError("rest_invalid_date", "Invalid date.")
    if fmt == "email" and not looks_like_email(value):
        raise ParamError("rest_invalid_email", "Invalid email address.")
    if fmt == "ip":
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ParamError("rest_invalid_ip", f"{param} is not a valid IP address.") from None
    if fmt == "uuid" and not _UUID.match(value):
        raise ParamError("rest_invalid_uuid", f"{param} is not a valid UUID.")
    if fmt == "hex-color" and not _HEX_COLOR.match(value):
        raise ParamError("rest_invalid_hex_color", "Invalid hex color.")


def valid_date(value: str) -> bool:
    """A calendar date written YYYY-MM-DD: 2030-12-31, not 31/12/2030 or 2030-02-30."""
    match = _DATE.match(value)
    if not match:
        return False
    year, month, day = (int(match.group(i)) for i in range(1, 4))
    import calendar

    return year >= 1 and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def valid_date_time(value: str) -> bool:
    match = _DATE_TIME.match(value)
    if not match:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    import calendar

    if not (1 <= month <= 12) or hour > 23 or minute > 59 or second > 59 or year < 1:
        return False
    return 1 <= day <= calendar.monthrange(year, month)[1]


# --- sanitization ----------------------------------------------------------------------

def sanitize_value(value: Any, schema: dict | None) -> Any:
    """Coerce an already validated value to its schema type ("5" -> 5, "1,2" -> [1, 2])."""
    if not schema:
        return value
    for key in ("anyOf", "oneOf"):
        if key in schema:
            for sub in schema[key]:
                try:
                    validate_value(value, sub, "value")
                    return sanitize_value(value, sub)
                except ParamError:
                    continue
            return None
    types = _types_of(schema)
    if not types:
        return value
    kind = best_type(value, types) if len(types) > 1 else types[0]
    if kind is None:
        return None
    if kind == "array":
        items = parse_list(value)
        item_schema = schema.get("items")
        return [sanitize_value(item, item_schema) for item in items] if item_schema else list(items)
    if kind == "object":
        result = {}
        for key, item in _as_object(value).items():
            sub = _property_schema(key, schema)
            if sub is False:
                continue
            result[key] = sanitize_value(item, sub) if isinstance(sub, dict) else item
        return result
    if kind == "integer":
        if _is_whole_number_text(value):
            return int(value)
        return int(float(value)) if is_numeric(value) else 0
    if kind == "number":
        return float(value) if is_numeric(value) else 0.0
    if kind == "boolean":
        return sanitize_boolean(value)
    if kind == "null":
        return None
    if kind == "string":
        text = value if isinstance(value, str) else str(value)
        fmt = schema.get("format")
        if fmt == "hex-color" and not _HEX_COLOR.match(text):
            return ""
        if fmt == "text-field":
            return " ".join(strip_tags(text).split())
        if fmt == "textarea-field":
            return strip_tags(text).strip()
        return text
    return value


def sanitize_boolean(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() not in ("false", "0", "")
    return bool(value)
