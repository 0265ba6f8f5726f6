"""The request pipeline: routing, method override, HEAD/OPTIONS, params, shaping, errors."""

import json
import logging

from host.testing import assert_rest_error, create_test_user


def _create_notes(app, count):
    editor = create_test_user(app, "editor")
    for index in range(count):
        app.client.post_json("/wp-json/example/v1/notes", {"title": f"Note {index + 1}"}, headers=editor.headers,
                             status=201)
    return editor


# --- routing ---------------------------------------------------------------------------

def test_query_form_reaches_the_same_routes(example_app):
    pretty = example_app.client.get("/wp-json/example/v1/echo?needed=x")
    query_form = example_app.client.get("/?rest_route=/example/v1/echo&needed=x")
    index_php = example_app.client.get("/index.php?rest_route=/example/v1/echo/&needed=x")
    assert pretty.json == query_form.json == index_php.json
    assert "rest_route" not in query_form.json["params"]


def test_rest_route_must_be_a_string(example_app):
    response = example_app.client.get("/?rest_route[]=/example/v1", status=400)
    assert_rest_error(response, "rest_path_invalid_type", 400)


def test_trailing_slash_and_case_are_ignored(example_app):
    assert example_app.client.get("/wp-json/example/v1/echo/?needed=1").status_int == 200
    assert example_app.client.get("/wp-json/EXAMPLE/V1/ECHO?needed=1").status_int == 200
    assert_rest_error(example_app.client.get("/wp-json/example//v1/echo?needed=1", status=404), "rest_no_route", 404)


def test_unknown_path_and_wrong_method_are_rest_no_route(example_app):
    body = assert_rest_error(example_app.client.get("/wp-json/example/v1/nothing", status=404), "rest_no_route", 404)
    assert body["message"] == "No route was found matching the URL and request method."
    assert_rest_error(example_app.client.delete("/wp-json/example/v1/notes", status=404), "rest_no_route", 404)


def test_method_override_by_query_and_header(example_app):
    by_query = example_app.client.get("/wp-json/example/v1/echo?_method=patch&needed=1")
    assert by_query.json["method"] == "PATCH"
    by_header = example_app.client.get("/wp-json/example/v1/echo?needed=1", headers={"X-HTTP-Method-Override": "PUT"})
    assert by_header.json["method"] == "PUT"
    both = example_app.client.get("/wp-json/example/v1/echo?_method=DELETE&needed=1",
                                  headers={"X-HTTP-Method-Override": "PUT"})
    assert both.json["method"] == "DELETE"


def test_head_answers_like_get_without_a_body(example_app):
    _create_notes(example_app, 3)
    get = example_app.client.get("/wp-json/example/v1/notes?per_page=2")
    head = example_app.client.head("/wp-json/example/v1/notes?per_page=2")
    assert head.status_int == 200
    assert head.body == b""
    for name in ("X-WP-Total", "X-WP-TotalPages", "Link", "Allow"):
        assert head.headers[name] == get.headers[name]


def test_options_returns_the_descriptor_and_allow(example_app):
    response = example_app.client.options("/wp-json/example/v1/notes")
    assert response.status_int == 200
    assert response.headers["Allow"] == "GET"  # anonymous may not POST
    body = response.json
    assert body["namespace"] == "example/v1"
    assert body["methods"] == ["GET", "POST"]
    assert body["schema"]["title"] == "note"
    editor = create_test_user(example_app, "editor")
    assert example_app.client.options("/wp-json/example/v1/notes", headers=editor.headers).headers["Allow"] == "GET, POST"


def test_options_on_an_unknown_path_is_an_empty_list(example_app):
    response = example_app.client.options("/wp-json/example/v1/nowhere")
    assert response.status_int == 200
    assert response.json == []
    assert "Allow" not in response.headers


def test_allow_header_on_ordinary_responses(example_app):
    response = example_app.client.get("/wp-json/example/v1/notes")
    assert response.headers["Allow"] == "GET"


