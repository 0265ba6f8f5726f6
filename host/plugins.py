"""The plugin manager: built-ins, entry points, the enabled set and requirements.

Loading order is fixed: the host's own essential plugins, then built-ins in the order of
`plugins.BUILTIN`, then third-party entry points sorted by name, then plugins passed
explicitly. A plugin that fails to import, register or start is recorded with its
reason and left out; the site starts without it (and without plugins that require it).
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import logging
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from . import hookspecs
from .registry import PluginInfo

log = logging.getLogger("sitehost.plugins")

PROJECT = "sitehost"
ENTRY_POINT_GROUP = "sitehost"
BUILTIN_GROUP = "sitehost.builtin"  # the built-in plugin table (builtin_plugins)

# The host's own hook implementations; always loaded, never listed as disableable.
ESSENTIAL = {"host.defaults": "host.defaults", "host.auth": "host.auth", "host.mail": "host.mail",
             "host.jobs": "host.jobs", "host.storage": "host.storage", "host.admin": "host.admin"}


@dataclass
class PluginRecord:
    """One row of `sitehost plugins list`."""

    name: str
    source: str  # builtin | package | explicit
    version: str = "0"  # the plugin's own PluginInfo.version (the package's until it is imported)
    package_version: str = ""  # the installed distribution's version, for a package plugin
    description: str = ""
    requires: tuple[str, ...] = ()
    enabled: bool = True
    loaded: bool = False
    error: str = ""
    module: Any = None
    distribution: str = ""
    namespaces: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)

    @property
    def state(self) -> str:
        if not self.enabled:
            return "disabled"
        return "enabled" if self.loaded else "failed"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "version": self.version, "package_version": self.package_version or None,
            "source": self.source, "enabled": self.enabled,
            "state": self.state, "error": self.error or None, "requires": list(self.requires),
            "description": self.description, "namespaces": self.namespaces, "hooks": self.hooks,
        }


def builtin_plugins() -> dict[str, str]:
    """The built-in plugin table, found by its entry point in sitehost's own distribution.

    pyproject.toml names it (`[project.entry-points."sitehost.builtin"]`, plugins.BUILTIN), so the host
    never imports the `plugins` package itself; reading one distribution's metadata costs ~10 ms.
    """
    table: dict[str, str] = {}
    for entry_point in sorted(importlib.metadata.distribution(PROJECT).entry_points.select(group=BUILTIN_GROUP),
                              key=lambda entry_point: entry_point.name):
        table.update(entry_point.load())
    if not table:  # an installation made before the entry point existed
        raise RuntimeError(f"sitehost's installed metadata names no built-in plugins (entry point group "
                           f"{BUILTIN_GROUP!r}): reinstall it (pip install -e .)")
    return table


def declared_version(module_path: str) -> str:
    """The version in a built-in plugin's `PLUGIN = PluginInfo(version=...)`, read without importing it.

    A disabled plugin is never imported (it may be disabled because it is broken), yet
    `plugins list` should show its real version, not "0".
    """
    return str(declared_info(module_path).get("version", "0"))


def declared_info(module_path: str) -> dict[str, Any]:
    """The literal keywords of a plugin module's `PLUGIN = PluginInfo(...)`, read from its source."""
    try:
        spec = importlib.util.find_spec(module_path)
    except (ImportError, ValueError):
        return {}
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return {}
    source = Path(spec.origin)
    try:
        stat = source.stat()
    except OSError:
        return {}
    # Every app a process builds reads these again (a test run builds thousands of apps): the
    # keywords are kept per file, and read again once the file changes (its mtime or size).
    key = (str(source), stat.st_mtime_ns, stat.st_size)
    if key not in _declared_by_file:
        _declared_by_file[key] = _parse_declared(source.read_text(encoding="utf-8"))
    return dict(_declared_by_file[key])


_declared_by_file: dict[tuple[str, int, int], dict[str, Any]] = {}


def _parse_declared(text: str) -> dict[str, Any]:
    """The literal keywords of the first `PLUGIN = PluginInfo(...)` in a module's source."""
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "PLUGIN" for target in node.targets) \
                and isinstance(node.value, ast.Call):
            declared: dict[str, Any] = {}
            for keyword in node.value.keywords:
                if keyword.arg is None:  # `**table`: no literal keyword to read
                    continue
                try:
                    declared[keyword.arg] = ast.literal_eval(keyword.value)
                except ValueError:  # not a literal (a name, a call): leave it out
                    continue
            return declared
    return {}


