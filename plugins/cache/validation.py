"""Loading payloads with marshmallow: operator routes fail in the REST error shape, service callbacks
in the service's envelope (CallbackError)."""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import Schema, ValidationError

from host import RestError, invalid_param


def load_payload(schema: Schema, data: dict[str, Any]) -> dict[str, Any]:
    """Validated data; 400 rest_missing_callback_param / rest_invalid_param like declared args."""
    missing = [name for name, field in schema.fields.items()
               if field.required and (name not in data or data[name] in (None, ""))]
    if missing:
        raise RestError("rest_missing_callback_param", f"Missing parameter(s): {', '.join(missing)}", 400,
                        {"params": missing})
    try:
        return schema.load(data)
    except ValidationError as error:
        raise invalid_param({name: _flatten(messages) for name, messages in error.messages.items()}) from None


def _flatten(messages: Any) -> str:
    if isinstance(messages, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in messages.items())
    if isinstance(messages, list):
        return " ".join(_flatten(message) for message in messages)
    return str(messages)


class CallbackError(Exception):
    """A service callback refused: answered as `{"_res": "err", "_msg": code}` (callbacks.speaks_envelope)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def load_callback_payload(schema: Schema, data: dict[str, Any], missing: str = "lack_of_params") -> dict[str, Any]:
    """Validated data of a service callback; CallbackError `missing` or "Invalid parameter(s): ..."."""
    if any(field.required and data.get(name) in (None, "") for name, field in schema.fields.items()):
        raise CallbackError(missing)
    try:
        return schema.load(data)
    except ValidationError as error:
        raise CallbackError(f"Invalid parameter(s): {', '.join(sorted(error.messages))}") from None


def documented_only(schema: type[Schema]) -> type[Schema]:
    """`schema` as a route's declared args that only document the payload: nothing required, and
    every arg left to the handler (host.args handler_validates), which answers in the service's
    envelope instead of the pipeline's 400. The handler loads the original `schema` itself."""
    declared = {}
    for name, field in schema().fields.items():
        copied = copy.deepcopy(field)
        copied.required = False
        copied.handler_validates = True
        declared[name] = copied
    return Schema.from_dict(declared, name=f"{schema.__name__}Documented")
