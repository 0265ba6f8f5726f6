"""The OpenAPI document is generated from the registry and agrees with the discovery documents."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from openapi_spec_validator import validate

from host.cli import main
from host.openapi import path_templates
from host.rest.validation import GUARDS, MAX_INTEGER

ARG_KEYWORDS_THAT_MUST_AGREE = ("type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern", "format",
                                "default")


def _operation_parameters(operation: dict) -> dict[str, dict]:
    """name -> JSON Schema of every parameter an operation takes (path, query or JSON body)."""
    found = {parameter["name"]: dict(parameter["schema"], _in=parameter["in"],
                                     _required=parameter.get("required", False))
             for parameter in operation.get("parameters", [])}
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body:
        for name, schema in body["properties"].items():
            found[name] = dict(schema, _in="body", _required=name in body.get("required", []))
    return found


def enforced_bounds(arg: dict, lowest: int = -MAX_INTEGER) -> dict:
    """The bounds the server enforces on an integer arg that declares none: the document writes them out."""
    types = arg.get("type") if isinstance(arg.get("type"), list) else [arg.get("type")]
    if "integer" not in types:
        return {}
    bounds = {}
    if "minimum" not in arg and "exclusiveMinimum" not in arg:
        bounds["minimum"] = lowest
    if "maximum" not in arg and "exclusiveMaximum" not in arg:
        bounds["maximum"] = MAX_INTEGER
    return bounds


def assert_same_constraints(arg: dict, schema: dict, where: tuple, in_path: bool = False,
                            lowest: int = -MAX_INTEGER) -> None:
    """Same type, enum, bounds, format and default, down through items and properties.

    A path parameter has no default and takes its `pattern` from the route regex. Where an integer
    arg declares no bound the document shows the one the server enforces (`lowest` .. MAX_INTEGER;
    a path of digits cannot be negative, so its `lowest` is 0).
    """
    with_default = not in_path
    if "anyOf" in schema and "default" in schema and {"const": schema["default"]} in schema["anyOf"]:
        assert arg.get("default") == schema["default"], where  # a default outside the format, accepted
        schema = schema["anyOf"][0]
        with_default = False
    for keyword in ARG_KEYWORDS_THAT_MUST_AGREE:
        if (keyword == "default" and not with_default) or (keyword == "pattern" and in_path):
            continue
        expected = enforced_bounds(arg, lowest).get(keyword, arg.get(keyword))
        if keyword == "format" and expected == "ip":  # not a JSON-Schema format: IPv4 or IPv6
            assert schema["anyOf"] == [{"format": "ipv4"}, {"format": "ipv6"}], where
            expected = None
        assert schema.get(keyword) == expected, (*where, keyword)
    if isinstance(arg.get("items"), dict):
        assert_same_constraints(arg["items"], schema["items"], (*where, "items"))
    if isinstance(arg.get("properties"), dict):
        assert set(schema["properties"]) == set(arg["properties"]), where
        required = [name for name, sub in arg["properties"].items() if sub.get("required") is True]
        if isinstance(arg.get("required"), list):
            required += arg["required"]
        assert set(schema.get("required", [])) == set(required), (*where, "required")
        for name, sub in arg["properties"].items():
            assert_same_constraints(sub, schema["properties"][name], (*where, name))


def _guards(app, pattern: str, method: str, name: str) -> dict:
    """The bounds the host enforces on an arg without showing them in discovery (validation.GUARDS)."""
    arg = app.registry.routes[pattern].endpoint_for(method).args[name]
    return {keyword: arg[guard] for guard, keyword in GUARDS.items() if guard in arg}


def assert_discovery_and_openapi_agree(app) -> int:
    """Every arg of every endpoint in the root index is the same parameter in /openapi.json; returns the count.

    The document also advertises the guards discovery leaves out, to show WordPress's shape.
    """
    client = app.client
    routes = client.get("/wp-json/").json["routes"]
    document = client.get("/openapi.json").json
    checked = 0
    for pattern, descriptor in routes.items():
        templates = path_templates(pattern)
        assert templates, pattern
        for template, groups in templates:
            path = "/wp-json" + template
            assert path in document["paths"], f"{pattern} has no OpenAPI path {path}"
            for endpoint in descriptor["endpoints"]:
                args = endpoint["args"] or {}
                for method in endpoint["methods"]:
                    operation = document["paths"][path][method.lower()]
                    parameters = _operation_parameters(operation)
                    expected_names = set(args) | set(groups)
                    assert set(parameters) == expected_names, (method, pattern)
                    for name, arg in args.items():
                        parameter = parameters[name]
                        in_path = parameter["_in"] == "path"
                        lowest = 0 if in_path and re.fullmatch(r"\[\\d\]\+|\\d\+|\[0-9\]\+", groups[name]) \
                            else -MAX_INTEGER
                        assert_same_constraints({**arg, **_guards(app, pattern, method, name)}, parameter,
                                                (method, pattern, name), in_path=in_path, lowest=lowest)
                        if parameter["_in"] != "path":
                            assert parameter["_required"] == arg["required"], (method, pattern, name)
                        checked += 1
                    for name, regex in groups.items():
                        assert parameters[name]["_in"] == "path" and parameters[name]["_required"] is True
                        assert parameters[name]["pattern"] == f"^(?:{regex})$"
    return checked


def test_document_is_valid_openapi_3_1_and_covers_every_route(example_app):
    response = example_app.client.get("/openapi.json")
    assert response.status_int == 200
    assert response.content_type == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    document = response.json
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert document["servers"] == [{"url": "http://school.test"}]
    assert set(document["paths"]) >= {
        "/wp-json/", "/wp-json/example/v1", "/wp-json/example/v1/notes", "/wp-json/example/v1/notes/{id}",
        "/wp-json/example/v1/echo", "/wp-json/example/v1/echo/{source}"}
    assert set(document["paths"]["/wp-json/example/v1/echo"]) == {"get", "post", "put", "patch", "delete"}
    assert document["components"]["schemas"]["Error"]["required"] == ["code", "message", "data"]


def test_discovery_args_and_openapi_parameters_agree(example_app):
    assert assert_discovery_and_openapi_agree(example_app) >= 40


def test_discovery_args_and_openapi_parameters_agree_for_every_enabled_plugin(make_app, example_plugin):
    app = make_app()  # built-ins as they land, plus the example plugin
    assert assert_discovery_and_openapi_agree(app) > 0


def test_path_parameters_carry_the_route_regex(example_app):
    item = example_app.client.get("/openapi.json").json["paths"]["/wp-json/example/v1/notes/{id}"]["get"]
    assert item["parameters"] == [{"name": "id", "in": "path", "required": True, "description": "Unique identifier.",
                                   "schema": {"type": "integer", "description": "Unique identifier.",
                                              "minimum": 0, "maximum": MAX_INTEGER,
                                              "pattern": "^(?:[\\d]+)$"}}]


def test_get_args_are_query_parameters_and_write_args_a_json_or_form_body(example_app):
    paths = example_app.client.get("/openapi.json").json["paths"]
    listing = {parameter["name"]: parameter for parameter in paths["/wp-json/example/v1/notes"]["get"]["parameters"]}
    assert listing["per_page"]["schema"] == {"type": "integer", "description": "Maximum number of items to return.",
                                             "default": 10, "minimum": 1, "maximum": 100}
    assert listing["order"]["schema"]["enum"] == ["asc", "desc"]
    assert (listing["include"]["style"], listing["include"]["explode"]) == ("form", False)
    create = paths["/wp-json/example/v1/notes"]["post"]
    assert "parameters" not in create
    assert set(create["requestBody"]["content"]) == {"application/json", "application/x-www-form-urlencoded"}
    body = create["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["title"] and body["properties"]["title"]["maxLength"] == 80
    assert create["requestBody"]["required"] is True
    delete = paths["/wp-json/example/v1/echo"]["delete"]
    assert "requestBody" not in delete and {p["name"] for p in delete["parameters"]} >= {"needed", "count"}
    echo = {p["name"]: p for p in paths["/wp-json/example/v1/echo"]["get"]["parameters"]}
    assert echo["point"]["style"] == "deepObject"
    assert echo["point"]["schema"]["required"] == ["x"]


def test_responses_document_the_item_schema_and_the_error_shape(example_app):
    document = example_app.client.get("/openapi.json").json
    notes = document["paths"]["/wp-json/example/v1/notes"]
    create = notes["post"]["responses"]
    assert create["201"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/example.v1.note"}
    listing = notes["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert {"type": "array", "items": {"$ref": "#/components/schemas/example.v1.note"}} in listing["anyOf"]
    note = document["components"]["schemas"]["example.v1.note"]
    assert note["properties"]["id"] == {"type": "integer", "description": "Unique identifier.", "readOnly": True}
    for status in ("400", "401", "403", "404", "4XX", "500"):
        assert create[status]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert notes["post"]["x-allow-batch"] is True and "x-public" not in notes["post"]
    assert document["paths"]["/wp-json/example/v1/echo"]["post"]["x-public"] is True


def test_a_real_error_matches_the_documented_error_shape(example_app):
    import jsonschema

    document = example_app.client.get("/openapi.json").json
    error = example_app.client.post_json("/wp-json/example/v1/notes", {"title": "x"}, status=401).json
    jsonschema.validate(error, document["components"]["schemas"]["Error"])


@pytest.mark.parametrize("pattern, expected", [
    (r"/core/v2/posts/(?P<id>[\d]+)", [("/core/v2/posts/{id}", {"id": r"[\d]+"})]),
    (r"/core/v2/posts/(?P<parent>[\d]+)/revisions/(?P<id>[\d]+)",
     [("/core/v2/posts/{parent}/revisions/{id}", {"parent": r"[\d]+", "id": r"[\d]+"})]),
    (r"/oembed/1\.0/embed", [("/oembed/1.0/embed", {})]),
    (r"/cache/v1/notify(?:/(?P<kind>[a-z]+))?", [("/cache/v1/notify/{kind}", {"kind": "[a-z]+"}),
                                                ("/cache/v1/notify", {})]),
    (r"/builder/v1/(?P<path>(?:[\w-]+/)*[\w-]+)", [("/builder/v1/{path}", {"path": r"(?:[\w-]+/)*[\w-]+"})]),
    (r"/x/(?P<name>[^/)]+)", [("/x/{name}", {"name": r"[^/)]+"})]),
])
def test_route_regexes_become_path_templates(pattern, expected):
    assert path_templates(pattern) == expected


def test_root_index_links_to_the_reference_page(example_app):
    body = example_app.client.get("/wp-json/").json
    assert body["_links"]["help"] == [{"href": "http://school.test/api-reference"}]


def test_reference_page_is_html_listing_every_operation(example_app):
    response = example_app.client.get("/api-reference")
    assert response.status_int == 200
    assert response.content_type == "text/html"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "<script" not in response.text
    assert '<a href="/openapi.json">' in response.text
    for operation in ("GET /wp-json/example/v1/notes", "POST /wp-json/example/v1/notes",
                      "GET /wp-json/example/v1/notes/{id}", "DELETE /wp-json/example/v1/echo"):
        assert f"<code>{operation}</code>" in response.text
    assert "one of asc, desc" in response.text


def test_sitehost_openapi_prints_the_document(tmp_path, monkeypatch, example_plugin):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SITEHOST_DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")
    assert CliRunner().invoke(main, ["init"]).exit_code == 0  # `openapi` reads a site, never creates one
    result = CliRunner().invoke(main, ["openapi", "--url", "https://school.example"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    validate(document)
    assert document["servers"] == [{"url": "https://school.example"}]
    assert "/wp-json/example/v1/notes/{id}" in document["paths"]
