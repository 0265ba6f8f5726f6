"""Where finished archives are kept: the `backups` storage area (host.storage).

On the local backend that is `[plugins.backup] directory`, as it always was. On S3 an archive is
still written in that folder (sequentially, with its checksums), then uploaded to `backups/` of the
store with a copy of its manifest beside it (`NAME.manifest.json`), so that a listing reads one small
object per archive instead of each whole tar; the local copy then goes. Every node sees the same
archives, and a restore or a check downloads the one it needs into the folder first.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from host import PRIVATE_FILE, make_private_folder
from host.storage import Area, ObjectInfo

from .archive import parse_manifest, read_manifest
from .create import is_archive_name
from .settings import settings_of

MANIFEST_SUFFIX = ".manifest.json"


def backups_area(app) -> Area:
    return app.storage.area("backups", settings_of(app).directory, private=True)


def where_kept(app) -> str:
    """The folder, or the object store's place, of the archives (for messages and the admin page)."""
    area = backups_area(app)
    if area.local_path("x") is not None:
        return str(settings_of(app).directory)
    return f"backups/ of {app.storage.describe()}"


def stored_archives(app) -> list[ObjectInfo]:
    """The complete archives, oldest first (their names start with the UTC time)."""
    return sorted((found for found in backups_area(app).list() if is_archive_name(found.key)),
                  key=lambda found: found.key)


def find(app, name: str) -> ObjectInfo | None:
    """The archive `name`, or None (a name this plugin never gives, or gone); no file is opened before
    the name is checked."""
    if not is_archive_name(name):
        return None
    return backups_area(app).stat(name)


def publish(app, path: Path, manifest: dict) -> None:
    """Put a finished archive written at `path` where the site keeps its archives (nothing to do when
    that is the local folder it was written in)."""
    area = backups_area(app)
    if area.local_path(path.name) is not None:
        return
    with open(path, "rb") as handle:
        area.put(path.name, handle)
    area.put(path.name + MANIFEST_SUFFIX, json.dumps(manifest).encode("utf-8"))
    path.unlink(missing_ok=True)


def manifest_of(app, name: str) -> dict:
    """The archive's manifest; ArchiveError when it cannot be read."""
    area = backups_area(app)
    local = area.local_path(name)
    if local is not None:
        return read_manifest(local)
    try:
        data = area.read(name + MANIFEST_SUFFIX)
    except FileNotFoundError:
        # An archive put there by `sitehost storage copy` or by hand: read once, then kept beside it.
        with local_copy(app, name) as path:
            manifest = read_manifest(path)
        area.put(name + MANIFEST_SUFFIX, json.dumps(manifest).encode("utf-8"))
        return manifest
    return parse_manifest(data, name)


@contextmanager
def local_copy(app, name: str) -> Iterator[Path]:
    """The archive as a file on this machine for as long as the block runs (a download from the store
    into the backups folder, 0600, removed afterwards; on the local backend, the archive itself)."""
    area = backups_area(app)
    local = area.local_path(name)
    if local is not None:
        yield local
        return
    folder = settings_of(app).directory
    make_private_folder(folder)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".download", dir=folder)
    try:
        os.fchmod(descriptor, PRIVATE_FILE)
        with os.fdopen(descriptor, "wb") as sink:
            for chunk in area.get(name):
                sink.write(chunk)
        yield Path(temporary)
    finally:
        Path(temporary).unlink(missing_ok=True)


def remove(app, name: str) -> None:
    area = backups_area(app)
    area.delete(name)
    if area.local_path(name) is None:
        area.delete(name + MANIFEST_SUFFIX)


def apply_retention(app, keep: int) -> list[str]:
    """Remove all but the newest `keep` archives (0 keeps every one); the names removed."""
    if keep <= 0:
        return []
    archives = stored_archives(app)
    removed = [found.key for found in archives[:-keep]] if len(archives) > keep else []
    for name in removed:
        remove(app, name)
    return removed
