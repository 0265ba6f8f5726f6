"""Helpers shared by the reliability tests: valid example requests built from route args, and
database snapshots that show whether a request changed anything."""

from __future__ import annotations

import re
import uuid
import weakref
from typing import Any

ROLE_ORDER = ("anonymous", "subscriber", "contributor", "author", "editor", "administrator")
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# String args a marker is written into, so a leak of the item shows up in any response body.
MARKED_ARGS = ("title", "content", "excerpt", "slug", "name", "description", "message", "caption")
_GROUP = re.compile(r"\(\?P<(\w+)>")


def marker() -> str:
    """A token that cannot appear in a response by accident (lower-case alphanumeric: fits slugs)."""
    return "zq" + uuid.uuid4().hex[:16]


def first_type(schema: dict) -> str:
    declared = schema.get("type", "string")
    if isinstance(declared, list):
        declared = next((kind for kind in declared if kind != "null"), "null")
    return declared


def example_value(schema: dict, token: str) -> Any:
    """A value the arg's JSON Schema accepts (enum first, then default, then by type)."""
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema and schema["default"] not in (None, ""):
        return schema["default"]
    kind = first_type(schema)
    if kind == "string":
        text = {"date-time": "2031-02-03T04:05:06", "date": "2031-02-03", "email": f"{token}@school.test",
                "uri": f"https://school.test/{token}", "uuid": str(uuid.UUID(int=7))}.get(schema.get("format"), token)
        text = text[: schema.get("maxLength", len(text))]
        return text + "x" * max(0, schema.get("minLength", 0) - len(text))
    if kind in ("integer", "number"):
        value = max(schema.get("minimum", 1), 1)
        return min(value, schema.get("maximum", value))
    if kind == "boolean":
        return False
    if kind == "array":
        item = example_value(schema.get("items", {}), token) if schema.get("minItems") else None
        return [item] * schema.get("minItems", 0)
    if kind == "object":
        properties = schema.get("properties") or {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else \
            [name for name, sub in properties.items() if isinstance(sub, dict) and sub.get("required") is True]
        return {name: example_value(properties[name], token) for name in required}
    return None


def example_body(args: dict[str, dict], token: str, skip: tuple[str, ...] = (), extra: dict | None = None) -> dict:
    """Required args, plus the marked string args, with valid values."""
    body = {}
    for name, arg in args.items():
        if name in skip:
            continue
        plain_string = first_type(arg) == "string" and not (arg.get("enum") or arg.get("format") or arg.get("pattern"))
        if arg.get("required") or (name in MARKED_ARGS and plain_string):
            body[name] = example_value(arg, token)
    body.update(extra or {})
    return body


def regex_example(regex: str) -> str:
    """A short string the regex fully matches (digits become 1, words a), from its parse tree."""
    import re._parser as parser  # the standard library's own regex parser
    from re._constants import (ANY, AT, BRANCH, CATEGORY, CATEGORY_DIGIT, IN, LITERAL, MAX_REPEAT,
                               MIN_REPEAT, NEGATE, NOT_LITERAL, RANGE, SUBPATTERN)

    def char_from(items) -> str:
        if items and items[0][0] is NEGATE:
            excluded = {chr(value) for op, value in items[1:] if op is LITERAL}
            return next(char for char in "a1_" if char not in excluded)
        op, value = items[0]
        if op is LITERAL:
            return chr(value)
        if op is RANGE:
            return chr(value[0])
        if op is CATEGORY:
            return "1" if value is CATEGORY_DIGIT else "a"
        return "a"

    def build(tokens) -> str:
        text = ""
        for op, value in tokens:
            if op is LITERAL:
                text += chr(value)
            elif op is NOT_LITERAL or op is ANY:
                text += "a" if chr(value if op is NOT_LITERAL else 0) != "a" else "b"
            elif op is IN:
                text += char_from(value)
            elif op in (MAX_REPEAT, MIN_REPEAT):
                low, _high, sub = value
                text += build(sub) * max(low, 1)
            elif op is SUBPATTERN:
                text += build(value[-1])
            elif op is BRANCH:
                text += build(value[1][0])
            elif op is AT:
                continue
        return text

    example = build(parser.parse(regex))
    if re.fullmatch(regex, example) is None:
        raise ValueError(f"no example found for {regex!r}")
    return example


def path_variables(pattern: str) -> list[str]:
    return _GROUP.findall(pattern)


def fill_pattern(pattern: str, values: dict[str, Any]) -> str:
    """Turn a route regex into a concrete path with `values` for its named groups."""
    from host.openapi import path_templates

    template, _groups = path_templates(pattern)[0]
    for name, value in values.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def collection_of(pattern: str) -> str | None:
    """`/ns/items/(?P<id>...)` -> `/ns/items`: the collection whose POST creates such items."""
    found = re.match(r"^(.*)/\(\?P<id>[^)]*\)$", pattern)
    return found.group(1) if found else None


def snapshot(app, tables: tuple[str, ...] | None = None) -> dict[str, tuple]:
    """Every row of every table (or of `tables`), to compare before and after a request.

    Exact: equal snapshots mean equal rows in every table. Cheap, because the permission matrix
    takes one or two per request: on SQLite a plain driver cursor reads each table in primary-key
    order (SQLAlchemy's per-statement work cost more than the reads), and a snapshot is reused
    while the database's commit mark says nothing was committed since it was read; on PostgreSQL
    one statement returns every table as the text of its rows, in one round trip.
    """
    mark = app.db.commit_mark()
    kept = _KEPT_SNAPSHOTS.get(app.db)
    if mark is not None and kept is not None and kept[0] == mark:
        rows = kept[1]
    elif tables is not None:
        return _read_every_row(app, tables)
    else:
        rows = _read_every_row(app)  # read after the mark: a commit racing with it only changes the next mark
        if mark is not None:
            _KEPT_SNAPSHOTS[app.db] = (mark, rows)
    return {name: rows[name] for name in tables if name in rows} if tables is not None else dict(rows)


# Database -> (commit mark read before the snapshot, the snapshot); an entry goes with its Database.
_KEPT_SNAPSHOTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _read_every_row(app, names: tuple[str, ...] | None = None) -> dict[str, tuple]:
    tables = [table for name, table in app.db.metadata.tables.items() if names is None or name in names]
    quote = app.db.engine.dialect.identifier_preparer
    connection = app.db.engine.raw_connection()
    try:
        cursor = connection.cursor()
        if app.db.engine.dialect.name == "postgresql":
            # Each row as its composite text (every column, exactly), sorted byte-wise: one round trip.
            columns = ", ".join(f'ARRAY(SELECT text_ FROM (SELECT ROW(row_.*)::text AS text_ FROM '
                                f'{quote.format_table(table)} AS row_) AS rows_ ORDER BY text_ COLLATE "C")'
                                for table in tables)
            cursor.execute(f"SELECT {columns}")
            return {table.name: tuple(rows) for table, rows in zip(tables, cursor.fetchone())}
        result = {}
        for table in tables:
            order = ", ".join(quote.quote(column.name) for column in table.primary_key.columns) or "rowid"
            cursor.execute(f"SELECT * FROM {quote.format_table(table)} ORDER BY {order}")
            result[table.name] = tuple(cursor.fetchall())
        return result
    finally:
        connection.close()


def row_counts(app) -> dict[str, int]:
    return {name: len(rows) for name, rows in snapshot(app).items()}


def write_endpoints(app):
    """(route pattern, endpoint, method) for every write method of every enabled plugin's routes."""
    for pattern, route in app.registry.ordered_routes():
        for endpoint in route.endpoints:
            for method in endpoint.methods:
                if method in WRITE_METHODS:
                    yield pattern, route, endpoint, method


def role_capabilities(app, role: str) -> set[str]:
    from host.auth.roles import ROLE_CAPABILITIES

    if role == "anonymous":
        return set()
    granted = set(ROLE_CAPABILITIES[role])
    granted |= {capability for capability, roles in app.registry.capabilities.items() if role in roles}
    return granted
