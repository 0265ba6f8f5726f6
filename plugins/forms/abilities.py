"""The forms plugin's ability: the site's contact forms, for machines (staff only, as the route)."""

from __future__ import annotations

from host import Ability, RestError

from .routes import NAMESPACE


def _answer(response):
    if response.ok:
        return response.data
    error = response.data if isinstance(response.data, dict) else {}
    raise RestError(error.get("code", "forms_forbidden"), error.get("message", "The request failed."), response.status)


def _list_forms(request, value: dict) -> list[dict]:
    query = {"per_page": value.get("per_page", 20)}
    if value.get("search"):
        query["search"] = value["search"]
    return [{"id": form["id"], "title": form["title"], "slug": form["slug"]}
            # REST on purpose: the ability answers as this plugin's own forms route does, errors included.
            for form in _answer(request.internal_get(f"/{NAMESPACE}/contact-forms", **query))]


ABILITIES = [
    Ability("forms/list-forms", "List contact forms", "The site's contact forms, by title, for staff.", "content",
            lambda request, value: request.user.can("edit_posts"), _list_forms,
            input_schema={"type": "object", "properties": {
                "search": {"type": "string", "maxLength": 200},
                "per_page": {"type": "integer", "minimum": 1, "maximum": 100}}, "additionalProperties": False},
            output_schema={"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"}, "slug": {"type": "string"}},
                "required": ["id", "title"]}},
            readonly=True, idempotent=True),
]
