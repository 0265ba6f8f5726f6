"""The `sitehost` command line: serve, init, plugins, routes (plugins may add commands).

Start-up time: `sitehost --help` must not pay for what only a command's run needs.
Modules that load SQLAlchemy, waitress, apispec, bottle or Jinja2 are imported inside the command
that uses them (serve, openapi, ...), and plugins import their heavy modules inside the hooks that
use them, so listing the commands imports each plugin's light `__init__` only.
`python -m tests.benchmarks cli-start` measures it against its budget.
"""

from __future__ import annotations

import json
import logging
import sys

import click

from .config import ConfigError, load_settings
from .plugin_state import apply_stored_set
from .plugins import build_plugin_manager
from .logs import ACCESS_FORMATS, LOG_LEVELS, AccessLog, configure_logging, plugin_state_lines
from .serve_options import DEFAULT_THREADS, default_workers
from .scaffold import plugin_command
from .plugin_state import PluginChangeRefused, StoredPluginSetReader, change_plugin, plugin_set_warning
from .server_lock import RestoreRunning, ServingLock
from .proxies import client_address
from .openapi import openapi_document


log = logging.getLogger("sitehost")


def _settings(ctx: click.Context):
    try:
        return load_settings(ctx.obj.get("config"))
    except ConfigError as error:
        raise click.ClickException(str(error)) from error


def _create_app(ctx: click.Context):
    from .app import create_app

    try:
        return create_app(_settings(ctx))
    except ConfigError as error:
        raise click.ClickException(str(error)) from error


def _existing_site_app(ctx: click.Context):
    """The app of the site that is already there, for commands that only read: they never create one."""
    from .db import missing_site

    reason = missing_site(_settings(ctx).resolved_database_url())
    if reason:
        raise click.ClickException(reason)
    return _create_app(ctx)


class SitehostGroup(click.Group):
    """Adds the commands plugins register through `register_commands` when help or a command is asked for."""

    _plugin_commands_loaded = False

    def _load_plugin_commands(self, ctx) -> None:
        """Commands of the site's enabled plugins: those of `--config`'s site, with the set stored for it
        (a plugin disabled from the admin area brings no commands)."""
        if self._plugin_commands_loaded:
            return
        self._plugin_commands_loaded = True
        try:
            settings = load_settings((ctx.params.get("config") if ctx is not None else None) or None)
            apply_stored_set(settings)
            manager, _records = build_plugin_manager(settings)
            manager.hook.register_commands(cli=self)
        except Exception as error:  # a broken plugin must not break the operator's tools
            click.echo(f"warning: plugin commands not loaded: {error}", err=True)

    def list_commands(self, ctx):
        self._load_plugin_commands(ctx)
        return super().list_commands(ctx)

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is None:
            self._load_plugin_commands(ctx)
            command = super().get_command(ctx, name)
        return command


@click.group(cls=SitehostGroup)
@click.version_option(package_name="sitehost", message="sitehost %(version)s")
@click.option("--config", type=click.Path(dir_okay=False), default=None, is_eager=True,  # read before --help
              help="Path of sitehost.toml (default: ./sitehost.toml or $SITEHOST_CONFIG).")
@click.option("--log-level", type=click.Choice(list(LOG_LEVELS)), default="info", show_default=True,
              help="Log records below this level are dropped (the access log is switched by `serve --quiet`).")
@click.option("--log-file", type=click.Path(dir_okay=False), default=None,
              help="Append the log (access lines included) to this file instead of stderr.")
@click.pass_context
def main(ctx: click.Context, config: str | None, log_level: str, log_file: str | None) -> None:
    """sitehost: the REST interface of a school website, built from plugins.

    \b
    Examples:
      sitehost serve --port 8080
      sitehost --config /etc/sitehost/sitehost.toml plugins list
    """
    ctx.ensure_object(dict)
    ctx.obj["config"] = config
    ctx.obj["log_file"] = log_file
    try:
        ctx.call_on_close(configure_logging(log_level, log_file))
    except OSError as error:
        raise click.ClickException(f"cannot write the log file {log_file}: {error.strerror or error}") from error


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=int, help="Port to listen on (0 picks a free one).")
@click.option("--threads", default=DEFAULT_THREADS, show_default=True, type=click.IntRange(1, 256),
              help="Threads per worker (more threads do not add throughput under the GIL).")
@click.option("--workers", default=default_workers, show_default="one per core", type=click.IntRange(1, 64),
              help="Server processes sharing the port.")
@click.option("--pin-cpus/--no-pin-cpus", default=True, show_default=True,
              help="Bind each server process to one CPU (its threads share one GIL; see host/serving.py).")