def discover(settings) -> list[PluginRecord]:
    """Every plugin the settings can see, enabled or not, without importing disabled ones."""
    disabled = set(settings.disabled)
    only = set(settings.only_plugins) if settings.only_plugins is not None else None
    records: list[PluginRecord] = []
    seen: set[str] = set()

    def wanted(name: str) -> bool:
        return only is None or name in only

    for name, module_path in builtin_plugins().items():
        if not wanted(name):
            continue
        record = PluginRecord(name=name, source="builtin", enabled=name not in disabled,
                              version=declared_version(module_path))
        record.module = module_path
        records.append(record)
        seen.add(name)
    if settings.load_entry_points:
        for entry_point in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
            if entry_point.name in seen or not wanted(entry_point.name):
                continue
            record = PluginRecord(name=entry_point.name, source="package", enabled=entry_point.name not in disabled)
            record.module = entry_point
            record.distribution = entry_point.dist.name if entry_point.dist else ""
            if entry_point.dist:
                record.version = record.package_version = entry_point.dist.version
            records.append(record)
            seen.add(entry_point.name)
    for plugin in settings.extra_plugins:
        module = importlib.import_module(plugin) if isinstance(plugin, str) else plugin
        info = getattr(module, "PLUGIN", None)
        name = info.name if isinstance(info, PluginInfo) else getattr(module, "__name__", repr(module))
        if name in seen:
            continue
        record = PluginRecord(name=name, source="explicit", enabled=name not in disabled)
        record.module = module
        records.append(record)
        seen.add(name)
    return records


class NeedsRestart(Exception):
    """A package plugin whose module this process cannot import: installed after it started."""


def _import(record: PluginRecord) -> ModuleType:
    target = record.module
    if isinstance(target, str):
        return importlib.import_module(target)
    if isinstance(target, importlib.metadata.EntryPoint):
        return _load_entry_point(target)
    return target


def describe_unloaded(record: PluginRecord) -> None:
    """Fill a disabled plugin's description and requirements from its `PLUGIN = PluginInfo(...)`.

    A disabled plugin is never imported (it may be disabled because it is broken), so they are read
    from its source, as its version is; an operator deciding whether to enable it needs them.
    """
    if record.loaded or record.description:
        return
    module_path = record.module if isinstance(record.module, str) else getattr(record.module, "module", "")
    if not isinstance(module_path, str) or not module_path:
        return
    declared = declared_info(module_path)
    record.description = str(declared.get("description", ""))
    requires = declared.get("requires", ())
    record.requires = tuple(str(name) for name in requires) if isinstance(requires, (list, tuple)) else ()


def _load_entry_point(entry_point: importlib.metadata.EntryPoint) -> ModuleType:
    """The entry point's module, also when its package was installed after this process started.

    A reload (SIGHUP, a change of the stored plugin set) finds a newly installed package by its
    metadata, but Python reads the `.pth` files that make a package importable (what `pip install -e`
    writes) only at start: this reads the package's own `.pth` files once, as Python would have.
    NeedsRestart when its module still cannot be imported.
    """
    own = entry_point.module.split(".")[0]
    try:
        return entry_point.load()
    except ModuleNotFoundError as error:
        if error.name not in (own, entry_point.module):
            raise  # a module the plugin imports is missing: the plugin's own failure
    importlib.invalidate_caches()
    if entry_point.dist is not None:
        _read_path_files(entry_point.dist)
    try:
        return entry_point.load()
    except ModuleNotFoundError as error:
        if error.name not in (own, entry_point.module):
            raise
        raise NeedsRestart(f"its module {entry_point.module!r} cannot be imported; a package installed after "
                           "`sitehost serve` started needs a restart of it") from None


def _read_path_files(distribution: importlib.metadata.Distribution) -> None:
    """Apply the distribution's own `.pth` files as the site module does at start: a line that starts with
    `import` is run, any other names a folder to add to sys.path."""
    for listed in distribution.files or ():
        if listed.suffix != ".pth" or "/" in str(listed):
            continue
        path = Path(str(distribution.locate_file(listed)))
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith(("import ", "import\t")):
                exec(line)  # noqa: S102 - what Python itself runs for this file at start
                continue
            folder = str((path.parent / line.rstrip()).resolve())
            if Path(folder).is_dir() and folder not in sys.path:
                sys.path.append(folder)
    importlib.invalidate_caches()