# --- parameters ------------------------------------------------------------------------

def test_parameter_precedence_json_form_query_path_default(example_app):
    client = example_app.client
    assert client.get("/wp-json/example/v1/echo/from-path").json["params"]["source"] == "from-path"
    assert client.get("/wp-json/example/v1/echo?needed=1").json["params"]["source"] == "default"
    assert client.get("/wp-json/example/v1/echo/from-path?source=query").json["params"]["source"] == "query"
    form = client.post("/wp-json/example/v1/echo/from-path?source=query", {"source": "form"})
    assert form.json["params"]["source"] == "form"
    as_json = client.post("/wp-json/example/v1/echo/from-path?source=query",
                          json.dumps({"source": "json"}), content_type="application/json")
    assert as_json.json["params"]["source"] == "json"
    json_null = client.post("/wp-json/example/v1/echo/from-path?source=query",
                            json.dumps({"source": None}), content_type="application/json")
    assert json_null.json["params"]["source"] == "query"


def test_json_body_without_json_content_type_is_ignored(example_app):
    response = example_app.client.post("/wp-json/example/v1/echo?needed=q", json.dumps({"needed": "body"}),
                                       content_type="text/plain")
    assert response.json["params"]["needed"] == "q"


def test_form_bodies_on_put_patch_delete(example_app):
    response = example_app.client.put("/wp-json/example/v1/echo", "needed=put-form&count=3",
                                      content_type="application/x-www-form-urlencoded")
    assert response.json["params"] == {"needed": "put-form", "count": 3, "source": "default"}
    response = example_app.client.delete("/wp-json/example/v1/echo?needed=1", "count=4")
    assert response.json["params"]["count"] == 4


def test_get_never_reads_a_form_body(example_app):
    response = example_app.client.get("/wp-json/example/v1/echo", params={"needed": "q"})
    assert response.json["params"]["needed"] == "q"


def test_missing_required_parameter(example_app):
    body = assert_rest_error(example_app.client.get("/wp-json/example/v1/echo", status=400),
                             "rest_missing_callback_param", 400)
    assert body["message"] == "Missing parameter(s): needed"
    assert body["data"]["params"] == ["needed"]


def test_unknown_parameters_are_ignored(example_app):
    response = example_app.client.get("/wp-json/example/v1/echo?needed=1&whatever=2")
    assert response.json["params"]["whatever"] == "2"


def test_per_page_out_of_range_names_the_parameter(example_app):
    body = assert_rest_error(example_app.client.get("/wp-json/example/v1/notes?per_page=101", status=400),
                             "rest_invalid_param", 400)
    assert body["message"] == "Invalid parameter(s): per_page"
    assert body["data"]["params"] == {"per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"}
    assert body["data"]["details"]["per_page"]["code"] == "rest_out_of_bounds"
    for value in ("0", "-1", "abc"):
        response = example_app.client.get(f"/wp-json/example/v1/notes?per_page={value}", status=400)
        assert "per_page" in response.json["data"]["params"]


def test_reference_example_page_and_per_page(example_app):
    body = example_app.client.get("/wp-json/example/v1/notes?page=0&per_page=200", status=400).json
    assert body == {
        "code": "rest_invalid_param", "message": "Invalid parameter(s): page, per_page",
        "data": {"status": 400,
                 "params": {"page": "page must be greater than or equal to 1",
                            "per_page": "per_page must be between 1 (inclusive) and 100 (inclusive)"},
                 "details": {"page": {"code": "rest_out_of_bounds", "message": "page must be greater than or equal to 1", "data": None},
                             "per_page": {"code": "rest_out_of_bounds",
                                          "message": "per_page must be between 1 (inclusive) and 100 (inclusive)",
                                          "data": None}}}}


