"""Plugin manager: built-ins, entry points, the enabled set, requirements and failures."""

import json
import os
import sys
import types

import pytest
from marshmallow import Schema, fields, validate
from click.testing import CliRunner

from host import Namespace, PluginInfo, Route, StartupError, hookimpl
from host.cli import main
from host.config import load_settings
from host.testing import assert_rest_error


def make_plugin(name, requires=(), namespace=None, routes=True, register_error=None, startup_error=None):
    """A tiny plugin module built in the test."""
    module = types.ModuleType(f"plugin_{name}")
    module.PLUGIN = PluginInfo(name=name, version="9.9", requires=tuple(requires))
    namespace = namespace or f"{name}/v1"

    @hookimpl
    def register_namespaces():
        return [Namespace(namespace)]

    @hookimpl
    def register_routes():
        if register_error:
            raise RuntimeError(register_error)
        return [Route(namespace, "/ping", "GET", lambda request: {"pong": name})] if routes else []

    module.register_namespaces = register_namespaces
    module.register_routes = register_routes
    if startup_error:
        @hookimpl
        def startup(app):
            raise StartupError(startup_error)
        module.startup = startup
    return module


def test_entry_point_plugin_is_loaded_with_its_distribution_version(example_app):
    record = example_app.plugin("example")
    assert record.source == "package"
    assert record.version == "1.2.3"
    assert record.loaded and record.enabled
    assert record.namespaces == ["example/v1"]
    assert "register_routes" in record.hooks


def test_builtin_plugins_are_listed_as_builtin(app):
    record = app.plugin("core")
    assert record.source == "builtin"
    assert record.loaded


def test_plugin_that_fails_to_import_is_reported_and_the_site_starts(make_app, tmp_path, install_plugin):
    site = tmp_path / "broken"
    (site / "sitehost_broken").mkdir(parents=True)
    (site / "sitehost_broken" / "__init__.py").write_text("raise ImportError('missing dependency frobnicate')\n")
    install_plugin(site, "sitehost-broken", "0.1", "broken", "sitehost_broken")
    app = make_app(plugins=["broken", "core"])
    record = app.plugin("broken")
    assert not record.loaded
    assert record.state == "failed"
    assert "missing dependency frobnicate" in record.error
    assert app.client.get("/wp-json/").status_int == 200
    sys.modules.pop("sitehost_broken", None)


def test_plugin_whose_registration_fails_is_left_out(make_app):
    good = make_plugin("good")
    bad = make_plugin("bad", register_error="database schema mismatch")
    app = make_app(plugins=[good, bad])
    assert app.plugin("bad").state == "failed"
    assert "database schema mismatch" in app.plugin("bad").error
    namespaces = app.client.get("/wp-json/").json["namespaces"]
    assert namespaces == ["good/v1"]
    assert app.client.get("/wp-json/good/v1/ping").json == {"pong": "good"}
    assert_rest_error(app.client.get("/wp-json/bad/v1/ping", status=404), "rest_no_route", 404)


def test_two_plugins_claiming_one_namespace_names_both(make_app):
    first = make_plugin("first", namespace="shared/v1")
    second = make_plugin("second", namespace="shared/v1")
    app = make_app(plugins=[first, second])
    assert app.plugin("first").loaded
    assert app.plugin("second").error == "registration failed: namespace 'shared/v1' registered by 'first' and 'second'"


def test_plugin_requiring_a_disabled_plugin_is_left_out_with_the_reason(make_app):
    base = make_plugin("base")
    addon = make_plugin("addon", requires=["base"])
    app = make_app(plugins=[base, addon], disabled=["base"])
    assert app.plugin("base").state == "disabled"
    assert app.plugin("addon").state == "failed"
    assert app.plugin("addon").error == "requires base, which is disabled"
    assert app.client.get("/wp-json/").json["namespaces"] == []


def test_plugin_requiring_a_missing_plugin(make_app):
    addon = make_plugin("lonely", requires=["nowhere"])
    app = make_app(plugins=[addon])
    assert app.plugin("lonely").error == "requires nowhere, which is not installed"


def test_plugin_whose_startup_fails_is_removed_with_its_dependents(make_app):
    base = make_plugin("base", startup_error="[plugins.base] api_key is missing")
    addon = make_plugin("addon", requires=["base"])
    other = make_plugin("other")
    app = make_app(plugins=[base, addon, other])
    assert app.plugin("base").error == "startup failed: [plugins.base] api_key is missing"
    assert app.plugin("addon").error == "requires base, which failed to load"
    assert app.client.get("/wp-json/").json["namespaces"] == ["other/v1"]


