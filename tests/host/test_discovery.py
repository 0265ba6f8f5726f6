"""The root index and namespace indexes are assembled from what enabled plugins registered."""

from host.testing import assert_rest_error

ROOT_FIELDS = ["name", "description", "url", "home", "gmt_offset", "timezone_string", "page_for_posts",
               "page_on_front", "show_on_front", "namespaces", "authentication", "routes"]


def test_root_index_has_the_interface_fields_in_order(example_app):
    response = example_app.client.get("/wp-json/")
    assert response.status_int == 200
    assert response.content_type == "application/json"
    body = response.json
    assert list(body)[: len(ROOT_FIELDS)] == ROOT_FIELDS
    assert body["url"] == "http://school.test"
    assert body["home"] == "http://school.test"
    assert body["namespaces"] == ["example/v1"]
    assert body["show_on_front"] == "posts"
    assert body["page_for_posts"] == 0 and body["page_on_front"] == 0
    assert response.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_site_settings_come_from_configuration(make_app, example_plugin):
    app = make_app(plugins=["example"], site={
        "name": "Hillside Academy", "description": "Learning together", "timezone_string": "Europe/Helsinki",
        "page_on_front": 4, "page_for_posts": 9, "show_on_front": "page", "url": "https://hillside.test"})
    body = app.client.get("/wp-json/").json
    assert body["name"] == "Hillside Academy"
    assert body["description"] == "Learning together"
    assert body["timezone_string"] == "Europe/Helsinki"
    assert body["gmt_offset"] in (2, 3)
    assert (body["page_on_front"], body["page_for_posts"], body["show_on_front"]) == (4, 9, "page")
    assert body["url"] == "https://hillside.test"
    assert body["routes"]["/example/v1/notes"]["_links"]["self"][0]["href"] == "https://hillside.test/wp-json/example/v1/notes"


def test_authentication_block_advertises_application_passwords(example_app):
    body = example_app.client.get("/wp-json/").json
    assert body["authentication"] == {"application-passwords": {"endpoints": {
        "authorization": "http://school.test/authorize-application"}}}


def test_route_descriptors_carry_namespace_methods_endpoints_and_links(example_app):
    routes = example_app.client.get("/wp-json/").json["routes"]
    assert list(routes) == ["/", "/batch/v1", "/example/v1", "/example/v1/notes", "/example/v1/notes/(?P<id>[\\d]+)",
                            "/example/v1/echo", "/example/v1/echo/(?P<source>[\\w-]+)",
                            "/example/v1/notes/(?P<id>[\\d]+)/preview", "/example/v1/feedback",
                            "/example/v1/oembed-providers"]
    notes = routes["/example/v1/notes"]
    assert notes["namespace"] == "example/v1"
    assert notes["methods"] == ["GET", "POST"]
    assert [endpoint["methods"] for endpoint in notes["endpoints"]] == [["GET"], ["POST"]]
    assert "allow_batch" not in notes["endpoints"][0]
    assert notes["endpoints"][1]["allow_batch"] == {"v1": True}
    assert notes["_links"] == {"self": [{"href": "http://school.test/wp-json/example/v1/notes"}]}
    item = routes["/example/v1/notes/(?P<id>[\\d]+)"]
    assert "_links" not in item  # routes with path variables carry no self link
    assert routes["/"]["namespace"] == ""


def test_args_are_derived_from_the_marshmallow_schema(example_app):
    routes = example_app.client.get("/wp-json/").json["routes"]
    args = routes["/example/v1/notes"]["endpoints"][0]["args"]
    assert args["page"] == {"description": "Current page.", "default": 1, "type": "integer", "minimum": 1,
                            "required": False}
    assert args["per_page"] == {"description": "Maximum number of items to return.", "default": 10,
                                "type": "integer", "minimum": 1, "maximum": 100, "required": False}
    assert args["order"] == {"default": "desc", "type": "string", "enum": ["asc", "desc"], "required": False}
    assert args["context"]["enum"] == ["view", "embed", "edit"]
    assert args["include"] == {"default": [], "type": "array", "items": {"type": "integer"}, "required": False}
    create = routes["/example/v1/notes"]["endpoints"][1]["args"]
    assert "id" not in create  # read-only fields are not args
    assert create["title"] == {"description": "Title of the note.", "type": "string", "minLength": 1,
                               "maxLength": 80, "required": True}
    echo = routes["/example/v1/echo"]["endpoints"][0]["args"]
    assert echo["when"]["format"] == "date-time"
    assert echo["email"]["format"] == "email"
    assert echo["key"]["format"] == "uuid"
    assert echo["point"] == {"type": "object", "properties": {"x": {"type": "integer", "required": True},
                                                                  "y": {"type": "integer"}},
                             "required": False}
    assert echo["maybe"]["type"] == ["integer", "null"]
    assert echo["needed"]["required"] is True


