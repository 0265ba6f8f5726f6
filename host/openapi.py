"""OpenAPI 3.1 from the registry: `/openapi.json`, `/api-reference` and `sitehost openapi` (in cli.py).

The document is built from the very arg dicts the discovery documents show (each
endpoint's `args`, made by host.rest.schemas from the route's marshmallow schema) and the
item schemas of the routes, so the two descriptions of the API cannot drift apart.
Route regexes become path templates: `/core/v2/posts/(?P<id>[\\d]+)` is served as
`/wp-json/core/v2/posts/{id}` with the group's regex as the parameter's `pattern`.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from apispec import APISpec
from markupsafe import Markup
from marshmallow import INCLUDE

from .registry import number_groups
from .theme import render
from .rest.schemas import required_schema_instance, schema_properties
from .rest.validation import GUARDS, MAX_INTEGER, ParamError, validate_value

OPENAPI_PATH = "/openapi.json"
REFERENCE_PATH = "/api-reference"
ERROR_COMPONENT = "Error"
BODY_METHODS = ("POST", "PUT", "PATCH")  # DELETE args travel in the query string, as WordPress clients send them
# Keywords of the discovery arg dicts that are not JSON Schema (or that JSON Schema spells differently).
_NOT_JSON_SCHEMA = ("required", "context", "readonly")
_COMPONENT_NAME = re.compile(r"[^A-Za-z0-9._-]+")

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error: a machine-readable code, a message for people, and the HTTP status in data.",
    "required": ["code", "message", "data"],
    "properties": {
        "code": {"type": "string", "examples": ["rest_invalid_param"]},
        "message": {"type": "string"},
        "data": {
            "type": "object",
            "required": ["status"],
            "properties": {"status": {"type": "integer", "minimum": 400, "maximum": 599}},
        },
    },
}
ERROR_RESPONSES = {
    "400": "Invalid parameters or body (rest_invalid_param, rest_missing_callback_param, rest_invalid_json).",
    "401": "Not signed in, or the credentials are wrong.",
    "403": "Signed in, but not allowed to do this.",
    "404": "No route matches the path (rest_no_route), or the item does not exist.",
    "413": "The request body is larger than the configured limit.",
    "414": "The query string is too long.",
    "4XX": "Any other refusal, always in the error shape.",
    "500": "Unexpected failure; no internals are revealed.",
    "501": "Deliberately not supported here (for example trashing an item type that has no trash).",
    "502": "A service outside this site that the route relies on failed.",
    "503": "The site or a service it relies on is unavailable for now.",
}


# --- route patterns ------------------------------------------------------------------------

def _group_end(pattern: str, start: int) -> int:
    """Index just past the group that opens at `pattern[start]` (balanced, escapes and classes aware)."""
    depth = 0
    index = start
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise ValueError(f"unbalanced group in route pattern {pattern!r}")


def path_templates(pattern: str) -> list[tuple[str, dict[str, str]]]:
    """Every OpenAPI path template a route regex matches, with each path parameter's regex.

    Named groups become `{name}`; an optional non-capturing group `(?:...)?` yields the
    template with and without it; escaped literals (`\\.`) lose their backslash.
    """
    results: list[tuple[str, dict[str, str]]] = [("", {})]
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("(?P<", index):
            end = _group_end(pattern, index)
            name_end = pattern.index(">", index)
            name = pattern[index + 4:name_end]
            regex = re.sub(r"\(\?P<\w+>", "(", pattern[name_end + 1:end - 1])
            results = [(text + "{" + name + "}", {**groups, name: regex}) for text, groups in results]
            index = end
        elif pattern.startswith("(?:", index):
            end = _group_end(pattern, index)
            inner = path_templates(pattern[index + 3:end - 1])
            optional = end < len(pattern) and pattern[end] == "?"
            combined = [(text + part, {**groups, **part_groups})
                        for text, groups in results for part, part_groups in inner]
            results = combined + (results if optional else [])
            index = end + (1 if optional else 0)
        elif char == "\\" and index + 1 < len(pattern):
            results = [(text + pattern[index + 1], groups) for text, groups in results]
            index += 2
        else:
            results = [(text + char, groups) for text, groups in results]
            index += 1
    return results


# --- JSON Schema from discovery args ---------------------------------------------------------

def json_schema(arg: dict[str, Any]) -> dict[str, Any]:
    """A discovery arg (WordPress style: boolean `required`, `context`, `readonly`) as JSON Schema."""
    schema = {key: copy.deepcopy(value) for key, value in arg.items() if key not in _NOT_JSON_SCHEMA}
    if arg.get("readonly"):
        schema["readOnly"] = True
    if schema.get("properties") == []:  # WordPress writes "no properties" as an empty list
        schema["properties"] = {}
    if isinstance(schema.get("properties"), dict):
        required = [name for name, sub in schema["properties"].items()
                    if isinstance(sub, dict) and sub.get("required") is True]
        if isinstance(arg.get("required"), list):
            required = list(dict.fromkeys([*arg["required"], *required]))
        schema["properties"] = {name: json_schema(sub) if isinstance(sub, dict) else sub
                                for name, sub in schema["properties"].items()}
        if required:
            schema["required"] = required
    if isinstance(schema.get("items"), dict):
        schema["items"] = json_schema(schema["items"])
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            schema[keyword] = [json_schema(sub) if isinstance(sub, dict) else sub for sub in schema[keyword]]
    if isinstance(schema.get("additionalProperties"), dict):
        schema["additionalProperties"] = json_schema(schema["additionalProperties"])
    if "default" in schema and not _accepts(arg, schema["default"]):
        # e.g. an email arg defaulting to "": the server accepts its own default, so say so.
        default = schema.pop("default")
        schema = {"anyOf": [schema, {"const": default}], "default": default}
    return schema


_JSON_TYPES = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


def _accepts(arg: dict[str, Any], value: Any) -> bool:
    """Whether the server's own argument validation accepts `value` for `arg`.

    The same checks a request goes through (host.rest.validation), so the document never
    claims less or more than the server does, and no JSON Schema library is needed at runtime.
    """
    types = _types(arg)
    if types and not any(_JSON_TYPES[kind](value) for kind in types if kind in _JSON_TYPES):
        return False  # the request validator coerces "publish" to ["publish"]; JSON Schema does not
    try:
        validate_value(value, arg, "default")
    except ParamError:
        return False
    return True


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    return set(declared) if isinstance(declared, list) else {declared} if declared else set()


def advertised(arg: dict[str, Any]) -> dict[str, Any]:
    """A route arg as the document shows it: the host's guards (validation.GUARDS), which discovery keeps
    out to show WordPress's shape, written as the JSON-Schema bound they enforce."""
    if not GUARDS.keys() & arg.keys():
        return arg
    shown = {key: value for key, value in arg.items() if key not in GUARDS}
    for guard, keyword in GUARDS.items():
        if guard in arg and keyword not in arg:
            shown[keyword] = arg[guard]
    return shown


