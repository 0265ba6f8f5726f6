"""What a client generated from /openapi.json needs, on every built-in plugin.

A form body is declared as multipart/form-data, required body fields are marked required, every
integer a caller sends carries the bounds the server enforces, and the server refuses a value
just past each of them in the error format. The agreement of discovery and the document, arg by
arg, is tests/reliability/test_openapi.py.
"""

from __future__ import annotations

import pytest
from openapi_spec_validator import validate

from host.args import MAX_PAGE, MAX_SEARCH_LENGTH
from host.rest.validation import MAX_INTEGER
from host.testing import assert_rest_error, create_test_user
from tests.reliability.fuzzing import DOCUMENTED_REFUSALS

FEEDBACK = "/wp-json/forms/v1/contact-forms/{id}/feedback"
SIMPLE_FORM = "<label>Name [text* your-name]</label>\n[submit \"Send\"]"


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app()
    app.admin = create_test_user(app, "administrator")
    return app


@pytest.fixture(scope="module")
def document(site):
    document = site.client.get("/openapi.json", status=200).json
    validate(document)
    return document


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def _integer_schemas(schema, where):
    """Every schema of an integer inside `schema` (items, properties, unions), with where it is."""
    if not isinstance(schema, dict):
        return
    types = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    if "integer" in types:
        yield where, schema
    if isinstance(schema.get("items"), dict):
        yield from _integer_schemas(schema["items"], (*where, "items"))
    for name, sub in (schema.get("properties") or {}).items():
        yield from _integer_schemas(sub, (*where, name))
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _integer_schemas(schema["additionalProperties"], (*where, "*"))
    for keyword in ("anyOf", "oneOf"):
        for index, sub in enumerate(schema.get(keyword) or []):
            yield from _integer_schemas(sub, (*where, keyword, index))


def _sent_schemas(document):
    """(where, schema) of every parameter and request body field a caller sends."""
    for path, method, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            yield (method, path, parameter["in"], parameter["name"]), parameter["schema"]
        for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
            yield (method, path, media_type), content["schema"]


def test_the_feedback_route_takes_a_multipart_form_body(document):
    operation = document["paths"][FEEDBACK]["post"]
    body = operation["requestBody"]
    assert body["required"] is True and list(body["content"]) == ["multipart/form-data"]
    schema = body["content"]["multipart/form-data"]["schema"]
    assert schema["required"] == ["_forms_unit_tag"]
    assert {"_forms", "_forms_version", "_forms_locale", "_forms_unit_tag", "_forms_container_post",
            "_forms_posted_data_hash", "_forms_nonce"} == set(schema["properties"])
    assert schema["additionalProperties"]["anyOf"] == [{"type": "string"},
                                                        {"type": "array", "items": {"type": "string"}}]
    assert [parameter["name"] for parameter in operation["parameters"]] == ["id"]


def test_the_reference_page_lists_the_form_fields(site):
    page = site.client.get("/api-reference", status=200).text
    section = page.split("<code>POST /wp-json/forms/v1/contact-forms/{id}/feedback</code>", 1)[1].split("<h3>", 1)[0]
    assert "<code>_forms_unit_tag</code></td><td>body</td><td>yes</td>" in section


def test_a_submission_sent_as_the_document_says_is_taken_and_json_is_refused(site, document):
    form = site.client.post_json("/wp-json/forms/v1/contact-forms", {"title": "Enquiry", "form": SIMPLE_FORM},
                                 headers=site.admin.headers, status=200).json
    url = FEEDBACK.replace("{id}", str(form["id"]))
    answer = site.client.post(url, [("_forms_unit_tag", f"forms-f{form['id']}-p0-o1"), ("your-name", "Sam")],
                              content_type="multipart/form-data", headers={"User-Agent": "Mozilla/5.0 Firefox/120.0"},
                              extra_environ={"REMOTE_ADDR": "203.0.113.9"}, status=200).json
    assert answer["status"] in ("mail_sent", "mail_failed") and answer["into"] == f"#forms-f{form['id']}-p0-o1"
    refused = site.client.post_json(url, {"_forms_unit_tag": "x", "your-name": "Sam"}, status=415)
    assert_rest_error(refused, "forms_unsupported_media_type", 415)
    missing = site.client.post(url, [("your-name", "Sam")], content_type="multipart/form-data", status=400)
    assert_rest_error(missing, "forms_unit_tag_not_found", 400)


