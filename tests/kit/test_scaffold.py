"""`sitehost plugin new NAME` produces a package that installs, passes its own tests and is served.

The generated package is built and installed by pip into a folder of its own (`--target`),
with this interpreter's setuptools and wheel, which the project's `test` extra installs; the
folder is put on PYTHONPATH only for the subprocesses below, so the sitehost test run that is
going on meanwhile never sees the extra entry point. Nothing here depends on what the base
interpreter happens to have (a venv made from a venv sees the base's packages).
"""

import json
import os
import shutil
import subprocess
import sys
import importlib.metadata

from click.testing import CliRunner

from host.cli import main
from host.scaffold import create_plugin_package, render_files

NAME = "lunch_menu"


def run(command, cwd, env, timeout=180):
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert completed.returncode == 0, f"{command} failed:\n{completed.stdout}\n{completed.stderr}"
    return completed.stdout


def clean_env(tmp_path, installed):
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SITEHOST_", "PYTEST_")) or key == "SITEHOST_TEST_DATABASE_URL"}
    env["SITEHOST_CONFIG"] = str(tmp_path / "sitehost.toml")
    env["SITEHOST_DATABASE_URL"] = f"sqlite:///{tmp_path / 'site.db'}"
    env["PYTHONPATH"] = str(installed)
    return env


def test_plugin_new_creates_a_package_that_installs_passes_its_tests_and_is_served(tmp_path):
    result = CliRunner().invoke(main, ["plugin", "new", NAME, "--directory", str(tmp_path)])
    assert result.exit_code == 0, result.output
    package = tmp_path / "sitehost-lunch-menu"
    assert f"created {package}" in result.output
    assert sorted(str(path.relative_to(package)) for path in package.rglob("*") if path.is_file()) == [
        "README.md", "pyproject.toml", "sitehost_lunch_menu/__init__.py", "sitehost_lunch_menu/migrations/README.md",
        "sitehost_lunch_menu/pages.py", "sitehost_lunch_menu/routes.py",
        "sitehost_lunch_menu/schemas.py", "sitehost_lunch_menu/settings.py", "sitehost_lunch_menu/tables.py",
        "sitehost_lunch_menu/templates/lunch_menu_page.html", "tests/test_lunch_menu.py"]
    pyproject = (package / "pyproject.toml").read_text()
    assert '[project.entry-points.sitehost]\nlunch_menu = "sitehost_lunch_menu"' in pyproject
    assert 'dependencies = ["sitehost"]' in pyproject

    installed = tmp_path / "installed"
    env = clean_env(tmp_path, installed)
    built = tmp_path / "built"  # a copy with a revision: the installed package must ship its migrations folder
    shutil.copytree(package, built)
    (built / "sitehost_lunch_menu" / "migrations" / "0001_first.py").write_text(
        'revision = "0001"\ndown_revision = None\n\n\ndef upgrade():\n    """Nothing to change yet."""\n')
    run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(installed), str(built)], tmp_path, env)
    assert (installed / "sitehost_lunch_menu" / "routes.py").is_file()
    assert (installed / "sitehost_lunch_menu" / "migrations" / "0001_first.py").is_file()
    assert (installed / "sitehost_lunch_menu" / "templates" / "lunch_menu_page.html").is_file()  # the page's template

    output = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], package, env)
    assert "8 passed" in output, output

    run([sys.executable, "-m", "host.cli", "init"], tmp_path, env)  # `plugins list` reads a site, never creates one
    listing = json.loads(run([sys.executable, "-m", "host.cli", "plugins", "list", "--json"], tmp_path, env))
    row = next(row for row in listing if row["name"] == NAME)
    assert (row["source"], row["version"], row["state"]) == ("package", "0.1.0", "enabled")
    assert row["namespaces"] == ["lunch_menu/v1"]
    assert {"register_routes", "register_tables", "register_statuses"} <= set(row["hooks"])

    probe = ("import json, webtest\nfrom host.app import create_app\napp = create_app()\n"
             "client = webtest.TestApp(app, extra_environ={'HTTP_HOST': 'school.test'})\n"
             "print(json.dumps({'namespaces': client.get('/wp-json/').json['namespaces'],"
             " 'items': client.get('/wp-json/lunch_menu/v1/items').json}))\napp.close()\n")
    served = json.loads(run([sys.executable, "-c", probe], tmp_path, env))
    assert "lunch_menu/v1" in served["namespaces"]
    assert served["items"] == []

    without = {key: value for key, value in env.items() if key != "PYTHONPATH"}
    after = json.loads(run([sys.executable, "-m", "host.cli", "plugins", "list", "--json"], tmp_path, without))
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


