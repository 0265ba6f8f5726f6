"""cal/views/v2/html (§3): re-render the calendar view a front-end URL names, as `{html}`."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from marshmallow import Schema, fields, validate

from host import Route, forbidden, invalid_param
from host.args import JsonSchemaField

from . import common
from .view_tokens import valid_pair
from .views import VIEWS, ViewUrlError, anonymous_reader, parse_view_url, render, tokens_block

NAMESPACE = "cal/views/v2"
MAX_URL = 2000


class ViewHtmlArgs(Schema):
    u = fields.String(required=True, validate=validate.Length(min=1, max=MAX_URL), metadata={
        "description": "The front-end URL of the view to render (/events/month/YYYY-MM/, /events/list/, "
                       "/events/day/YYYY-MM-DD/), with its query."})
    pu = fields.String(validate=validate.Length(max=MAX_URL), metadata={
        "description": "The previous URL (echoed back as prev_url for the page's history)."})
    smu = fields.Boolean(load_default=False, metadata={
        "description": "Whether the client will push the new URL into the browser history."})
    view = fields.String(validate=validate.OneOf(VIEWS), metadata={
        "description": "Render this view (month, list or day) of the URL's date instead."})
    view_data = JsonSchemaField({"type": ["object", "array"], "maxProperties": 20, "maxItems": 20,
                                 "additionalProperties": {"type": ["string", "number", "boolean"], "maxLength": 200},
                                 "items": {"type": ["string", "number", "boolean"], "maxLength": 200},
                                 "description": "Extra view state; `search` filters events by text."})
    tvn1 = fields.String(validate=validate.Length(max=200), metadata={
        "description": "The view token of the visitor the page was rendered for."})
    tvn2 = fields.String(validate=validate.Length(max=200), metadata={
        "description": "The anonymous visitors' view token."})
    action = fields.String(validate=validate.Length(max=100), metadata={
        "description": "Accepted for the admin-ajax fallback of other hosts; this site does not need it."})


def can_view(request):
    """A valid tvn1 (this visitor's) or tvn2 (anonymous) token; otherwise rest_forbidden (401/403)."""
    params = request.params
    if not valid_pair(request.app, request.user.id, params.get("tvn1"), params.get("tvn2")):
        raise forbidden(request.user)
    return True


def view_html(request):
    params = request.params
    parts = urlsplit(params["u"])
    if parts.scheme not in ("http", "https", ""):
        raise invalid_param({"u": "u is an http or https URL of a calendar view."})
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    view_data = params.get("view_data")
    if isinstance(view_data, dict) and isinstance(view_data.get("search"), str):
        query["search"] = view_data["search"]
    site = common.site_url(request)
    with anonymous_reader(request.app, request.base_url) as reader:
        try:
            view = parse_view_url(reader, parts.path or "/", query, params.get("view"))
        except ViewUrlError as error:
            raise invalid_param({"u": str(error)}) from None
        body = render(reader, site, view)
    state = {"url": site + view.path(), "prev_url": params.get("pu") or "",
             "should_manage_url": bool(params.get("smu"))}
    return {"html": body + tokens_block(request.app, request.user.id, state)}


def routes(app) -> list[Route]:
    return [Route(NAMESPACE, "/html", "GET, POST", view_html, args=ViewHtmlArgs, permission=can_view,
                  cacheable=True, title="calendar view")]
