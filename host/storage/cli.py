"""`sitehost storage ...`: where the files are, and moving an existing site's files into the object store."""

from __future__ import annotations

import mimetypes

import click

from ..commands import open_site
from .backends import LocalArea


@click.group("storage")
def storage_group() -> None:
    """Where uploads, form files and backup archives are kept (`[storage]`, docs/storage.md).

    \b
    Example:
      sitehost storage copy --to s3
    """


@storage_group.command("info")
@click.pass_context
def info_command(ctx: click.Context) -> None:
    """Say where each kind of file is kept, and how many files and bytes are there.

    \b
    Example:
      sitehost storage info
    """
    with open_site(ctx) as app:
        click.echo(f"backend: {app.storage.describe()}; serve: {app.storage.settings.serve}")
        for name, folder, private, area in app.storage.known_areas():
            found = list(area.list())
            where = f"{app.storage.settings.prefix}{name}/" if area.backend == "s3" else folder
            click.echo(f"  {name}: {len(found)} files, {sum(item.size for item in found):,} bytes in {where}"
                       f"{' (private)' if private else ''}")


@storage_group.command("copy")
@click.option("--to", "to", type=click.Choice(["s3"]), required=True,
              help="Where to copy to: the object store `[storage]` names.")
@click.pass_context
def copy_command(ctx: click.Context, to: str) -> None:
    """Copy the files of this site's local folders into the object store, area by area.

    Run it after setting `[storage] backend = "s3"` (with the bucket and endpoint) and before
    starting the site on it: each area's folder (`uploads_dir`, the form files' and backups'
    folders) is read and every file missing from the store, or of another size, is written to it.
    The folders are left as they are. Run it again to copy what changed meanwhile.

    \b
    Example:
      sitehost storage copy --to s3
    """
    with open_site(ctx) as app:
        storage = app.storage
        if storage.backend != to:
            raise click.ClickException(f"[storage] backend is {storage.backend!r}: set backend = \"s3\", bucket "
                                       "and endpoint_url in sitehost.toml first (docs/storage.md); the copy reads "
                                       "the local folders and writes to that store")
        total = 0
        for name, folder, private, area in storage.known_areas():
            source = LocalArea(folder, private)
            present = {found.key: found.size for found in area.list()}
            copied = kept = 0
            for found in source.list():
                if present.get(found.key) == found.size:
                    kept += 1
                    continue
                with source.open(found.key) as handle:  # typed by name: a signed URL then serves the type
                    area.put(found.key, handle, content_type=mimetypes.guess_type(found.key)[0] or "")
                copied += 1
            total += copied
            click.echo(f"{name}: {copied} files copied from {source.root}, {kept} already there")
        click.echo(f"done: {total} files copied to {storage.describe()}")