def test_malformed_json_body(example_app):
    response = example_app.client.post("/wp-json/example/v1/echo", "{not json", content_type="application/json",
                                       status=400)
    body = assert_rest_error(response, "rest_invalid_json", 400)
    assert body["message"] == "Invalid JSON body passed."
    assert body["data"]["json_error_code"] == 4
    # unknown route wins over the JSON problem
    assert_rest_error(example_app.client.post("/wp-json/nowhere", "{", content_type="application/json", status=404),
                      "rest_no_route", 404)


def test_empty_json_body_is_fine(example_app):
    response = example_app.client.post("/wp-json/example/v1/echo?needed=1", "", content_type="application/json")
    assert response.status_int == 200


# --- responses -------------------------------------------------------------------------

def test_pagination_headers_and_links(example_app):
    _create_notes(example_app, 5)
    response = example_app.client.get("/wp-json/example/v1/notes?per_page=2&page=2&order=asc")
    assert response.headers["X-WP-Total"] == "5"
    assert response.headers["X-WP-TotalPages"] == "3"
    assert response.headers["Link"] == (
        '<http://school.test/wp-json/example/v1/notes?per_page=2&page=1&order=asc>; rel="prev", '
        '<http://school.test/wp-json/example/v1/notes?per_page=2&page=3&order=asc>; rel="next"')
    assert [note["title"] for note in response.json] == ["Note 3", "Note 4"]
    first = example_app.client.get("/wp-json/example/v1/notes?per_page=2")
    assert first.headers["Link"] == ('<http://school.test/wp-json/example/v1/notes?per_page=2&page=2>; rel="next"')
    empty = example_app.client.get("/wp-json/example/v1/notes?include=999")
    assert empty.json == [] and empty.headers["X-WP-Total"] == "0" and empty.headers["X-WP-TotalPages"] == "0"
    # a response without its own Link keeps the discovery link
    assert empty.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'


def test_fields_filters_items_and_nested_paths(example_app):
    _create_notes(example_app, 2)
    response = example_app.client.get("/wp-json/example/v1/notes?_fields=id,title")
    assert all(set(item) == {"id", "title"} for item in response.json)
    nested = example_app.client.get("/wp-json/example/v1/notes?_fields=_links.self,id")
    assert all(set(item["_links"]) == {"self"} for item in nested.json)
    as_array = example_app.client.get("/wp-json/example/v1/notes?_fields[]=id&_fields[]=status")
    assert all(set(item) == {"id", "status"} for item in as_array.json)


def test_fields_never_filters_errors(example_app):
    response = example_app.client.get("/wp-json/example/v1/notes/999?_fields=id", status=404)
    assert_rest_error(response, "example_note_not_found", 404)


def test_links_are_compacted_with_curies(example_app):
    _create_notes(example_app, 1)
    item = example_app.client.get("/wp-json/example/v1/notes").json[0]
    assert "wp:related" in item["_links"]
    assert item["_links"]["curies"] == [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]
    assert list(item["_links"])[-1] == "curies"


def test_embed_fetches_embeddable_links(example_app):
    _create_notes(example_app, 2)
    items = example_app.client.get("/wp-json/example/v1/notes?_embed").json
    for item in items:
        assert item["_embedded"]["wp:related"][0]["id"] == item["id"]
        assert list(item)[-1] == "_embedded"
    only_unknown = example_app.client.get("/wp-json/example/v1/notes?_embed=author").json
    assert all("_embedded" not in item for item in only_unknown)
    named = example_app.client.get("/wp-json/example/v1/notes?_embed=wp:related").json
    assert all("_embedded" in item for item in named)
    fields_without_embedded = example_app.client.get("/wp-json/example/v1/notes?_embed&_fields=id").json
    assert all(set(item) == {"id"} for item in fields_without_embedded)


def test_envelope_wraps_status_and_headers(example_app):
    _create_notes(example_app, 3)
    response = example_app.client.get("/wp-json/example/v1/notes?per_page=1&_envelope")
    assert response.status_int == 200
    assert "X-WP-Total" not in response.headers
    body = response.json
    assert body["status"] == 200
    assert body["headers"]["X-WP-Total"] == 3  # a number, as WordPress gives it
    assert len(body["body"]) == 1
    error = example_app.client.get("/wp-json/example/v1/notes/999?_envelope")
    assert error.status_int == 200
    assert error.json["status"] == 404
    assert error.json["body"]["code"] == "example_note_not_found"