def test_route_without_args_shows_an_empty_list(example_app):
    routes = example_app.client.get("/wp-json/").json["routes"]
    assert routes["/example/v1/notes"]["endpoints"][0]["args"] != []
    index = example_app.client.get("/wp-json/example/v1").json
    assert index["routes"]["/example/v1"]["endpoints"][0]["args"]["namespace"]["default"] == "example/v1"


def test_namespace_index_lists_only_its_routes(example_app):
    response = example_app.client.get("/wp-json/example/v1")
    assert response.status_int == 200
    body = response.json
    assert body["namespace"] == "example/v1"
    assert set(body["routes"]) == {"/example/v1", "/example/v1/notes", "/example/v1/notes/(?P<id>[\\d]+)",
                                   "/example/v1/echo", "/example/v1/echo/(?P<source>[\\w-]+)",
                                   "/example/v1/notes/(?P<id>[\\d]+)/preview", "/example/v1/feedback",
                                   "/example/v1/oembed-providers"}
    assert body["_links"] == {"up": [{"href": "http://school.test/wp-json/"}]}


def test_unknown_namespace_is_no_route(example_app):
    assert_rest_error(example_app.client.get("/wp-json/nothing/v9", status=404), "rest_no_route", 404)


def test_namespace_argument_naming_an_unknown_namespace(example_app):
    response = example_app.client.get("/wp-json/example/v1?namespace=other/v1", status=404)
    assert_rest_error(response, "rest_invalid_namespace", 404)


def test_help_context_adds_the_route_schema(example_app):
    plain = example_app.client.get("/wp-json/").json["routes"]["/example/v1/notes"]
    assert "schema" not in plain
    helped = example_app.client.get("/wp-json/?context=help").json["routes"]["/example/v1/notes"]
    schema = helped["schema"]
    assert schema["title"] == "note"
    assert schema["type"] == "object"
    assert schema["properties"]["id"]["readonly"] is True
    assert schema["properties"]["title"]["context"] == ["view", "edit"]
    # any other context value behaves like view
    assert "schema" not in example_app.client.get("/wp-json/?context=whatever").json["routes"]["/example/v1/notes"]


def test_fields_applies_to_the_root_index(example_app):
    assert example_app.client.get("/wp-json/?_fields=name").json == {"name": "Riverside School"}
    assert example_app.client.get("/wp-json/?_fields=name,namespaces").json == {
        "name": "Riverside School", "namespaces": ["example/v1"]}


def test_disabled_plugin_vanishes_from_discovery_and_routing(make_app, example_plugin):
    app = make_app(plugins=["example"], disabled=["example"])
    body = app.client.get("/wp-json/").json
    assert body["namespaces"] == []
    assert list(body["routes"]) == ["/", "/batch/v1"]
    assert_rest_error(app.client.get("/wp-json/example/v1/notes", status=404), "rest_no_route", 404)
    assert_rest_error(app.client.get("/wp-json/example/v1", status=404), "rest_no_route", 404)


def test_disabled_plugin_statuses_leave_the_registry(make_app, example_plugin):
    enabled = make_app(plugins=["example"])
    assert "example-archived" in enabled.registry.status_names("note")
    disabled = make_app(plugins=["example"], disabled=["example"])
    assert "example-archived" not in disabled.registry.status_names("note")


def test_root_document_is_built_once_per_registry(example_app):
    first = example_app.client.get("/wp-json/")
    second = example_app.client.get("/wp-json/")
    assert first.body == second.body
    assert len(example_app.registry._index_cache) == 1


def test_documents_kept_per_host_are_bounded(app):
    """Each Host header builds its own root document; a client inventing hosts cannot grow memory (12.2)."""
    from host.registry import DOCUMENT_CACHE_ENTRIES

    for number in range(DOCUMENT_CACHE_ENTRIES):
        host = f"school-{number}.test"
        for path in ("/wp-json/", "/wp-json/?context=help", "/wp-json/core/v2") + (("/openapi.json",) * (number < 2)):
            response = app.client.get(path, extra_environ={"HTTP_HOST": host})
            assert response.status_int == 200
    assert len(app.registry._index_cache) == DOCUMENT_CACHE_ENTRIES
    latest = app.client.get("/wp-json/", extra_environ={"HTTP_HOST": "school-63.test"}).json
    assert latest["url"] == "http://school-63.test"
