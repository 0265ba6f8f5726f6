"""core/v2/media: uploads stored as files under the uploads folder, listed and edited as attachments.

Uploaded bytes are checked by content (magic numbers), not by the name the client gives:
a file whose extension does not match what it really is, or whose type is not allowed,
is refused. The size limit is `[plugins.core] max_upload_bytes` (10 MB by default).
"""

from __future__ import annotations

import base64
import hashlib
import os
import posixpath
import re
import struct
from typing import Any
from urllib.parse import unquote, urlsplit

from sqlalchemy import bindparam, select, text

from marshmallow import fields

from host import Page, PageRequest, RestError, RestResponse, Route, forbidden, invalid_param, not_found
from host.args import JsonSchemaField
from host.outbound import Limits, fetch
from host.stash import StashKey
from host.storage import Area, ObjectExists, checked_key, redirect_or_serve

from . import dates, item_schemas, render, store
from .changes import ITEM_CHANGES
from .posts import NAMESPACE, PostsController
from .schemas import MediaReadArgs, PostDeleteArgs, PostIdArgs, collection_args, media_write_args, with_id
from .shaping import (
    class_list, core_url, deleted_answer, generated_slug, guid_base, local_and_gmt, permalink, post_links, readable_by_anyone,
    site_url, user_can_read,
)
from .settings import settings_of
from .tables import ATTACHMENTS_ONLY, tables

ALLOWED = {
    "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "gif": "image/gif", "png": "image/png",
    "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "webp": "image/webp", "avif": "image/avif",
    "heic": "image/heic", "heif": "image/heif", "ico": "image/x-icon",
    "mp3": "audio/mpeg", "m4a": "audio/mpeg", "ogg": "audio/ogg", "wav": "audio/wav", "flac": "audio/flac",
    "wma": "audio/x-ms-wma", "mid": "audio/midi",
    "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "wmv": "video/x-ms-wmv",
    "avi": "video/avi", "mpeg": "video/mpeg", "ogv": "video/ogg", "webm": "video/webm", "3gp": "video/3gpp",
    "flv": "video/x-flv",
    "txt": "text/plain", "csv": "text/csv", "tsv": "text/tab-separated-values", "ics": "text/calendar",
    "vtt": "text/vtt", "srt": "text/plain",
    "pdf": "application/pdf", "rtf": "application/rtf", "zip": "application/zip", "gz": "application/x-gzip",
    "7z": "application/x-7z-compressed", "tar": "application/x-tar", "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ppt": "application/vnd.ms-powerpoint",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odp": "application/vnd.oasis.opendocument.presentation",
}
UNFILTERED_ONLY = {"htm": "text/html", "html": "text/html", "js": "application/javascript"}
# Leading bytes of the formats whose content we can recognise, and the MIME types they prove.
SIGNATURES = [
    (b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"), (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"), (b"BM", "image/bmp"), (b"II*\x00", "image/tiff"), (b"MM\x00*", "image/tiff"),
    (b"%PDF-", "application/pdf"), (b"PK\x03\x04", "application/zip"), (b"\x1f\x8b", "application/x-gzip"),
    (b"{\\rtf", "application/rtf"), (b"ID3", "audio/mpeg"), (b"OggS", "application/ogg"),
    (b"fLaC", "audio/flac"), (b"\x00\x00\x01\x00", "image/x-icon"),
]
ZIP_BASED = {"application/zip", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
             "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
             "application/vnd.openxmlformats-officedocument.presentationml.presentation",
             "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
             "application/vnd.oasis.opendocument.presentation"}
_DISPOSITION = re.compile(r"^\s*(attachment|inline|form-data)\s*;\s*filename\*?\s*=\s*(?:UTF-8'')?\"?([^\";]+)\"?",
                          re.IGNORECASE)


def sniff(data: bytes) -> str | None:
    """The MIME type proven by the file's first bytes, or None when not recognisable."""
    for signature, mime in SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in (b"avif", b"avis"):
            return "image/avif"
        if brand in (b"heic", b"heix", b"mif1", b"msf1"):
            return "image/heic"
        return "video/mp4"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"RIFF") and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"RIFF") and data[8:12] == b"AVI ":
        return "video/avi"
    return None


