"""oembed/1.0: this site's posts and pages as oEmbed (`embed`), and an editor's oEmbed proxy (`proxy`)."""

from __future__ import annotations

from urllib.parse import urlencode

from host import Namespace, PluginInfo, hookimpl

from .settings import OembedConfigSchema
from . import tables

PLUGIN = PluginInfo(name="oembed", version="0.1.0", requires=("core",), settings=OembedConfigSchema,
                    description="oEmbed provider for this site's posts and pages, and an oEmbed proxy for editors")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from .routes import NAMESPACE

    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_abilities():
    from . import abilities

    return abilities.ABILITIES


@hookimpl
def html_head(app, request, item):
    """oEmbed discovery: every published post and page view names its JSON and XML oEmbed URLs."""
    from . import local
    from .routes import NAMESPACE
    from .templating import TEMPLATES

    if item.get("type") not in local.EMBEDDABLE_TYPES or not item.get("link"):
        return None
    embed_url = f"{app.rest_base_url(request.environ)}/{NAMESPACE}/embed?"
    json_href = embed_url + urlencode({"url": item["link"]})
    xml_href = embed_url + urlencode({"url": item["link"], "format": "xml"})
    return TEMPLATES.get_template("oembed_links.html").render(json_href=json_href, xml_href=xml_href)
