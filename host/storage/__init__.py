"""Where the site's files live, a host service: `app.storage` (host.storage.Storage).

    area = app.storage.area("uploads", app.settings.uploads_dir)
    area.put("2025/03/photo.jpg", data, exclusive=True)
    for chunk in area.get("2025/03/photo.jpg"): ...
    response = serve_object(area, "2025/03/photo.jpg", "image/jpeg")

Two backends (`[storage] backend`): `local`, the default, keeps each area in the folder its plugin
always used (so an existing site changes nothing); `s3` keeps every area under a key prefix of one
bucket of an S3-compatible store, so every node of a cluster sees the same files. Files are served
by `serve_object` (streamed with ranges and conditional requests, as bottle.static_file does for a
folder) or, for public files with `[storage] serve = "redirect"`, by a 302 to a signed URL
(`redirect_or_serve`). The operator's manual is docs/storage.md.

An essential part of the host (never disabled): this module holds its hook implementations.
"""

from __future__ import annotations

import email.utils
import os
import time

from ..hookspecs import hookimpl
from ..stash import STORAGE as STORAGE  # kept in host.stash (host.app reads it there)
from .backends import Area, LocalArea, ObjectExists, ObjectInfo, S3Area, StorageError, checked_key
from .settings import StorageSettings, load_storage_settings
from .cli import storage_group

__all__ = ["Area", "ObjectExists", "ObjectInfo", "STORAGE", "Storage", "StorageError", "StorageSettings",
           "checked_key", "load_storage_settings", "redirect_or_serve", "serve_object"]

class Storage:
    """The site's file store: one Area per kind of file, all on the configured backend."""

    def __init__(self, settings: StorageSettings, uploads_dir: str | os.PathLike = "uploads", client=None):
        self.settings = settings
        self.uploads_dir = uploads_dir
        self.backend = settings.backend
        self._client = client
        self._areas: dict[tuple[str, str, bool], Area] = {}

    @property
    def client(self):
        """boto3's S3 client (made once; boto3 clients may be shared by threads)."""
        if self._client is None:
            self._client = make_s3_client(self.settings)
        return self._client

    def area(self, name: str, folder: str | os.PathLike, private: bool = False) -> Area:
        """The area `name` (`uploads`, `form-files`, `backups`): `folder` on the local backend, the
        key prefix `[storage] prefix` + name + `/` on S3. `private`: owner-only files in the folder."""
        checked_key(name)
        found = self._areas.get((name, str(folder), private))
        if found is None:
            if self.backend == "s3":
                found = S3Area(self.client, self.settings.bucket, f"{self.settings.prefix}{name}/")
            else:
                found = LocalArea(folder, private)
            self._areas[(name, str(folder), private)] = found
        return found

    def known_areas(self) -> list[tuple[str, str, bool, Area]]:
        """(name, local folder, private, area) of every area opened so far: the uploads, and those the
        plugins open at start-up (form files, backups); what `sitehost storage copy` copies."""
        self.uploads()
        return sorted((name, folder, private, area) for (name, folder, private), area in self._areas.items())

    def uploads(self) -> Area:
        """The site's public uploads (`uploads_dir`, or `uploads/` in the store): media and what plugins
        publish beside them; backups carry this area's files."""
        return self.area("uploads", self.uploads_dir)

    def describe(self) -> str:
        if self.backend == "s3":
            where = self.settings.endpoint_url or "AWS S3"
            return f"s3://{self.settings.bucket}/{self.settings.prefix} at {where}"
        return "local folders"


def make_s3_client(settings: StorageSettings):
    """A boto3 S3 client for `[storage]`; credentials from boto3's usual chain (environment, files, roles)."""
    import boto3
    from botocore.config import Config

    config = Config(signature_version="s3v4", retries={"max_attempts": 3, "mode": "standard"},
                    connect_timeout=5, read_timeout=60, max_pool_connections=32,
                    # Path-style addresses for S3-compatible servers (http://host:port/bucket/key), which
                    # rarely have a DNS name per bucket; AWS itself chooses.
                    s3={"addressing_style": "path" if settings.endpoint_url else "auto"})
    return boto3.session.Session().client("s3", endpoint_url=settings.endpoint_url or None,
                                          region_name=settings.region or None, config=config)