def image_size(data: bytes, mime: str) -> tuple[int, int] | None:
    try:
        if mime == "image/png" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if mime == "image/gif":
            return struct.unpack("<HH", data[6:10])
        if mime == "image/jpeg":
            index = 2
            while index < len(data) - 9:
                if data[index] != 0xFF:
                    index += 1
                    continue
                marker = data[index + 1]
                length = struct.unpack(">H", data[index + 2:index + 4])[0]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    height, width = struct.unpack(">HH", data[index + 5:index + 9])
                    return width, height
                index += 2 + length
    except struct.error:
        return None
    return None


def check_file(name: str, data: bytes, unfiltered: bool) -> str:
    """The file's MIME type, or ValueError with the reason it is refused."""
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    allowed = dict(ALLOWED, **(UNFILTERED_ONLY if unfiltered else {}))
    expected = allowed.get(extension)
    if expected is None:
        raise ValueError("Sorry, you are not allowed to upload this file type.")
    found = sniff(data)
    if expected.startswith("image/") and found != expected and not (expected == "image/heif" and found == "image/heic"):
        raise ValueError("Sorry, this file type is not permitted for security reasons.")
    if expected == "application/pdf" and found != "application/pdf":
        raise ValueError("Sorry, this file type is not permitted for security reasons.")
    if expected in ZIP_BASED and found != "application/zip":
        raise ValueError("Sorry, this file type is not permitted for security reasons.")
    if found and found.startswith("image/") and not expected.startswith("image/"):
        raise ValueError("Sorry, this file type is not permitted for security reasons.")
    return expected


MEDIA_AREA = StashKey[Area]("core.media_area")


def media_area(app) -> Area:
    """Where attachments' files are: the uploads folder, or `uploads/` in the object store (host.storage)."""
    return app.stash.setdefault_by(MEDIA_AREA, app.storage.uploads)


def upload_key(path: str) -> str | None:
    """The stored `file` form of a requested /uploads/ path (`.` and `..` resolved), or None when it
    would leave the uploads."""
    normal = posixpath.normpath("/" + path.strip("/\\"))[1:]
    try:
        return checked_key(normal)
    except ValueError:
        return None


# Shown in the browser; every other type (HTML, SVG, scripts, PDF, documents) downloads.
# PDF downloads too: PDF viewers run the file's scripts, and Chromium's will not render
# inside the sandbox below.
INLINE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "text/plain"})
INLINE_TYPE_FAMILIES = ("audio/", "video/")


def store_file(app, name: str, data: bytes, when, mime: str = "") -> str:
    """Store an upload as YYYY/MM/NAME in the media area (never over an existing file), typed `mime`;
    that key."""
    area = media_area(app)
    stem, dot, extension = name.rpartition(".")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem or name).strip("-.") or "file"
    extension = re.sub(r"[^A-Za-z0-9]+", "", extension).lower()
    candidate, counter = f"{stem}.{extension}", 1
    while True:
        key = f"{when:%Y}/{when:%m}/{candidate}"
        try:
            area.put(key, data, exclusive=True, content_type=mime)  # never over another file
            return key
        except ObjectExists:
            candidate = f"{stem}-{counter}.{extension}"
            counter += 1


def shown_inline(mime: str) -> bool:
    return mime in INLINE_TYPES or mime.startswith(INLINE_TYPE_FAMILIES)


def upload_headers(mime: str, name: str) -> dict[str, str]:
    """Headers that keep an uploaded file from running as a page of the site.

    An uploaded HTML or SVG file would otherwise run its scripts on the site's origin, the
    one /authorize-application lives on: `sandbox` gives it an opaque origin without
    scripts, `nosniff` keeps the browser to the type we send, and anything not on the short
    inline list downloads instead of opening.
    """
    headers = {"Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"}
    if not shown_inline(mime):
        headers["Content-Disposition"] = f'attachment; filename="{download_name(name)}"'
    return headers


def download_name(name: str) -> str:
    """The file name a download is saved under: nothing a header or a file system could mind."""
    return re.sub(r'[^A-Za-z0-9._-]', "_", name) or "download"