def test_sitehost_disable_overrides_the_file_for_one_run(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text('[plugins]\ndisabled = ["calendar"]\n')
    assert load_settings(config, env={}).disabled == ["calendar"]
    assert load_settings(config, env={"SITEHOST_DISABLE": "lms, forms"}).disabled == ["lms", "forms"]
    assert load_settings(config, env={"SITEHOST_DISABLE": ""}).disabled == []


def test_disabling_through_settings_blocks_the_entry_point(make_app, example_plugin):
    app = make_app(plugins=["example"], disabled=["example"])
    assert app.plugin("example").state == "disabled"
    assert "sitehost_example" not in sys.modules or not app.pm.has_plugin("example")


# --- the operator's commands ------------------------------------------------------------

@pytest.fixture
def site_config(tmp_path, example_plugin):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/cli.db"\n')
    assert run(config, "init").exit_code == 0  # `plugins list` reads a site; it never creates one
    return config


def run(config, *args, env=None):
    result = CliRunner().invoke(main, ["--config", str(config), *args], env=env or {}, catch_exceptions=False)
    return result


def test_plugins_list_shows_every_plugin(site_config):
    result = run(site_config, "plugins", "list")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:5] == ["name", "version", "enabled", "source", "state"]
    example_line = next(line for line in lines if line.startswith("example "))
    assert example_line.split()[:6] == ["example", "1.2.3", "yes", "package", "enabled", "example/v1"]
    assert any(line.startswith("core ") and "builtin" in line for line in lines)


def test_plugins_list_json(site_config):
    result = run(site_config, "plugins", "list", "--json")
    rows = {row["name"]: row for row in json.loads(result.output)}
    assert rows["example"]["version"] == "1.2.3"
    assert rows["example"]["namespaces"] == ["example/v1"]
    assert rows["example"]["source"] == "package"
    assert rows["example"]["enabled"] is True
    assert "register_namespaces" in rows["example"]["hooks"]


def test_plugins_list_shows_the_plugins_own_version_beside_its_packages(tmp_path, install_plugin):
    """A package's version and its plugin's PluginInfo.version can differ (a distribution holding a plugin at
    its own pace): `version` is the plugin's, `package_version` the distribution's."""
    source = tmp_path / "source" / "sitehost_shelf"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("from host import PluginInfo\n"
                                        "PLUGIN = PluginInfo(name='shelf', version='1.4.0', description='Books')\n")
    install_plugin(tmp_path / "source", "sitehost-shelf", "2.0.0", "shelf", "sitehost_shelf")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/shelf.db"\n')
    assert run(config, "init").exit_code == 0
    rows = {row["name"]: row for row in json.loads(run(config, "plugins", "list", "--json").output)}
    assert (rows["shelf"]["version"], rows["shelf"]["package_version"]) == ("1.4.0", "2.0.0")
    assert rows["core"]["package_version"] is None and rows["core"]["source"] == "builtin"
    shelf_line = next(line for line in run(config, "plugins", "list").output.splitlines() if line.startswith("shelf "))
    assert shelf_line.split()[:2] == ["shelf", "1.4.0"]
    sys.modules.pop("sitehost_shelf", None)


def test_plugins_disable_and_enable_store_the_set_for_the_site(site_config):
    before = site_config.read_text()
    result = run(site_config, "plugins", "disable", "example")
    assert result.exit_code == 0, result.output
    assert site_config.read_text() == before  # the database holds the set (host/plugin_state.py)
    rows = {row["name"]: row for row in json.loads(run(site_config, "plugins", "list", "--json").output)}
    assert rows["example"]["enabled"] is False and rows["example"]["state"] == "disabled"
    assert run(site_config, "plugins", "enable", "example").exit_code == 0
    rows = {row["name"]: row for row in json.loads(run(site_config, "plugins", "list", "--json").output)}
    assert rows["example"]["enabled"] is True
    assert "database_url" in site_config.read_text()  # the rest of the file is kept


