"""What an operator sees of plugins: `sitehost plugins list` (table and --json), failures with
their reason, and SITEHOST_TRACE_PLUGINS=1 logging hook calls (run as a real subprocess)."""

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from host.cli import main


@pytest.fixture
def site(tmp_path, example_plugin, install_plugin):
    """A config on a temp SQLite file; the example plugin installed, and a broken package beside it."""
    broken = tmp_path / "broken-site"
    (broken / "sitehost_lunchbox").mkdir(parents=True)
    (broken / "sitehost_lunchbox" / "__init__.py").write_text("import frobnicate  # not installed\n")
    install_plugin(broken, "sitehost-lunchbox", "0.3", "lunchbox", "sitehost_lunchbox")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n')
    created = CliRunner().invoke(main, ["--config", str(config), "init"], env={"SITEHOST_DATABASE_URL": None})
    assert created.exit_code == 0, created.output  # `plugins list` reads a site; it never creates one
    yield {"config": config, "pythonpath": [str(example_plugin["site_packages"]), str(example_plugin["source"]),
                                            str(broken)]}
    sys.modules.pop("sitehost_lunchbox", None)


def plugins_list(config, *extra, env=None):
    result = CliRunner().invoke(main, ["--config", str(config), "plugins", "list", *extra],
                                env={"SITEHOST_DISABLE": None, "SITEHOST_NO_ENTRY_POINTS": None, **(env or {})},
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout  # the table or JSON; log records (a failed import) go to stderr


def test_plugins_list_table_shows_source_state_namespaces_hooks_and_reasons(site):
    lines = plugins_list(site["config"]).splitlines()
    assert lines[0].split() == ["name", "version", "enabled", "source", "state", "namespaces"]
    example = lines.index(next(line for line in lines if line.startswith("example ")))
    assert lines[example].split() == ["example", "1.2.3", "yes", "package", "enabled", "example/v1"]
    assert lines[example + 1].strip().startswith("hooks: ")
    assert {"register_tables", "register_routes", "map_meta_capability"} <= set(
        lines[example + 1].split("hooks: ")[1].split(", "))
    broken = lines.index(next(line for line in lines if line.startswith("lunchbox ")))
    assert lines[broken].split() == ["lunchbox", "0.3", "yes", "package", "failed"]
    assert lines[broken + 1].strip() == "reason: import failed: ModuleNotFoundError: No module named 'frobnicate'"
    assert next(line for line in lines if line.startswith("core ")).split()[2:4] == ["yes", "builtin"]


def test_plugins_list_json_has_every_field(site):
    rows = {row["name"]: row for row in json.loads(plugins_list(site["config"], "--json"))}
    example = rows["example"]
    assert set(example) >= {"name", "version", "source", "enabled", "state", "error", "requires", "description",
                            "namespaces", "hooks"}
    assert (example["source"], example["version"], example["state"], example["error"]) == (
        "package", "1.2.3", "enabled", None)
    assert example["description"] == "Notes, to prove the kernel end to end"
    assert {"register_tables", "register_namespaces", "register_routes", "map_meta_capability"} <= set(example["hooks"])
    assert rows["lunchbox"]["state"] == "failed" and rows["lunchbox"]["namespaces"] == []
    assert "No module named 'frobnicate'" in rows["lunchbox"]["error"]
    assert rows["core"]["source"] == "builtin"


def test_plugins_list_shows_disabled_plugins(site):
    rows = {row["name"]: row for row in json.loads(plugins_list(site["config"], "--json",
                                                                env={"SITEHOST_DISABLE": "example"}))}
    assert (rows["example"]["enabled"], rows["example"]["state"], rows["example"]["hooks"]) == (False, "disabled", [])
    table = plugins_list(site["config"], env={"SITEHOST_DISABLE": "example"})
    assert next(line for line in table.splitlines() if line.startswith("example ")).split() == [
        "example", "1.2.3", "no", "package", "disabled"]


def run_cli(site, *args, trace):
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env["PYTHONPATH"] = os.pathsep.join(site["pythonpath"] + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["SITEHOST_CONFIG"] = str(site["config"])
    if trace:
        env["SITEHOST_TRACE_PLUGINS"] = "1"
    return subprocess.run([sys.executable, "-m", "host.cli", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def test_trace_plugins_logs_each_hook_call(site):
    traced = run_cli(site, "plugins", "list", trace=True)
    assert traced.returncode == 0, traced.stderr
    trace_lines = [line for line in traced.stderr.splitlines() if line.startswith("[sitehost trace]")]
    assert any(line.startswith("[sitehost trace] shutdown(app) -> ") for line in trace_lines), traced.stderr
    help_run = run_cli(site, "--help", trace=True)
    assert "[sitehost trace] register_commands(cli) -> " in help_run.stderr
    assert "plugin" in help_run.stdout  # the plugin-author group is listed

    quiet = run_cli(site, "plugins", "list", trace=False)
    assert quiet.returncode == 0
    assert "[sitehost trace]" not in quiet.stderr
    assert "example" in quiet.stdout
