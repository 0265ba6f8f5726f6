"""Every table of the site: the host's, the enabled plugins', and the disabled plugins' too.

The app's own MetaData holds only what the host and the enabled plugins registered (host/app.py
builds it from `register_tables` of loaded plugins). A disabled plugin keeps its rows so that
enabling it again loses nothing, and a backup must keep them as well: its module is imported
here (never registered with the plugin manager) and its `register_tables` is called on a
MetaData of our own. A plugin that cannot even be imported is named in the manifest's
`warnings`; its tables cannot be described, so they are not in the backup.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import logging
from dataclasses import dataclass, field

from sqlalchemy import MetaData, Table

log = logging.getLogger("sitehost.backup")


@dataclass
class Catalog:
    """The tables to copy, in dependency order, and who registered each."""

    metadata: MetaData
    owners: dict[str, str]  # table name -> plugin name ("host" for the host's own)
    plugins: dict[str, dict] = field(default_factory=dict)  # name -> {version, enabled}
    warnings: list[str] = field(default_factory=list)

    @property
    def tables(self) -> list[Table]:
        return list(self.metadata.sorted_tables)


def _call_register_tables(function, metadata: MetaData) -> None:
    names = inspect.signature(function).parameters
    function(**({"metadata": metadata} if "metadata" in names else {}))


def _module_of(record):
    target = record.module
    if isinstance(target, str):
        return importlib.import_module(target)
    if isinstance(target, importlib.metadata.EntryPoint):
        return target.load()
    return target


def build_catalog(app) -> Catalog:
    """The site's tables: the app's metadata plus what every disabled or failed plugin registers."""
    combined = MetaData()
    owners: dict[str, str] = {}
    for table in app.db.metadata.sorted_tables:
        table.to_metadata(combined)
    by_plugin: dict[str, str] = {}
    for implementation in app.pm.hook.register_tables.get_hookimpls():
        scratch = MetaData()
        try:
            _call_register_tables(implementation.function, scratch)
        except Exception:  # it registered fine when the app was built; only ownership is asked here
            continue
        for name in scratch.tables:
            by_plugin.setdefault(name, implementation.plugin_name)
    for name in combined.tables:
        owner = by_plugin.get(name, "host")
        owners[name] = "host" if owner.startswith("host.") else owner
    warnings: list[str] = []
    plugins: dict[str, dict] = {}
    for record in app.plugin_records:
        plugins[record.name] = {"version": record.version, "enabled": record.loaded}
        if record.loaded:
            continue
        try:
            module = _module_of(record)
        except Exception as error:  # a plugin may be disabled because it is broken
            warnings.append(f"plugin {record.name} ({record.state}) could not be imported, so its tables, "
                            f"if any, are not in the backup: {type(error).__name__}: {error}")
            continue
        declared = getattr(getattr(module, "PLUGIN", None), "version", None)
        if isinstance(declared, str) and plugins[record.name]["version"] in ("", "0"):
            plugins[record.name]["version"] = declared
        function = getattr(module, "register_tables", None)
        if function is None:
            continue
        scratch = MetaData()
        try:
            _call_register_tables(function, scratch)
        except Exception as error:
            warnings.append(f"plugin {record.name} ({record.state}) failed to describe its tables, so they "
                            f"are not in the backup: {type(error).__name__}: {error}")
            continue
        for name, table in scratch.tables.items():
            if name in combined.tables:
                continue
            table.to_metadata(combined)
            owners[name] = record.name
    return Catalog(metadata=combined, owners=owners, plugins=plugins, warnings=warnings)