def test_jsonp_and_pretty(example_app):
    response = example_app.client.get("/wp-json/example/v1/echo?needed=1&_jsonp=shelby.ville")
    assert response.headers["Content-Type"] == "application/javascript; charset=UTF-8"
    assert response.body.startswith(b"/**/shelby.ville({")
    bad = example_app.client.get("/wp-json/example/v1/echo?needed=1&_jsonp=ogden-ville", status=400)
    assert bad.json == {"code": "rest_callback_invalid", "message": "Invalid JSONP callback function."}
    pretty = example_app.client.get("/wp-json/example/v1/echo?needed=1&_pretty")
    assert b"\n    " in pretty.body


def test_created_response_has_location(example_app):
    editor = create_test_user(example_app, "editor")
    response = example_app.client.post_json("/wp-json/example/v1/notes", {"title": "Hello"}, headers=editor.headers)
    assert response.status_int == 201
    assert response.headers["Location"] == f"http://school.test/wp-json/example/v1/notes/{response.json['id']}"


def test_permission_denied_is_401_anonymous_and_403_signed_in(example_app):
    anonymous = example_app.client.post_json("/wp-json/example/v1/notes", {"title": "x"}, status=401)
    body = assert_rest_error(anonymous, "rest_forbidden", 401)
    assert body["message"] == "Sorry, you are not allowed to do that."
    subscriber = create_test_user(example_app, "subscriber")
    assert_rest_error(example_app.client.post_json("/wp-json/example/v1/notes", {"title": "x"},
                                                   headers=subscriber.headers, status=403), "rest_forbidden", 403)


