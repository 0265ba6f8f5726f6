"""Every file the plugin guide shows is written out, installed as a package, and its tests run.

The guide (docs/plugin-guide.md) marks complete files with `file=PATH` after the opening
fence. Folders with a pyproject.toml become installed distributions (a `.dist-info` with the
entry points their pyproject declares, on sys.path), exactly what `pip install -e` would
give; each `tests/test_*.py` function of the guide is then run here with host.testing's
fixtures. A plugin written from the guide therefore works as the guide says.
"""

import ast
import importlib
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

from host.app import create_app
from host.config import load_settings
from host.scaffold import create_plugin_package, render_files

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "plugin-guide.md"
BLOCK = re.compile(r"^```(?P<lang>\w+)(?P<info>[^\n]*)\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def guide_files() -> dict[str, str]:
    files = {}
    for block in BLOCK.finditer(GUIDE.read_text(encoding="utf-8")):
        found = re.search(r"file=(\S+)", block.group("info"))
        if found:
            files[found.group(1)] = block.group("body")
    return files


def guide_tests() -> list[tuple[str, str]]:
    tests = []
    for path, text in guide_files().items():
        if re.search(r"(^|/)tests/test_\w+\.py$", path):
            tests += [(path, node.name) for node in ast.parse(text).body
                      if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    return tests


@pytest.fixture
def guide_packages(tmp_path, monkeypatch):
    """Write the guide's files and install each package folder the way pip would."""
    root = tmp_path / "guide"
    # The guide starts from the generator's output and writes its files over it.
    create_plugin_package("lunch", root)
    for relative, text in guide_files().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    site = tmp_path / "site-packages"
    modules = []
    for pyproject in sorted(root.glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        dist_info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        dist_info.mkdir(parents=True)
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                            f"Version: {project['version']}\n")
        entry_points = project["entry-points"]["sitehost"]
        (dist_info / "entry_points.txt").write_text(
            "[sitehost]\n" + "".join(f"{name} = {module}\n" for name, module in entry_points.items()))
        modules += list(entry_points.values())
        monkeypatch.syspath_prepend(str(pyproject.parent))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield root
    for name in list(sys.modules):
        if any(name == module or name.startswith(module + ".") for module in modules):
            del sys.modules[name]


def test_every_python_and_toml_example_is_a_marked_file():
    unmarked = [block.group("body")[:60] for block in BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))
                if block.group("lang") in ("python", "toml")
                and "file=" not in block.group("info") and "generated=" not in block.group("info")]
    assert unmarked == []
    files = guide_files()
    assert {"sitehost-lunch/pyproject.toml", "sitehost-lunch/sitehost_lunch/__init__.py",
            "sitehost-lunch/tests/test_lunch.py", "sitehost-canteen-board/tests/test_canteen_board.py"} <= set(files)
    assert len(guide_tests()) >= 8


@pytest.mark.parametrize(("path", "function"), guide_tests(), ids=[f"{p}::{f}" for p, f in guide_tests()])
def test_guide_example(path, function, guide_packages, request):
    spec = importlib.util.spec_from_file_location(f"guide_test_{function}", guide_packages / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    test = getattr(module, function)
    arguments = {name: request.getfixturevalue(name) for name in test.__code__.co_varnames[:test.__code__.co_argcount]}
    test(**arguments)


def test_guide_sitehost_toml_configures_the_guide_plugin(guide_packages, tmp_path):
    settings = load_settings(guide_packages / "sitehost.toml", env={})
    settings.database_url = f"sqlite:///{tmp_path / 'guide.db'}"
    settings.only_plugins = ["lunch"]
    app = create_app(settings)
    try:
        assert app.plugin("lunch").state == "enabled"
        assert app.plugin_config("lunch") == {"canteen": "Riverside canteen", "max_dishes": 6}
        assert app.plugin("lunch").source == "package"
    finally:
        app.close()


def test_the_guide_starts_from_exactly_what_the_generator_writes():
    """Section 1 shows the generated __init__.py verbatim; every file the guide writes for the lunch
    plugin replaces a generated file or adds one the later sections need (no second layout)."""
    shown = {}
    for block in BLOCK.finditer(GUIDE.read_text(encoding="utf-8")):
        found = re.search(r"generated=(\S+)", block.group("info"))
        if found:
            shown[found.group(1)] = block.group("body")
    generated = render_files("lunch")
    assert shown == {"sitehost-lunch/sitehost_lunch/__init__.py": generated["sitehost_lunch/__init__.py"]}
    written = {path.removeprefix("sitehost-lunch/") for path in guide_files() if path.startswith("sitehost-lunch/")}
    # Section 3 adds a table migration, section 7 the second API version.
    assert written - set(generated) == {"sitehost_lunch/migrations/0001_menu_notes.py", "sitehost_lunch/v2.py"}
    assert set(generated) - written == {"README.md", "sitehost_lunch/migrations/README.md"}  # kept as generated


def test_the_guide_files_written_over_a_generated_plugin_leave_no_generated_leftovers(guide_packages):
    package = guide_packages / "sitehost-lunch"
    guide = guide_files()
    for path in package.rglob("*.py"):
        relative = "sitehost-lunch/" + str(path.relative_to(package))
        assert relative in guide, f"{relative} is still the generated file"
        assert "lunch_items" not in path.read_text(), relative
