"""One test per registration hook, each with tiny inline plugins built by host.testing.make_plugin."""

import click
from click.testing import CliRunner
from marshmallow import Schema, fields
from sqlalchemy import Column, Integer, String, Table, inspect, insert, select

from host import MetaKey, Namespace, Page, PostType, Route, Status, Taxonomy, forbidden
from host.testing import assert_in_root_index, assert_not_in_root_index, assert_rest_error, make_plugin


def lunch_namespace():
    return [Namespace("lunch/v1", description="Cafeteria lunch menus")]


def registry_route(path, read):
    """A route that reports what the registry holds, so registrations are checked over HTTP."""
    return Route("lunch/v1", path, "GET", lambda request: read(request.app.registry))


def test_hook_register_tables(make_app, make_user):
    def register_tables(metadata):
        Table("lunch_dishes", metadata, Column("id", Integer, primary_key=True), Column("name", String(60)))

    def add_dish(request):
        table = request.app.db.metadata.tables["lunch_dishes"]
        new_id = request.session.execute(insert(table).values(name=request.params["name"])).inserted_primary_key[0]
        return {"id": new_id, "name": request.params["name"]}

    def list_dishes(request):
        table = request.app.db.metadata.tables["lunch_dishes"]
        return [row.name for row in request.session.execute(select(table).order_by(table.c.id))]

    plugin = make_plugin("lunch", register_tables, register_namespaces=lunch_namespace, register_routes=lambda: [
        Route("lunch/v1", "/dishes", "POST", add_dish, args=Schema.from_dict({"name": fields.String(required=True)})),
        Route("lunch/v1", "/dishes", "GET", list_dishes)])
    app = make_app(plugins=[plugin])
    assert "lunch_dishes" in inspect(app.db.engine).get_table_names()
    app.client.post_json("/wp-json/lunch/v1/dishes", {"name": "Soup"}, status=200)
    app.client.post_json("/wp-json/lunch/v1/dishes", {"name": "Pie"}, status=200)
    assert app.client.get("/wp-json/lunch/v1/dishes").json == ["Soup", "Pie"]

    disabled = make_app(plugins=[plugin], disabled=["lunch"])
    assert "lunch_dishes" not in inspect(disabled.db.engine).get_table_names()


def test_hook_register_namespaces(make_app):
    lunch = make_plugin("lunch", register_namespaces=lunch_namespace)
    app = make_app(plugins=[lunch])
    index = assert_in_root_index(app, "lunch/v1")
    assert list(index["routes"]) == ["/lunch/v1"]
    assert app.plugin("lunch").namespaces == ["lunch/v1"]

    rival = make_plugin("rival_lunch", register_namespaces=lunch_namespace)
    clash = make_app(plugins=[lunch, rival])
    assert clash.plugin("lunch").state == "enabled"
    assert clash.plugin("rival_lunch").state == "failed"
    assert "'lunch/v1' registered by 'lunch' and 'rival_lunch'" in clash.plugin("rival_lunch").error
    assert clash.client.get("/wp-json/").json["namespaces"] == ["lunch/v1"]


def test_hook_register_statuses(make_app):
    statuses = make_plugin("lunch", register_namespaces=lunch_namespace, register_statuses=lambda: [
        Status("lunch-served", "Served", public=True, post_types=("menu",)),
        Status("lunch-planned", "Planned", post_types=("menu",))],
        register_routes=lambda: [registry_route("/statuses", lambda registry: registry.status_names("menu"))])
    app = make_app(plugins=[statuses])
    assert app.client.get("/wp-json/lunch/v1/statuses").json == ["lunch-served", "lunch-planned"]

    duplicate = make_plugin("second", register_statuses=lambda: [Status("lunch-served")])
    clash = make_app(plugins=[statuses, duplicate])
    assert "'lunch-served' registered by 'lunch' and 'second'" in clash.plugin("second").error
    assert clash.client.get("/wp-json/lunch/v1/statuses").json == ["lunch-served", "lunch-planned"]


def test_hook_register_post_types(make_app):
    plugin = make_plugin("lunch", register_namespaces=lunch_namespace, register_post_types=lambda: [
        PostType("menu", "Menus", rest_base="menus", taxonomies=("dish_kind",))],
        register_routes=lambda: [registry_route("/types", lambda registry: {
            name: {"label": post_type.label, "rest_base": post_type.rest_base, "owner": owner}
            for name, (post_type, owner) in registry.post_types.items()})])
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/lunch/v1/types").json == {
        "menu": {"label": "Menus", "rest_base": "menus", "owner": "lunch"}}
    twice = make_plugin("twice", register_post_types=lambda: [PostType("menu")])
    clash = make_app(plugins=[plugin, twice])
    assert "post type 'menu' registered by 'lunch' and 'twice'" in clash.plugin("twice").error


def test_hook_register_taxonomies(make_app):
    plugin = make_plugin("lunch", register_namespaces=lunch_namespace, register_taxonomies=lambda: [
        Taxonomy("dish_kind", "Dish kinds", rest_base="dish-kinds", object_types=("menu",))],
        register_routes=lambda: [registry_route("/taxonomies", lambda registry: {
            name: list(taxonomy.object_types) for name, (taxonomy, _owner) in registry.taxonomies.items()})])
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/lunch/v1/taxonomies").json == {"dish_kind": ["menu"]}
    disabled = make_app(plugins=[plugin], disabled=["lunch"])
    assert "dish_kind" not in disabled.registry.taxonomies


