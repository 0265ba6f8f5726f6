"""The code layout the plugin guide teaches, checked so that it stays true as plugins are added."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

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

    host/openapi.py imported jsonschema, which only the test extra installs, so
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
