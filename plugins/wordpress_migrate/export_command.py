"""`sitehost export wordpress [--out FILE]`: the whole site as a WordPress export (WXR 1.2)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from host.commands import open_site

from .export import export_site


def _progress_bar():
    """A rich progress line on stderr when it is a terminal (stdout may be the file itself)."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed:,} items"),
                    TimeElapsedColumn(), console=console, disable=not console.is_terminal, transient=True)


def register(cli: click.Group) -> None:
    @cli.group("export")
    def export_group():
        """Write the site out in another system's format.

        \b
        Examples:
          sitehost export wordpress --out school.xml
        """

    @export_group.command("wordpress")
    @click.option("--out", "out", type=click.Path(dir_okay=False, writable=True, path_type=Path),
                  help="Write the file here (replaced only once the export is complete); stdout when not given.")
    @click.pass_context
    def export_wordpress(ctx, out: Path | None):
        """Write the whole site as a WordPress export (WXR 1.2): authors, categories, tags and other
        terms, posts, pages, attachments, comments and every plugin's items.

        WordPress's importer (Tools > Import > WordPress) reads the file, and so does
        `sitehost import wordpress`. Attachment files are named by URL; copy the uploads folder
        along with the file.

        \b
        Examples:
          sitehost export wordpress --out school.xml
          sitehost export wordpress | gzip > school.xml.gz
        """
        with open_site(ctx, plugin="wordpress_migrate") as app, _progress_bar() as progress:
            task = progress.add_task("Exporting", total=None)

            def advance(_item):
                progress.advance(task)

            if out is None:
                stream = sys.stdout.buffer
                summary = export_site(app, stream, progress=advance)
                stream.flush()
            else:
                # Written beside the target and renamed into place: a failed export never leaves a
                # truncated file under the name asked for (nor replaces a good one with it).
                handle, scratch = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent or ".")
                try:
                    with os.fdopen(handle, "wb") as stream:
                        summary = export_site(app, stream, progress=advance)
                    os.replace(scratch, out)
                except BaseException:
                    Path(scratch).unlink(missing_ok=True)
                    raise
        for line in summary.lines():
            click.echo(line + (f" Written to {out}." if out is not None else ""), err=True)