def test_hook_register_meta(make_app):
    plugin = make_plugin("lunch", register_namespaces=lunch_namespace, register_meta=lambda: [
        MetaKey("menu", "calories", {"type": "integer", "default": 0}),
        MetaKey("menu", "vegan", {"type": "boolean", "default": False})],
        register_routes=lambda: [registry_route("/meta", lambda registry: {
            meta.key: meta.schema for meta in registry.meta_keys("menu")})])
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/lunch/v1/meta").json == {
        "calories": {"type": "integer", "default": 0}, "vegan": {"type": "boolean", "default": False}}


def test_hook_register_capabilities(make_app, make_user):
    def can_plan(request):
        return True if request.user.can("plan_lunch") else forbidden(request.user, "lunch_cannot_plan")

    plugin = make_plugin("lunch", register_namespaces=lunch_namespace,
                         register_capabilities=lambda: {"plan_lunch": ["editor", "administrator"]},
                         register_routes=lambda: [Route("lunch/v1", "/plan", "POST", lambda request: {"planned": True},
                                                        permission=can_plan)])
    app = make_app(plugins=[plugin])
    editor, author = make_user(app, "editor"), make_user(app, "author")
    assert app.client.post("/wp-json/lunch/v1/plan", headers=editor.headers).json == {"planned": True}
    assert_rest_error(app.client.post("/wp-json/lunch/v1/plan", headers=author.headers, status=403),
                      "lunch_cannot_plan", 403)
    assert_rest_error(app.client.post("/wp-json/lunch/v1/plan", status=401), "lunch_cannot_plan", 401)


def test_hook_register_schemas(make_app):
    class MenuSchema(Schema):
        day = fields.Date()

    plugin = make_plugin("lunch", register_namespaces=lunch_namespace, register_schemas=lambda: {"Menu": MenuSchema},
                         register_routes=lambda: [registry_route("/schemas", lambda registry: {
                             name: owner for name, (_schema, owner) in registry.schemas.items()})])
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/lunch/v1/schemas").json == {"Menu": "lunch"}
    other = make_plugin("other", register_schemas=lambda: {"Menu": MenuSchema})
    clash = make_app(plugins=[plugin, other])
    assert "schema 'Menu' registered by 'lunch' and 'other'" in clash.plugin("other").error


def test_hook_register_routes(make_app):
    class MenuArgs(Schema):
        day = fields.String(required=True, metadata={"description": "School day, YYYY-MM-DD"})

    menus = {"2025-09-01": ["soup", "bread"]}
    plugin = make_plugin("lunch", register_namespaces=lunch_namespace, register_routes=lambda: [
        Route("lunch/v1", "/menu", "GET", lambda request: {"dishes": menus[request.params["day"]]}, args=MenuArgs)])
    app = make_app(plugins=[plugin])
    assert app.client.get("/wp-json/lunch/v1/menu?day=2025-09-01").json == {"dishes": ["soup", "bread"]}
    assert_rest_error(app.client.get("/wp-json/lunch/v1/menu", status=400), "rest_missing_callback_param", 400)
    args = app.client.get("/wp-json/lunch/v1").json["routes"]["/lunch/v1/menu"]["endpoints"][0]["args"]
    assert args["day"] == {"description": "School day, YYYY-MM-DD", "type": "string", "required": True}

    stray = make_plugin("stray", register_routes=lambda: [Route("nowhere/v1", "/x", "GET", lambda request: {})])
    broken = make_app(plugins=[stray])
    assert "unregistered namespace 'nowhere/v1'" in broken.plugin("stray").error
    assert_not_in_root_index(broken, "nowhere/v1")


def test_hook_register_pages(make_app):
    def menu_page(app, request, day):
        return app.render_html_page(f"Lunch on {day}", "<p>Soup</p>")

    plugin = make_plugin("lunch", register_pages=lambda: [Page("/lunch/<day>", ("GET",), menu_page, "lunch-day")])
    app = make_app(plugins=[plugin])
    response = app.client.get("/lunch/2025-09-01")
    assert response.status_int == 200
    assert response.content_type == "text/html"
    assert "<h1>Lunch on 2025-09-01</h1>" in response.text
    assert response.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'
    assert make_app(plugins=[plugin], disabled=["lunch"]).client.get("/lunch/2025-09-01", status=404)


def test_hook_register_authentication(make_app):
    plugin = make_plugin("lunch", register_authentication=lambda: {
        "lunch-tokens": {"endpoints": {"issue": "{rest_url}/lunch/v1/tokens", "home": "{site_url}/"}}})
    body = make_app(plugins=[plugin]).client.get("/wp-json/").json
    assert body["authentication"]["lunch-tokens"] == {"endpoints": {
        "issue": "http://school.test/wp-json/lunch/v1/tokens", "home": "http://school.test/"}}
    assert "application-passwords" in body["authentication"]


def test_hook_register_commands(make_app):
    def register_commands(cli):
        @cli.command("lunch-menu")
        @click.argument("day")
        def lunch_menu(day):
            """Print the lunch menu of DAY."""
            click.echo(f"{day}: soup")

    app = make_app(plugins=[make_plugin("lunch", register_commands)])
    group = click.Group("sitehost")
    app.hook.register_commands(cli=group)
    result = CliRunner().invoke(group, ["lunch-menu", "2025-09-01"])
    assert result.exit_code == 0, result.output
    assert result.output == "2025-09-01: soup\n"
    assert "lunch-menu" in CliRunner().invoke(group, ["--help"]).output