@pytest.mark.parametrize("method, path, field", [
    ("post", "/wp-json/builder/v1/kit-elements-defaults/{type}", "settings"),
    ("put", "/wp-json/builder/v1/kit-elements-defaults/{type}", "settings"),
    ("post", "/wp-json/builder/v1/send-event", "event_data"),
    ("post", "/wp-json/batch/v1", "requests"),
])
def test_body_fields_the_server_requires_are_required_in_the_document(site, document, method, path, field):
    body = document["paths"][path][method]["requestBody"]
    assert body["required"] is True
    for content in body["content"].values():
        assert field in content["schema"]["required"]
    missing = getattr(site.client, f"{method}_json")(path.replace("{type}", "heading"), {},
                                                     headers=site.admin.headers, expect_errors=True)
    assert missing.status_int == 400, missing.text
    assert field in missing.json["data"]["params"]


def test_every_required_arg_is_required_in_the_document(site, document):
    """Derived from the args classes everywhere: a required arg is a required parameter or body field."""
    checked = 0
    for route in site.registry.routes.values():
        for endpoint in route.endpoints:
            for name in endpoint.required:
                for path, method, operation in _operations(document):
                    if method.upper() not in endpoint.methods or operation["x-plugin"] != endpoint.plugin \
                            or operation["summary"] != f"{method.upper()} {route.path}":
                        continue
                    parameters = {parameter["name"]: parameter for parameter in operation.get("parameters", [])}
                    if name in parameters:
                        assert parameters[name]["required"] is True, (method, path, name)
                    else:
                        for content in operation["requestBody"]["content"].values():
                            assert name in content["schema"]["required"], (method, path, name)
                    checked += 1
    assert checked > 20


def test_every_integer_a_caller_sends_is_bounded(document):
    found = 0
    for where, schema in _sent_schemas(document):
        for inner, integer in _integer_schemas(schema, where):
            low = integer.get("minimum", integer.get("exclusiveMinimum"))
            high = integer.get("maximum", integer.get("exclusiveMaximum"))
            assert low is not None and high is not None, inner
            assert -MAX_INTEGER <= low <= high <= MAX_INTEGER, inner
            found += 1
    assert found > 300


def test_bounds_the_server_keeps_out_of_discovery_are_advertised(site, document):
    listing = {parameter["name"]: parameter["schema"]
               for parameter in document["paths"]["/wp-json/core/v2/posts"]["get"]["parameters"]}
    assert listing["page"]["minimum"] == 1 and listing["page"]["maximum"] == MAX_PAGE
    assert listing["search"]["maxLength"] == MAX_SEARCH_LENGTH
    assert listing["offset"] == {"description": "Offset the result set by a specific number of items.",
                                 "type": "integer", "minimum": -MAX_INTEGER, "maximum": MAX_INTEGER}
    assert listing["include"]["items"] == {"type": "integer", "minimum": -MAX_INTEGER, "maximum": MAX_INTEGER}
    item = {parameter["name"]: parameter["schema"]
            for parameter in document["paths"]["/wp-json/core/v2/posts/{id}"]["get"]["parameters"]}
    assert (item["id"]["minimum"], item["id"]["maximum"]) == (0, MAX_INTEGER)
    discovered = site.client.get("/wp-json/core/v2/posts", status=200, headers={"X-HTTP-Method-Override": "OPTIONS"})
    args = site.client.options("/wp-json/core/v2/posts", status=200).json["endpoints"][0]["args"]
    assert discovered.status_int == 200
    assert args["page"] == {"description": "Current page of the collection.", "type": "integer", "default": 1,
                            "minimum": 1, "required": False}  # WordPress's shape in discovery
    assert "maxLength" not in args["search"]
    comment = document["paths"]["/wp-json/core/v2/comments"]["post"]["requestBody"]["content"]["application/json"]
    assert comment["schema"]["properties"]["author_ip"]["anyOf"] == [{"format": "ipv4"}, {"format": "ipv6"}]


