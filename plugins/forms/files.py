"""Uploaded files of a submission: checked by their bytes, stored outside the public uploads.

The checks are media's (core/v2/media): the extension must be one the form accepts, and the
first bytes must prove what the extension claims for the formats that can be recognised
(images, PDF, ZIP-based office files); an image's bytes under another extension are refused.
Files go to `<random>/<name>` of the `form-files` storage area (host.storage): the folder
`[plugins.forms] files_dir` (each file's folder 0700), or `form-files/` in the object store, never
among the uploads that the site serves. They stay with their submission for the admin pages (download, resend)
until it is deleted; with `store_submissions` off they go once a queued mail carries them.
"""

from __future__ import annotations

import secrets

from host.stash import StashKey
from host.storage import Area, checked_key

from .settings import settings_of

IMAGE_EXTENSIONS = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png",
                    "gif": "image/gif", "bmp": "image/bmp", "webp": "image/webp", "tif": "image/tiff",
                    "tiff": "image/tiff", "ico": "image/x-icon", "heic": "image/heic", "avif": "image/avif"}
ZIP_EXTENSIONS = {"zip", "docx", "xlsx", "pptx", "odt", "ods", "odp"}
CONTENT_TYPES = {**IMAGE_EXTENSIONS, "pdf": "application/pdf", "doc": "application/msword",
                 "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                 "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                 "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                 "odt": "application/vnd.oasis.opendocument.text", "txt": "text/plain", "csv": "text/csv",
                 "zip": "application/zip", "mp3": "audio/mpeg", "mp4": "video/mp4", "wav": "audio/wav",
                 "ogg": "audio/ogg", "mov": "video/quicktime", "rtf": "application/rtf"}
SIGNATURES = [
    (b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"), (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"), (b"BM", "image/bmp"), (b"II*\x00", "image/tiff"), (b"MM\x00*", "image/tiff"),
    (b"%PDF-", "application/pdf"), (b"PK\x03\x04", "application/zip"), (b"\x1f\x8b", "application/x-gzip"),
    (b"{\\rtf", "application/rtf"), (b"\x00\x00\x01\x00", "image/x-icon"),
]
MAX_NAME = 120
FILES_AREA = StashKey[Area]("forms.files_area")


def files_area(app) -> Area:
    """The submissions' files: private, outside the public uploads, on the site's storage backend."""
    return app.stash.setdefault_by(
        FILES_AREA, lambda: app.storage.area("form-files", settings_of(app).files_dir, private=True))


def sniff(data: bytes) -> str | None:
    """The MIME type the first bytes prove, or None."""
    for signature, mime in SIGNATURES:
        if data.startswith(signature):
            return mime
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in (b"avif", b"avis"):
            return "image/avif"
        if brand in (b"heic", b"heix", b"mif1", b"msf1"):
            return "image/heic"
        return "video/mp4"
    return None


def check_bytes(name: str, data: bytes) -> str | None:
    """The file's content type, or None when its bytes contradict its name (refused)."""
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    found = sniff(data)
    if extension in IMAGE_EXTENSIONS:
        expected = IMAGE_EXTENSIONS[extension]
        if found != expected and not (expected == "image/heif" and found == "image/heic"):
            return None
    elif extension == "pdf" and found != "application/pdf":
        return None
    elif extension in ZIP_EXTENSIONS and found != "application/zip":
        return None
    elif found and found.startswith("image/"):
        return None  # an image under a name that says otherwise
    return CONTENT_TYPES.get(extension, "application/octet-stream")


def safe_name(name: str) -> str:
    """A file name without folders or characters a file system or a mail header could mind."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(character if character.isalnum() or character in "._-" else "_" for character in base)
    cleaned = cleaned.lstrip(".") or "file"
    if len(cleaned) > MAX_NAME:
        stem, dot, extension = cleaned.rpartition(".")
        cleaned = (stem[: MAX_NAME - len(extension) - 1] + "." + extension) if dot and len(extension) < 10 \
            else cleaned[:MAX_NAME]
    return cleaned


def store(area: Area, name: str, data: bytes) -> str:
    """Store `data` under a new random folder of the area; its key (`<random>/<name>`)."""
    key = f"{secrets.token_hex(12)}/{safe_name(name)}"
    area.put(key, data, exclusive=True)
    return key


def stored_key(relative: str) -> str | None:
    """A submission's stored path as a key of the area, or None when it would leave the area."""
    try:
        return checked_key(relative)
    except ValueError:
        return None


def remove(area: Area, relative: str) -> None:
    key = stored_key(relative)
    if key is not None:
        area.delete(key)
