"""Helpers for `sitehost` subcommands, the host's and plugins' (`register_commands`).

A command runs against the site that `sitehost --config` names. These open it the same way
everywhere, so every command reports a bad configuration, a missing site or a plugin that is
not running in one line, and never creates a site by accident.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator, cast

import click

from .plugins import build_plugin_manager
from .config import ConfigError, load_settings

if TYPE_CHECKING:  # annotations only: the commands import the host lazily
    from .registry import HealthTest


def command_settings(ctx: click.Context):
    """The Settings of `sitehost --config` (a ClickException naming the problem when invalid)."""
    root = ctx.find_root()
    config = (root.obj or {}).get("config") if isinstance(root.obj, dict) else None
    try:
        return load_settings(config)
    except ConfigError as error:
        raise click.ClickException(str(error)) from error


@contextlib.contextmanager
def open_site(ctx: click.Context, *, plugin: str | None = None, create: bool = False) -> Iterator:
    """The app of the site `sitehost --config` names, closed when the block ends.

    `plugin`: the command belongs to this plugin; refuse when it is disabled or failed to load
    (its error is in the message). `create`: make the site when its database does not exist
    yet (the host's `user create` does); otherwise a missing site is a ClickException.

        @click.command("report")
        @click.pass_context
        def report(ctx):
            with open_site(ctx, plugin="lunch") as app, app.db.session() as session:
                ...
    """
    from .app import create_app
    from .db import missing_site

    settings = command_settings(ctx)
    reason = None if create else missing_site(settings.resolved_database_url())
    if reason:
        raise click.ClickException(reason)
    try:
        app = create_app(settings)
    except ConfigError as error:
        raise click.ClickException(str(error)) from error
    try:
        if plugin is not None:
            record = app.plugin(plugin)
            if record is None or record.state != "enabled":
                why = getattr(record, "error", "") or "disabled"
                raise click.ClickException(f"the {plugin} plugin is not running here ({why})")
        yield app
    finally:
        app.close()


def registered_health_tests(ctx: click.Context) -> list[HealthTest]:
    """The HealthTests of the enabled plugins, found without opening the site (for `doctor --help`).

    Each `register_health_tests` implementation is called with `app=None`; one that needs the app
    (it raises without one) is left out of the list, which only names tests.
    """
    manager, _records = build_plugin_manager(command_settings(ctx))
    tests: list[HealthTest] = []
    for implementation in manager.hook.register_health_tests.get_hookimpls():
        try:
            found = implementation.function(**{name: None for name in implementation.argnames})
        except Exception:  # needs a real app: its tests show when doctor runs
            continue
        tests.extend(cast("list[HealthTest] | None", found) or [])  # the hookspec's return type
    return tests
