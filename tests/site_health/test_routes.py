"""site-health/v1 over HTTP: every test route's shape, who may call it, and broken sites named."""

from __future__ import annotations


import pytest

from host import HealthResult, HealthTest, StartupError
from host.testing import assert_rest_error, make_plugin, role_users

NS = "/wp-json/site-health/v1"
STATUSES = {"good", "recommended", "critical"}


@pytest.fixture(scope="module")
def site(make_module_app):
    app = make_module_app()
    return app, role_users(app)


def _health_routes(app) -> list[str]:
    return [path for path, route in app.registry.routes.items() if route.namespace == "site-health/v1" and path !=
            "/site-health/v1" and not path.endswith("authorization-probe")]


def test_every_registered_test_answers_wordpress_result_shape(site):
    app, users = site
    names = set(app.registry.health_tests)
    assert {"database", "uploads", "plugins", "loopback-requests", "authorization-header", "https-status",
            "response-cache"} <= names
    for name in names:
        response = app.client.get(f"{NS}/tests/{name}", headers=users["administrator"].headers, status=200)
        body = response.json
        assert set(body) == {"test", "label", "status", "badge", "description", "actions"}
        assert body["test"] == name and body["status"] in STATUSES and body["label"]
        assert set(body["badge"]) == {"label", "color"}
        assert body["badge"]["color"] == {"good": "blue", "recommended": "orange", "critical": "red"}[body["status"]]
        assert response.headers["Allow"] == "GET"


def test_a_healthy_site_reports_its_database_uploads_plugins_and_cache_good(site):
    app, users = site
    database = "integrity check: ok, journal mode: wal" if app.db.engine.dialect.name == "sqlite" else "PostgreSQL 1"
    for name, words in (("database", database), ("uploads", "is writable"),
                        ("plugins", "plugins are enabled and loaded"), ("response-cache", "content version")):
        body = app.client.get(f"{NS}/tests/{name}", headers=users["administrator"].headers).json
        assert body["status"] == "good", body
        assert words in body["description"]


def test_https_status_recommends_https_for_a_public_plain_http_address(site):
    app, users = site
    body = app.client.get(f"{NS}/tests/https-status", headers=users["administrator"].headers).json
    assert body["status"] == "recommended" and "http://school.test" in body["description"]
    assert "TLS" in body["actions"]


def test_loopback_names_the_address_it_could_not_reach(site):
    app, users = site  # WebTest serves no socket: school.test is unreachable, and the test says so
    body = app.client.get(f"{NS}/tests/loopback-requests", headers=users["administrator"].headers).json
    assert body["status"] == "critical" and "http://school.test/wp-json/" in body["description"]
    header = app.client.get(f"{NS}/tests/authorization-header", headers=users["administrator"].headers).json
    assert header["status"] == "recommended" and header["label"] == "The Authorization header could not be tested"


def test_directory_sizes_for_administrators(site):
    app, users = site
    body = app.client.get(f"{NS}/directory-sizes", headers=users["administrator"].headers, status=200).json
    assert set(body) == {"uploads_size", "database_size", "total_size", "raw"}
    assert body["database_size"]["raw"] > 0
    assert body["total_size"]["raw"] == body["raw"] == body["uploads_size"]["raw"] + body["database_size"]["raw"]
    assert body["database_size"]["size"].endswith("KB") or body["database_size"]["size"].endswith("MB")


@pytest.mark.parametrize("role, status", [(None, 401), ("subscriber", 403), ("editor", 403)])
def test_only_administrators_see_health(site, role, status):
    app, users = site
    headers = users[role].headers if role else {}
    for path in _health_routes(app):
        response = app.client.get(f"/wp-json{path}", headers=headers, status=status)
        assert_rest_error(response, "rest_forbidden", status)
        assert "good" not in response.text and "uploads_size" not in response.text


def test_the_probe_echoes_only_its_own_bearer_token(site):
    app, _users = site
    assert app.client.get(f"{NS}/authorization-probe", headers={"Authorization": "Bearer abc"}).json == {"received": "abc"}
    assert app.client.get(f"{NS}/authorization-probe").json == {"received": None}
    assert app.client.get(f"{NS}/authorization-probe", headers={"Authorization": "Bearer " + "x" * 500}).json == \
        {"received": "x" * 64}


def test_unwritable_uploads_are_critical(make_app, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the uploads folder's parent should be")
    app = make_app(uploads_dir=str(blocker / "uploads"))
    admin = role_users(app)["administrator"]
    body = app.client.get(f"{NS}/tests/uploads", headers=admin.headers).json
    assert body["status"] == "critical" and body["label"] == "The uploads folder is not writable"
    assert str(blocker / "uploads") in body["description"]


def test_a_plugin_that_failed_to_start_is_named_with_its_reason(make_app):
    def startup(app):
        raise StartupError("[plugins.brittle] needs an api_key")

    app = make_app(plugins=["core", "site_health", make_plugin("brittle", startup)])
    admin = role_users(app)["administrator"]
    body = app.client.get(f"{NS}/tests/plugins", headers=admin.headers).json
    assert body["status"] == "critical" and body["label"] == "1 plugin failed to load"
    assert "brittle: startup failed: [plugins.brittle] needs an api_key" in body["description"]


def test_a_test_that_raises_is_a_critical_finding_not_a_500(make_app):
    def register_health_tests():
        def explode(app, site_url):
            raise RuntimeError("secret internals")
        return [HealthTest("exploding", "Exploding", "Testing", explode)]

    app = make_app(plugins=["core", "site_health", make_plugin("shaky", register_health_tests)])
    admin = role_users(app)["administrator"]
    body = app.client.get(f"{NS}/tests/exploding", headers=admin.headers, status=200).json
    assert body["status"] == "critical" and body["label"] == "The Exploding test failed to run"
    assert "secret internals" not in str(body) and "RuntimeError" in body["description"]


def test_disabled_site_health_removes_its_namespace(make_app):
    app = make_app(disabled=["site_health"])
    assert "site-health/v1" not in app.client.get("/wp-json/").json["namespaces"]
    assert_rest_error(app.client.get(f"{NS}/tests/database", status=404), "rest_no_route", 404)


def test_description_and_actions_are_one_escaped_paragraph_each(make_app):
    """WordPress's shape, byte for byte: the plain text of a result in one <p>, or "" when there is none."""
    def register_health_tests():
        return [HealthTest("worded", "Worded", "Testing",
                           lambda app, site_url: HealthResult("recommended", "Worded", "Pages <b>bold</b> & more")),
                HealthTest("fixable", "Fixable", "Testing",
                           lambda app, site_url: HealthResult("critical", "Fixable", "", "Run a > b first"))]

    app = make_app(plugins=["core", "site_health", make_plugin("worded", register_health_tests)])
    admin = role_users(app)["administrator"]
    worded = app.client.get(f"{NS}/tests/worded", headers=admin.headers, status=200).json
    assert (worded["description"], worded["actions"]) == ("<p>Pages &lt;b&gt;bold&lt;/b&gt; &amp; more</p>", "")
    fixable = app.client.get(f"{NS}/tests/fixable", headers=admin.headers, status=200).json
    assert (fixable["description"], fixable["actions"]) == ("", "<p>Run a &gt; b first</p>")
