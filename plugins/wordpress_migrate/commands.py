"""`sitehost import wordpress FILE.xml`: the import from the command line, with a progress bar and a summary."""

from __future__ import annotations

from pathlib import Path

import click

from host.commands import open_site


class ProgressBar:
    """A rich progress bar by bytes read, one per stage (check, import); plain lines when not on a terminal."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = Console(stderr=True)
        self.progress = Progress(TextColumn("[bold]{task.description:<7}"), BarColumn(), DownloadColumn(),
                                 TimeElapsedColumn(), console=self.console, disable=not self.console.is_terminal)
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total or None)
        self.progress.update(self.tasks[stage], completed=done)


def importing_user_id(app) -> int:
    """Items whose author is not in the file belong to the site's first administrator."""
    from host.auth.users import first_administrator_email, find_user

    with app.db.session() as session:
        email = first_administrator_email(app, session)
        user = find_user(app, session, email) if email else None
        return user.id if user is not None else 0


def register(cli: click.Group) -> None:
    @cli.group("import")
    def import_group():
        """Bring another system's content into this site.

        \b
        Example:
          sitehost import wordpress export.xml --uploads wp-content/uploads --report import-report.txt
        """

    @import_group.command("wordpress")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--uploads", "uploads", type=click.Path(exists=True, file_okay=False, path_type=Path),
                  help="A copy of the old site's wp-content/uploads folder: attachments' files are read from it.")
    @click.option("--fetch-media", is_flag=True, help="Download attachments missing from --uploads from their old "
                  "URLs (through the outbound guard: no private addresses, 64 MB and 30 s per file).")
    @click.option("--report", "report", type=click.Path(dir_okay=False, path_type=Path),
                  help="Also write the summary, with everything not imported and why, to this file.")
    @click.pass_context
    def wordpress(ctx, file: Path, uploads: Path | None, fetch_media: bool, report: Path | None):
        """Import FILE.xml, a WordPress export (Tools > Export, WXR 1.0 to 1.2).

        Users, terms, posts, pages, comments and attachments go to core; the plugins' items (contact
        forms, events, courses, page-builder templates, sign-up forms) to their plugins. Old links
        redirect (301) to the new items. Safe to repeat: a second run of the same file changes nothing,
        and a run stopped half-way goes on where it stopped.

        \b
        Example:
          sitehost import wordpress export.xml --uploads old-site/wp-content/uploads --report report.txt
        """
        from .reader import WxrError
        from .run import import_file

        with open_site(ctx, plugin="wordpress_migrate") as app:
            try:
                with ProgressBar() as bar:
                    summary = import_file(app, file, uploads_dir=uploads, fetch_media=fetch_media,
                                          importing_user_id=importing_user_id(app), progress=bar)
            except WxrError as refused:
                raise click.ClickException(f"{file}: {refused}; nothing was imported") from None
        lines = summary.lines()
        for line in lines:
            click.echo(line)
        if report is not None:
            report.write_text("\n".join(lines) + "\n", encoding="utf-8")
