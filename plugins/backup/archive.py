"""The backup archive: one tar file with a table file per table, the uploads and a manifest.

Layout (a plain, uncompressed POSIX tar that any `tar` can list):

    tables/<table>.jsonl.gz   one gzip-compressed JSON-lines file per table (codec.py)
    uploads/<path>            the uploads folder, file by file
    manifest.json             what the archive holds, with row counts and SHA-256 checksums

and after the tar's end, an end marker line that tar ignores:

    SITEHOST-BACKUP-END sha256=<archive> manifest=<manifest.json>\n

The manifest's table checksums are SHA-256 of the uncompressed JSON lines (so they depend on
the data alone: a backup of a restored site has the same ones); each upload's is of its bytes.
The end marker's `sha256` covers every byte before it, tar headers and padding included, so
that no flipped byte goes unnoticed; `manifest` names damage to the manifest itself. An
archive is written as `<name>.partial` and renamed once complete, so a backup that is
interrupted never looks finished. Archives hold every table, password hashes and site secrets
among them: they are created 0600 (owner only), never readable by other local users.
"""

from __future__ import annotations

import bisect
import gzip
import hashlib
import io
import json
import os
import queue
import tarfile
import tempfile
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable, Iterator

from host import PRIVATE_FILE
from host.storage import Area, ObjectInfo

FORMAT = "sitehost-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
TABLES = "tables/"
UPLOADS = "uploads/"
END_MARKER = b"SITEHOST-BACKUP-END sha256="
END_LENGTH = len(END_MARKER) + 64 + len(b" manifest=") + 64 + 1
SUFFIX = ".tar"
PARTIAL = ".partial"
CHUNK = 1024 * 1024
GZIP_LEVEL = 1  # JSON lines shrink ~5x even at level 1; higher levels cost far more time than they save
MAX_MANIFEST_BYTES = 256 * 1024 * 1024
# Longer than any path a file system takes (Linux: 4096 bytes), so no real upload is refused.
MAX_UPLOAD_PATH = 4096
BATCH_ROWS = 1000
QUEUED = 8  # batches waiting for the packing thread (bounds memory)

Progress = Callable[[str, int], None]  # (what, amount done since the last call)