def build_plugin_manager(settings) -> tuple[pluggy.PluginManager, list[PluginRecord]]:
    """Import and register every enabled plugin whose requirements are met."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(hookspecs)
    for name, module_path in ESSENTIAL.items():
        manager.register(importlib.import_module(module_path), name=name)
    # historic: replayed to each plugin as it registers, so any plugin can publish hooks
    manager.hook.add_hookspecs.call_historic(kwargs={"plugin_manager": manager})
    records = discover(settings)
    if settings.only_plugins is None:
        known = {record.name for record in records}
        for name in settings.disabled:
            if name not in known:  # a warning, not an error: a plugin may be uninstalled on purpose
                settings.warnings.append(f"[plugins] disabled names {name!r}, which is not installed "
                                         f"(installed: {', '.join(sorted(known))})")
        for name in settings.plugins:
            if name not in known:
                settings.warnings.append(f"[plugins.{name}] configures a plugin that is not installed")
    for record in records:
        if not record.enabled:
            manager.set_blocked(record.name)
            continue
        try:
            module = _import(record)
        except NeedsRestart as reason:  # the state line says it (host.logs); a traceback would say nothing more
            record.error = f"not loaded: {reason}"
            continue
        except Exception as error:  # a broken third-party package must not stop the site
            record.error = f"import failed: {type(error).__name__}: {error}"
            log.error("plugin %s failed to import:\n%s", record.name, traceback.format_exc())
            continue
        record.module = module
        info = getattr(module, "PLUGIN", None)
        if isinstance(info, PluginInfo):
            if info.name != record.name:
                record.error = f"declares the name {info.name!r} but is installed as {record.name!r}"
                continue
            record.version = info.version
            record.requires = tuple(info.requires)
            record.description = info.description
        record.loaded = True
    apply_requirements(records)
    for record in records:
        if not record.loaded:
            continue
        try:
            manager.register(record.module, name=record.name)
        except Exception as error:
            record.loaded = False
            record.error = f"register failed: {type(error).__name__}: {error}"
            log.error("plugin %s failed to register: %s", record.name, error)
    apply_requirements(records, manager)
    for record in records:
        if record.loaded:
            record.hooks = sorted(impl_name for impl_name in _hook_names(manager, record.module))
    if settings.trace_plugins:
        enable_tracing(manager)
    return manager, records


def apply_requirements(records: list[PluginRecord], manager: pluggy.PluginManager | None = None) -> None:
    """Leave out plugins whose requirements are disabled or failed, until nothing changes."""
    by_name = {record.name: record for record in records}
    changed = True
    while changed:
        changed = False
        for record in records:
            if not record.loaded:
                continue
            for requirement in record.requires:
                needed = by_name.get(requirement)
                if needed is not None and needed.loaded:
                    continue
                if needed is None:
                    reason = "is not installed"
                elif not needed.enabled:
                    reason = "is disabled"
                else:
                    reason = "failed to load"
                unload(record, f"requires {requirement}, which {reason}", manager)
                changed = True
                break


def unload(record: PluginRecord, reason: str, manager: pluggy.PluginManager | None = None) -> None:
    record.loaded = False
    record.error = reason
    log.error("plugin %s left out: %s", record.name, reason)
    if manager is not None and manager.has_plugin(record.name):
        manager.unregister(name=record.name)


def _hook_names(manager: pluggy.PluginManager, module) -> list[str]:
    callers = manager.get_hookcallers(module) or []
    return [caller.name for caller in callers]


def enable_tracing(manager: pluggy.PluginManager) -> None:
    """SITEHOST_TRACE_PLUGINS=1: log every hook call and its result to stderr."""

    def before(hook_name, hook_impls, kwargs):
        names = ", ".join(impl.plugin_name for impl in hook_impls)
        print(f"[sitehost trace] {hook_name}({', '.join(sorted(kwargs))}) -> {names}", file=sys.stderr)

    def after(outcome, hook_name, hook_impls, kwargs):
        exception = outcome.exception
        if exception is not None:
            print(f"[sitehost trace] {hook_name} raised {exception!r}", file=sys.stderr)

    manager.add_hookcall_monitoring(before, after)
