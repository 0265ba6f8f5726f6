"""abilities/v1: every enabled plugin's abilities (host.Ability), listed and run by machines.

The abilities themselves are registered by the plugins that own them (`register_abilities`);
this plugin only serves them, after WordPress's Abilities API (`wp-abilities/v1`).
"""

from __future__ import annotations

from host import AbilityCategory, Namespace, PluginInfo, hookimpl
from . import routes


PLUGIN = PluginInfo(name="abilities", version="0.1.0",
                    description="Every plugin's actions as abilities a machine can list and run")


@hookimpl
def register_namespaces():
    return [Namespace(routes.NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_ability_categories():
    # Categories most plugins' abilities fit; a plugin may register its own as well.
    return [
        AbilityCategory("content", "Content", "Find, read and write the site's content."),
        AbilityCategory("site", "Site", "Operate the site: caches, settings and health."),
    ]


@hookimpl
def register_routes(app):
    return routes.routes(app)