class ArchiveError(Exception):
    """The archive cannot be trusted; the message names the table or file and what is wrong."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        shown = problems[:10] + ([f"... and {len(problems) - 10} more"] if len(problems) > 10 else [])
        super().__init__("; ".join(shown))


def table_member(name: str) -> str:
    return f"{TABLES}{name}.jsonl.gz"


class _HashingWriter(io.RawIOBase):
    """A write-only file that hashes what passes through it (the whole archive's checksum)."""

    def __init__(self, target):
        self.target = target
        self.digest = hashlib.sha256()
        self.position = 0

    def writable(self):
        return True

    def write(self, data):
        self.digest.update(data)
        self.target.write(data)
        self.position += len(data)
        return len(data)

    def tell(self):
        return self.position


class HashingReader:
    """A file being read (by tarfile) while its bytes are hashed and counted."""

    def __init__(self, source, progress: Progress | None = None):
        self.source = source
        self.digest = hashlib.sha256()
        self.size = 0
        self.progress = progress

    def read(self, size=-1):
        data = self.source.read(size)
        self.digest.update(data)
        self.size += len(data)
        if self.progress is not None and data:
            self.progress("bytes", len(data))
        return data


@dataclass
class TableResult:
    rows: int
    sha256: str
    size: int  # uncompressed bytes


class ArchiveWriter:
    """Writes one archive; `finish(manifest)` completes it, `abandon()` removes the partial file."""

    def __init__(self, path: Path, created: float):
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + PARTIAL)
        self.created = int(created)
        self._file = os.fdopen(os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE), "wb")
        self._hashing = _HashingWriter(self._file)
        self._tar = tarfile.open(fileobj=self._hashing, mode="w", format=tarfile.PAX_FORMAT)

    def _info(self, name: str, size: int) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.size = size
        info.mtime = self.created
        info.mode = 0o600
        return info

    def add_table(self, name: str, lines: Iterable[bytes], progress: Progress | None = None) -> TableResult:
        """Stream a table's JSON lines through gzip into a scratch file, then into the tar.

        Hashing and compressing run in a second thread (zlib and hashlib release the GIL), fed
        batches of lines through a short queue: encoding the next rows overlaps with compressing
        the last ones, and at most QUEUED batches are ever in memory.
        """
        digest = hashlib.sha256()
        rows = size = 0
        with tempfile.TemporaryFile(dir=self.partial.parent) as scratch:
            with gzip.GzipFile(fileobj=scratch, mode="wb", compresslevel=GZIP_LEVEL, mtime=0) as packed:
                pending: queue.Queue = queue.Queue(maxsize=QUEUED)
                failure: list[BaseException] = []

                def pack():
                    while (data := pending.get()) is not None:
                        if failure:
                            continue
                        try:
                            digest.update(data)
                            packed.write(data)
                        except BaseException as error:  # reported by the feeding thread
                            failure.append(error)

                packer = threading.Thread(target=pack, name="sitehost-backup-pack", daemon=True)
                packer.start()
                try:
                    batch: list[bytes] = []
                    for line in lines:
                        batch.append(line)
                        if len(batch) == BATCH_ROWS:
                            rows, size = self._queue_batch(pending, batch, rows, size, progress)
                            batch = []
                            if failure:
                                break
                    rows, size = self._queue_batch(pending, batch, rows, size, progress)
                finally:
                    pending.put(None)
                    packer.join()
                if failure:
                    raise failure[0]
            compressed = scratch.tell()
            scratch.seek(0)
            self._tar.addfile(self._info(table_member(name), compressed), scratch)
        return TableResult(rows=rows, sha256=digest.hexdigest(), size=size)

    @staticmethod
    def _queue_batch(pending, batch, rows, size, progress):
        if not batch:
            return rows, size
        data = b"".join(batch)
        pending.put(data)
        if progress is not None:
            progress("rows", len(batch))
        return rows + len(batch), size + len(data)

    def add_file(self, relative: str, area: Area, stored: ObjectInfo, progress: Progress | None = None) -> dict | None:
        """One upload of the storage area; None when it vanished before it could be read (deleted meanwhile)."""
        try:
            handle = area.open(stored.key)
        except FileNotFoundError:
            return None
        with handle:
            # A local file's size as it is now that it is open (it may have changed since it was listed).
            size = os.fstat(handle.fileno()).st_size if area.local_path(stored.key) is not None else stored.size
            reader = HashingReader(handle, progress)
            info = self._info(UPLOADS + relative, size)
            try:
                self._tar.addfile(info, reader)
            except OSError as error:  # shrank while being read: tarfile has padded nothing yet
                raise ArchiveError([f"upload {relative} changed while it was copied ({error})"]) from error
        return {"path": relative, "size": size, "sha256": reader.digest.hexdigest()}

    def finish(self, manifest: dict) -> Path:
        body = json.dumps(manifest, indent=1, ensure_ascii=False, sort_keys=False).encode("utf-8")
        self._tar.addfile(self._info(MANIFEST, len(body)), io.BytesIO(body))
        self._tar.close()
        marker = (END_MARKER + self._hashing.digest.hexdigest().encode() + b" manifest="
                  + hashlib.sha256(body).hexdigest().encode() + b"\n")
        self._file.write(marker)
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self.partial, self.path)
        return self.path

    def abandon(self) -> None:
        try:
            self._tar.close()
        except Exception:  # the partial file is removed anyway
            pass
        self._file.close()
        self.partial.unlink(missing_ok=True)


# --- reading ---------------------------------------------------------------------------

def read_end_marker(path: Path) -> tuple[str, str] | None:
    """(archive sha256, manifest sha256) from the end marker, or None when there is none."""
    size = path.stat().st_size
    if size < END_LENGTH:
        return None
    with open(path, "rb") as handle:
        handle.seek(size - END_LENGTH)
        tail = handle.read(END_LENGTH)
    if not tail.startswith(END_MARKER) or not tail.endswith(b"\n"):
        return None
    parts = tail[len(END_MARKER):-1].split(b" manifest=")
    if len(parts) != 2 or len(parts[0]) != 64 or len(parts[1]) != 64:
        return None
    return parts[0].decode("ascii", "replace"), parts[1].decode("ascii", "replace")


def read_manifest(path: Path) -> dict:
    """The manifest of an archive, found without reading the data (headers are skipped over)."""
    try:
        with tarfile.open(path, mode="r:") as tar:
            member = tar.getmember(MANIFEST)
            if member.size > MAX_MANIFEST_BYTES:
                raise ArchiveError([f"{MANIFEST} is implausibly large ({member.size} bytes)"])
            data = tar.extractfile(member).read()
    except KeyError:
        raise ArchiveError([f"{path.name} has no {MANIFEST}: it is truncated or not a sitehost backup"]) from None
    except (tarfile.TarError, EOFError, OSError) as error:
        raise ArchiveError([f"{path.name} cannot be read as a backup archive: {error}"]) from None
    return parse_manifest(data, path.name)


