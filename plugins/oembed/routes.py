"""oembed/1.0 routes: `embed` (this site's posts and pages) and `proxy` (remote providers, for editors)."""

from __future__ import annotations

from marshmallow import Schema, fields

from host import RestError, RestResponse, Route
from host.args import enum_field

from . import local, proxy

NAMESPACE = "oembed/1.0"

def _url_field():
    return fields.String(required=True, metadata={
        "description": "The URL of the resource for which to fetch oEmbed data.", "format": "uri"})


class EmbedArgs(Schema):
    url = _url_field()
    # Untyped, as the reference declares them: any format other than xml answers JSON.
    format = fields.Raw(load_default="json", metadata={
        "description": "The oEmbed format to use (json or xml; anything else is json)."})
    maxwidth = fields.Raw(load_default=600, metadata={"description": "The maximum width of the embed frame in pixels."})


class ProxyArgs(Schema):
    url = _url_field()
    format = enum_field(["json", "xml"], "The oEmbed format to use.", "json")
    maxwidth = fields.Integer(load_default=600, metadata={"description": "The maximum width of the embed frame in "
                                                                         "pixels."})
    maxheight = fields.Integer(metadata={"description": "The maximum height of the embed frame in pixels."})
    discover = fields.Boolean(load_default=True, metadata={
        "description": "Whether to perform an oEmbed discovery request for unsanctioned providers."})


def embed(request):
    """oEmbed JSON, or XML with `format=xml` (errors then come as XML too, with their status)."""
    wants_xml = str(request.params.get("format", "json")).lower() == "xml"
    try:
        data = local.embed_data(request, request.params["url"], request.params.get("maxwidth", 600))
    except RestError as error:
        if not wants_xml:
            raise
        return RestResponse(local.to_xml(error.to_body()), error.status)
    return local.to_xml(data) if wants_xml else data


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, "/embed", "GET", embed, args=EmbedArgs, cacheable=True),
        Route(NAMESPACE, "/proxy", "GET", proxy.proxy, args=ProxyArgs, **proxy.PROXY_PERMISSION),
    ]