@click.option("--quiet", is_flag=True, help="No access log (otherwise one line per request).")
@click.option("--access-log-format", type=click.Choice(ACCESS_FORMATS), default="text", show_default=True,
              help="Access lines as text or as JSON lines.")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, threads: int, workers: int, pin_cpus: bool, quiet: bool,
          access_log_format: str) -> None:
    """Start the site with waitress (creates the database on first start).

    The port is bound first: when it is taken, nothing is created (no database, no administrator).
    SIGHUP, or a change of the plugin set stored for the site (`sitehost plugins enable/disable`,
    the admin area), reloads the site gracefully: requests in progress finish, none is refused.
    The log (stderr, or --log-file) gets one line per plugin with its state, then one access
    line per request unless --quiet.

    \b
    Example:
      sitehost serve --host 0.0.0.0 --port 8080 --workers 2
    """
    from .serving import ReloadingSite, ServerLimits, bind_socket, reserve_port, serve_single, serve_workers
    from .memory import limit_arenas

    limit_arenas()  # before any thread starts, in the process whose forks serve (host.memory)

    try:
        limits = ServerLimits.from_settings(_settings(ctx))
    except ConfigError as error:
        raise click.ClickException(str(error)) from error
    try:
        sock = bind_socket(host, port) if workers == 1 else reserve_port(host, port)
    except OSError as error:
        raise click.ClickException(f"cannot serve on {host}:{port}: {error.strerror or error}") from error
    try:
        # Held for this process's life (its workers inherit it): `backup restore` sees that the
        # database is served, and no server starts while a restore holds it (host.server_lock).
        serving_lock = ServingLock(_settings(ctx).resolved_database_url())
    except RestoreRunning as error:
        sock.close()
        raise click.ClickException(str(error)) from error
    ctx.call_on_close(serving_lock.release)
    try:
        app = _create_app(ctx)
        for line in app.install_site(demo=True):
            click.echo(line)
        # The site's address for mails, guids and UIDs: recorded at the first start, never a request's Host.
        warning = app.record_site_address(f"http://{_url_host(host)}:{sock.getsockname()[1]}")
        for line in (warning, plugin_set_warning(app.settings)):
            if line:
                log.warning(line)
    except BaseException:
        sock.close()
        raise
    for line in plugin_state_lines(app.plugin_records):
        log.info(line)
    database = app.db.url.render_as_string(hide_password=True)
    rest_prefix = app.settings.rest_prefix

    def announce(actual_port: int) -> None:
        processes = f", {workers} workers" if workers > 1 else ""
        banner = (f"sitehost serving on http://{_url_host(host)}:{actual_port}{rest_prefix}/ "
                  f"(database: {database}{processes})")
        click.echo(banner)
        click.echo(f"admin area: http://{_url_host(host)}:{actual_port}/admin/ (sign in as the administrator); "
                   "Ctrl+C stops the server")
        sys.stdout.flush()
        if ctx.obj.get("log_file"):
            log.info(banner)

    def served(site):
        """The site as waitress sees it: behind the access log unless --quiet."""
        if quiet:
            return site

        return AccessLog(site, access_log_format, lambda environ: client_address(site, environ))

    def serving(site):
        """`serve_started` for the app of this process, then the app as waitress sees it."""
        site.hook.serve_started(app=site)
        return served(site)

    started_states = {record.name: record.state for record in app.plugin_records}

    def rebuilt():
        """A fresh app (a reload, a worker): one line for each plugin whose state differs from the start's,
        such as a package installed since then (loaded, or why not)."""
        fresh = _create_app(ctx)
        changed = [record for record in fresh.plugin_records if started_states.get(record.name) != record.state]
        for line in plugin_state_lines(changed):
            log.info("%s (since the start)", line)
        return serving(fresh)

    # The plugin set stored for the site: when it changes, the site reloads (host.plugin_state).
    watch = StoredPluginSetReader(app.settings.resolved_database_url())

    if workers == 1:
        site = ReloadingSite(serving(app), rebuilt, watch)
        serve_single(site, host, port, threads, announce, pin=pin_cpus, limits=limits, sock=sock)
        return
    app.close()  # each worker builds its own app after the fork; the parent only supervises
    sys.exit(serve_workers(rebuilt, host, port, threads, workers, announce, pin=pin_cpus,
                           limits=limits, reservation=sock, watch=watch))