def parse_manifest(data: bytes, name: str) -> dict:
    try:
        manifest = json.loads(data)
    except ValueError as error:
        raise ArchiveError([f"{MANIFEST} of {name} is damaged: {error}"]) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError([f"{name} is not a sitehost backup (its manifest says otherwise)"])
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArchiveError([f"{name} is a backup of format version {manifest.get('format_version')!r}; "
                            f"this sitehost reads version {FORMAT_VERSION}"])
    if not isinstance(manifest.get("tables"), list) or not isinstance(manifest.get("uploads"), dict):
        raise ArchiveError([f"{MANIFEST} of {name} lacks its tables or uploads"])
    return manifest


def _describe(member_name: str) -> str:
    if member_name.startswith(TABLES) and member_name.endswith(".jsonl.gz"):
        return f"table {member_name[len(TABLES):-len('.jsonl.gz')]}"
    if member_name.startswith(UPLOADS):
        return f"upload {member_name[len(UPLOADS):]}"
    return member_name


def gzip_lines(fileobj) -> Iterator[bytes]:
    """The lines of a gzip member, read in bounded chunks; gzip's own CRC is checked at its end."""
    with gzip.GzipFile(fileobj=fileobj, mode="rb") as unpacked:
        yield from unpacked


@dataclass
class Verified:
    manifest: dict
    checked_tables: int = 0
    checked_files: int = 0
    bytes: int = 0
    problems: list[str] = field(default_factory=list)


def verify_archive(path: Path, progress: Progress | None = None) -> Verified:
    """Check every byte: the end marker's archive checksum, then each table and file against the manifest.

    Raises ArchiveError naming each damaged table or file (and the manifest, the tar structure
    or a truncation) when anything is wrong; returns the manifest otherwise.
    """
    path = Path(path)
    if not path.is_file():
        raise ArchiveError([f"{path} does not exist"])
    problems: list[str] = []
    marker = read_end_marker(path)
    if marker is None:
        problems.append(f"{path.name} has no end marker: the file is truncated or not a sitehost backup")
    body_size = path.stat().st_size - (END_LENGTH if marker else 0)
    whole = hashlib.sha256()
    found: dict[str, dict] = {}
    manifest_bytes: bytes | None = None
    with open(path, "rb") as handle:
        limited = _Limited(handle, body_size, whole, progress)
        current = "the start of the archive"
        try:
            with tarfile.open(fileobj=limited, mode="r|") as tar:
                for member in tar:
                    current = member.name
                    if not member.isfile():
                        problems.append(f"{member.name}: not a regular file")
                        continue
                    data = tar.extractfile(member)
                    if member.name == MANIFEST:
                        manifest_bytes = data.read(MAX_MANIFEST_BYTES + 1)
                    elif member.name.startswith(TABLES):
                        found[member.name] = _check_table_member(member.name, data, problems)
                    else:
                        found[member.name] = _hash_member(data)
                    current = f"the tar headers after {member.name}"
        except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
            problems.append(f"the archive is truncated or damaged in {_describe(current)}: {error}")
        limited.drain()
    if manifest_bytes is None:
        problems.append(f"{MANIFEST} is missing: the archive is truncated or not a sitehost backup")
        raise ArchiveError(problems)
    if marker is not None and hashlib.sha256(manifest_bytes).hexdigest() != marker[1]:
        problems.append(f"{MANIFEST} is damaged (its checksum does not match the end marker)")
    try:
        manifest = parse_manifest(manifest_bytes, path.name)
    except ArchiveError as error:
        raise ArchiveError(problems + error.problems) from None
    unsafe = manifest_problems(manifest)
    if unsafe:
        raise ArchiveError(problems + unsafe)
    result = Verified(manifest=manifest, bytes=body_size)
    for table in manifest["tables"]:
        name = table_member(table["name"])
        seen = found.pop(name, None)
        if seen is None:
            problems.append(f"table {table['name']}: missing from the archive")
            continue
        if seen.get("error"):
            problems.append(f"table {table['name']}: {seen['error']}")
            continue
        if seen["sha256"] != table["sha256"]:
            problems.append(f"table {table['name']}: checksum mismatch (the data was changed or damaged)")
        if seen["rows"] != table["rows"]:
            problems.append(f"table {table['name']}: {seen['rows']} rows where the manifest says {table['rows']}")
        result.checked_tables += 1
    for upload in manifest["uploads"].get("files", []):
        name = UPLOADS + upload["path"]
        seen = found.pop(name, None)
        if seen is None:
            problems.append(f"upload {upload['path']}: missing from the archive")
            continue
        if seen["sha256"] != upload["sha256"] or seen["size"] != upload["size"]:
            problems.append(f"upload {upload['path']}: checksum mismatch (the file was changed or damaged)")
        result.checked_files += 1
    for name in found:
        problems.append(f"{name}: in the archive but not in the manifest")
    if marker is not None and whole.hexdigest() != marker[0] and not problems:
        problems.append("the archive is damaged outside its tables and files (tar headers or padding): "
                        "its checksum does not match the end marker")
    if problems:
        raise ArchiveError(problems)
    return result


