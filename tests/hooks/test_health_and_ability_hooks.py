"""The site-health and abilities registration hooks, answered by small plugins defined here."""

from __future__ import annotations

from host import Ability, AbilityCategory, HealthResult, HealthTest
from host.testing import assert_rest_error, make_plugin, role_users


def test_hook_register_health_tests(make_app):
    seen = []

    def register_health_tests():
        def lunch_menu(app, site_url):
            seen.append(site_url)
            return HealthResult("recommended", "The lunch menu is a week old", "Nobody updated it.", "Publish it.")
        return [HealthTest("lunch-menu", "Lunch menu", "Content", lunch_menu)]

    app = make_app(plugins=["core", "site_health", make_plugin("lunch", register_health_tests)])
    admin = role_users(app)["administrator"]
    body = app.client.get("/wp-json/site-health/v1/tests/lunch-menu", headers=admin.headers, status=200).json
    assert body == {"test": "lunch-menu", "label": "The lunch menu is a week old", "status": "recommended",
                    "badge": {"label": "Content", "color": "orange"}, "description": "<p>Nobody updated it.</p>",
                    "actions": "<p>Publish it.</p>"}
    assert seen == ["http://school.test"]
    assert "/site-health/v1/tests/lunch-menu" in app.client.get("/wp-json/site-health/v1").json["routes"]


def test_hook_register_ability_categories(make_app):
    def register_ability_categories():
        return [AbilityCategory("lunch", "Lunch", "The canteen's menus.")]

    app = make_app(plugins=["core", "abilities", make_plugin("lunch", register_ability_categories)])
    headers = role_users(app)["subscriber"].headers
    body = app.client.get("/wp-json/abilities/v1/categories/lunch", headers=headers, status=200).json
    assert (body["slug"], body["label"], body["description"]) == ("lunch", "Lunch", "The canteen's menus.")


def test_hook_register_abilities(make_app):
    calls = []

    def register_abilities():
        def allowed(request, value):
            return request.user.can("edit_posts")

        def menu(request, value):
            calls.append(value)
            return {"day": value["day"], "dish": "Fish pie"}

        return [Ability("lunch/menu", "Menu of a day", "What the canteen serves on a day.", "content", allowed, menu,
                        input_schema={"type": "object", "properties": {"day": {"type": "string", "enum": ["mon", "tue"]}},
                                      "required": ["day"]},
                        output_schema={"type": "object", "properties": {"day": {"type": "string"},
                                                                         "dish": {"type": "string"}}},
                        readonly=True)]

    app = make_app(plugins=["core", "abilities", make_plugin("lunch", register_abilities)])
    users = role_users(app)
    run = "/wp-json/abilities/v1/abilities/lunch/menu/run?input=%7B%22day%22%3A%22mon%22%7D"
    assert app.client.get(run, headers=users["editor"].headers, status=200).json == {"day": "mon", "dish": "Fish pie"}
    assert_rest_error(app.client.get(run, headers=users["subscriber"].headers, status=403),
                      "rest_ability_cannot_execute", 403)
    assert calls == [{"day": "mon"}]  # never executed for the subscriber
