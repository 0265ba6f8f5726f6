"""`sitehost backup create|list|verify|restore`, with progress bars (rich) and a summary."""

from __future__ import annotations

import time
from pathlib import Path

import click

from host.commands import command_settings, open_site
from host.server_lock import ServersRunning, held_for_restore

from .progress import Reporter, StageAdapter
from .settings import settings_of


class ConsoleReporter(Reporter):
    """A rich progress bar per stage on a terminal; one plain line per stage and note otherwise."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.console = Console(stderr=True)
        self.live = self.console.is_terminal
        self.progress = Progress(TextColumn("[bold]{task.description:<8}"), BarColumn(), TextColumn("{task.fields[amount]}"),
                                 TimeElapsedColumn(), TimeRemainingColumn(), console=self.console,
                                 disable=not self.live)
        self.task = None
        self.unit = "rows"
        self.done = 0

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        self._close_task()
        return self.progress.__exit__(*exc)

    def _amount(self) -> str:
        if self.unit == "bytes":
            return f"{self.done / 1e6:,.1f} MB"
        return f"{self.done:,} {self.unit}"

    def _close_task(self):
        if self.task is not None:
            self.progress.update(self.task, completed=self.progress.tasks[self.task].total or self.done)

    def stage(self, name: str, total: int, unit: str = "rows") -> None:
        self._close_task()
        self.unit, self.done = unit, 0
        if self.live:
            self.task = self.progress.add_task(name, total=total or None, amount="")
        else:
            click.echo(f"{name}: {total:,} {unit}" if unit else f"{name}")

    def advance(self, amount: int) -> None:
        self.done += amount
        if self.task is not None:
            self.progress.update(self.task, advance=amount, amount=self._amount())

    def note(self, text: str) -> None:
        if self.live:
            self.progress.console.print(f"  {text}")
        else:
            click.echo(f"  {text}")


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def register(cli: click.Group) -> None:
    @cli.group()
    def backup():
        """Back the site up, check backups, and restore them (also into another database).

        \b
        Examples:
          sitehost backup create
          sitehost backup verify backups/sitehost-backup-20260101T020000000Z-1a2b3c.tar
          sitehost backup restore FILE --into postgresql+psycopg://sitehost@db/school
        """

    @backup.command("create")
    @click.option("--to", "to", type=click.Path(path_type=Path), default=None,
                  help="Archive file (or folder) to write; default: [plugins.backup] directory, with retention.")
    @click.pass_context
    def create_command(ctx, to):
        """Back up every table of every plugin and the uploads into one archive, while the site serves.

        \b
        Examples:
          sitehost backup create
          sitehost backup create --to /mnt/usb/before-upgrade.tar
        """
        from .archive import ArchiveError
        from .service import backup_site

        from .shelf import where_kept

        started = time.monotonic()
        with open_site(ctx, plugin="backup") as app:
            try:
                with ConsoleReporter() as reporter:
                    result, removed = backup_site(app, to, reporter)
            except (FileExistsError, ArchiveError, OSError) as error:
                raise click.ClickException(str(error)) from error
            kept = result.path if result.path.exists() else f"{result.path.name} in {where_kept(app)}"
        manifest = result.manifest
        rows = sum(table["rows"] for table in manifest["tables"])
        click.echo(f"backup written: {kept}")
        click.echo(f"  {len(manifest['tables'])} tables, {rows:,} rows; {manifest['uploads']['count']} uploads "
                   f"({_megabytes(manifest['uploads']['bytes'])}); archive {_megabytes(result.size)}; "
                   f"{time.monotonic() - started:.1f} s; snapshot: {manifest['snapshot']['method']}")
        for warning in manifest["warnings"]:
            click.echo(f"  warning: {warning}")
        for name in removed:
            click.echo(f"  removed old backup {name} ([plugins.backup] keep)")

    @backup.command("list")
    @click.pass_context
    def list_command(ctx):
        """The archives in the backups folder, newest first, with what each holds.

        \b
        Example:
          sitehost backup list
        """
        from .archive import ArchiveError, PARTIAL
        from .shelf import manifest_of, stored_archives, where_kept

        with open_site(ctx, plugin="backup") as app:
            directory = settings_of(app).directory
            archives = list(reversed(stored_archives(app)))
            if not archives:
                click.echo(f"no backups in {where_kept(app)}")
            for found in archives:
                try:
                    manifest = manifest_of(app, found.key)
                except ArchiveError as error:
                    click.echo(f"{found.key}  {_megabytes(found.size)}  UNREADABLE: {error}")
                    continue
                rows = sum(table["rows"] for table in manifest["tables"])
                click.echo(f"{found.key}  {manifest['created']}  {_megabytes(found.size)}  "
                           f"{manifest['snapshot']['engine']}  {len(manifest['tables'])} tables, {rows:,} rows, "
                           f"{manifest['uploads']['count']} uploads")
        if directory.is_dir():
            for path in sorted(directory.glob("*" + PARTIAL)):
                click.echo(f"{path.name}  incomplete (a backup in progress, or one that was interrupted)")

    @backup.command("verify")
    @click.argument("archive", type=click.Path(path_type=Path))
    @click.pass_context
    def verify_command(ctx, archive):
        """Check ARCHIVE as a restore checks it: every table and file against its manifest's SHA-256
        checksums, every upload path inside the uploads folder, every table defined by a plugin
        installed here.

        \b
        Example:
          sitehost backup verify backups/sitehost-backup-20260101T020000000Z-1a2b3c.tar
        """
        from .archive import ArchiveError
        from .restore import RestoreRefused, check_archive
        from .service import archive_file, catalog_for

        started = time.monotonic()
        settings = command_settings(ctx)
        catalog = catalog_for(settings)
        try:
            with ConsoleReporter() as reporter, archive_file(settings, archive) as path:
                reporter.stage("verify", path.stat().st_size if path.is_file() else 0, "bytes")
                verified = check_archive(path, catalog, StageAdapter(reporter))
        except ArchiveError as error:
            raise click.ClickException(f"{archive} is damaged: {error}") from error
        except RestoreRefused as error:
            raise click.ClickException(f"{archive} cannot be restored here: {error}") from error
        manifest = verified.manifest
        rows = sum(table["rows"] for table in manifest["tables"])
        click.echo(f"{archive}: OK, {verified.checked_tables} tables ({rows:,} rows) and {verified.checked_files} "
                   f"uploads match their checksums ({time.monotonic() - started:.1f} s)")
        click.echo(f"  site {manifest['site'].get('name', '')!r}, sitehost {manifest['sitehost_version']}, "
                   f"made {manifest['created']} from {manifest['snapshot']['engine']}, "
                   f"schema {manifest['schema_version']}")

    @backup.command("restore")
    @click.argument("archive", type=click.Path(path_type=Path))
    @click.option("--into", "into", default=None, metavar="DATABASE_URL",
                  help="Database to restore into (default: the site's own); how a site moves to PostgreSQL.")
    @click.option("--uploads", "uploads", type=click.Path(path_type=Path), default=None,
                  help="Uploads folder to restore into (default: the configured one).")
    @click.option("--force", is_flag=True, help="Replace a target that is not empty (its uploads are kept aside).")
    @click.option("--stop-server", "stop_server", is_flag=True,
                  help="Stop the `sitehost serve` processes serving the target (SIGTERM; they finish their "
                       "requests), wait until they exit, then restore.")
    @click.pass_context
    def restore_command(ctx, archive, into, uploads, force, stop_server):
        """Restore ARCHIVE after verifying it; the target must be empty unless --force.

        ARCHIVE is a file, or the name of an archive the site keeps in its object store
        (`[storage] backend = "s3"`), which is downloaded first; the uploads go where `[storage]` says.

        The load is one transaction: interrupted, the target keeps what it had. A target that
        a `sitehost serve` process serves is refused (every server holds a lock on its database,
        host/server_lock.py) unless --stop-server; no server starts on it while the restore runs.

        \b
        Examples:
          sitehost backup restore backups/sitehost-backup-20260101T020000000Z-1a2b3c.tar
          sitehost backup restore move.tar --into postgresql+psycopg://sitehost@db/school
        """
        from .archive import ArchiveError
        from .restore import RestoreRefused
        from .service import restore_site

        settings = command_settings(ctx)
        started = time.monotonic()
        try:
            with held_for_restore(into or settings.resolved_database_url(), stop_servers=stop_server) as stopped:
                for server in stopped:
                    click.echo(f"stopped {server.describe()}")
                with ConsoleReporter() as reporter:
                    result = restore_site(settings, archive, into, uploads, force, reporter)
        except ServersRunning as error:
            elsewhere = [server for server in error.servers if not server.here]
            advice = ("stop them there first" if elsewhere and stop_server
                      else "stop it first, or pass --stop-server" if not stop_server
                      else "they did not stop in time")
            raise click.ClickException(f"nothing was restored: {error}; {advice}") from error
        except ArchiveError as error:
            raise click.ClickException(f"{archive} is damaged, nothing was restored: {error}") from error
        except RestoreRefused as error:
            raise click.ClickException(f"nothing was restored: {error}") from error
        except FileNotFoundError as error:
            raise click.ClickException(str(error)) from error
        from sqlalchemy.engine import make_url

        shown = make_url(into or settings.resolved_database_url()).render_as_string(hide_password=True)
        click.echo(f"restored {archive.name} into {shown}: {result.tables} tables, {result.rows:,} rows, "
                   f"{result.files} uploads ({time.monotonic() - started:.1f} s)")
        if result.moved_aside is not None:
            click.echo(f"  the uploads folder that was there is kept as {result.moved_aside}")
        click.echo(f"  made {result.manifest['created']} from {result.manifest['snapshot']['engine']}; "
                   f"sequences set, full-text indexes rebuilt")