@pytest.mark.parametrize("url, param", [
    (f"/wp-json/core/v2/posts?page={MAX_PAGE + 1}", "page"),
    (f"/wp-json/core/v2/posts?page={MAX_INTEGER + 1}", "page"),
    (f"/wp-json/core/v2/posts?offset={MAX_INTEGER + 1}", "offset"),
    (f"/wp-json/core/v2/posts?offset={-MAX_INTEGER - 1}", "offset"),
    (f"/wp-json/core/v2/posts?include={MAX_INTEGER + 1}", "include"),
    (f"/wp-json/core/v2/posts/{MAX_INTEGER + 1}", "id"),
    (f"/wp-json/core/v2/posts/{MAX_INTEGER + 1}/autosaves", "id"),  # a path number without an arg
    (f"/wp-json/core/v2/posts/{'9' * 5000}/autosaves", "id"),
    (f"/wp-json/core/v2/posts?search={'x' * (MAX_SEARCH_LENGTH + 1)}", "search"),
    (f"/wp-json/cal/events/v1/events?page={MAX_PAGE + 1}", "page"),
    (f"/wp-json/calx/v1/events?page={MAX_PAGE + 1}", "page"),
])
def test_a_value_just_past_an_advertised_bound_is_refused(site, url, param):
    response = site.client.get(url, headers=site.admin.headers, expect_errors=True)
    body = assert_rest_error(response, "rest_invalid_param", 400)
    assert param in body["data"]["params"]


def test_path_numbers_without_an_arg_are_integers_in_the_document(document):
    autosaves = document["paths"]["/wp-json/core/v2/posts/{id}/autosaves"]["get"]["parameters"][0]
    assert autosaves["schema"] == {"type": "integer", "minimum": 0, "maximum": MAX_INTEGER, "pattern": "^(?:[\\d]+)$"}


def test_a_user_id_past_every_id_is_no_user(site):
    response = site.client.get(f"/wp-json/core/v2/users/{MAX_INTEGER + 1}/application-passwords",
                               headers=site.admin.headers, expect_errors=True)
    assert_rest_error(response, "rest_user_invalid_id", 404)


def test_the_last_values_inside_the_bounds_are_answered(site):
    assert site.client.get(f"/wp-json/core/v2/posts?page={MAX_PAGE}", status=200).json == []  # no posts here
    assert site.client.get(f"/wp-json/core/v2/posts?offset={MAX_INTEGER}", status=200).json == []
    if site.db.engine.dialect.name == "postgresql":  # 32-bit id columns there: a documented refusal
        refused = site.client.get(f"/wp-json/core/v2/posts/{MAX_INTEGER}", status=400).json
        assert refused["code"] == "rest_value_out_of_range" and "rest_value_out_of_range" in DOCUMENTED_REFUSALS
        site.client.get(f"/wp-json/core/v2/posts/{2**31 - 1}", status=404)
    else:
        site.client.get(f"/wp-json/core/v2/posts/{MAX_INTEGER}", status=404)


def test_form_bodies_are_offered_only_where_a_form_can_carry_them(document):
    posts = document["paths"]["/wp-json/core/v2/posts"]["post"]["requestBody"]["content"]
    assert list(posts) == ["application/json"]  # meta is an object, title a string or an object
    spam = document["paths"]["/wp-json/spam/v1/key"]["post"]["requestBody"]["content"]
    assert set(spam) == {"application/json", "application/x-www-form-urlencoded"}
    settings = document["paths"]["/wp-json/core/v2/settings"]["post"]["requestBody"]["content"]
    as_json = settings["application/json"]["schema"]["properties"]
    as_form = settings["application/x-www-form-urlencoded"]["schema"]["properties"]
    assert as_json["title"]["type"] == ["string", "null"] and as_form["title"]["type"] == "string"  # `title=` is ""
    assert as_json["start_of_week"]["type"] == ["integer", "null"] and as_form["start_of_week"]["type"] == "integer"
