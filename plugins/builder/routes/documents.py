"""builder/v1/documents (the namespace index, with the caller's editable documents),
documents/{id}/media/import, and builder/v1/cache."""

from __future__ import annotations

import logging
import os
from urllib.parse import urlsplit

from host import RestError, Route

from .. import elements as tree
from ..documents import document_ids, elements_of, encoded, load_document
from host.outbound import Limits, fetch
from ..kit import bump_version, load_kit
from ..schemas import BuilderDocumentSchema, DocumentIdArgs, DocumentsIndexArgs, EditorDocumentArgs
from ..settings import settings_of
from .common import DOCUMENTS_NAMESPACE, READ, SITE, announce_kit_change, can_edit_posts

log = logging.getLogger("sitehost.builder")
MAX_LISTED = 100
IMAGE_SETTINGS = ("image", "background_image")


def document_data(request, item: dict) -> dict:
    meta = item.get("meta") or {}
    data = {"id": item["id"], "type": item["type"], "title": item["title"], "status": item["status"],
            "template_type": meta.get("_builder_template_type", ""),
            "modified_gmt": item["modified_gmt"].isoformat(timespec="seconds") if item.get("modified_gmt") else None,
            "_links": {}}
    if item["type"] in ("post", "page"):
        data["_links"]["self"] = [{"href": request.app.content.rest_url(request, item)}]
    data["_links"]["media_import"] = [{"href": f"{request.base_url}/{DOCUMENTS_NAMESPACE}/{item['id']}/media/import"}]
    return data


def documents_index(request):
    """The namespace index; callers who may edit posts also get `documents`, the builder documents
    they may edit, most recently changed first (at most 100)."""
    registry = request.app.registry
    answer = {"namespace": DOCUMENTS_NAMESPACE,
              "routes": registry.routes_map(request.base_url, DOCUMENTS_NAMESPACE),
              "_links": {"up": [{"href": request.base_url + "/"}]}}
    if request.user.can(READ):
        listed = []
        for post_id in document_ids(request):
            item = request.app.content.get(request, post_id)
            if item is None or item["status"] == "trash" or (item.get("meta") or {}).get("_builder_edit_mode") \
                    != "builder" or not request.user.can("edit_post", item):
                continue
            listed.append(document_data(request, item))
            if len(listed) == MAX_LISTED:
                break
        answer["documents"] = listed
    return answer


def can_edit_document(request):
    can_edit_posts(request)
    load_document(request, request.params["id"])
    return True


def _is_external(request, url) -> bool:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return False
    return urlsplit(url).netloc.lower() != urlsplit(request.base_url).netloc.lower()  # host and port


def _file_name(url: str, content_type: str) -> str:
    name = os.path.basename(urlsplit(url).path) or "image"
    name = "".join(character for character in name if character.isalnum() or character in "-_.")[:80] or "image"
    if "." not in name:
        extension = {"image/png": ".png", "image/gif": ".gif", "image/webp": ".webp"}.get(content_type, ".jpg")
        name += extension
    return name


def import_media(request):
    """Copy every external image of the document into the media library and point the document at the copies."""
    limits = settings_of(request.app)
    item = load_document(request, request.params["id"])
    elements = elements_of(request, item)
    wanted: list[str] = []
    for element in tree.walk(elements):
        settings = element.get("settings") if isinstance(element.get("settings"), dict) else {}
        for key in IMAGE_SETTINGS:
            value = settings.get(key)
            if isinstance(value, dict) and _is_external(request, value.get("url")) and value["url"] not in wanted:
                wanted.append(value["url"])
    # Nothing is written before the downloads: end the read transaction so that each upload (an
    # internal request with a transaction of its own) can write on SQLite too.
    request.session.commit()
    imported, failed = {}, []
    for url in wanted:
        if len(imported) >= limits.import_max_images:
            failed.append({"url": url, "code": "builder_import_limit",
                           "message": f"At most {limits.import_max_images} images are imported at a time."})
            continue
        try:  # the host's guarded fetch: public addresses only (unless allowed), pinned, bounded
            fetched = fetch(url, Limits(timeout_seconds=limits.import_timeout_seconds,
                                        max_response_bytes=limits.import_max_bytes,
                                        allow_private_targets=limits.allow_private_targets,
                                        user_agent="sitehost-builder-media-import"),
                            "image/*", code_prefix="builder")
        except RestError as error:
            failed.append({"url": url, "code": error.code, "message": error.message})
            continue
        content_type = fetched.content_type.split(";", 1)[0].strip().lower()
        if not content_type.startswith("image/"):
            failed.append({"url": url, "code": "builder_not_an_image", "message": "The address is not an image."})
            continue
        name = _file_name(fetched.url, content_type)
        # A REST call on purpose: core/v2/media's own checks (upload_files, the file's sniffed type, its
        # size) decide for this caller, each image's refusal is reported with the route's code and
        # message, and each upload stands on its own (its own transaction) whatever the next one does.
        answer = request.internal_request("POST", "/core/v2/media", body=fetched.body, headers={
            "Content-Type": content_type, "Content-Disposition": f'attachment; filename="{name}"'})
        if answer.status != 201:
            data = answer.data if isinstance(answer.data, dict) else {}
            failed.append({"url": url, "code": data.get("code", "builder_upload_failed"),
                           "message": data.get("message", "The media library refused the image.")})
            continue
        imported[url] = {"url": url, "media_id": answer.data["id"], "source_url": answer.data["source_url"]}
    if imported:
        for element in tree.walk(elements):
            settings = element.get("settings") if isinstance(element.get("settings"), dict) else {}
            for key in IMAGE_SETTINGS:
                value = settings.get(key)
                if isinstance(value, dict) and value.get("url") in imported:
                    copy = imported[value["url"]]
                    settings[key] = {**value, "url": copy["source_url"], "id": copy["media_id"]}
        request.app.content.update(request, item["id"], meta={"_builder_data": encoded(elements)})
    return {"id": item["id"], "imported": list(imported.values()), "failed": failed}


def editor_document(request):
    """The document as the editor loads it: its id, page settings and top-level elements keyed by element id.

    The id is matched as a word, as the real route declares it; one that names no builder
    document the caller may edit answers 404 `invalid_document_id` (403 when it is one they may not edit).
    """
    raw = request.params["id"]
    if not raw.isdigit() or int(raw) > 2**31 - 1:
        raise RestError("invalid_document_id", "Invalid document id", 404)
    item = load_document(request, int(raw))
    elements = elements_of(request, item)
    return {"id": item["id"], "settings": (item.get("meta") or {}).get("_builder_page_settings") or {},
            "elements": {element["id"]: element for element in elements}}


def clear_cache(request):
    """Every builder document renders afresh (the kit version is in their cache key), and the
    response cache drops what it held (it hears a kit change)."""
    kit = load_kit(request.app, request.session)
    bump_version(request.app, request.session)
    announce_kit_change(request, kit.id)
    return {"success": True, "data": {"cleared": True}}


def routes() -> list[Route]:
    return [
        Route(DOCUMENTS_NAMESPACE, "", "GET", documents_index, args=DocumentsIndexArgs,
              schema=BuilderDocumentSchema, title="builder-document"),
        Route(DOCUMENTS_NAMESPACE, r"/(?P<id>[\d]+)/media/import", "POST", import_media, args=DocumentIdArgs,
              permission=can_edit_document),
        Route("builder/v1", "/cache", "DELETE", clear_cache, capability=SITE),
        Route("builder/v1", r"/editor/documents/(?P<id>[\w]+)", "GET", editor_document, args=EditorDocumentArgs,
              capability=READ),
    ]
