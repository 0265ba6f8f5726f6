"""Event categories and tags (§1.6): core/v2's term routes for the calendar's taxonomies, wrapped.

Every read and write runs core/v2's own route through an internal request, as the same caller,
so term rights, validation and counts are core's; this module renames `link` to `url`, adds
`urls` and wraps lists with their paging links. Core's term routes tell the caches of writes (`terms_changed`).
"""

from __future__ import annotations

from host import RestError, RestResponse

from . import common, linked
from .names import CATEGORY, TAG, TAXONOMY_BASES

KINDS = {"categories": CATEGORY, "tags": TAG}
LIST_PARAMS = ("search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "slug")


def _core_path(taxonomy: str, term_id: int | None = None) -> str:
    path = f"/core/v2/{TAXONOMY_BASES[taxonomy]}"
    return path if term_id is None else f"{path}/{term_id}"


def _raise(answer) -> None:
    data = answer.data if isinstance(answer.data, dict) else {}
    raise RestError(data.get("code", "rest_error"), data.get("message", "The term request failed."), answer.status,
                    {name: value for name, value in (data.get("data") or {}).items() if name != "status"})


# --- permissions -------------------------------------------------------------------------------

def can_create(kind: str) -> dict:
    """Route keywords of creating a term of `kind`, refused in the real route's words."""
    return {"capability": "manage_categories" if kind == "categories" else "edit_posts",
            "refusal": ("rest_cannot_create", "Sorry, you are not allowed to create terms in this taxonomy.")}


# Route keywords of editing or deleting a term.
MANAGE = {"capability": "manage_categories",
          "refusal": ("rest_cannot_update", "Sorry, you are not allowed to edit or delete this term.")}


# --- handlers ----------------------------------------------------------------------------------

def list_terms(kind: str):
    taxonomy = KINDS[kind]

    def handler(request):
        params = request.params
        size, page = common.per_page(request), int(params.get("page") or 1)
        query = {"page": page, "per_page": size}
        for name in LIST_PARAMS:
            if name in params and params[name] not in (None, [], ""):
                query[name] = params[name]
        if params.get("event") is not None and "post" not in query:
            query["post"] = params["event"]
        # REST on purpose: core/v2's term route as this caller (rights, checks, errors, paging headers).
        answer = request.internal_get(_core_path(taxonomy), **query)
        if not answer.ok:
            _raise(answer)
        total = int(answer.headers.get("X-WP-Total", len(answer.data)))
        pages = common.total_pages(total, size)
        shaped = [linked.term_object(request, term, taxonomy) for term in answer.data]
        links = common.page_links(request, kind, query, page, pages, lambda: True, lambda: total > 0)
        body = {"rest_url": links.pop("rest_url"), "total": total, "total_pages": pages, kind: shaped, **links}
        return RestResponse(body, 200, {"X-CAL-Total": str(total), "X-CAL-TotalPages": str(pages)})
    return handler


def get_term(kind: str):
    taxonomy = KINDS[kind]

    def handler(request):
        # REST on purpose: core/v2's term route as this caller (rights, checks, errors, paging headers).
        answer = request.internal_get(_core_path(taxonomy, int(request.params["id"])))
        if not answer.ok:
            _raise(answer)
        return linked.term_object(request, answer.data, taxonomy)
    return handler


def _body(request, names) -> dict:
    return {name: request.params[name] for name in names if request.has_param(name) and request.params.get(name)
            is not None}


def create_term(kind: str):
    taxonomy = KINDS[kind]
    names = ("name", "description", "slug", "parent") if kind == "categories" else ("name", "description", "slug")

    def handler(request):
        # REST on purpose: core/v2's term route as this caller (rights, checks, errors, paging headers).
        answer = request.internal_request("POST", _core_path(taxonomy), body=_body(request, names))
        if not answer.ok:
            _raise(answer)
        term = linked.term_object(request, answer.data, taxonomy)
        return RestResponse.created(term, term["urls"]["self"])
    return handler


def update_term(kind: str):
    taxonomy = KINDS[kind]
    names = ("name", "description", "slug", "parent") if kind == "categories" else ("name", "description", "slug")

    def handler(request):
        term_id = int(request.params["id"])
        # REST on purpose: core/v2's term route as this caller (rights, checks, errors, paging headers).
        answer = request.internal_request("POST", _core_path(taxonomy, term_id), body=_body(request, names))
        if not answer.ok:
            _raise(answer)
        return linked.term_object(request, answer.data, taxonomy)
    return handler


def delete_term(kind: str):
    taxonomy = KINDS[kind]

    def handler(request):
        term_id = int(request.params["id"])
        # REST on purpose: core/v2's term route as this caller (rights, checks, errors, paging headers).
        answer = request.internal_request("DELETE", _core_path(taxonomy, term_id), body={"force": True})
        if not answer.ok:
            _raise(answer)
        return linked.term_object(request, answer.data.get("previous", {"id": term_id}), taxonomy)
    return handler

