"""core/v2: the site's content (posts, pages, media, revisions, autosaves, terms) and its users."""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl

from . import users

PLUGIN = PluginInfo(name="core", version="0.1.0", description="Posts, pages, media, terms and users (core/v2)")
NAMESPACE = "core/v2"


@hookimpl
def register_namespaces():
    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_routes(app):
    return [*users.routes(app)]
