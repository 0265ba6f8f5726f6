"""startup, shutdown, site_installed and demo_content, each through a small inline plugin."""

from marshmallow import Schema, ValidationError, fields, validate
from sqlalchemy import Column, Integer, String, Table, func, insert, select

from host import Namespace, Route, StartupError
from host.testing import assert_in_root_index, assert_not_in_root_index, make_plugin


class LunchSettings(Schema):
    price_cents = fields.Integer(required=True, validate=validate.Range(min=0))


def lunch_plugin(events=None):
    """A plugin with a table of dishes, set-up and demo hooks, and a route listing the dishes."""

    def register_tables(metadata):
        Table("lunch_dishes", metadata, Column("id", Integer, primary_key=True), Column("name", String(60)))

    def site_installed(app, session):
        session.execute(insert(app.db.metadata.tables["lunch_dishes"]).values(name="Water"))
        return ["lunch: added the default dish"]

    def demo_content(app, session):
        table = app.db.metadata.tables["lunch_dishes"]
        session.execute(insert(table), [{"name": "Tomato soup"}, {"name": "Apple pie"}])

    def shutdown(app):
        events.append(("shutdown", app.settings.database_url))

    def list_dishes(request):
        table = request.app.db.metadata.tables["lunch_dishes"]
        return [row.name for row in request.session.execute(select(table).order_by(table.c.id))]

    hooks = dict(register_tables=register_tables, site_installed=site_installed, demo_content=demo_content,
                 register_namespaces=lambda: [Namespace("lunch/v1")],
                 register_routes=lambda: [Route("lunch/v1", "/dishes", "GET", list_dishes)])
    if events is not None:
        hooks["shutdown"] = shutdown
    return make_plugin("lunch", **hooks)


def test_hook_startup(make_app):
    def startup(app):
        try:
            app.lunch_settings = LunchSettings().load(app.plugin_config("lunch"))
        except ValidationError as error:
            raise StartupError(f"[plugins.lunch] is invalid: {error.messages}") from error

    plugin = make_plugin("lunch", startup, register_namespaces=lambda: [Namespace("lunch/v1")],
                         register_routes=lambda: [Route("lunch/v1", "/price", "GET",
                                                        lambda request: request.app.lunch_settings)])
    app = make_app(plugins=[plugin], config={"lunch": {"price_cents": 350}})
    assert app.client.get("/wp-json/lunch/v1/price").json == {"price_cents": 350}

    broken = make_app(plugins=[plugin], config={"lunch": {"price_cents": -1}})
    record = broken.plugin("lunch")
    assert record.state == "failed"
    assert record.error == "startup failed: [plugins.lunch] is invalid: {'price_cents': ['Must be greater than or equal to 0.']}"
    assert_not_in_root_index(broken, "lunch/v1")


def test_hook_shutdown(make_app):
    events = []
    app = make_app(plugins=[lunch_plugin(events)])
    assert events == []
    app.close()
    assert events == [("shutdown", app.settings.database_url)]
    app.close()  # closing twice runs the hook once
    assert len(events) == 1


def test_hook_site_installed(make_app):
    app = make_app(plugins=[lunch_plugin()])
    assert app.client.get("/wp-json/lunch/v1/dishes").json == []
    lines = app.install_site()
    assert lines[-1] == "lunch: added the default dish"  # after the host's own set-up lines
    assert app.client.get("/wp-json/lunch/v1/dishes").json == ["Water"]
    assert app.install_site() == []  # once per database
    assert app.client.get("/wp-json/lunch/v1/dishes").json == ["Water"]


def test_hook_demo_content(make_app):
    plain = make_app(plugins=[lunch_plugin()])
    plain.install_site(demo=False)
    assert plain.client.get("/wp-json/lunch/v1/dishes").json == ["Water"]

    demo = make_app(plugins=[lunch_plugin()])
    lines = demo.install_site(demo=True)
    assert lines[-2:] == ["lunch: added the default dish", "demo content written"]
    assert demo.client.get("/wp-json/lunch/v1/dishes").json == ["Water", "Tomato soup", "Apple pie"]
    assert_in_root_index(demo, "lunch/v1")
    with demo.db.session() as session:
        assert session.execute(select(func.count()).select_from(demo.db.metadata.tables["lunch_dishes"])).scalar_one() == 3
