"""oembed/1.0: this site's posts and pages as oEmbed (`embed`), and an editor's oEmbed proxy (`proxy`)."""

from __future__ import annotations

import html
from urllib.parse import urlencode

from sqlalchemy import JSON, Column, DateTime, Index, String, Table

from host import Namespace, PluginInfo, RestError, RestResponse, Route, hookimpl

from . import local, proxy
from .runtime import configure, forget

PLUGIN = PluginInfo(name="oembed", version="0.1.0", requires=("core",),
                    description="oEmbed provider for this site's posts and pages, and an oEmbed proxy for editors")
NAMESPACE = "oembed/1.0"

EMBED_ARGS = {
    "url": {"description": "The URL of the resource for which to fetch oEmbed data.", "required": True,
            "type": "string", "format": "uri"},
    "format": {"default": "json", "description": "The oEmbed format to use (json or xml; anything else is json)."},
    "maxwidth": {"default": 600, "description": "The maximum width of the embed frame in pixels."},
}
PROXY_ARGS = {
    "url": {"description": "The URL of the resource for which to fetch oEmbed data.", "required": True,
            "type": "string", "format": "uri"},
    "format": {"default": "json", "description": "The oEmbed format to use.", "type": "string",
               "enum": ["json", "xml"]},
    "maxwidth": {"default": 600, "description": "The maximum width of the embed frame in pixels.", "type": "integer"},
    "maxheight": {"description": "The maximum height of the embed frame in pixels.", "type": "integer"},
    "discover": {"default": True, "description": "Whether to perform an oEmbed discovery request for unsanctioned "
                                                 "providers.", "type": "boolean"},
}


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


@hookimpl
def register_tables(metadata):
    Table(
        "oembed_proxy_cache", metadata,
        Column("key", String(64), primary_key=True),  # sha256 of the request's params
        Column("data", JSON, nullable=False),
        Column("expires", DateTime, nullable=False),
        Index("ix_oembed_proxy_cache_expires", "expires"),
    )


@hookimpl
def register_namespaces():
    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_routes():
    return [
        Route(NAMESPACE, "/embed", "GET", embed, args=EMBED_ARGS),
        Route(NAMESPACE, "/proxy", "GET", proxy.proxy, args=PROXY_ARGS, permission=proxy.can_proxy),
    ]


@hookimpl
def html_head(app, request, item):
    """oEmbed discovery: every published post and page view names its JSON and XML oEmbed URLs."""
    if item.get("type") not in local.EMBEDDABLE_TYPES or not item.get("link"):
        return None
    embed_url = f"{app.rest_base_url(request.environ)}/{NAMESPACE}/embed?"
    json_href = embed_url + urlencode({"url": item["link"]})
    xml_href = embed_url + urlencode({"url": item["link"], "format": "xml"})
    return (f'<link rel="alternate" title="oEmbed (JSON)" type="application/json+oembed" href="{html.escape(json_href)}">'
            f'<link rel="alternate" title="oEmbed (XML)" type="text/xml+oembed" href="{html.escape(xml_href)}">')


@hookimpl
def startup(app):
    configure(app)


@hookimpl
def shutdown(app):
    forget(app)