def _check_table_member(name: str, data, problems: list[str]) -> dict:
    digest = hashlib.sha256()
    rows = 0
    try:
        for line in gzip_lines(data):
            digest.update(line)
            rows += 1
    except (OSError, EOFError, zlib.error) as error:  # BadGzipFile is an OSError
        return {"error": f"the compressed data is damaged ({error})"}
    return {"sha256": digest.hexdigest(), "rows": rows}


def _hash_member(data) -> dict:
    digest = hashlib.sha256()
    size = 0
    while chunk := data.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
    return {"sha256": digest.hexdigest(), "size": size}


class _Limited(io.RawIOBase):
    """The archive's bytes up to its end marker, hashed as tarfile reads them."""

    def __init__(self, handle, size: int, digest, progress: Progress | None):
        self.handle = handle
        self.remaining = size
        self.digest = digest
        self.progress = progress

    def readable(self):
        return True

    def read(self, size=-1):
        if size is None or size < 0 or size > self.remaining:
            size = self.remaining
        data = self.handle.read(size)
        self.remaining -= len(data)
        self.digest.update(data)
        if self.progress is not None and data:
            self.progress("bytes", len(data))
        return data

    def readinto(self, buffer):
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Hash what tarfile left unread (end-of-archive blocks and padding)."""
        while self.read(CHUNK):
            pass


def manifest_problems(manifest: dict) -> list[str]:
    """What no restore may act on in a manifest whose checksums all match: an entry of the wrong
    shape, an upload path that leaves the uploads folder (absolute, `..`), a path listed twice, or
    one that is both a file and the folder of another. verify_archive applies it, so `sitehost
    backup verify` refuses exactly what a restore would refuse when unpacking the uploads."""
    problems = []
    for index, table in enumerate(manifest["tables"]):
        if not (isinstance(table, dict) and isinstance(table.get("name"), str) and table["name"]
                and isinstance(table.get("rows"), int) and isinstance(table.get("sha256"), str)
                and isinstance(table.get("columns"), list) and all(isinstance(name, str) for name in table["columns"])):
            problems.append(f"{MANIFEST}: table entry {index} lacks a name, rows, sha256 or columns")
    files = manifest["uploads"].get("files", [])
    if not isinstance(files, list):
        return problems + [f"{MANIFEST}: its uploads' files are not a list"]
    paths: set[str] = set()
    for index, entry in enumerate(files):
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str) and isinstance(entry.get("size"), int)
                and isinstance(entry.get("sha256"), str)):
            problems.append(f"{MANIFEST}: upload entry {index} lacks a path, size or sha256")
        elif safe_upload_path(entry["path"]) is None:
            problems.append(f"upload {entry['path']!r}: a path outside the uploads folder")
        elif entry["path"] in paths:
            problems.append(f"upload {entry['path']!r}: listed twice")
        else:
            paths.add(entry["path"])
    problems += [f"upload {path!r}: both a file and the folder of another upload" for path in _folders_of_others(paths)]
    return problems


def _folders_of_others(paths: set[str]) -> list[str]:
    """The paths that another path lies under. Sorted, every path under `p` follows `p + "/"` at once,
    so one binary search per path finds them: the cost grows with the manifest's size, not with the
    square of a path's depth (a crafted manifest may hold one very deep path)."""
    ordered = sorted(paths)
    found = []
    for path in ordered:
        folder = path + "/"
        index = bisect.bisect_left(ordered, folder)
        if index < len(ordered) and ordered[index].startswith(folder):
            found.append(path)
    return found


def safe_upload_path(relative: str) -> PurePosixPath | None:
    """The relative path of an upload member, or None when it would leave the uploads folder, or is not
    written as a backup writes it (`./x` and `a//b` would name the same file as `x` and `a/b`)."""
    if len(relative) > MAX_UPLOAD_PATH:
        return None
    path = PurePosixPath(relative)
    if not relative or path.is_absolute() or any(part in ("", ".", "..") for part in path.parts) \
            or path.as_posix() != relative or "\\" in relative or "\x00" in relative:
        return None
    return path


class ArchiveReader:
    """Random access to a verified archive's members, for restore."""

    def __init__(self, path: Path):
        self.tar = tarfile.open(path, mode="r:")

    def table_lines(self, name: str) -> Iterator[bytes]:
        member = self.tar.getmember(table_member(name))
        yield from gzip_lines(self.tar.extractfile(member))

    def upload(self, relative: str):
        return self.tar.extractfile(self.tar.getmember(UPLOADS + relative))

    def close(self) -> None:
        self.tar.close()