def test_a_file_set_that_differs_from_the_stored_one_is_a_warning_naming_the_winner(site_config):
    """`sitehost serve` logs this line at start (next to the site address warning); `plugins list --json`
    stays clean JSON."""
    from host.app import create_app
    from host.plugin_state import plugin_set_warning

    agreeing = create_app(load_settings(site_config))
    assert plugin_set_warning(agreeing.settings) is None  # nothing stored yet: the file's set is the set
    agreeing.close()
    assert run(site_config, "plugins", "disable", "example").exit_code == 0  # stored: example disabled
    site_config.write_text(site_config.read_text() + '\n[plugins]\ndisabled = ["oembed"]\n')
    app = create_app(load_settings(site_config))
    assert plugin_set_warning(app.settings) == (
        "[plugins] disabled in the settings (oembed) differs from the set stored for the site (example); the stored "
        "set wins. Change it with `sitehost plugins enable/disable NAME` or the admin Plugins page; "
        "SITEHOST_DISABLE replaces it for one run")
    assert not app.plugin("example").enabled and app.plugin("oembed").enabled
    app.close()
    listed = json.loads(run(site_config, "plugins", "list", "--json").output)
    assert {row["name"]: row["enabled"] for row in listed}["example"] is False
    assert run(site_config, "plugins", "disable", "oembed").exit_code == 0
    assert run(site_config, "plugins", "enable", "example").exit_code == 0  # stored: oembed, as the file says
    assert plugin_set_warning(load_and_apply(site_config)) is None


def load_and_apply(config):
    from host.plugin_state import apply_stored_set

    settings = load_settings(config)
    apply_stored_set(settings)
    return settings


def test_plugins_enable_unknown_name(site_config):
    result = run(site_config, "plugins", "enable", "nonesuch")
    assert result.exit_code != 0
    assert "no plugin named 'nonesuch'" in result.output


def test_routes_command_lists_routes(site_config):
    result = run(site_config, "routes", "--namespace", "example/v1")
    assert result.exit_code == 0
    assert any(line.endswith("/example/v1/notes") and line.startswith("GET, POST") for line in result.output.splitlines())


def test_routes_see_statuses_registered_by_plugins_loaded_after_them(make_app):
    """register_routes runs after every plugin's statuses are registered, so enums follow the registry."""
    from host import Status

    early = types.ModuleType("plugin_early")
    early.PLUGIN = PluginInfo("early")

    @hookimpl
    def register_routes(app):
        statuses = app.registry.status_names(writable_only=True)
        return [Route("early/v1", "/items", "POST", lambda request: request.params,
                      args=Schema.from_dict({"status": fields.String(validate=validate.OneOf(statuses))}))]

    early.register_namespaces = hookimpl(lambda: [Namespace("early/v1")])
    early.register_statuses = hookimpl(lambda: [Status("publish"), Status("draft")])
    early.register_routes = register_routes
    late = types.ModuleType("plugin_late")
    late.PLUGIN = PluginInfo("late")
    late.register_statuses = hookimpl(lambda: [Status("late-review")])
    app = make_app(plugins=[early, late])
    args = app.client.get("/wp-json/early/v1").json["routes"]["/early/v1/items"]["endpoints"][0]["args"]
    assert args["status"]["enum"] == ["publish", "draft", "late-review"]
    assert app.client.post_json("/wp-json/early/v1/items", {"status": "late-review"}).json == {"status": "late-review"}
    without_late = make_app(plugins=[early, late], disabled=["late"])
    args = without_late.client.get("/wp-json/early/v1").json["routes"]["/early/v1/items"]["endpoints"][0]["args"]
    assert args["status"]["enum"] == ["publish", "draft"]


def test_duplicate_status_names_both_plugins(make_app):
    from host import Status

    first = types.ModuleType("plugin_one")
    first.PLUGIN = PluginInfo("one")
    first.register_statuses = hookimpl(lambda: [Status("archived")])
    second = types.ModuleType("plugin_two")
    second.PLUGIN = PluginInfo("two")
    second.register_statuses = hookimpl(lambda: [Status("archived")])
    app = make_app(plugins=[first, second])
    assert app.plugin("two").error == "registration failed: status 'archived' registered by 'one' and 'two'"


def test_plugin_commands_follow_the_sites_stored_set_and_its_config(tmp_path):
    """A plugin disabled for the site (stored, not in the file) brings no command; `--config` names the site.
    In a process of its own: the command group loads plugin commands once per process."""
    import subprocess

    config = tmp_path / "elsewhere.toml"  # not ./sitehost.toml: only --config finds it
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n')

    def sitehost(*args):
        return subprocess.run([sys.executable, "-c", "from host.cli import main; main()", "--config", str(config),
                               *args], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                              env={**os.environ, "SITEHOST_NO_ENTRY_POINTS": "1"})

    assert sitehost("init").returncode == 0
    assert "Usage:" in sitehost("backup", "--help").stdout
    assert sitehost("plugins", "disable", "backup").returncode == 0
    refused = sitehost("backup", "--help")
    assert refused.returncode == 2 and "No such command 'backup'" in refused.stderr
    listed = [line.split()[0] for line in sitehost("--help").stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert "backup" not in listed and {"plugins", "storage", "serve"} <= set(listed)
