"""Helpers shared by the reliability tests: valid example requests built from route args, and
database snapshots that show whether a request changed anything."""

from __future__ import annotations

import re
import uuid
from typing import Any

from sqlalchemy import select

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


def snapshot(app) -> dict[str, list[tuple]]:
    """Every row of every table (small test databases), to compare before and after a request."""
    result = {}
    with app.db.session() as session:
        for name, table in app.db.metadata.tables.items():
            result[name] = sorted((tuple(map(repr, row)) for row in session.execute(select(table)).all()))
    return result


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
