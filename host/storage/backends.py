"""The two places files can live: a folder on this machine, or an S3-compatible object store.

A site's files are grouped in areas (media uploads, form files, backup archives). An area is a
folder in the local backend (the folder the plugin always used, so existing sites change nothing)
and a key prefix in the object store (`[storage] prefix` + area name + `/`). Keys are relative
POSIX paths (`2025/03/photo.jpg`); a key that would leave its area is refused.
"""

from __future__ import annotations

import abc
import datetime
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Iterator

CHUNK = 256 * 1024
PRIVATE_FILE, PRIVATE_FOLDER = 0o600, 0o700


class StorageError(OSError):
    """The store could not do what was asked (unreachable, refused, misconfigured); the message says why."""


class ObjectExists(StorageError, FileExistsError):
    """An exclusive put found an object already there under that key."""


@dataclass(frozen=True)
class ObjectInfo:
    key: str  # relative to the area
    size: int
    modified: datetime.datetime  # aware, UTC
    etag: str = ""


def checked_key(key: str) -> str:
    """`key` when it is a relative path that stays inside its area, else ValueError."""
    path = PurePosixPath(key)
    if not key or path.is_absolute() or any(part in ("", ".", "..") for part in key.split("/")) \
            or "\\" in key or "\x00" in key:
        raise ValueError(f"not a storage key: {key!r}")
    return key


