"""Loading callback payloads with marshmallow, failing with the REST server's own error shapes."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError

from host import RestError


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
        params = {name: _flatten(messages) for name, messages in error.messages.items()}
        raise RestError("rest_invalid_param", f"Invalid parameter(s): {', '.join(params)}", 400,
                        {"params": params}) from None


def _flatten(messages: Any) -> str:
    if isinstance(messages, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in messages.items())
    if isinstance(messages, list):
        return " ".join(_flatten(message) for message in messages)
    return str(messages)
