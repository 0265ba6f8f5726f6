"""block-editor/v1: what the block editor asks the server for; today, link previews (url-details)."""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl

from .settings import BlockEditorConfigSchema
from . import tables

PLUGIN = PluginInfo(name="block_editor", version="0.1.0", settings=BlockEditorConfigSchema,
                    description="Block editor helpers: link previews of remote pages (url-details)")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()