# JSON Schema has no `ip` format (WordPress's, for author_ip): the server takes IPv4 or IPv6.
_IP_FORMAT = [{"format": "ipv4"}, {"format": "ipv6"}]


def accepted(schema: dict[str, Any], minimum: int = -MAX_INTEGER) -> dict[str, Any]:
    """`schema` saying exactly what the server accepts, where the discovery arg leaves it implicit.

    Integers get the bounds the server enforces where they declare none: host.rest.validation
    refuses an integer past MAX_INTEGER either way (a database column holds no more), and a
    generated client or fuzzer should not send `page=8645365579858603671552`. WordPress's `ip`
    format becomes IPv4 or IPv6, which JSON Schema tools know. Down through items, properties
    and unions, as the validator goes.
    """
    schema = dict(schema)
    if "integer" in _types(schema):
        if "minimum" not in schema and "exclusiveMinimum" not in schema:
            schema["minimum"] = minimum
        if "maximum" not in schema and "exclusiveMaximum" not in schema:
            schema["maximum"] = MAX_INTEGER
    if schema.get("format") == "ip" and "anyOf" not in schema:
        schema.pop("format")
        schema["anyOf"] = copy.deepcopy(_IP_FORMAT)
    if isinstance(schema.get("items"), dict):
        schema["items"] = accepted(schema["items"])
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {name: accepted(sub) if isinstance(sub, dict) else sub
                                for name, sub in schema["properties"].items()}
    if isinstance(schema.get("additionalProperties"), dict):
        schema["additionalProperties"] = accepted(schema["additionalProperties"])
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            schema[keyword] = [accepted(sub) if isinstance(sub, dict) else sub for sub in schema[keyword]]
    return schema