class Area(abc.ABC):
    """One area's files: what every backend implements (LocalArea, S3Area), and what is built on that."""

    backend = ""

    @abc.abstractmethod
    def put(self, key: str, data: bytes | BinaryIO, exclusive: bool = False, content_type: str = "") -> None:
        """Store `data` (bytes or a readable binary file) under `key`; `exclusive`: ObjectExists if taken.
        `content_type` is kept with the object where the backend keeps one (S3), so a store that serves
        it by signed URL answers with the right type even when it ignores `response-content-type`."""

    @abc.abstractmethod
    def open(self, key: str) -> BinaryIO:
        """A readable binary stream of the object (close it); FileNotFoundError when there is none."""

    @abc.abstractmethod
    def get(self, key: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        """The object's bytes from `start` (`length` of them, or to the end), chunk by chunk."""

    def read(self, key: str) -> bytes:
        with self.open(key) as handle:
            return handle.read()

    @abc.abstractmethod
    def stat(self, key: str) -> ObjectInfo | None:
        """Size, time and etag of the object, or None when there is none."""

    def exists(self, key: str) -> bool:
        return self.stat(key) is not None

    def size(self, key: str) -> int | None:
        found = self.stat(key)
        return found.size if found is not None else None

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Remove the object (nothing happens when there is none)."""

    def delete_prefix(self, prefix: str) -> int:
        """Remove every object whose key starts with `prefix`; how many went."""
        removed = 0
        for found in list(self.list(prefix)):
            self.delete(found.key)
            removed += 1
        return removed

    @abc.abstractmethod
    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Every object whose key starts with `prefix`, in key order."""

    def move(self, key: str, target: "Area") -> None:
        """Put the object into `target` under the same key and remove it here."""
        with self.open(key) as handle:
            target.put(key, handle)
        self.delete(key)

    def url_for(self, key: str, expires: int, content_type: str = "", download_name: str = "") -> str | None:
        """A signed URL that lets anyone holding it read the object for `expires` seconds, or None
        when the backend has none (the local folder: sitehost serves it itself)."""
        return None

    def local_path(self, key: str) -> Path | None:
        """The object's file on this machine (local backend only), for the fast serving path."""
        return None


class LocalArea(Area):
    """An area that is a folder. `private`: folders 0700 and files 0600 (form files, backup archives)."""

    backend = "local"

    def __init__(self, folder: str | os.PathLike, private: bool = False):
        self.root = Path(folder).expanduser().resolve()
        self.private = private
        self._prefix = str(self.root) + os.sep

    def path(self, key: str) -> Path:
        return self.root / checked_key(key)

    def local_path(self, key: str) -> Path | None:
        return self.path(key)

    def _make_parent(self, target: Path) -> None:
        if self.private:
            for folder in reversed([target.parent, *target.parent.parents]):
                if folder == self.root or self.root in folder.parents:
                    if not folder.is_dir():
                        folder.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)

    def put(self, key: str, data: bytes | BinaryIO, exclusive: bool = False, content_type: str = "") -> None:
        target = self.path(key)  # a local file has no content type: serve_object gives the mimetype
        self._make_parent(target)
        mode = PRIVATE_FILE if self.private else 0o666
        if exclusive:
            try:  # O_EXCL: never over an existing file, even one another process is writing now
                descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                raise ObjectExists(f"{key} exists") from None
            with os.fdopen(descriptor, "wb") as handle:
                _write(handle, data)
            return
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")  # a reader never sees half a file
        with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as handle:
            _write(handle, data)
        os.replace(partial, target)

    def open(self, key: str) -> BinaryIO:
        return open(self.path(key), "rb")

    def get(self, key: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        with self.open(key) as handle:
            handle.seek(start)
            remaining = length
            while remaining is None or remaining > 0:
                data = handle.read(CHUNK if remaining is None else min(CHUNK, remaining))
                if not data:
                    return
                if remaining is not None:
                    remaining -= len(data)
                yield data

    def stat(self, key: str) -> ObjectInfo | None:
        try:
            found = os.stat(self.path(key))
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return None
        if not os.path.isfile(self.path(key)):
            return None
        modified = datetime.datetime.fromtimestamp(found.st_mtime, datetime.timezone.utc)
        return ObjectInfo(key, found.st_size, modified, f"{found.st_ino:x}-{found.st_mtime_ns:x}-{found.st_size:x}")

    def delete(self, key: str) -> None:
        target = self.path(key)
        target.unlink(missing_ok=True)
        folder = target.parent  # empty folders the key made go too (form files' random folders)
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        if not self.root.is_dir():
            return
        found = []
        for folder, directories, files in os.walk(self.root):
            directories.sort()
            for name in files:
                path = Path(folder) / name
                # dot files are this class's own half-written files (and downloads being made)
                if name.startswith(".") or path.is_symlink() or not path.is_file():
                    continue
                key = path.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    found.append(key)
        for key in sorted(found):
            info = self.stat(key)
            if info is not None:
                yield info


class S3Area(Area):
    """An area that is a key prefix of a bucket in an S3-compatible store (through boto3's client)."""

    backend = "s3"

    def __init__(self, client, bucket: str, prefix: str):
        self.client, self.bucket, self.prefix = client, bucket, prefix

    def object_key(self, key: str) -> str:
        return self.prefix + checked_key(key)

    def put(self, key: str, data: bytes | BinaryIO, exclusive: bool = False, content_type: str = "") -> None:
        name = self.object_key(key)
        typed = {"ContentType": content_type} if content_type else {}
        with _s3_errors(key):
            if isinstance(data, (bytes, bytearray, memoryview)):
                extra = {"IfNoneMatch": "*"} if exclusive else {}  # S3's conditional write: never over another
                self.client.put_object(Bucket=self.bucket, Key=name, Body=bytes(data), **extra, **typed)
            else:  # a file: multipart when large, read in chunks, never whole into memory
                if exclusive and self.stat(key) is not None:
                    raise ObjectExists(f"{key} exists")
                self.client.upload_fileobj(data, self.bucket, name, ExtraArgs=typed or None)

    def open(self, key: str) -> BinaryIO:
        with _s3_errors(key):
            return self.client.get_object(Bucket=self.bucket, Key=self.object_key(key))["Body"]

    def get(self, key: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        extra = {}
        if start or length is not None:
            extra["Range"] = f"bytes={start}-{'' if length is None else start + length - 1}"
        with _s3_errors(key):
            body = self.client.get_object(Bucket=self.bucket, Key=self.object_key(key), **extra)["Body"]
        try:
            with _s3_errors(key):
                yield from body.iter_chunks(CHUNK)
        finally:
            body.close()

    def stat(self, key: str) -> ObjectInfo | None:
        name = self.object_key(key)
        try:
            with _s3_errors(key):
                found = self.client.head_object(Bucket=self.bucket, Key=name)
        except FileNotFoundError:
            return None
        return ObjectInfo(key, found["ContentLength"], found["LastModified"], found.get("ETag", "").strip('"'))

    def delete(self, key: str) -> None:
        with _s3_errors(key):
            self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key))

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        paginator = self.client.get_paginator("list_objects_v2")
        with _s3_errors(prefix or "(all)"):
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self.prefix + prefix):
                for item in page.get("Contents", []):
                    yield ObjectInfo(item["Key"][len(self.prefix):], item["Size"], item["LastModified"],
                                     item.get("ETag", "").strip('"'))

    def move(self, key: str, target: Area) -> None:
        if not (isinstance(target, S3Area) and target.bucket == self.bucket):
            return super().move(key, target)
        with _s3_errors(key):  # a copy inside the store: the bytes never leave it
            self.client.copy_object(Bucket=self.bucket, Key=target.object_key(key),
                                    CopySource={"Bucket": self.bucket, "Key": self.object_key(key)})
        self.delete(key)

    def url_for(self, key: str, expires: int, content_type: str = "", download_name: str = "") -> str | None:
        params = {"Bucket": self.bucket, "Key": self.object_key(key)}
        if content_type:
            params["ResponseContentType"] = content_type
        if download_name:
            params["ResponseContentDisposition"] = f'attachment; filename="{download_name}"'
        return self.client.generate_presigned_url("get_object", Params=params, ExpiresIn=int(expires))


def _write(handle, data: bytes | BinaryIO) -> None:
    if isinstance(data, (bytes, bytearray, memoryview)):
        handle.write(data)
    else:
        shutil.copyfileobj(data, handle, CHUNK)


@contextmanager
def _s3_errors(key: str):
    """botocore's errors as the OSErrors callers already handle: a missing object is FileNotFoundError,
    a refused conditional write ObjectExists, anything else StorageError (named, never raw)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as error:
        code = str(error.response.get("Error", {}).get("Code", ""))
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code in ("NoSuchKey", "404", "NotFound") or (status == 404 and code != "NoSuchBucket"):
            raise FileNotFoundError(f"{key}: no such object") from None
        if code in ("PreconditionFailed", "ConditionalRequestConflict") or status == 412:
            raise ObjectExists(f"{key} exists") from None
        raise StorageError(f"object store refused {key}: {code or status}") from error
    except BotoCoreError as error:
        raise StorageError(f"object store unreachable for {key}: {error}") from error
