"""The backup operations as the CLI and the tests call them, given sitehost Settings or an App."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from host import make_private_folder

from .catalog import Catalog, build_catalog
from .create import BackupResult, apply_retention, create_backup
from .progress import SILENT, Reporter
from .restore import RestoreResult, restore_archive
from .settings import read_settings


def backup_site(app, to: Path | None = None, reporter: Reporter = SILENT) -> tuple[BackupResult, list[Path]]:
    """Back the site of `app` up: into `to` (a file, or a folder), or the configured folder with retention."""
    settings = read_settings(app)
    if to is None:
        result = create_backup(app, settings.directory, reporter)
        return result, apply_retention(settings.directory, settings.keep)
    to = Path(to)
    if to.is_dir():
        return create_backup(app, to.resolve(), reporter), []
    if to.exists():
        raise FileExistsError(f"{to} exists already: name a new file or a folder")
    make_private_folder(to.parent)
    return create_backup(app, to.parent.resolve(), reporter, name=to.name), []


def catalog_for(settings) -> Catalog:
    """The tables this installation's plugins define, learnt on a scratch site (the target is not touched)."""
    from host.app import create_app

    with tempfile.TemporaryDirectory(prefix="sitehost-catalog-") as scratch:
        scratch_settings = dataclasses.replace(
            settings, database_url=f"sqlite:///{scratch}/catalog.db", uploads_dir=f"{scratch}/uploads",
            warnings=[], plugins={**settings.plugins, "backup": {**settings.plugins.get("backup", {}),
                                                                  "directory": f"{scratch}/backups"}})
        app = create_app(scratch_settings)
        try:
            return build_catalog(app)
        finally:
            app.close()


def restore_site(settings, archive: Path, target_url: str | None = None, uploads_dir: Path | None = None,
                 force: bool = False, reporter: Reporter = SILENT) -> RestoreResult:
    """Restore `archive` into `target_url` (default: the configured database) and the uploads folder."""
    from host.app import create_app

    target = target_url or settings.resolved_database_url()
    uploads = Path(uploads_dir or settings.uploads_dir).resolve()

    def start_site(url: str) -> None:
        reporter.stage("indexes", 0, "")
        app = create_app(dataclasses.replace(settings, database_url=url, uploads_dir=str(uploads), warnings=[]))
        app.close()

    return restore_archive(Path(archive), target, catalog_for(settings), uploads, force=force, reporter=reporter,
                           start_site=start_site)
