"""core's abilities: find and read posts, start a draft, and the site's identity, for machines.

Each runs the matching core/v2 route as the caller (`request.internal_request`), so the
route's own validation and read/write permissions apply: an ability can never show or change
more than the caller could through the REST API.
"""

from __future__ import annotations

from typing import Any

from host import Ability, RestError

from .posts import NAMESPACE

_POST_SUMMARY = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "title": {"type": "string"}, "link": {"type": "string"},
                   "status": {"type": "string"}, "date": {"type": ["string", "null"]}},
    "required": ["id", "title", "link", "status"],
}


def _reader(request, _input) -> bool:
    return request.user.can("read")


def _writer(request, _input) -> bool:
    return request.user.can("edit_posts")


def _answer(response) -> Any:
    """The route's data, or its error raised as the ability's error (same code and status)."""
    if response.ok:
        return response.data
    error = response.data if isinstance(response.data, dict) else {}
    raise RestError(error.get("code", "rest_error"), error.get("message", "The request failed."), response.status)


def _summary(post: dict) -> dict:
    return {"id": post["id"], "title": post["title"]["rendered"], "link": post["link"], "status": post["status"],
            "date": post.get("date")}


def _find_posts(request, value: dict) -> list[dict]:
    query = {"per_page": value.get("per_page", 5), "context": "view"}
    if value.get("search"):
        query["search"] = value["search"]
    return [_summary(post) for post in _answer(request.internal_get(f"/{NAMESPACE}/posts", **query))]


def _get_post(request, value: dict) -> dict:
    post = _answer(request.internal_get(f"/{NAMESPACE}/posts/{value['id']}", context="view"))
    return {**_summary(post), "content": post["content"]["rendered"], "excerpt": post["excerpt"]["rendered"]}


def _create_draft(request, value: dict) -> dict:
    body = {"title": value["title"], "content": value.get("content", ""), "status": "draft"}
    return _summary(_answer(request.internal_request("POST", f"/{NAMESPACE}/posts", body=body)))


def _site_info(request, _input) -> dict:
    root = _answer(request.internal_get("/"))
    return {key: root[key] for key in ("name", "description", "url", "timezone_string")}


ABILITIES = [
    Ability("core/find-posts", "Find posts", "Posts the caller may read, newest first, optionally matching words.",
            "content", _reader, _find_posts,
            input_schema={"type": "object", "properties": {
                "search": {"type": "string", "maxLength": 200},
                "per_page": {"type": "integer", "minimum": 1, "maximum": 20}}, "additionalProperties": False},
            output_schema={"type": "array", "items": _POST_SUMMARY}, readonly=True, idempotent=True),
    Ability("core/get-post", "Read a post", "One post the caller may read, with its rendered content.",
            "content", _reader, _get_post,
            input_schema={"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}},
                          "required": ["id"], "additionalProperties": False},
            output_schema={**_POST_SUMMARY, "properties": {**_POST_SUMMARY["properties"],
                                                           "content": {"type": "string"},
                                                           "excerpt": {"type": "string"}}},
            readonly=True, idempotent=True),
    Ability("core/create-draft", "Create a draft post", "A new draft post by the caller, for an editor to finish.",
            "content", _writer, _create_draft,
            input_schema={"type": "object", "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 200},
                "content": {"type": "string", "maxLength": 100000}},
                "required": ["title"], "additionalProperties": False},
            output_schema=_POST_SUMMARY),
    Ability("core/site-info", "Site information", "The site's name, tagline, address and time zone.",
            "site", _reader, _site_info,
            output_schema={"type": "object", "properties": {
                "name": {"type": "string"}, "description": {"type": "string"}, "url": {"type": "string"},
                "timezone_string": {"type": "string"}}, "required": ["name", "url"]},
            readonly=True, idempotent=True),
]