def test_generated_package_has_the_plugin_layout_and_imports_only_public_api():
    files = render_files("lunch")
    assert {path for path in files if path.startswith("sitehost_lunch/")} == {
        "sitehost_lunch/__init__.py", "sitehost_lunch/tables.py", "sitehost_lunch/schemas.py",
        "sitehost_lunch/settings.py", "sitehost_lunch/routes.py", "sitehost_lunch/pages.py",
        "sitehost_lunch/templates/lunch_page.html", "sitehost_lunch/migrations/README.md"}
    public = ("host", "host.args", "host.stash")
    for path, text in files.items():
        if path.endswith(".py"):
            compile(text, path, "exec")
            for line in text.splitlines():
                if line.startswith(("from host", "import host")) and not path.startswith("tests/"):
                    assert line.split()[1] in public, (path, line)
    init = files["sitehost_lunch/__init__.py"]
    assert [line for line in init.splitlines() if line.startswith("def ")] == [
        "def register_tables(metadata):", "def register_namespaces():", "def register_statuses():",
        "def register_schemas():", "def register_routes():", "def register_pages():"]
    pages = files["sitehost_lunch/pages.py"]
    assert "def item_page(app, request: PageRequest, item_id: int):" in pages and "return not_found()" in pages
    assert "https://github.com/" not in files["README.md"] and "](" not in files["README.md"]


def test_generated_tests_pass_and_do_not_pin_the_route_set(tmp_path):
    """The generated tests run green in-process (no venv), and still pass once a route is added."""
    import subprocess
    import sys

    from tests.helpers import install_entry_point_plugin

    target = create_plugin_package("lunch", tmp_path)
    routes = target / "sitehost_lunch" / "routes.py"
    routes.write_text(routes.read_text().replace(
        "    return [\n", '    return [\n        Route(NAMESPACE, "/specials", "GET", lambda request: []),\n', 1))
    assert "/specials" in routes.read_text()
    site = install_entry_point_plugin(tmp_path / "site", "sitehost-lunch", "0.1.0", "lunch", "sitehost_lunch")
    env = {**__import__("os").environ, "PYTHONPATH": f"{target}{__import__('os').pathsep}{site}"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                             str(target / "tests")], capture_output=True, text=True, env=env, cwd=target, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "8 passed" in result.stdout


def test_the_folder_the_readme_and_the_help_name_is_the_one_made(tmp_path):
    """`plugin new lunch_menu` makes sitehost-lunch-menu/ (pip's spelling), as README and --help say."""
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`sitehost plugin new lunch_menu` makes `sitehost-lunch-menu/` holding the package " \
           "`sitehost_lunch_menu`" in readme
    shown = CliRunner().invoke(main, ["plugin", "new", "--help"])
    assert "`lunch_menu` makes the folder sitehost-lunch-menu/" in " ".join(shown.output.split())
    made = CliRunner().invoke(main, ["plugin", "new", NAME, "--directory", str(tmp_path)])
    assert made.exit_code == 0 and [path.name for path in tmp_path.iterdir()] == ["sitehost-lunch-menu"]
    assert (tmp_path / "sitehost-lunch-menu" / "sitehost_lunch_menu" / "__init__.py").is_file()