def attachment_for_file(app, relative: str) -> dict | None:
    """The attachment stored at `relative` (under the uploads folder) with its parent's visibility, or None.

    One statement on the index `ix_posts_file`.
    """
    posts = tables(app)["posts"]

    def build():
        parent = posts.alias("parent")
        return (select(posts.c.id, posts.c.status, posts.c.author, posts.c.mime_type, posts.c.parent,
                       parent.c.id.label("parent_id"), parent.c.type.label("parent_type"),
                       parent.c.status.label("parent_status"), parent.c.author.label("parent_author"),
                       parent.c.date_gmt.label("parent_date_gmt"),
                       parent.c.pre_trash_status.label("parent_pre_trash_status"))
                .select_from(posts.outerjoin(parent, parent.c.id == posts.c.parent))
                .where(posts.c.file == bindparam("file"), text(f"posts.{ATTACHMENTS_ONLY}"))
                .order_by(posts.c.id).limit(1))

    with app.db.engine.connect() as connection:
        row = connection.execute(app.db.prepared("core.attachment_by_file", build), {"file": relative}).first()
    if row is None:
        return None
    item = {"id": row.id, "type": "attachment", "status": row.status, "author": row.author or 0,
            "mime_type": row.mime_type, "pre_trash_status": ""}
    if row.parent_id is not None:
        item["_parent"] = {"id": row.parent_id, "type": row.parent_type, "author": row.parent_author or 0,
                           "status": store.effective_status(row.parent_status, row.parent_date_gmt, dates.utcnow()),
                           "pre_trash_status": row.parent_pre_trash_status}
    return item


def uploads_page() -> Page:
    """Serves the files of attachments at their `source_url`, to those who may read the attachment.

    A private attachment, or one attached to a draft or private post, is 404 at its guessable
    path for anyone who may not read it (the same answer as for a file that does not exist);
    a caller who may (HTTP Basic with an application password) gets it, marked private for
    shared caches. Files in the folder that belong to no attachment are not served.
    """
    def serve(app, request: PageRequest, path):
        relative = upload_key(path)  # the form stored in `file`
        if relative is None:
            return not_found()
        item = attachment_for_file(app, relative)
        if item is None:
            return not_found()
        public = readable_by_anyone(app, item)
        if not public and not user_can_read(app, request.user, item):
            return not_found()
        mime = item["mime_type"] or "application/octet-stream"
        name = posixpath.basename(relative)
        headers = upload_headers(mime, name)
        if not public:
            headers["Cache-Control"] = "private, no-store"
        # `[storage] serve = "redirect"` sends a public file's reader to a signed URL of the store;
        # a private one is always streamed, after the check above.
        return redirect_or_serve(app, media_area(app), relative, mime, headers, public,
                                 "" if shown_inline(mime) else download_name(name))
    return Page("/uploads/<path:path>", ("GET", "HEAD"), serve, name="core-uploads")