def _url_host(host: str) -> str:
    """The host part of the URL to open: a wildcard address is opened as the loopback one."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


@main.command()
@click.option("--demo", is_flag=True, help="Fill a new site with realistic sample content.")
@click.pass_context
def init(ctx: click.Context, demo: bool) -> None:
    """Create the database tables of every enabled plugin (and the first administrator).

    \b
    Example:
      sitehost init --demo
    """
    app = _create_app(ctx)
    for line in app.install_site(demo=demo):
        click.echo(line)
    click.echo(f"database ready: {app.db.url.render_as_string(hide_password=True)}")
    app.close()


@main.command()
@click.option("--dry-run", is_flag=True, help="List each owner's revision and the revisions that would run; change nothing.")
@click.pass_context
def migrate(ctx: click.Context, dry_run: bool) -> None:
    """Bring the tables of the host and of every enabled plugin to their newest revisions.

    Every start (`sitehost serve`, any command that opens the site) does the same under the
    start-up lock; this runs it on its own, before the servers are started, and says what it did:
    one line per owner with a migrations folder (host.migrations). A disabled plugin's tables are
    left alone; its revisions run at the first start after it is enabled.

    \b
    Examples:
      sitehost migrate --dry-run
      sitehost migrate
    """
    from .db import missing_site

    settings = _settings(ctx)
    url = settings.resolved_database_url()
    reason = missing_site(url)  # a new site is made by `sitehost init` or `serve`, not here
    if reason:
        raise click.ClickException(reason)
    if dry_run:
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        from .migrations import owners_of_settings, status

        engine = create_engine(url, poolclass=NullPool)
        try:
            outcomes = status(engine, owners_of_settings(settings))
        finally:
            engine.dispose()
    else:
        from .server_lock import RestoreRunning, ServingLock

        try:
            lock = ServingLock(url)  # a restore must not swap the database while revisions run
        except RestoreRunning as error:
            raise click.ClickException(str(error)) from error
        try:
            app = _create_app(ctx)
            outcomes = app.migrations
            app.close()
        finally:
            lock.release()
    for outcome in outcomes:
        click.echo(outcome.line())
    if not outcomes:
        click.echo("no enabled plugin has migrations")


@main.command()
@click.option("--namespace", default=None, help="Only this namespace.")
@click.pass_context
def routes(ctx: click.Context, namespace: str | None) -> None:
    """List every REST route with its methods.

    \b
    Example:
      sitehost routes | grep core/v2/posts
    """
    app = _existing_site_app(ctx)
    for path, route in app.registry.ordered_routes():
        if namespace and route.namespace != namespace:
            continue
        methods = ", ".join(method for endpoint in route.endpoints for method in endpoint.methods)
        click.echo(f"{methods:<32} {path}")
    app.close()


@main.group()
def plugins() -> None:
    """List, enable and disable plugins (a running `sitehost serve` picks changes up by itself).

    \b
    Example:
      sitehost plugins list --json
    """


@plugins.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.pass_context
def plugins_list(ctx: click.Context, as_json: bool) -> None:
    """Name, version, enabled, source, namespaces and hooks of every plugin.

    \b
    Examples:
      sitehost plugins list
      sitehost plugins list --json
    """
    app = _existing_site_app(ctx)
    rows = [record.as_dict() for record in app.plugin_records]
    app.close()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(f"{'name':<16} {'version':<10} {'enabled':<8} {'source':<8} {'state':<9} namespaces")
    for row in rows:
        click.echo(f"{row['name']:<16} {row['version']:<10} {'yes' if row['enabled'] else 'no':<8} "
                   f"{row['source']:<8} {row['state']:<9} {', '.join(row['namespaces'])}")
        if row["error"]:
            click.echo(f"{'':<16} reason: {row['error']}")
        if row["hooks"]:
            click.echo(f"{'':<16} hooks: {', '.join(row['hooks'])}")


def _edit_disabled(ctx: click.Context, name: str, disable: bool) -> None:
    """Store the change for the site (host.plugin_state, the function the admin area uses too)."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    from .db import missing_site

    settings = _settings(ctx)
    url = settings.resolved_database_url()
    reason = missing_site(url)
    if reason:
        raise click.ClickException(reason)
    engine = create_engine(url, poolclass=NullPool)
    try:
        change_plugin(settings, engine, name, enable=not disable)
    except PluginChangeRefused as refused:
        raise click.ClickException(str(refused)) from refused
    finally:
        engine.dispose()
    click.echo(f"{name} {'disabled' if disable else 'enabled'} for the site in its database "
               "(a running `sitehost serve` reloads its workers within seconds)")


@plugins.command("enable")
@click.argument("name")
@click.pass_context
def plugins_enable(ctx: click.Context, name: str) -> None:
    """Enable plugin NAME for the site (stored in its database).

    \b
    Example:
      sitehost plugins enable oembed
    """
    _edit_disabled(ctx, name, disable=False)


@plugins.command("disable")
@click.argument("name")
@click.pass_context
def plugins_disable(ctx: click.Context, name: str) -> None:
    """Disable plugin NAME for the site (stored in its database; its data stays).

    \b
    Example:
      sitehost plugins disable oembed
    """
    _edit_disabled(ctx, name, disable=True)


@main.command("openapi")
@click.option("--url", default="http://127.0.0.1:8080", show_default=True,
              help="Site address the document's server entry points at.")
@click.pass_context
def openapi_command(ctx: click.Context, url: str) -> None:
    """Print the OpenAPI 3.1 document of every enabled plugin's routes.

    \b
    Example:
      sitehost openapi > openapi.json
    """
    app = _existing_site_app(ctx)
    try:
        click.echo(json.dumps(openapi_document(app, url.rstrip("/")), indent=2, ensure_ascii=False))
    finally:
        app.close()


main.add_command(plugin_command)  # `sitehost plugin new NAME`, defined in host/scaffold.py


if __name__ == "__main__":  # pragma: no cover
    main()