# --- serving -----------------------------------------------------------------------------------

def serve_object(area: Area, key: str, mimetype: str, headers: dict[str, str] | None = None):
    """The object as a bottle response to the current request: Content-Type, Length, Last-Modified,
    ETag, 304 for a matching If-None-Match / If-Modified-Since, 206 for a Range, 416 for a bad one,
    no body for HEAD. A local file goes through bottle.static_file (the fast path, unchanged); an
    object in the store is streamed from it in chunks, never held whole in memory."""
    import bottle

    path = area.local_path(key)
    if path is not None:
        response = bottle.static_file(path.name, root=str(path.parent), mimetype=mimetype)
        if headers and not isinstance(response, bottle.HTTPError):
            for name, value in headers.items():
                response.set_header(name, value)
        return response
    info = area.stat(key)
    if info is None:
        return bottle.HTTPError(404, "File does not exist.")
    return _streamed(area, info, mimetype, dict(headers or {}))


def _streamed(area: Area, info: ObjectInfo, mimetype: str, headers: dict[str, str]):
    import bottle

    environ = bottle.request.environ
    if mimetype[:5] == "text/" and "charset=" not in mimetype:
        mimetype += "; charset=UTF-8"
    headers["Content-Type"] = mimetype
    headers["Content-Length"] = str(info.size)
    modified = info.modified.timestamp()
    headers["Last-Modified"] = email.utils.formatdate(modified, usegmt=True)
    headers["Date"] = email.utils.formatdate(time.time(), usegmt=True)
    etag = f'"{info.etag}"' if info.etag else ""
    if etag:
        headers["ETag"] = etag
        wanted = environ.get("HTTP_IF_NONE_MATCH")
        if wanted and (wanted == etag or wanted.strip('"') == info.etag):
            return bottle.HTTPResponse(status=304, **headers)
    since = environ.get("HTTP_IF_MODIFIED_SINCE")
    if since:
        parsed = bottle.parse_date(since.split(";")[0].strip())
        if parsed is not None and parsed >= int(modified):
            return bottle.HTTPResponse(status=304, **headers)
    headers["Accept-Ranges"] = "bytes"
    head = bottle.request.method == "HEAD"
    wanted_range = environ.get("HTTP_RANGE")
    if wanted_range:
        ranges = list(bottle.parse_range_header(wanted_range, info.size))
        if not ranges:
            return bottle.HTTPError(416, "Requested Range Not Satisfiable")
        start, end = ranges[0]
        headers["Content-Range"] = f"bytes {start}-{end - 1}/{info.size}"
        headers["Content-Length"] = str(end - start)
        body = "" if head else area.get(info.key, start, end - start)
        return bottle.HTTPResponse(body, status=206, **headers)
    return bottle.HTTPResponse("" if head else area.get(info.key), **headers)


def redirect_or_serve(app, area: Area, key: str, mimetype: str, headers: dict[str, str] | None = None,
                      public: bool = True, download_name: str = ""):
    """A 302 to a signed URL when `[storage] serve = "redirect"`, the file is `public` and the backend
    has URLs (S3); otherwise serve_object. A private file is never redirected: a signed URL could be
    passed on, and would outlive the permission check that let this caller see the file."""
    import bottle

    storage = app.storage
    if public and storage.settings.serve == "redirect":
        url = area.url_for(key, storage.settings.url_expires_seconds, mimetype, download_name)
        if url is not None:
            # Not kept by any cache longer than the signature lives: answered afresh each time.
            return bottle.HTTPResponse(status=302, Location=url, **{"Cache-Control": "no-store"})
    return serve_object(area, key, mimetype, headers)


# --- the host plugin -------------------------------------------------------------------------------

@hookimpl
def startup(app):
    """A wrong `[storage]` table stops the start with a ConfigError naming the setting."""
    settings = load_storage_settings(getattr(app.settings, "storage", None), app.settings.environment.get("storage"))
    app.stash[STORAGE] = Storage(settings, app.settings.uploads_dir)


@hookimpl
def register_commands(cli):
    cli.add_command(storage_group)