def _arg_schema(arg: dict[str, Any]) -> dict[str, Any]:
    """A parameter's or body field's JSON Schema: the discovery arg, saying what the server accepts."""
    return accepted(json_schema(arg))


def _query_parameter(name: str, arg: dict[str, Any]) -> dict[str, Any]:
    parameter: dict[str, Any] = {"name": name, "in": "query", "required": bool(arg.get("required")),
                                 "schema": _arg_schema(arg)}
    if arg.get("description"):
        parameter["description"] = arg["description"]
    types = _types(parameter["schema"])
    if "array" in types:
        parameter.update(style="form", explode=False)  # ?include=1,2 (the server splits lists on commas)
    elif "object" in types:
        parameter.update(style="deepObject", explode=True)  # ?point[x]=1&point[y]=2, the PHP way
    return parameter


def _path_parameter(name: str, regex: str, arg: dict[str, Any] | None) -> dict[str, Any]:
    """A path group as a parameter: its arg's schema with the group's regex; a group of digits only
    (registry.number_groups) is a number from 0, refused past MAX_INTEGER whether declared or not."""
    digits = name in number_groups(f"(?P<{name}>{regex})")
    if arg:
        schema = accepted(json_schema(arg), minimum=0 if digits else -MAX_INTEGER)
    else:
        schema = {"type": "integer", "minimum": 0, "maximum": MAX_INTEGER} if digits else {"type": "string"}
    schema.pop("default", None)
    schema["pattern"] = f"^(?:{regex})$"
    parameter = {"name": name, "in": "path", "required": True, "schema": schema}
    if arg and arg.get("description"):
        parameter["description"] = arg["description"]
    return parameter


def _request_body(args: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    if not args:
        return None
    schema: dict[str, Any] = {"type": "object", "properties": {name: _arg_schema(arg) for name, arg in args.items()}}
    required = [name for name, arg in args.items() if arg.get("required")]
    if required:
        schema["required"] = required
    content = {"application/json": {"schema": schema}}
    if all(_form_encodable(prop) for prop in schema["properties"].values()):
        content["application/x-www-form-urlencoded"] = {"schema": _without_null(schema)}
    return {"required": bool(required), "content": content}


_SCALARS = {"string", "integer", "number", "boolean", "null"}


def _form_encodable(schema: dict[str, Any]) -> bool:
    """Whether a body field survives `a=1&b=x` as it is: a scalar or a list of scalars, never an object.

    A form body has no way to send an object, `{}` or an empty list, so a body with such a
    field is offered as JSON only (a client that sends it as a form would not be understood).
    """
    types = _types(schema)
    if not types or not types <= _SCALARS | {"array"} or "oneOf" in schema or "anyOf" in schema:
        return False
    items = schema.get("items")
    return "array" not in types or (isinstance(items, dict) and bool(_types(items)) and _types(items) <= _SCALARS
                                    and "null" not in _types(items) and schema.get("minItems", 0) > 0)


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """The body schema as a form sends it: a form field is text, never null (`date=` is an empty string)."""
    properties = {}
    for name, prop in schema["properties"].items():
        types = _types(prop)
        if "null" in types:
            prop = dict(prop, type=sorted(types - {"null"}) if len(types) > 2 else next(iter(types - {"null"})))
        properties[name] = prop
    return dict(schema, properties=properties)


# The fields of a multipart body its schema does not name (Meta.unknown = INCLUDE): text, repeated
# text (`choices[]`) or a file, as a browser sends a form.
_MULTIPART_OTHER_FIELD = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                          "description": "A field of the form: its text, its repeated values, or a file."}


