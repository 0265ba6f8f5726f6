"""host.testing is what plugin authors test with: its helpers must hold their promises."""

import pytest

from host import Namespace, Route
from host.testing import (ROLES, assert_collection, assert_in_root_index, assert_not_in_root_index,
                          assert_rest_error, basic_auth_headers, client_as, make_plugin, role_users)


def test_make_user_defaults_to_the_app_fixture(app, make_user):
    user = make_user(role="author")
    response = app.client.get("/wp-json/", headers=user.headers)
    assert response.status_int == 200
    assert user.role == "author" and user.id > 0
    assert user.headers == basic_auth_headers(user.login, user.app_password)


def test_client_as_authenticates_every_request(make_app, example_plugin):
    app = make_app(plugins=["example"])
    editor = role_users(app)["editor"]
    as_editor = client_as(app, editor)
    created = as_editor.post_json("/wp-json/example/v1/notes", {"title": "Signed in"}, status=201)
    assert created.json["title"] == "Signed in"
    assert_rest_error(app.client.post_json("/wp-json/example/v1/notes", {"title": "Anon"}, status=401),
                      "rest_forbidden", 401)


def test_role_users_have_working_application_passwords(make_app, example_plugin):
    app = make_app(plugins=["example"])
    users = role_users(app)
    assert list(users) == list(ROLES)
    assert client_as(app, users["contributor"]).post_json("/wp-json/example/v1/notes", {"title": "x"}).status_int == 201
    assert_rest_error(client_as(app, users["subscriber"]).post_json(
        "/wp-json/example/v1/notes", {"title": "x"}, status=403), "rest_forbidden", 403)
    wrong = basic_auth_headers(users["editor"].login, "not the password")
    assert_rest_error(app.client.get("/wp-json/", headers=wrong, status=401), "incorrect_password", 401)


def test_root_index_assertions(make_app):
    plugin = make_plugin("lunch", register_namespaces=lambda: [Namespace("lunch/v1")],
                         register_routes=lambda: [Route("lunch/v1", "/menu", "GET", lambda request: [])])
    app = make_app(plugins=[plugin])
    index = assert_in_root_index(app, "lunch/v1")
    assert set(index["routes"]) == {"/lunch/v1", "/lunch/v1/menu"}
    with pytest.raises(AssertionError):
        assert_not_in_root_index(app, "lunch/v1")
    disabled = make_app(plugins=[plugin], disabled=["lunch"])
    assert_not_in_root_index(disabled, "lunch/v1")
    with pytest.raises(AssertionError):
        assert_in_root_index(disabled, "lunch/v1")


def test_assert_collection_checks_the_paging_headers(make_app, example_plugin):
    app = make_app(plugins=["example"])
    writer = client_as(app, role_users(app)["author"])
    for number in range(3):
        writer.post_json("/wp-json/example/v1/notes", {"title": f"Note {number}"})
    items = assert_collection(app.client.get("/wp-json/example/v1/notes?per_page=2"), total=3, total_pages=2)
    assert [item["title"] for item in items] == ["Note 2", "Note 1"]
    with pytest.raises(AssertionError):
        assert_collection(app.client.get("/wp-json/example/v1/notes"), total=4)


def test_make_plugin_keeps_hookimpl_options():
    from host import hookimpl

    @hookimpl(tryfirst=True)
    def authenticate(request):
        return None

    module = make_plugin("first", authenticate, version="2.0", requires=("core",), description="d")
    assert module.authenticate.sitehost_impl["tryfirst"] is True
    assert (module.PLUGIN.name, module.PLUGIN.version, module.PLUGIN.requires) == ("first", "2.0", ("core",))


def test_make_app_refuses_a_test_plugin_named_like_a_builtin(make_app):
    with pytest.raises(ValueError, match="the plugin name 'core' is taken by the builtin plugin"):
        make_app(plugins=[make_plugin("core")])


_first_module_app = []


def test_make_module_app_builds_one_site_for_the_module(make_module_app):
    app = make_module_app(plugins=["core"])
    _first_module_app.append(app)
    app.client.post_json("/wp-json/core/v2/categories", {"name": "Shared"},
                         headers=role_users(app)["administrator"].headers, status=201)


def test_make_module_app_keeps_what_earlier_tests_wrote(make_module_app):
    assert _first_module_app, "runs after the test above"
    app = _first_module_app[0]
    names = [term["name"] for term in app.client.get("/wp-json/core/v2/categories").json]
    assert "Shared" in names
