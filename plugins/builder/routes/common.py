"""What every builder route shares: namespaces, capabilities, announcing kit changes."""

from __future__ import annotations

from host import ContentSaved, RestError, RestResponse, forbidden

NAMESPACE = "builder/v1"
DOCUMENTS_NAMESPACE = "builder/v1/documents"
AI_NAMESPACE = "builder-ai/v1"
READ = "edit_posts"  # reading editor data, and a user's own editor data
SITE = "manage_options"  # changes that affect the whole site
KIT_TYPE = "builder_kit"


def announce_kit_change(request, kit_id: int) -> None:
    """After commit: tell listeners (the response cache) that the kit changed, so pages built with it are stale."""
    app = request.app
    item = {"id": kit_id, "type": KIT_TYPE, "status": "publish"}
    request.after_commit(lambda: app.hook.content_saved(app=app, event=ContentSaved.of(item, False)))


def paged(request, items: list, total: int):
    params = request.params
    return RestResponse.collection(request, items, total, params["per_page"], params["page"])


def ensure_page_exists(request, total: int) -> None:
    params = request.params
    if params["page"] > 1 and (params["page"] - 1) * params["per_page"] >= total:
        raise RestError("rest_invalid_page_number",
                        "The page number requested is larger than the number of pages available.", 400)


def can_edit_posts(request) -> bool:
    """edit_posts, as a permission callback (routes whose handler also checks one item use it, not `capability`)."""
    if not request.user.can(READ):
        raise forbidden(request.user)
    return True
