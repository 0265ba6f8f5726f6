"""`sitehost plugin new NAME` produces a package that installs, passes its own tests and is served.

The generated package is installed with pip into a throwaway virtual environment that
sees this interpreter's packages (sitehost included), so the sitehost test run that is
going on meanwhile never sees the extra entry point.
"""

import json
import os
import subprocess
import sys
import importlib.metadata

import pytest
from click.testing import CliRunner

from host.cli import main
from host.scaffold import create_plugin_package, render_files

NAME = "lunch_menu"


def run(command, cwd, env, timeout=120):
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert completed.returncode == 0, f"{command} failed:\n{completed.stdout}\n{completed.stderr}"
    return completed.stdout


@pytest.fixture
def venv_python(tmp_path):
    """A virtual environment on top of this interpreter's packages (no network needed)."""
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(folder)],
                   check=True, timeout=60)
    return str(folder / "bin" / "python")


def clean_env(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SITEHOST_", "PYTEST_")) or key == "SITEHOST_TEST_DATABASE_URL"}
    env["SITEHOST_CONFIG"] = str(tmp_path / "sitehost.toml")
    env["SITEHOST_DATABASE_URL"] = f"sqlite:///{tmp_path / 'site.db'}"
    return env


def test_plugin_new_creates_a_package_that_installs_passes_its_tests_and_is_served(tmp_path, venv_python):
    result = CliRunner().invoke(main, ["plugin", "new", NAME, "--directory", str(tmp_path)])
    assert result.exit_code == 0, result.output
    package = tmp_path / "sitehost-lunch-menu"
    assert f"created {package}" in result.output
    assert sorted(str(path.relative_to(package)) for path in package.rglob("*") if path.is_file()) == [
        "README.md", "pyproject.toml", "sitehost_lunch_menu/__init__.py", "tests/test_lunch_menu.py"]
    pyproject = (package / "pyproject.toml").read_text()
    assert '[project.entry-points.sitehost]\nlunch_menu = "sitehost_lunch_menu"' in pyproject
    assert 'dependencies = ["sitehost"]' in pyproject

    env = clean_env(tmp_path)
    run([venv_python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(package)],
        tmp_path, env)
    try:
        output = run([venv_python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], package, env)
        assert "7 passed" in output, output

        listing = json.loads(run([venv_python, "-m", "host.cli", "plugins", "list", "--json"], tmp_path, env))
        row = next(row for row in listing if row["name"] == NAME)
        assert (row["source"], row["version"], row["state"]) == ("package", "0.1.0", "enabled")
        assert row["namespaces"] == ["lunch_menu/v1"]
        assert {"register_routes", "register_tables", "register_statuses", "startup"} <= set(row["hooks"])

        probe = ("import json, webtest\nfrom host.app import create_app\napp = create_app()\n"
                 "client = webtest.TestApp(app, extra_environ={'HTTP_HOST': 'school.test'})\n"
                 "print(json.dumps({'namespaces': client.get('/wp-json/').json['namespaces'],"
                 " 'items': client.get('/wp-json/lunch_menu/v1/items').json}))\napp.close()\n")
        served = json.loads(run([venv_python, "-c", probe], tmp_path, env))
        assert "lunch_menu/v1" in served["namespaces"]
        assert served["items"] == []
    finally:
        run([venv_python, "-m", "pip", "uninstall", "-y", "sitehost-lunch-menu"], tmp_path, env)
    after = json.loads(run([venv_python, "-m", "host.cli", "plugins", "list", "--json"], tmp_path, env))
    assert NAME not in [row["name"] for row in after]
    assert NAME not in [entry_point.name for entry_point in importlib.metadata.entry_points(group="sitehost")]


def test_plugin_new_refuses_bad_names_and_existing_folders(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(main, ["plugin", "new", "Lunch-Menu", "--directory", str(tmp_path)])
    assert bad.exit_code == 1
    assert "must be 2-40 lowercase letters" in bad.output
    assert list(tmp_path.iterdir()) == []
    create_plugin_package("lunch", tmp_path)
    again = runner.invoke(main, ["plugin", "new", "lunch", "--directory", str(tmp_path)])
    assert again.exit_code == 1
    assert "already exists" in again.output


def test_generated_module_imports_only_the_public_api():
    module = render_files("lunch")["sitehost_lunch/__init__.py"]
    imports = [line for line in module.splitlines() if line.startswith(("from host", "import host"))]
    assert imports == ["from host import (Namespace, PluginInfo, RestError, RestResponse, Route, StartupError, "
                       "Status, forbidden,"]
    compile(module, "sitehost_lunch/__init__.py", "exec")
    compile(render_files("lunch")["tests/test_lunch.py"], "tests/test_lunch.py", "exec")
