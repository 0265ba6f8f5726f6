"""The code layout the plugin guide teaches, checked so that it stays true as plugins are added."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imported_modules(path: Path, root: Path = ROOT) -> list[str]:
    """Every module `path` imports, relative imports resolved against its package (under `root`)."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.append(module)
            found.extend(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_no_test_imports_from_a_conftest():
    """Shared test helpers live in helper modules; conftest files hold fixtures only."""
    offenders = [f"{path.relative_to(ROOT)} imports {module}"
                 for path in sorted((ROOT / "tests").rglob("*.py"))
                 for module in _imported_modules(path) if module.split(".")[-1] == "conftest"]
    assert offenders == []


# Each module's code is compiled once (bytecode cached under a throwaway folder, whatever
# PYTHONDONTWRITEBYTECODE says) and executed afresh for every module that is imported first:
# compiling was 60% of this check's time, and it does not change what an import runs.
IMPORT_EACH_ALONE = r"""
import importlib, sys, traceback
sys.dont_write_bytecode = False
sys.pycache_prefix = sys.argv[1]
failures = []
for name in sys.argv[2:]:
    for loaded in [key for key in sys.modules if key.split(".")[0] in ("host", "plugins")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failures.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
print("\n".join(failures))
"""


def _modules(package: str) -> list[str]:
    return [".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for path in sorted((ROOT / package).rglob("*.py"))]


def test_every_module_imports_on_its_own(tmp_path):
    """No import cycle: each module of host/ and plugins/ imports first, with nothing loaded before it."""
    import subprocess
    import sys

    modules = _modules("host") + _modules("plugins")
    # Two interpreters take every other module: the check is the longest single test of the
    # suite, and a second core shortens its wall time when the run's other worker is done.
    processes = [subprocess.Popen([sys.executable, "-c", IMPORT_EACH_ALONE, str(tmp_path), *modules[half::2]],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
                 for half in (0, 1)]
    for process in processes:
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
        assert stdout.strip() == ""


def _plugin_imports(plugins_root: Path) -> list[str]:
    """'plugins/X/file.py imports plugins.Y' for every import of another plugin under `plugins_root`."""
    offenders = []
    for path in sorted(plugins_root.rglob("*.py")):
        parts = path.relative_to(plugins_root).parts
        if len(parts) < 2:
            continue  # plugins/__init__.py lists the built-ins
        own = parts[0]
        for module in _imported_modules(path, plugins_root.parent):
            names = module.split(".")
            if names[0] == "plugins" and len(names) > 1 and names[1] != own:
                offenders.append(f"plugins/{'/'.join(parts)} imports {module}")
    return offenders


def test_no_plugin_imports_another_plugin():
    """Plugins reach each other through host APIs, the content service, internal requests or hooks."""
    assert _plugin_imports(ROOT / "plugins") == []


def test_the_plugin_import_check_catches_an_import_of_another_plugin(tmp_path):
    """The check above is not vacuous: a plugin importing another is reported, by path."""
    (tmp_path / "plugins" / "calendar").mkdir(parents=True)
    (tmp_path / "plugins" / "calendar" / "__init__.py").write_text("from . import events\n")
    (tmp_path / "plugins" / "calendar" / "events.py").write_text("from plugins.core import store\nfrom ..core.posts import X\n")
    assert _plugin_imports(tmp_path / "plugins") == ["plugins/calendar/events.py imports plugins.core",
                                                     "plugins/calendar/events.py imports plugins.core.store",
                                                     "plugins/calendar/events.py imports plugins.core.posts",
                                                     "plugins/calendar/events.py imports plugins.core.posts.X"]


def _runtime_import_names() -> set[str]:
    """Top-level import names provided by the runtime dependencies in pyproject.toml (not the extras)."""
    import importlib.metadata
    import re
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
              for requirement in declared}
    return {module for module, distributions in importlib.metadata.packages_distributions().items()
            if any(name.lower().replace("_", "-") in wanted for name in distributions)}


# host/testing.py is the pytest plugin (entry point pytest11): only pytest loads it, and it
# imports WebTest inside the fixture that needs it.
PYTEST_PLUGIN = ROOT / "host" / "testing.py"


def test_code_imports_only_the_standard_library_and_runtime_dependencies():
    """`pip install -e .` (no extras) must be enough for every module, including lazy imports in functions.

    Issue 13.2: host/openapi.py imported jsonschema, which only the test extra installs, so
    /openapi.json answered 500 on a site installed as the README says.
    """
    import sys

    allowed = set(sys.stdlib_module_names) | _runtime_import_names() | {"host", "plugins", "__future__"}
    offenders = sorted({f"{path.relative_to(ROOT)} imports {module}"
                        for package in ("host", "plugins")
                        for path in (ROOT / package).rglob("*.py")
                        if path != PYTEST_PLUGIN
                        for module in _imported_modules(path)
                        if module and module.split(".")[0] not in allowed})
    assert offenders == []
