"""The plugin set stored for the site: which plugins are disabled, kept in the database.

Every worker of `sitehost serve` (and every host running it against one PostgreSQL
database) must agree on the enabled plugins, and an operator changes them from the admin
area, a web request, that cannot rewrite the server's sitehost.toml. So the set lives in
the `site_state` row `plugins.disabled` (a JSON list of names). `[plugins] disabled` in
sitehost.toml is the set until the first change is stored; from then on the stored row
wins. `SITEHOST_DISABLE` still replaces both for one run (a way out of a broken plugin).

`change_plugin` is the one function through which `sitehost plugins enable/disable` and
the admin area's buttons go; `sitehost serve` polls `stored_plugin_set` and reloads its
workers when the value changes (host.serving).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from dataclasses import dataclass

from sqlalchemy import MetaData, create_engine, insert, make_url, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from .state import define_host_tables
from .registry import PluginInfo
from .plugins import _import, discover

STORED_KEY = "plugins.disabled"


class PluginChangeRefused(Exception):
    """The change would break the site (or names no plugin); nothing was stored."""

    def __init__(self, message: str, blockers: list[str] | None = None):
        super().__init__(message)
        self.blockers = blockers or []


@dataclass(frozen=True)
class PluginChange:
    name: str
    enabled: bool
    disabled: tuple[str, ...]  # the whole stored set after the change


def _site_state():
    return define_host_tables(MetaData())["site_state"]


def read_stored_disabled(connection) -> list[str] | None:
    """The stored disabled list, or None when none was stored (or the site has no tables yet)."""
    table = _site_state()
    try:
        value = connection.execute(select(table.c.value).where(table.c.key == STORED_KEY)).scalar()
    except SQLAlchemyError:
        connection.rollback()
        return None
    if value is None:
        return None
    try:
        names = json.loads(value)
    except ValueError:
        return None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else None


def stored_plugin_set(url: str) -> str | None:
    """The raw stored value, read once through a connection of its own (see StoredPluginSetReader)."""
    reader = StoredPluginSetReader(url)
    try:
        return reader()
    finally:
        reader.close()


class StoredPluginSetReader:
    """Reads the raw stored value (what `sitehost serve` compares between polls) through one kept connection.

    The server polls every second for its whole life: a new engine and connection per poll made
    PostgreSQL start (and end) a backend process every second. The connection is checked before
    each use (a restarted database is reconnected to; a failed read raises, which the watch
    treats as no change). A process forked from this one (the worker pool's workers) forgets the
    connection without closing it, since the parent still uses the same socket.
    """

    def __init__(self, url: str):
        self.engine = create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)
        table = _site_state()
        self.query = select(table.c.value).where(table.c.key == STORED_KEY)
        os.register_at_fork(after_in_child=self._forget_in_child)

    def __call__(self) -> str | None:
        with self.engine.connect() as connection:
            try:
                return connection.execute(self.query).scalar()
            except SQLAlchemyError:
                if connection.invalidated:
                    raise
                return None  # the site has no tables yet: nothing stored

    def _forget_in_child(self) -> None:
        self.engine.dispose(close=False)

    def close(self) -> None:
        self.engine.dispose()


def apply_stored_set(settings) -> None:
    """Replace `settings.disabled` by the stored set, unless this run chose its own (SITEHOST_DISABLE).

    Reads through a connection of its own and creates nothing: a site whose SQLite file does
    not exist yet has no stored set (and a start stopped by bad settings leaves no file behind).
    """
    if not settings.use_stored_plugins:
        return
    url = make_url(settings.resolved_database_url())
    if url.get_backend_name() == "sqlite" and (not url.database or url.database == ":memory:"
                                               or not Path(url.database).exists()):
        return
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            stored = read_stored_disabled(connection)
    except SQLAlchemyError:  # an unreachable database fails later with the host's own message
        return
    finally:
        engine.dispose()
    if stored is not None:
        settings.disabled_in_file = list(settings.disabled)
        settings.disabled = stored


def plugin_set_warning(settings) -> str | None:
    """The line `sitehost serve` logs when sitehost.toml's `[plugins] disabled` is not the stored set (the
    operator who edited the file would otherwise wonder why nothing changed); None when they agree."""
    if settings.disabled_in_file is None or sorted(settings.disabled_in_file) == sorted(settings.disabled):
        return None
    in_file = ", ".join(sorted(settings.disabled_in_file)) or "none"
    stored = ", ".join(sorted(settings.disabled)) or "none"
    return (f"[plugins] disabled in the settings ({in_file}) differs from the set stored for the site ({stored}); "
            "the stored set wins. Change it with `sitehost plugins enable/disable NAME` or the admin Plugins page; "
            "SITEHOST_DISABLE replaces it for one run")


def requirements(settings) -> dict[str, tuple[str, ...]]:
    """Every installed plugin's requirements (imports each plugin module to read its PLUGIN)."""
    probe = _copy_settings(settings, disabled=[])
    result: dict[str, tuple[str, ...]] = {}
    for record in discover(probe):
        try:
            info = getattr(_import(record), "PLUGIN", None)
        except Exception:  # a broken plugin requires nothing we can know of
            result[record.name] = ()
            continue
        result[record.name] = tuple(info.requires) if isinstance(info, PluginInfo) else ()
    return result


def _copy_settings(settings, **changes):
    import dataclasses

    return dataclasses.replace(settings, warnings=[], **changes)


def change_plugin(settings, engine, name: str, enable: bool) -> PluginChange:
    """Enable or disable `name` in the stored set; PluginChangeRefused (nothing stored) when it cannot be.

    Disabling a plugin that enabled plugins require is refused with those plugins as
    `blockers`; enabling one whose requirements are disabled or missing is refused with them.
    """
    needs = requirements(settings)
    if name not in needs:
        known = ", ".join(sorted(needs)) or "none"
        raise PluginChangeRefused(f"no plugin named {name!r} (installed: {known})")
    table = _site_state()
    with engine.begin() as connection:
        stored = read_stored_disabled(connection)
        current = set(settings.disabled if stored is None else stored)
        if enable:
            missing = sorted(need for need in needs[name] if need in current or need not in needs)
            if missing:
                raise PluginChangeRefused(
                    f"cannot enable {name}: it requires {', '.join(missing)}, which "
                    f"{'is' if len(missing) == 1 else 'are'} disabled or not installed", missing)
            current.discard(name)
        else:
            dependents = sorted(other for other, wants in needs.items()
                                if name in wants and other not in current and other != name)
            if dependents:
                raise PluginChangeRefused(
                    f"cannot disable {name}: {', '.join(dependents)} require{'s' if len(dependents) == 1 else ''} "
                    f"it; disable {'it' if len(dependents) == 1 else 'them'} first", dependents)
            current.add(name)
        value = json.dumps(sorted(current))
        if stored is None and connection.execute(select(table.c.key).where(table.c.key == STORED_KEY)).first() is None:
            connection.execute(insert(table).values(key=STORED_KEY, value=value))
        else:
            connection.execute(update(table).where(table.c.key == STORED_KEY).values(value=value))
    return PluginChange(name, enable, tuple(sorted(current)))
