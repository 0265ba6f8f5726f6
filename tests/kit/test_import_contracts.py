"""The import rules of docs/plugin-guide.md ("The public surface"), held by import-linter and grimp.

import-linter's contracts live in pyproject.toml ([tool.importlinter]): the host never imports the
plugins, no plugin imports another, a plugin imports only the public surface. No module of host/ or
plugins/ is part of an import cycle (function-local imports count: one hidden in a function is still a
circle), every module imports first in a fresh process, and the only imports inside functions are the
listed ones that keep `sitehost --help` fast.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import grimp
import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
GUIDE = ROOT / "docs" / "plugin-guide.md"


def import_cycles(*packages: str) -> list[str]:
    """'a -> b -> ... -> a' for each import that closes a circle among the packages' modules."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True, cache_dir=None)
    circles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported == importer or graph.chain_exists(importer=imported, imported=importer):
                back = graph.find_shortest_chain(importer=imported, imported=importer) or (importer,)
                circles.append(" -> ".join((importer, *back)))
    return circles


def test_import_contracts_hold():
    """The host never imports plugins, plugins are independent and import only the public surface.

    In a child process: import-linter's `lint_imports` reconfigures logging with dictConfig, which disables every
    logger that exists, so later tests in this worker would read empty logs through caplog."""
    result = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                             f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True, no_logo=True))"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_module_is_part_of_an_import_cycle():
    """Layers, not circles: every import among host/ and plugins/ modules goes one way."""
    assert import_cycles("host", "plugins") == []


def _public_in_guide() -> list[str]:
    section = GUIDE.read_text(encoding="utf-8").split("## 2a. The public surface", 1)[1].split("\n## ", 1)[0]
    return sorted({module for line in section.splitlines() if line.startswith("- ")
                   for module in re.findall(r"`(host(?:\.\w+)*)`", line[2:].split(":", 1)[0])})


def _public_in_contract() -> list[str]:
    contracts = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    surface = next(contract for contract in contracts if contract["name"] == "Plugins import only the host's public surface")
    return sorted(expression.split(" -> ")[1] for expression in surface["ignore_imports"])


def test_the_contract_allows_what_the_guide_lists():
    """The guide's list and the contract's are the same list, so neither can drift alone."""
    assert len(_public_in_guide()) >= 10
    assert _public_in_contract() == _public_in_guide()