class MediaController(PostsController):
    """The `media` routes: attachments are posts of type `attachment` with a file."""

    reuses_encoded_items = False  # media details read the upload settings, not only the row

    def __init__(self, app):
        super().__init__(app, "attachment", "attachment", "media")

    def routes(self) -> list[Route]:
        item = r"/media/(?P<id>[\d]+)"
        write = media_write_args(self.app)
        create = type("MediaCreateArgs", (write,), {
            # WordPress 7.1's client-side media processing args. This server makes no sub-sizes and
            # converts no formats (README, "Differences from WordPress"), so either value gives the
            # same attachment: the original file, `media_details.sizes` empty.
            "generate_sub_sizes": fields.Boolean(load_default=True, metadata={
                "description": "Whether to generate image sub sizes."}),
            "convert_format": fields.Boolean(load_default=True, metadata={
                "description": "Whether to convert image formats."}),
            "url": JsonSchemaField({"description": "URL of a file to sideload instead of sending its bytes.",
                                    "type": "string", "format": "uri", "maxLength": 2048}),
        })
        return [
            Route(NAMESPACE, "/media", "GET", self.list_items, args=collection_args(self.app, "attachment", "attachment"),
                  permission=self.check_list, title="attachment", schema=item_schemas.attachment_schema(),
                  cacheable=True, changes_with=ITEM_CHANGES),
            Route(NAMESPACE, "/media", "POST", self.create_item, args=create,
                  permission=self.check_create),
            Route(NAMESPACE, item, "GET", self.get_item, args=MediaReadArgs,
                  permission=self.check_read, title="attachment", schema=item_schemas.attachment_schema(),
                  embed_batch=self.embed_items, answer_version=store.answer_version, cacheable=True,
                  changes_with=ITEM_CHANGES),
            Route(NAMESPACE, item, "POST, PUT, PATCH", self.update_item, args=with_id(PostIdArgs, write),
                  partial_args=True, permission=self.check_update),
            Route(NAMESPACE, item, "DELETE", self.delete_item, args=PostDeleteArgs,
                  permission=self.check_delete),
        ]

    # --- reading --------------------------------------------------------------------------

    def build_query(self, request) -> store.PostQuery:
        query = super().build_query(request)
        params = request.params
        clauses = [("prefix", kind) for kind in params.get("media_type") or []]
        known = set(ALLOWED.values()) | set(UNFILTERED_ONLY.values())
        clauses += [("exact", mime) for mime in params.get("mime_type") or [] if mime in known]
        query.mime_clauses = clauses
        return query

    def prepare(self, request, item: dict, context: str, password=None, excerpt_length=None) -> dict:
        date, date_gmt = local_and_gmt(request, item["date"], item["date_gmt"])
        modified, modified_gmt = local_and_gmt(request, item["modified"], item["modified_gmt"])
        source_url = self.source_url(request, item)
        details = dict(item["media_details"] or {})
        is_image = (item["mime_type"] or "").startswith("image/")
        if is_image:
            details.setdefault("sizes", {})
            details.setdefault("image_meta", {})
        attachment_markup = ""
        if source_url:
            link = permalink(request, item)
            inner = f'<img src="{source_url}" alt="" />' if is_image else render.texturize(item["title"])
            attachment_markup = f'<p class="attachment"><a href="{source_url if is_image else link}">{inner}</a></p>\n'
        data: dict[str, Any] = {
            "id": item["id"], "date": date, "date_gmt": date_gmt,
            "guid": {"rendered": item["guid"], "raw": item["guid"]}, "modified": modified,
            "modified_gmt": modified_gmt, "slug": item["slug"], "status": item["status"], "type": "attachment",
            "link": permalink(request, item),
            "title": {"raw": item["title"], "rendered": render.render_title(item["title"])},
            "author": item["author"], "featured_media": item["featured_media"],
            "comment_status": item["comment_status"], "ping_status": item["ping_status"],
            "template": item["template"], "meta": dict(item.get("meta") or {}),
            "permalink_template": permalink(request, item), "generated_slug": generated_slug(item),
            "class_list": class_list(item, False, False),
            "description": {"raw": item["content"], "rendered": attachment_markup + render.autop(
                render.texturize(item["content"]))},
            "caption": {"raw": item["excerpt"], "rendered": render.autop(render.texturize(item["excerpt"]))},
            "alt_text": item["alt_text"], "media_type": "image" if is_image else "file",
            "mime_type": item["mime_type"], "media_details": details, "post": item["parent"] or None,
            "source_url": source_url, "missing_image_sizes": [],
            "filename": os.path.basename(item["file"]), "filesize": details.get("filesize", 0),
        }
        if context == "embed":
            data = {key: data[key] for key in ("id", "date", "slug", "type", "link", "title", "author",
                                               "featured_media", "caption", "alt_text", "media_type", "mime_type",
                                               "media_details", "source_url")}
            data["title"] = {"rendered": data["title"]["rendered"]}
            data["caption"] = {"rendered": data["caption"]["rendered"]}
        elif context == "view":
            data.pop("permalink_template")
            data.pop("generated_slug")
            data.pop("missing_image_sizes")
            data["guid"] = {"rendered": item["guid"]}
            for name in ("title", "description", "caption"):
                data[name] = {"rendered": data[name]["rendered"]}
        data["_links"] = post_links(request, item, context)
        return data

    def source_url(self, request, item: dict) -> str:
        return f"{site_url(request)}/uploads/{item['file']}" if item["file"] else ""

    # --- writing --------------------------------------------------------------------------

    def check_create(self, request):
        super().check_create(request)
        self._check_parent_editable(request)
        return True

    def check_update(self, request):
        super().check_update(request)
        self._check_parent_editable(request)
        return True

    def _check_parent_editable(self, request) -> None:
        """Attaching media to a post edits that post: the caller must be allowed to edit it.

        Upload and update share this check; WordPress makes it on upload only, which lets an
        author attach media to (and so learn of) someone else's draft through an update.
        """
        post_id = request.params.get("post")
        if post_id:
            # A read session of its own: the request's write transaction (SQLite's write lock) must
            # not begin before a `url` sideload has been fetched, which may take seconds.
            with self.app.db.session() as session:
                parent = store.get_item(self.app, session, post_id)
            if parent is not None and not request.user.can("edit_post", parent):
                raise forbidden(request.user, "rest_cannot_edit",
                                "Sorry, you are not allowed to upload media to this post.")

    def _parent_for(self, session, post_id) -> int:
        if not post_id:
            return 0
        parent = store.post_exists(self.app, session, post_id)
        if parent is None:
            raise RestError("rest_post_invalid_id", "Invalid post ID.", 400)
        if parent["type"] in ("revision", "attachment"):
            raise invalid_param({"post": "Invalid parent type."}, message="Invalid parent type.")  # WordPress's words
        return post_id

    def _received_file(self, request) -> tuple[str, bytes, bool]:
        """(file name, bytes, came_as_multipart) from a multipart `file` part or the raw body."""
        upload = request.files.get("file") if request.files else None
        if upload is not None:
            data = upload.file.read()
            if not data:
                raise RestError("rest_upload_no_data", "No data supplied.", 400)
            return upload.raw_filename or upload.filename, data, True
        data = request.body or b""
        if not data or request.content_type == "multipart/form-data":
            raise RestError("rest_upload_no_data", "No data supplied.", 400)
        if not request.header("content-type"):
            raise RestError("rest_upload_no_content_type", "No Content-Type supplied.", 400)
        disposition = request.header("content-disposition")
        if not disposition:
            raise RestError("rest_upload_no_content_disposition", "No Content-Disposition supplied.", 400)
        match = _DISPOSITION.match(disposition)
        if not match or not match.group(2).strip():
            raise RestError("rest_upload_invalid_disposition",
                            "Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as "
                            "`attachment; filename=\"image.png\"` or similar.", 400)
        return match.group(2).strip(), data, False

    def _sideloaded_file(self, request, url: str) -> tuple[str, bytes]:
        """(file name, bytes) fetched from `url` through the host's guarded fetch (no private targets).

        The name is the response's Content-Disposition filename, else the URL path's last part.
        """
        if (request.files and request.files.get("file") is not None) or (
                request.body and request.content_type not in ("application/json", "multipart/form-data",
                                                               "application/x-www-form-urlencoded")):
            raise RestError("rest_upload_conflict", "Send either a file or a url, not both.", 400)
        config = settings_of(self.app)
        limits = Limits(timeout_seconds=config.sideload_timeout_seconds, max_response_bytes=config.max_upload_bytes,
                        max_redirects=config.sideload_max_redirects,
                        allow_private_targets=config.sideload_allow_private_targets,
                        user_agent="sitehost-media-sideload", too_large_status=413)
        fetched = fetch(url, limits, code_prefix="rest_upload_sideload")
        if not fetched.body:
            raise RestError("rest_upload_no_data", "No data supplied.", 400)
        name = ""
        match = _DISPOSITION.match(fetched.headers.get("content-disposition", ""))
        if match:
            name = match.group(2).strip()
        if not name:
            name = unquote(urlsplit(fetched.url).path.rstrip("/").rsplit("/", 1)[-1])
        if not name:
            raise RestError("rest_upload_invalid_disposition", "The URL names no file.", 400)
        return name, fetched.body

    def create_item(self, request):
        params, session, user = request.params, request.session, request.user
        if params.get("url"):  # fetched before the first statement: no write lock is held meanwhile
            name, data = self._sideloaded_file(request, params["url"])
            multipart = False
        else:
            name, data, multipart = self._received_file(request)
        parent = self._parent_for(session, params.get("post"))
        name = os.path.basename(name.replace("\\", "/"))
        expected_md5 = request.header("content-md5")
        if expected_md5:
            digest = hashlib.md5(data).hexdigest()
            try:
                b64 = base64.b64decode(expected_md5).hex()
            except ValueError:
                b64 = ""
            if expected_md5.lower() != digest and b64 != digest:
                raise RestError("rest_upload_hash_mismatch", "Content hash did not match expected.", 412)
        limit = settings_of(self.app).max_upload_bytes
        if len(data) > limit:
            raise RestError("rest_upload_file_too_big", f"The file is larger than the limit of {limit} bytes.", 413)
        try:
            mime = check_file(name, data, user.can("unfiltered_html"))
        except ValueError as refused:
            # WordPress answers 500 here, but a refused file type is the client's error, not the
            # server's: same code, status 415 (README, "Differences from WordPress").
            code = "rest_upload_unknown_error" if multipart else "rest_upload_sideload_error"
            raise RestError(code, str(refused), 415) from None
        now = dates.utcnow()
        tz = self.app.timezone()
        local_now = dates.utc_to_local(now, tz)
        relative = store_file(self.app, name, data, local_now, mime)
        details: dict[str, Any] = {"filesize": len(data)}
        size = image_size(data, mime) if mime.startswith("image/") else None
        if size:
            details = {"width": size[0], "height": size[1], "file": relative, "filesize": len(data),
                       "sizes": {}, "image_meta": {}}
        title = self.text_field(request, "title")
        stem = name.rsplit(".", 1)[0] if "." in name else name
        status = "private" if params.get("status") == "private" else "inherit"
        values = {
            "type": "attachment", "status": status, "slug": "", "title": title if title else stem,
            "content": self._rich(request, "description"), "excerpt": self._rich(request, "caption"),
            "author": user.id, "parent": parent, "comment_status": params.get("comment_status") or "open",
            "ping_status": params.get("ping_status") or "closed", "date": local_now, "date_gmt": now,
            "modified": local_now, "modified_gmt": now, "mime_type": mime, "file": relative,
            "media_details": details, "alt_text": render.plain_text(params.get("alt_text") or ""),
            "guid": f"{guid_base(request)}/uploads/{relative}",
        }
        post_id = store.insert_item(self.app, session, values)
        slug = store.unique_slug(self.app, session, store.sanitize_slug(params.get("slug") or values["title"])
                                 or str(post_id), "attachment", post_id)
        store.update_item(self.app, session, post_id, {"slug": slug})
        self._write_meta(request, session, post_id)
        response = RestResponse.created(self.written(request, session, post_id, created=True),
                                        core_url(request, f"media/{post_id}"))
        response.headers["X-WP-Upload-Attachment-ID"] = str(post_id)
        return response

    def _rich(self, request, name: str) -> str:
        value = request.params.get(name)
        if isinstance(value, dict):
            value = value.get("raw")
        value = "" if value is None else str(value)
        return value if request.user.can("unfiltered_html") else render.sanitize_html(value)

    def update_item(self, request):
        params, session = request.params, request.session
        current = self.load(request, params["id"])
        values: dict[str, Any] = {}
        if request.has_param("featured_media") and params.get("featured_media"):
            if not (current["mime_type"].startswith("audio/") or current["mime_type"].startswith("video/")):
                raise RestError("rest_no_featured_media",
                                "This site does not support post thumbnails on attachments with MIME type "
                                f"{current['mime_type']}.", 400)
            values["featured_media"] = params["featured_media"]
        if request.has_param("post"):
            values["parent"] = self._parent_for(session, params.get("post"))
        title = self.text_field(request, "title")
        if title is not None:
            values["title"] = title
        if request.has_param("caption"):
            values["excerpt"] = self._rich(request, "caption")
        if request.has_param("description"):
            values["content"] = self._rich(request, "description")
        if request.has_param("alt_text"):
            values["alt_text"] = render.plain_text(params.get("alt_text") or "")
        if params.get("status") in ("private", "inherit", "publish"):
            values["status"] = "private" if params["status"] == "private" else "inherit"
        for name in ("comment_status", "ping_status"):
            if params.get(name):
                values[name] = params[name]
        if params.get("slug"):
            values["slug"] = store.unique_slug(self.app, session, store.sanitize_slug(params["slug"]), "attachment",
                                               current["id"])
        now = dates.utcnow()
        values["modified"], values["modified_gmt"] = dates.utc_to_local(now, self.app.timezone()), now
        store.update_item(self.app, session, current["id"], values)
        self._write_meta(request, session, current["id"])
        return self.written(request, session, current["id"], created=False)

    def delete_item(self, request):
        params, session = request.params, request.session
        item = self.load(request, params["id"])
        if not params.get("force"):
            raise RestError("rest_trash_not_supported",
                            "The post does not support trashing. Set 'force' to true to delete.", 501)
        previous = self.prepare(request, item, "edit")
        store.delete_item(self.app, session, item["id"])
        key = upload_key(item["file"]) if item["file"] else None
        if key is not None:
            area = media_area(self.app)
            request.after_commit(lambda: area.delete(key))
        self.announce_deleted(request, item, True)
        return deleted_answer(previous)