def test_a_route_may_refuse_anonymous_callers_with_403_and_keep_its_schema_out_of_options(make_app):
    """`anonymous_refusal=403` for plugins whose real refusals are an explicit 403 (the host's own
    refusals follow it: a False verdict, a missing capability); `show_schema=False` for real routes
    that register no schema, whose shape still documents the answers in /openapi.json."""
    import types

    from marshmallow import Schema, fields

    from host import Namespace, PluginInfo, Route, hookimpl

    class ThingSchema(Schema):
        ok = fields.Boolean()

    plugin = types.ModuleType("plugin_strict")
    plugin.PLUGIN = PluginInfo("strict")
    plugin.register_namespaces = hookimpl(lambda: [Namespace("strict/v1")])
    plugin.register_routes = hookimpl(lambda: [
        Route("strict/v1", "/thing", "GET", lambda request: {"ok": True}, schema=ThingSchema, title="thing",
              show_schema=False, capability="edit_posts", anonymous_refusal=403),
        Route("strict/v1", "/thing", "POST", lambda request: {"ok": True}, anonymous_refusal=403,
              permission=lambda request: request.user.can("edit_posts")),
        Route("strict/v1", "/house", "POST", lambda request: {"ok": True}, capability="edit_posts"),
    ])
    app = make_app(plugins=[plugin])
    assert_rest_error(app.client.get("/wp-json/strict/v1/thing", status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.post("/wp-json/strict/v1/thing", status=403), "rest_forbidden", 403)
    assert_rest_error(app.client.post("/wp-json/strict/v1/house", status=401), "rest_forbidden", 401)
    subscriber = create_test_user(app, "subscriber")
    assert_rest_error(app.client.get("/wp-json/strict/v1/thing", headers=subscriber.headers, status=403),
                      "rest_forbidden", 403)
    editor = create_test_user(app, "editor")
    assert app.client.get("/wp-json/strict/v1/thing", headers=editor.headers).json == {"ok": True}
    options = app.client.options("/wp-json/strict/v1/thing").json
    assert "schema" not in options and options["endpoints"]
    assert "schema" not in app.client.get("/wp-json/strict/v1?context=help").json["routes"]["/strict/v1/thing"]
    operation = app.client.get("/openapi.json").json["paths"]["/wp-json/strict/v1/thing"]["get"]
    assert "$ref" in json.dumps(operation["responses"]["200"])


def test_validation_runs_before_permission(example_app):
    response = example_app.client.post_json("/wp-json/example/v1/notes", {"title": ""}, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)


def test_unexpected_exception_is_500_without_internals_and_logged(example_app, caplog):
    editor = create_test_user(example_app, "editor")
    with caplog.at_level(logging.ERROR, logger="sitehost.rest"):
        response = example_app.client.post_json("/wp-json/example/v1/notes", {"title": "explode after insert"},
                                                headers=editor.headers, status=500)
    body = assert_rest_error(response, "internal_server_error", 500)
    assert "secret internal detail" not in response.text
    assert "Traceback" not in response.text
    assert "secret internal detail" in caplog.text
    # the transaction was rolled back: the row inserted before the failure is gone
    assert example_app.client.get("/wp-json/example/v1/notes").headers["X-WP-Total"] == "0"
    assert body["data"] == {"status": 500}


def test_signed_in_responses_are_not_cacheable(example_app):
    editor = create_test_user(example_app, "editor")
    signed_in = example_app.client.get("/wp-json/example/v1/notes", headers=editor.headers)
    assert signed_in.headers["Cache-Control"] == "no-cache, must-revalidate, max-age=0, no-store, private"
    assert "Cache-Control" not in example_app.client.get("/wp-json/example/v1/notes").headers


def test_request_body_over_the_limit_is_413(make_app, example_plugin):
    app = make_app(plugins=["example"], max_body_bytes=1000)
    response = app.client.post("/wp-json/example/v1/echo", "x" * 2000, content_type="text/plain", status=413)
    assert_rest_error(response, "rest_request_too_large", 413)


def test_html_pages_carry_the_discovery_link(example_app):
    home = example_app.client.get("/")
    assert home.content_type == "text/html"
    assert home.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'
    assert '<link rel="https://api.w.org/" href="http://school.test/wp-json/">' in home.text
    missing = example_app.client.get("/no/such/page", status=404)
    assert missing.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'


def test_permission_checks_for_allow_do_not_leave_a_transaction_open(make_app):
    """Allow is computed after the handler's transaction; what its checks read is closed at once."""
    import types

    from sqlalchemy import text

    from host import Namespace, PluginInfo, Route, hookimpl

    plugin = types.ModuleType("plugin_locky")
    plugin.PLUGIN = PluginInfo("locky")
    open_connections = []

    def may_write(request):
        request.session.execute(text("SELECT 1"))
        return request.user.can("edit_posts")

    def response_headers(app, response):
        open_connections.append(app.db.engine.pool.checkedout())

    plugin.register_namespaces = hookimpl(lambda: [Namespace("locky/v1")])
    plugin.register_routes = hookimpl(lambda: [
        Route("locky/v1", "/thing", "GET", lambda request: {"ok": True}),
        Route("locky/v1", "/thing", "POST", lambda request: {"ok": True}, permission=may_write),
    ])
    plugin.response_headers = hookimpl(response_headers)
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/locky/v1/thing").headers["Allow"] == "GET"
    app.client.post("/wp-json/locky/v1/thing", status=401)
    assert open_connections == [0, 0]


def test_values_beyond_the_database_range_are_a_400_not_a_crash(example_app):
    huge = 2 ** 62  # its OFFSET would not fit 64 bits: refused as past host.args.MAX_PAGE before any query
    response = example_app.client.get(f"/wp-json/example/v1/notes?page={huge}&per_page=100", status=400)
    body = assert_rest_error(response, "rest_invalid_param", 400)
    assert body["data"]["params"]["page"] == "page must be less than or equal to 2147483647"
    assert "Traceback" not in response.text
    assert example_app.client.get("/wp-json/example/v1/notes?page=2147483647&per_page=100", status=200).json == []
