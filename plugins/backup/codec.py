"""Rows as JSON lines that do not depend on the database engine.

One line per row: a JSON array of the column values in the manifest's column order. The
values are what SQLAlchemy's column types give, written the same way whichever engine
produced them, so a backup of a site restored from a backup has the same checksums:

- integers, floats, strings, booleans and SQL NULL (null) as JSON;
- date-times, dates and times as ISO 8601 text (naive stays naive, aware keeps its offset);
- JSON columns as a one-element array `[value]`, so that SQL NULL (null) and a stored JSON
  `null` (`[null]`) stay apart;
- binary as `{"base64": "..."}`, decimals as `{"decimal": "1.50"}`, UUIDs as text.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import uuid
from typing import Any, Callable

import orjson
from sqlalchemy import JSON, Date, DateTime, LargeBinary, Numeric, Time, Uuid, null
from sqlalchemy.types import Float

Encoder = Callable[[Any], Any]


def _encode_json(value):
    return [value]


def _encode_binary(value):
    return {"base64": base64.b64encode(bytes(value)).decode("ascii")}


def _encode_decimal(value):
    return {"decimal": str(value)} if isinstance(value, decimal.Decimal) else value


def _encode_text(value):
    return str(value)


def _encode_time(value):
    return value.isoformat()


def encoder(column) -> Encoder | None:
    """How a column's values become JSON; None when orjson writes them as they come."""
    kind = column.type
    if isinstance(kind, JSON):
        return _encode_json
    if isinstance(kind, LargeBinary):
        return _encode_binary
    if isinstance(kind, Numeric) and not isinstance(kind, Float):
        return _encode_decimal
    if isinstance(kind, Uuid):
        return _encode_text
    if isinstance(kind, Time):
        return _encode_time
    return None  # orjson writes datetime and date as ISO 8601 itself


def decoder(column) -> Callable[[Any], Any] | None:
    """The reverse of `encoder`, giving what the column type expects on insert."""
    kind = column.type
    if isinstance(kind, JSON):
        return lambda value: null() if value is None else (JSON.NULL if value[0] is None else value[0])
    if isinstance(kind, LargeBinary):
        return lambda value: base64.b64decode(value["base64"])
    if isinstance(kind, Numeric) and not isinstance(kind, Float):
        return lambda value: decimal.Decimal(value["decimal"]) if isinstance(value, dict) else value
    if isinstance(kind, Uuid):
        return lambda value: uuid.UUID(value) if kind.as_uuid else value
    if isinstance(kind, DateTime):
        return datetime.datetime.fromisoformat
    if isinstance(kind, Date):
        return datetime.date.fromisoformat
    if isinstance(kind, Time):
        return datetime.time.fromisoformat
    return None


class RowEncoder:
    """Encodes the rows of one table; `line(row)` gives the bytes of one JSON line.

    Rows come as Snapshot.rows gives them: the columns, then one "is SQL NULL" flag per JSON
    column (SQLAlchemy reads SQL NULL and a stored JSON null both as None).
    """

    def __init__(self, columns):
        self.width = len(columns)
        self.json_indexes = [index for index, column in enumerate(columns) if isinstance(column.type, JSON)]
        self.converters = [(index, function) for index, column in enumerate(columns)
                           if (function := encoder(column)) is not None and not isinstance(column.type, JSON)]

    def line(self, row) -> bytes:
        if self.converters or self.json_indexes:
            values = list(row[:self.width])
            for index, function in self.converters:
                if values[index] is not None:
                    values[index] = function(values[index])
            for position, index in enumerate(self.json_indexes):
                value = values[index]
                values[index] = None if value is None and row[self.width + position] else [value]
        else:
            values = tuple(row)
        return orjson.dumps(values, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_SUBCLASS)


class RowDecoder:
    """Turns JSON lines back into dicts of column values for an insert."""

    def __init__(self, columns):
        self.names = [column.name for column in columns]
        self.width = len(self.names)
        self.converters = []  # (index, function, whether None goes through it too)
        for index, column in enumerate(columns):
            function = decoder(column)
            if function is not None:
                self.converters.append((index, function, isinstance(column.type, JSON)))

    def row(self, line: bytes) -> dict[str, Any]:
        values = orjson.loads(line)
        if not isinstance(values, list) or len(values) != self.width:
            raise ValueError(f"a row has {len(values) if isinstance(values, list) else 'no'} values "
                             f"where the table has {self.width} columns")
        for index, function, takes_none in self.converters:
            if values[index] is not None or takes_none:
                values[index] = function(values[index])
        return dict(zip(self.names, values))
