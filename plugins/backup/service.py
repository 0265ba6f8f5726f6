"""The backup operations as the CLI and the tests call them, given sitehost Settings or an App."""

from __future__ import annotations

import dataclasses
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from host import create_app, make_private_folder
from host.storage import Storage
from host.storage import load_storage_settings

from .catalog import Catalog, build_catalog
from . import shelf
from .create import BackupResult, create_backup, is_archive_name
from .progress import SILENT, Reporter
from .restore import RestoreRefused, RestoreResult, restore_archive
from .settings import settings_of


def backup_site(app, to: Path | None = None, reporter: Reporter = SILENT) -> tuple[BackupResult, list[str]]:
    """Back the site of `app` up: into `to` (a file, or a folder), or where the site keeps its archives
    (the configured folder, or the object store) with retention; (result, names of archives removed)."""
    settings = settings_of(app)
    if to is None:
        result = create_backup(app, settings.directory, reporter)
        shelf.publish(app, result.path, result.manifest)
        return result, shelf.apply_retention(app, settings.keep)
    to = Path(to)
    if to.is_dir():
        return create_backup(app, to.resolve(), reporter), []
    if to.exists():
        raise FileExistsError(f"{to} exists already: name a new file or a folder")
    make_private_folder(to.parent)
    return create_backup(app, to.parent.resolve(), reporter, name=to.name), []


@contextmanager
def scratch_site(settings) -> Iterator:
    """A throwaway site with this installation's plugins and storage settings, on a scratch database and
    folders (the target is not touched): to learn the catalog, or to reach the object store's archives."""
    with tempfile.TemporaryDirectory(prefix="sitehost-catalog-") as scratch:
        scratch_settings = dataclasses.replace(
            settings, database_url=f"sqlite:///{scratch}/catalog.db", uploads_dir=f"{scratch}/uploads",
            warnings=[], plugins={**settings.plugins, "backup": {**settings.plugins.get("backup", {}),
                                                                  "directory": f"{scratch}/backups"}})
        app = create_app(scratch_settings)
        try:
            yield app
        finally:
            app.close()


def catalog_for(settings) -> Catalog:
    """The tables this installation's plugins define, learnt on a scratch site (the target is not touched)."""
    with scratch_site(settings) as app:
        return build_catalog(app)


@contextmanager
def archive_file(settings, archive: Path) -> Iterator[Path]:
    """ARCHIVE as a file here: the path itself when there is one, else the archive of that name from the
    object store the site keeps its archives in (downloaded for the block, then removed)."""
    archive = Path(archive)
    if archive.is_file() or not is_archive_name(archive.name) or storage_of(settings).backend == "local":
        yield archive
        return
    with scratch_site(settings) as app:
        if shelf.find(app, archive.name) is None:
            yield archive  # the caller names what is missing
            return
        with shelf.local_copy(app, archive.name) as path:
            yield path


def storage_of(settings) -> Storage:
    """The site's storage as `[storage]` describes it (no site is opened)."""
    return Storage(load_storage_settings(settings.storage, settings.environment.get("storage")), settings.uploads_dir)


def restore_site(settings, archive: Path, target_url: str | None = None, uploads_dir: Path | None = None,
                 force: bool = False, reporter: Reporter = SILENT) -> RestoreResult:
    """Restore `archive` into `target_url` (default: the configured database) and the uploads folder."""
    target = target_url or settings.resolved_database_url()
    uploads = Path(uploads_dir or settings.uploads_dir).resolve()
    storage = storage_of(settings)
    if uploads_dir is not None and storage.backend != "local":
        raise RestoreRefused(f"the site keeps its uploads in {storage.describe()} ([storage] backend), so "
                             "--uploads (a folder) does not apply")

    def start_site(url: str) -> None:
        reporter.stage("indexes", 0, "")
        app = create_app(dataclasses.replace(settings, database_url=url, uploads_dir=str(uploads), warnings=[]))
        app.close()

    with archive_file(settings, archive) as path:
        return restore_archive(path, target, catalog_for(settings), uploads, force=force, reporter=reporter,
                               start_site=start_site, storage=storage)
