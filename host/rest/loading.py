"""The second half of argument checking: the route's marshmallow class loads what the JSON Schema passed.

The JSON-Schema check (validation.py) answers exactly as WordPress does for everything a JSON
Schema can say: types, bounds, lengths, enums, patterns (in linear time), formats. Then the
args class itself loads the sanitized values, so that

- what JSON Schema cannot say still runs: a `validate=` function or Validator of the field's own,
  `@validates("name")` and `@validates_schema` methods;
- values arrive as the field's type: `fields.Date` as `datetime.date`, `fields.DateTime` as
  `datetime.datetime`, `fields.UUID` as `uuid.UUID`, `fields.Decimal` as `Decimal`.

The validators the JSON Schema already expressed (Range, Length, OneOf, Equal, Regexp) are
left out of the load: they were checked, with WordPress's messages, and a Regexp would run
Python's backtracking engine on outside input. A marshmallow ValidationError becomes one
400 `rest_invalid_param` naming every bad argument (response.invalid_param).
"""

from __future__ import annotations

import weakref
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

from .response import invalid_param
from .validation import ParamError

# The validators args_from_schema turns into JSON-Schema keywords (apispec's field2property).
_EXPRESSED = (validate.Range, validate.Length, validate.OneOf, validate.Equal, validate.Regexp)

# A loader per args class: built once, shared by every endpoint and app (as registry._compiled_args).
_loaders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# Fields whose load gives back the sanitized value unchanged: without a validator of their own
# they need no load (most args are these, and loading them costs a list request a third of a ms).
_PLAIN = (fields.String, fields.Integer, fields.Boolean)


class _Loader:
    """An instance of an args class without the expressed validators, and the names it loads."""

    def __init__(self, schema_class: type[Schema], skipped: tuple[str, ...]):
        self.schema = schema_class(unknown=EXCLUDE)
        hooks = self.schema._hooks
        whole = any(hooks.get(tag) for tag in ("validates_schema", "pre_load", "post_load"))
        validated = {name for _attr, _many, options in hooks.get("validates", ())
                     for name in options.get("field_names", ())}
        self.names: dict[str, str] = {}  # the arg's name (data_key) -> the field's attribute, of those loaded
        for attribute, field in self.schema.fields.items():
            if field.dump_only or field.metadata.get("readonly"):
                continue
            _strip_expressed(field)
            key = field.data_key or attribute
            if key not in skipped and (whole or attribute in validated or _needs_load(field)):
                self.names[key] = attribute


def _needs_load(field: fields.Field) -> bool:
    """Whether loading changes the value (a date, a UUID) or checks something (a validator of its own)."""
    if field.validators:
        return True
    if isinstance(field, fields.List):
        return _needs_load(field.inner)
    if isinstance(field, fields.Float):  # a JSON integer becomes a float
        return True
    if type(field)._deserialize is fields.Field._deserialize:  # Raw, host.args.JsonSchemaField: as sent
        return False
    return not isinstance(field, _PLAIN)


def _strip_expressed(field: fields.Field) -> None:
    field.validators = [check for check in field.validators if not isinstance(check, _EXPRESSED)]
    if isinstance(field, fields.List):
        _strip_expressed(field.inner)
    elif isinstance(field, fields.Dict) and field.value_field is not None:
        _strip_expressed(field.value_field)
    elif isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        for inner in field.schema.fields.values():
            _strip_expressed(inner)


def loader_for(schema_class: type[Schema], skipped: tuple[str, ...]) -> _Loader:
    found = _loaders.get(schema_class)
    if found is None:
        found = _loaders[schema_class] = _Loader(schema_class, skipped)
    return found


def load_args(endpoint, params: dict[str, Any], sent: set[str]) -> dict[str, Any]:
    """`params` (validated and sanitized by the JSON Schema) with the args class's values loaded.

    Only the arguments present are loaded (sent or defaulted); an absent one stays absent. Every
    argument is loaded as partial: which ones are required was checked before.
    """
    loader = endpoint.arg_loader  # on the endpoint: a lookup by class cost a weak reference per request
    if loader is None:
        if endpoint.arg_schema is None:
            return params
        loader = endpoint.arg_loader = loader_for(endpoint.arg_schema, endpoint.handler_validated)
    raw = {key: params[key] for key in loader.names if params.get(key) is not None}
    if not raw:
        return params
    try:
        loaded = loader.schema.load(raw, partial=True)
    except ValidationError as error:
        problems = _problems(error.messages, (sent & raw.keys()) or set(raw))
        if problems:
            raise invalid_param(problems) from None
        loaded = error.valid_data or {}  # only unknown keys inside an object its JSON Schema allowed
    for key, attribute in loader.names.items():
        if key in raw and attribute in loaded:
            params[key] = loaded[attribute]
    return params


def _problems(messages: Any, sent: set[str]) -> dict[str, ParamError]:
    """marshmallow's messages by argument, without "Unknown field." (the JSON Schema allowed those keys)."""
    problems: dict[str, ParamError] = {}
    if not isinstance(messages, dict):
        messages = {"_schema": messages}
    for name, found in messages.items():
        text = _text(found)
        if not text:
            continue
        if name == "_schema":  # a @validates_schema error without field_name: the combination sent is wrong
            for key in sorted(sent):
                problems.setdefault(key, ParamError("rest_invalid_param", text))
        else:
            problems[name] = ParamError("rest_invalid_param", text)
    return problems


def _text(found: Any) -> str:
    if isinstance(found, dict):
        parts = [f"{key}: {inner}" if key != "_schema" else inner
                 for key, inner in ((key, _text(value)) for key, value in found.items()) if inner]
        return " ".join(parts)
    if isinstance(found, (list, tuple)):
        return " ".join(text for text in (_text(item) for item in found) if text)
    text = str(found)
    return "" if text == "Unknown field." else text