def test_the_host_docstring_points_to_the_guide():
    """host/__init__.py names the one place the surface is listed instead of keeping a list of its own."""
    docstring = ast.get_docstring(ast.parse((ROOT / "host" / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert 'docs/plugin-guide.md, section "The public surface"' in docstring


FAKE_TREE = {
    "host/__init__.py": "",
    "host/args.py": "",
    "host/rest/__init__.py": "",
    "host/rest/request.py": "import plugins.calendar\n",
    "plugins/__init__.py": "",
    "plugins/calendar/__init__.py": "from host import args\n",
    "plugins/calendar/events.py": "from host.rest.request import RestRequest\n",
    "plugins/core/__init__.py": "",
    "plugins/core/store.py": "def load():\n    from plugins.calendar import events\n",
    "plugins/core/pages.py": "import bottle\n",
}


def test_the_checks_catch_what_they_forbid(tmp_path):
    """Not vacuous: in a small tree that breaks every rule, each contract and the cycle check report it."""
    for relative, text in FAKE_TREE.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    (tmp_path / "plugins" / "calendar" / "args_loop.py").write_text("from . import loop_back\n")
    (tmp_path / "plugins" / "calendar" / "loop_back.py").write_text("def again():\n    from . import args_loop\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.read_text(encoding="utf-8"))  # the same contracts
    script = textwrap.dedent("""
        import sys
        from importlinter.cli import lint_imports
        sys.path.insert(0, sys.argv[1])
        for name in [key for key in sys.modules if key.split(".")[0] in ("host", "plugins")]:
            del sys.modules[name]
        status = lint_imports(config_filename=sys.argv[1] + "/pyproject.toml", no_cache=True, no_logo=True)
        sys.path.insert(0, sys.argv[2])
        from test_import_contracts import import_cycles
        print("CYCLES", import_cycles("host", "plugins"))
        sys.exit(status)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path), str(Path(__file__).parent)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stdout
    assert "The host never imports the plugins" in report and "host.rest.request -> plugins.calendar" in report
    assert "plugins.core is not allowed to import plugins.calendar" in report
    assert "plugins.calendar.events -> host.rest.request" in report
    assert "plugins.calendar -> host.args" not in report  # a public module is allowed
    assert "plugins.core.pages -> bottle" in report  # a plugin answers through host.PageAnswer, never Bottle
    assert "Contracts: 0 kept, 4 broken." in report
    cycles = report.split("CYCLES", 1)[1]
    assert "plugins.calendar.args_loop -> plugins.calendar.loop_back -> plugins.calendar.args_loop" in cycles


def _modules(package: str) -> list[str]:
    return [".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for path in sorted((ROOT / package).rglob("*.py"))]


# One process loads the third-party libraries the modules import at their top (a cache: none of
# host/ or plugins/ is loaded), then forks one child per module, a few at a time; each child imports
# its module as the first of ours and reports a failure. A fork costs a few milliseconds where a new
# interpreter costs ~100 ms, so 300 modules take seconds rather than a minute.
IMPORT_EACH_ALONE = r"""
import importlib, os, sys, traceback
for name in sys.argv[2].split(","):
    try:
        importlib.import_module(name)
    except Exception:
        pass
assert not [key for key in sys.modules if key.split(".")[0] in ("host", "plugins")]
workers, modules, running, failures = int(sys.argv[1]), sys.argv[3:], {}, []
read_end, write_end = os.pipe()
def reap():
    pid, status = os.wait()
    if status:
        failures.append(running[pid] + " failed")
    del running[pid]
for name in modules:
    while len(running) >= workers:
        reap()
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            os.write(write_end, (name + ": " + traceback.format_exc().strip().splitlines()[-1] + "\n").encode())
            os._exit(1)
        os._exit(0)
    running[pid] = name
while running:
    reap()
os.close(write_end)
messages = b""
while chunk := os.read(read_end, 65536):
    messages += chunk
print(messages.decode() or "\n".join(failures))
sys.exit(1 if failures else 0)
"""


def _third_party_imports() -> list[str]:
    """The modules outside host/ and plugins/ that some module of theirs imports at its top."""
    found: set[str] = set()
    for package in ("host", "plugins"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                found.update(name for name in names if name.split(".")[0] not in ("host", "plugins", "__future__"))
    return sorted(found)


def test_every_module_imports_on_its_own():
    """No circle hidden at run time either: each module of host/ and plugins/ imports with none of ours loaded."""
    modules = _modules("host") + _modules("plugins")
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, str(max(2, os.cpu_count() or 2)),
                           ",".join(_third_party_imports()), *modules],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("source, failing", [("import json\n", False), ("raise ImportError('circle')\n", True)])
def test_the_import_check_reports_a_module_that_fails(tmp_path, source, failing):
    """Not vacuous: a module whose import raises is named in the report."""
    (tmp_path / "probe_module.py").write_text(source)
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, "2", "json", "probe_module"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert (done.returncode == 1) is failing
    assert ("probe_module: ImportError: circle" in done.stdout) is failing


# The only modules that import host/ or plugins/ modules inside functions, each with its reason. All are
# loaded by `sitehost --help` or `sitehost doctor --help` (checked below), and what they defer would
# double that start (measured: --help importing all of it at the top took 4.6 s against 2.1 s on the same
# loaded machine; tests/benchmarks/cli_start.py keeps the line). Imports that added nothing measurable (a
# plugin's tables or names module) were moved to the top; none left here dodges a cycle (the grimp test).
DEFERRED_IMPORTS = {
    "host.admin": "its pages (bottle, templates, the users service) load when the admin is mounted",
    "host.auth": "sign-in pages, limits and the users service (SQLAlchemy, argon2) load in the hooks that use them",
    "host.auth.cli": "each user command imports the users service when it runs",
    "host.cli": "serve's server, the app and the database load only for the command that runs",
    "host.commands": "open_site builds the app (every plugin's routes) only when a command opens the site",
    "host.jobs": "the job service (SQLAlchemy tables, the runner) loads at startup, not for --help",
    "host.mail": "the outbox and the job service load at startup, not for --help",
    "host.mail.cli": "the message module (email_validator) loads when a mail command runs",
    "host.mail.health": "the outbox loads when the health test runs",
    "host.mail.settings": "the message module (email_validator) loads when an address is checked",
    "plugins.backup": "routes, admin page, jobs and shelf load in the hooks that return them",
    "plugins.backup.commands": "archive, restore and service load when a backup command runs",
    "plugins.backup.health": "the shelf (storage) loads when the health test runs",
    "plugins.block_editor": "its routes load in register_routes",
    "plugins.builder": "documents, routes, demo and WordPress modules load in the hooks that use them",
    "plugins.cache": "routes and the admin page load in the hooks that use them",
    "plugins.calendar": "routes, views, iCalendar and the other modules load in the hooks that return them",
    "plugins.calendar.cli": "imports and the users service load when a calendar command runs",
    "plugins.core": "routes, views, feeds, the content service and the rest load in the hooks that return them",
    "plugins.forms": "routes, pages, the store and the admin load in the hooks that return them",
    "plugins.forms.settings": "the message module (email_validator) loads when an address is checked",
    "plugins.lms": "routes, pages, API keys and the admin load in the hooks that return them",
    "plugins.lms.cli": "the importer, API keys and users service load when an lms command runs",
    "plugins.newsletter": "routes, pages, the mailer and the admin load in the hooks that return them",
    "plugins.newsletter.cli": "the operations load when a newsletter command runs",
    "plugins.oembed": "routes and the local provider load in the hooks that return them",
    "plugins.site_health": "routes and checks load in the hooks that return them",
    "plugins.site_health.cli": "the routes' report loads when doctor runs",
    "plugins.spam": "the judge, learning jobs and routes load in the hooks that use them",
    "plugins.spam.cli": "the learning module loads when a spam command runs",
    "plugins.wordpress_migrate": "the importer, admin and abilities load in the hooks that return them",
    "plugins.wordpress_migrate.commands": "the reader and run load when an import command runs",
    "plugins.wordpress_migrate.export": "the users service loads when an export runs",
}


def _deferring_modules() -> set[str]:
    """Modules with an import of a host/ or plugins/ module inside a function (annotation-only ones aside)."""
    found = set()
    for module in _modules("host") + _modules("plugins"):
        path = ROOT / (module.replace(".", "/") + ("/__init__.py" if (ROOT / module.replace(".", "/")).is_dir() else ".py"))
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                    ["host"] if isinstance(node, ast.ImportFrom) else []
                if any(name.split(".")[0] in ("host", "plugins") for name in names):
                    found.add(module)
    return found


def test_imports_inside_functions_are_only_the_listed_start_up_ones():
    """An import in a function is a start-up saving listed above, never a way round a cycle."""
    assert sorted(_deferring_modules()) == sorted(DEFERRED_IMPORTS)


SHOW_LOADED = r"""
import contextlib, io, sys
from host.cli import main
sys.argv = ["sitehost", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(" ".join(sorted(sys.modules)))
"""


def test_the_deferring_modules_are_ones_the_command_line_loads(tmp_path):
    """The reason holds: each listed module is loaded by `sitehost --help` or `sitehost doctor --help`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    loaded = set()
    for arguments in (["--help"], ["doctor", "--help"]):
        done = subprocess.run([sys.executable, "-c", SHOW_LOADED, *arguments], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=120, check=True)
        loaded |= set(done.stdout.split())
    assert sorted(set(DEFERRED_IMPORTS) - loaded) == []
