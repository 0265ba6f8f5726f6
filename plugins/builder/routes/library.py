"""The template library (templates are items of the `builder_library` post type) and the
library account connection (its token kept encrypted with Fernet, never answered)."""

from __future__ import annotations

import base64
import datetime
import secrets

from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from host import RestError, RestResponse, Route, invalid_param
from host.auth import users as user_service
from marshmallow import fields, validate

from .. import elements as tree
from ..documents import elements_of, encoded, library_types, load_document
from ..schemas import ConnectArgs, TemplateCreateArgs, TemplateInsertArgs, TemplateSchema
from ..settings import settings_of
from ..store import get_option, set_option
from .common import NAMESPACE, READ, SITE, can_edit_posts

LIBRARY_TYPE = "builder_library"
MAX_TEMPLATES_LISTED = 100
TOKEN_OPTION = "library_token"
SECRET_OPTION = "generated_secret"


def _template_data(request, item: dict) -> dict:
    meta = item.get("meta") or {}
    author = user_service.get_user(request.app, request.session, item["author"]) if item.get("author") else None
    return {"template_id": item["id"], "source": "local", "type": meta.get("_builder_template_type", ""),
            "title": item["title"], "status": item["status"], "author": author.display_name if author else "",
            "date": item["date"].isoformat(timespec="seconds") if item.get("date") else None,
            "elements": len(list(tree.walk(elements_of(request, item))))}


def list_templates(request):
    items, _total = request.app.content.query(request, LIBRARY_TYPE, status=("publish", "private", "draft"),
                                              per_page=MAX_TEMPLATES_LISTED, orderby="date", order="desc")
    return [_template_data(request, item) for item in items
            if item["status"] == "publish" or request.user.can("edit_post", item)]


def create_template(request):
    params = request.params
    content = params.get("content") or {}
    elements = content.get("elements", []) if isinstance(content, dict) else None
    if elements is None:
        raise invalid_param({"content": "content must be an object with `elements`."})
    limits = settings_of(request.app)
    try:
        tree.check_tree(elements, limits)
        text = encoded(elements)
        tree.parse_data(text, limits)
    except tree.TreeError as error:
        raise invalid_param({"content": f"content.elements {error}."}) from None
    page_settings = content.get("page_settings", {})
    if not isinstance(page_settings, dict):
        raise invalid_param({"content": "content.page_settings must be an object."})
    item = request.app.content.create(request, LIBRARY_TYPE, title=(params.get("title") or "").strip()[:200]
                                      or f"Untitled {params['type']}", status="publish",
                                      meta={"_builder_edit_mode": "builder", "_builder_template_type": params["type"],
                                            "_builder_data": text, "_builder_page_settings": page_settings})
    return RestResponse.created(_template_data(request, item),
                                f"{request.base_url}/{NAMESPACE}/template-library/templates")


def insert_template(request):
    """Append a copy of the template's tree (fresh element ids) to a document, or put it at `position`."""
    template = request.app.content.get(request, request.params["id"], LIBRARY_TYPE)
    if template is None or template["status"] == "trash" or (
            template["status"] != "publish" and not request.user.can("edit_post", template)):
        raise RestError("builder_template_not_found", "There is no template with that id.", 404)
    document = load_document(request, request.params["document"])
    target = elements_of(request, document)
    copied = tree.copy_with_new_ids(elements_of(request, template), tree.ids_of(target))
    position = request.params.get("position")
    position = len(target) if position is None else min(position, len(target))
    combined = target[:position] + copied + target[position:]
    text = encoded(combined)
    try:
        tree.parse_data(text, settings_of(request.app))
    except tree.TreeError as error:
        raise RestError("builder_document_too_large", f"With the template the document {error}.", 400) from None
    request.app.content.update(request, document["id"], meta={"_builder_data": text})
    return {"document": document["id"], "template": template["id"], "position": position,
            "inserted": [element["id"] for element in copied]}


# --- library connection -----------------------------------------------------------------------------

def _fernet(request) -> Fernet:
    """Fernet keyed by HKDF-SHA256 of the site's secret (settings, or one generated once and stored)."""
    secret = settings_of(request.app).secret_key
    if not secret:
        secret = get_option(request, SECRET_OPTION)
        if not secret:
            secret = secrets.token_urlsafe(48)
            set_option(request, SECRET_OPTION, secret)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"sitehost-builder",
               info=b"library connect token").derive(secret.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(key))


def connect_library(request):
    token = request.params["token"].strip()
    if not token:
        raise invalid_param({"token": "token must not be blank."})
    encrypted = _fernet(request).encrypt(token.encode("utf-8")).decode("ascii")
    connected_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    set_option(request, TOKEN_OPTION, {"token": encrypted, "connected_at": connected_at,
                                       "connected_by": request.user.id})
    return {"connected": True, "connected_at": connected_at}


def disconnect_library(request):
    was = get_option(request, TOKEN_OPTION) is not None
    set_option(request, TOKEN_OPTION, None)
    return {"connected": False, "was_connected": was}


def routes(app) -> list[Route]:
    create_args = TemplateCreateArgs.from_dict({"type": fields.String(
        required=True, validate=validate.OneOf(library_types(app)), metadata={"description": "Type of the template."})},
        name="BuilderTemplateCreateArgs")
    return [
        Route(NAMESPACE, "/template-library/templates", "GET", list_templates, capability=READ,
              schema=TemplateSchema, title="builder-template"),
        Route(NAMESPACE, "/template-library/templates", "POST", create_template, args=create_args, capability=READ),
        Route(NAMESPACE, r"/template-library/templates/(?P<id>[\d]+)/insert", "POST", insert_template,
              args=TemplateInsertArgs, permission=can_edit_posts),
        Route(NAMESPACE, "/library/connect", "POST", connect_library, args=ConnectArgs, capability=SITE),
        Route(NAMESPACE, "/library/connect", "DELETE", disconnect_library, capability=SITE),
    ]
