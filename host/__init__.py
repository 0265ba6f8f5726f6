"""sitehost's public API: everything a plugin author imports comes from here."""

import pluggy

from .registry import HtmlView, MetaKey, Namespace, Page, PluginInfo, PostType, Route, StartupError, Status, Taxonomy
from .rest.response import RawBody, RestError, RestResponse, forbidden
from .rest.server import encode_item
from .users import ANONYMOUS, AnonymousUser

hookimpl = pluggy.HookimplMarker("sitehost")

__all__ = [
    "ANONYMOUS", "AnonymousUser", "HtmlView", "MetaKey", "Namespace", "Page", "PluginInfo", "PostType", "RawBody", "RestError",
    "RestResponse", "Route", "StartupError", "Status", "Taxonomy", "encode_item", "forbidden", "hookimpl",
]