# A field's name travels in its part's Content-Disposition header, where control characters are not
# allowed (RFC 7578, RFC 9110): a body holding one is refused as rest_invalid_multipart.
_MULTIPART_FIELD_NAME = {"type": "string", "pattern": "^[^\\x00-\\x1f\\x7f\"]*$"}


def _multipart_request_body(body_schema: Any) -> dict[str, Any]:
    """Route.multipart_body as a `multipart/form-data` requestBody (files are strings of any media type)."""
    instance = required_schema_instance(body_schema)
    properties = {name: accepted(json_schema(prop)) for name, prop in schema_properties(instance).items()}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [field.data_key or name for name, field in instance.fields.items() if field.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = dict(_MULTIPART_OTHER_FIELD) if instance.unknown == INCLUDE else False
    if instance.unknown == INCLUDE:
        schema["propertyNames"] = _MULTIPART_FIELD_NAME
    return {"required": True, "content": {"multipart/form-data": {"schema": schema}}}


def component_name(text: str) -> str:
    return _COMPONENT_NAME.sub(".", text).strip(".") or "item"


def item_component(schema: Any) -> dict[str, Any]:
    """A resource shape as a JSON-Schema object; no property is required (`_fields` and context trim items)."""
    return {"type": "object", "properties": {name: _empty_allowed(json_schema(prop))
                                             for name, prop in schema_properties(required_schema_instance(schema)).items()}}


# Dates in responses are site-local `YYYY-MM-DDTHH:MM:SS` without an offset (the REST convention),
# which JSON Schema's `date-time` format refuses; responses describe them with this pattern instead.
LOCAL_DATE_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$"


def _empty_allowed(schema: dict[str, Any]) -> dict[str, Any]:
    """In responses a formatted string field that is not set is "" (a user without a website: `url: ""`)."""
    if schema.get("format") == "date-time" and "string" in _types(schema):
        schema = dict(schema)
        schema.pop("format")
        schema["pattern"] = LOCAL_DATE_TIME
    elif "format" in schema and "string" in _types(schema):
        schema = dict(schema)
        schema["anyOf"] = [{"format": schema.pop("format")}, {"maxLength": 0}]
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {name: _empty_allowed(sub) for name, sub in schema["properties"].items()}
    return schema


# --- the document ----------------------------------------------------------------------------

class _Builder:
    def __init__(self, app, site_url: str):
        self.app = app
        self.registry = app.registry
        self.prefix = app.settings.rest_prefix
        self.spec = APISpec(
            title=f"{app.settings.site.get('name') or 'sitehost'} REST API",
            version=_version(), openapi_version="3.1.0",
            info={"description": "Generated from the routes the enabled plugins registered. Errors always have "
                                 "the shape {code, message, data: {status}}."},
            servers=[{"url": site_url}],
        )
        self.spec.components.schema(ERROR_COMPONENT, ERROR_SCHEMA)
        self.spec.components.security_scheme("applicationPassword", {
            "type": "http", "scheme": "basic",
            "description": "A user's login (or email) and one of their application passwords.",
        })
        self.components_by_schema: dict[int, str] = {}
        self.operation_ids: set[str] = set()

    def build(self) -> dict[str, Any]:
        for name, (schema, _owner) in self.registry.schemas.items():
            self._component(schema, name)
        tags = {}
        paths: dict[str, dict[str, Any]] = {}
        for route_path, route in self.registry.ordered_routes():
            endpoints = [endpoint for endpoint in route.endpoints if not endpoint.hidden]
            if not endpoints:
                continue
            item_ref = self._component(route.schema, f"{route.namespace} {route.title}") if route.schema else None
            if route.namespace:
                description = self.registry.namespaces.get(route.namespace, (None, ""))[0]
                tags[route.namespace] = getattr(description, "description", "")
            for template, groups in path_templates(route_path):
                path = self.prefix + (template if template != "/" else "/")
                operations = paths.setdefault(path, {})
                for endpoint in endpoints:
                    for method in endpoint.methods:
                        if method.lower() in operations or method not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
                            continue
                        operations[method.lower()] = self._operation(route, endpoint, method, path, groups, item_ref)
        for namespace, description in tags.items():
            self.spec.tag({"name": namespace, "description": description or namespace})
        for path, operations in paths.items():
            self.spec.path(path=path, operations=operations)
        return self.spec.to_dict()

    def _component(self, schema: Any, name: str) -> dict[str, str]:
        key = id(schema)
        if key not in self.components_by_schema:
            base = component_name(name)
            unique, counter = base, 2
            while unique in self.spec.components.schemas:
                unique, counter = f"{base}.{counter}", counter + 1
            self.spec.components.schema(unique, item_component(schema))
            self.components_by_schema[key] = unique
        return {"$ref": f"#/components/schemas/{self.components_by_schema[key]}"}

    def _operation(self, route, endpoint, method: str, path: str, groups: dict[str, str],
                   item_ref: dict[str, str] | None) -> dict[str, Any]:
        args = {name: advertised(arg) for name, arg in endpoint.args.items()} if endpoint.args else {}
        parameters = [_path_parameter(name, regex, args.get(name)) for name, regex in groups.items()]
        other_args = {name: arg for name, arg in args.items() if name not in groups}
        operation: dict[str, Any] = {
            "operationId": self._operation_id(method, path),
            "summary": f"{method} {route.path}",
            "tags": [route.namespace] if route.namespace else ["index"],
            "security": [{}, {"applicationPassword": []}],
            "x-plugin": endpoint.plugin,
        }
        if endpoint.permission is None:
            operation["x-public"] = True
        if endpoint.capability:
            operation["x-capability"] = endpoint.capability
        if endpoint.allow_batch:
            operation["x-allow-batch"] = True
        if method in BODY_METHODS and endpoint.multipart_body is not None:
            # The body is the form; any other args travel in the query string beside it.
            operation["requestBody"] = _multipart_request_body(endpoint.multipart_body)
            parameters.extend(_query_parameter(name, arg) for name, arg in other_args.items())
        elif method in BODY_METHODS:
            body = _request_body(other_args)
            if body:
                operation["requestBody"] = body
        else:
            parameters.extend(_query_parameter(name, arg) for name, arg in other_args.items())
        if parameters:
            operation["parameters"] = parameters
        operation["responses"] = self._responses(method, route, item_ref)
        if endpoint.content_type:  # a raw success body (Route.content_type), e.g. an iCalendar feed
            operation["responses"]["200"]["content"][endpoint.content_type] = {"schema": {"type": "string"}}
        return operation

    def _responses(self, method: str, route, item_ref: dict[str, str] | None) -> dict[str, Any]:
        if item_ref is None:
            body_schema: dict[str, Any] = {}
        elif route.path.endswith(")") or method != "GET":  # the path ends in the item's id
            body_schema = item_ref
        else:  # a collection lists items (also under a parent: .../revisions); a few (users/me) answer one;
            # types, statuses and taxonomies answer an object of items keyed by name, as WordPress
            body_schema = {"anyOf": [{"type": "array", "items": item_ref}, item_ref,
                                     {"type": "object", "additionalProperties": item_ref}]}
        success = {"description": "Success.", "content": {"application/json": {"schema": body_schema}}}
        responses: dict[str, Any] = {"200": success}
        if method == "POST":
            responses["201"] = {"description": "Created.", "content": {"application/json": {"schema": body_schema}}}
        responses["204"] = {"description": "Done, with nothing to answer (no body)."}
        responses["2XX"] = {"description": "Other success, e.g. 207 Multi-Status from batch/v1.",
                            "content": {"application/json": {"schema": {}}}}
        error = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
        for status, description in ERROR_RESPONSES.items():
            responses[status] = {"description": description, "content": {"application/json": {"schema": error}}}
        if method == "DELETE":
            responses["410"] = {"description": "The item is already in the trash (rest_already_trashed): "
                                               "delete it with force=true.",
                                "content": {"application/json": {"schema": error}}}
        return responses

    def _operation_id(self, method: str, path: str) -> str:
        words = re.sub(r"[^A-Za-z0-9]+", "_", path[len(self.prefix):]).strip("_") or "root"
        base = f"{method.lower()}_{words}"
        unique, counter = base, 2
        while unique in self.operation_ids:
            unique, counter = f"{base}_{counter}", counter + 1
        self.operation_ids.add(unique)
        return unique


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sitehost")
    except PackageNotFoundError:
        return "0"


def openapi_document(app, site_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `app` as served from `site_url` (built once per registry and URL)."""
    return app.registry.cached_document(("openapi", site_url), lambda: _Builder(app, site_url).build())


# --- HTML reference and the two host pages ---------------------------------------------------

def _describe_schema(schema: dict[str, Any]) -> str:
    kinds = schema.get("type", "any")
    text = " or ".join(kinds) if isinstance(kinds, list) else str(kinds)
    if isinstance(schema.get("items"), dict) and schema["items"].get("type"):
        text += f" of {_describe_schema(schema['items'])}"
    details = []
    if "enum" in schema:
        details.append("one of " + ", ".join(str(value) for value in schema["enum"]))
    for keyword, label in (("minimum", "min"), ("maximum", "max"), ("minLength", "min length"),
                           ("maxLength", "max length"), ("maxItems", "max items"), ("format", "format"),
                           ("default", "default"), ("pattern", "pattern")):
        if keyword in schema:
            details.append(f"{label} {json.dumps(schema[keyword]) if keyword == 'default' else schema[keyword]}")
    return text + (f" ({'; '.join(details)})" if details else "")


def reference_html(app, document: dict[str, Any]) -> Markup:
    """The OpenAPI document as a plain HTML page (the theme's api_reference.html)."""
    by_tag: dict[str, list[dict[str, Any]]] = {}
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            rows = [{"name": p["name"], "where": p["in"], "required": p.get("required", False),
                     "type": _describe_schema(p["schema"]), "description": p.get("description", "")}
                    for p in operation.get("parameters", [])]
            request_body: dict[str, Any] = operation.get("requestBody", {})
            contents: dict[str, dict[str, Any]] = request_body.get("content", {})  # JSON, else the form (multipart)
            body = (contents.get("application/json") or next(iter(contents.values()), {})).get("schema")
            if body:
                rows.extend({"name": name, "where": "body", "required": name in body.get("required", []),
                             "type": _describe_schema(prop), "description": prop.get("description", "")}
                            for name, prop in body["properties"].items())
            access = "public" if operation.get("x-public") else \
                f"needs {operation['x-capability']}" if operation.get("x-capability") else "permission checked"
            by_tag.setdefault(operation["tags"][0], []).append({
                "method": method.upper(), "path": path, "access": access,
                "batch": bool(operation.get("x-allow-batch")), "rows": rows})
    return render(app, "", "api_reference.html", {
        "description": document["info"].get("description", ""), "openapi_path": OPENAPI_PATH,
        "tags": [(tag, component_name(tag), operations) for tag, operations in by_tag.items()]})


def add_reference_pages(web, app) -> None:
    """Mount `/openapi.json` and `/api-reference` on the app's Bottle edge (outside the REST root)."""
    import bottle

    @web.route(OPENAPI_PATH, method=["GET", "HEAD"])
    def openapi_json():
        document = openapi_document(app, app.site_url(bottle.request.environ))
        bottle.response.content_type = "application/json; charset=UTF-8"
        bottle.response.headers["Access-Control-Allow-Origin"] = "*"  # public, no credentials: tools may fetch it
        return json.dumps(document, ensure_ascii=False)

    @web.route(REFERENCE_PATH, method=["GET", "HEAD"])
    def api_reference():
        document = openapi_document(app, app.site_url(bottle.request.environ))
        return app.render_html_page("API reference", reference_html(app, document))
