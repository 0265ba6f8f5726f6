"""builder/v1/global-classes: the site's CSS classes the editor applies to elements (reference §7).

Two copies are kept, as the real builder keeps them: `frontend` (what visitors get) and
`preview` (what the editor previews). A read of `preview` before anything was saved there
answers the `frontend` copy. A write names what changed (`changes`): only those ids are touched,
so two editors who change different classes do not undo each other.
"""

from __future__ import annotations

import json

from host import RestError, RestResponse, Route

from .. import elements as tree
from ..schemas import GlobalClassesArgs, GlobalClassesWriteArgs
from ..store import get_option, set_option
from .common import NAMESPACE, SITE

MAX_ITEMS = 50  # the real limit: 50 or more items are refused (its check is `>=`)
MAX_VARIANT_BYTES = 16384  # one variant's JSON text
OPTION = "global_classes_{context}"


def _stored(request, context: str) -> dict:
    found = get_option(request, OPTION.format(context=context))
    if found is None and context == "preview":
        found = get_option(request, OPTION.format(context="frontend"))
    return found or {"items": {}, "order": []}


def list_classes(request):
    stored = _stored(request, request.params["context"])
    return {"data": stored["items"], "meta": {"order": stored["order"]}}


def _variant_complaints(item_id: str, variants: list) -> list[str]:
    """What the real style parser would refuse in a class's variants: the shape, and our bounds."""
    complaints = []
    for index, variant in enumerate(variants):
        where = f"{item_id}.variants.{index}"
        if not isinstance(variant, dict) or not isinstance(variant.get("meta"), dict) \
                or not isinstance(variant.get("props"), dict):
            complaints.append(f"{where}: invalid (an object with `meta` and `props` objects)")
            continue
        for key in ("breakpoint", "state"):
            value = variant["meta"].get(key)
            if value is not None and (not isinstance(value, str) or len(value) > 50):
                complaints.append(f"{where}.meta.{key}: invalid")
        if len(json.dumps(variant)) > MAX_VARIANT_BYTES or tree._depth(variant) > tree.MAX_SETTINGS_DEPTH + 2:
            complaints.append(f"{where}: too large (at most {MAX_VARIANT_BYTES} bytes and "
                              f"{tree.MAX_SETTINGS_DEPTH + 2} levels)")
    return complaints


def _item_complaints(items: dict) -> list[str]:
    complaints = []
    for item_id, item in items.items():
        if item["id"] != item_id:
            complaints.append(f"{item_id}.id: mismatching_value")
        complaints.extend(_variant_complaints(item_id, item["variants"]))
    return complaints


def _order_complaints(order: list[str], items: dict) -> list[str]:
    wanted = list(dict.fromkeys(order))
    return [f"{item_id}: excess" for item_id in wanted if item_id not in items] + \
        [f"{item_id}: missing" for item_id in items if item_id not in wanted]


def put_classes(request):
    """Check the whole payload, then save only what `changes` names; 204 without a body."""
    params = request.params
    items, order, changes = params["items"], params["order"], params["changes"]
    if len(items) >= MAX_ITEMS:
        raise RestError("global_classes_limit_exceeded",
                        f"Global classes limit exceeded. Maximum allowed: {MAX_ITEMS}", 400)
    complaints = _item_complaints(items)
    if complaints:
        raise RestError("invalid_items", "Invalid items: " + "; ".join(complaints), 400)
    complaints = _order_complaints(order, items)
    if complaints:
        raise RestError("invalid_order", "Invalid order: " + "; ".join(complaints), 400)
    context = params["context"]
    stored = _stored(request, context)
    deleted = set(changes["deleted"])
    touched = [item_id for item_id in dict.fromkeys(changes["added"] + changes["modified"]) if item_id in items]
    kept = {item_id: item for item_id, item in stored["items"].items() if item_id not in deleted}
    # What the real style parser keeps of a class: other keys a client sends are dropped.
    kept.update((item_id, {key: items[item_id][key] for key in ("id", "type", "label", "variants")})
                for item_id in touched)
    wanted = list(dict.fromkeys(order))
    earlier = [item_id for item_id in stored["order"] if item_id not in deleted and item_id not in wanted]
    set_option(request, OPTION.format(context=context), {"items": kept, "order": earlier + wanted})
    return RestResponse(None, 204)


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, "/global-classes", "GET", list_classes, args=GlobalClassesArgs, capability=SITE),
        Route(NAMESPACE, "/global-classes", "PUT", put_classes, args=GlobalClassesWriteArgs, capability=SITE),
    ]
