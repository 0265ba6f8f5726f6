"""WordPress migration: `sitehost import wordpress` reads a WordPress export (WXR) into this site, its
old links redirect to the new items, and the admin page and the `wordpress/import` ability start the
same import.

Hook implementations only; the parts live beside this file: reader.py (the streaming, defused WXR
reader), importer.py (the run: id map, links, core's users/terms/posts/attachments/comments), run.py
(one import from check to summary), redirects.py (old permalinks answered 301), jobs.py (imports in
the background for the admin page and the ability), commands.py, admin.py, abilities.py, tables.py;
export.py (the site read for `sitehost export wordpress`), writer.py (the WXR document), export_command.py.
"""

from __future__ import annotations

from host import PluginInfo, hookimpl

from .settings import WordpressMigrateConfigSchema
from .export import export_item_hook
from .commands import register
from . import export_command
from .tables import define_tables
from .redirects import path_redirect, permalink_redirect

PLUGIN = PluginInfo(name="wordpress_migrate", version="1.0.0", requires=("core",), settings=WordpressMigrateConfigSchema,
                    description="Imports a WordPress site's export (WXR) and keeps its old links working")

IMPORT_CAPABILITY = "import"


@hookimpl
def register_tables(metadata):
    define_tables(metadata)


@hookimpl
def register_commands(cli):
    register(cli)
    export_command.register(cli)


@hookimpl
def wordpress_taxonomies(app):
    """Core's taxonomies keep their WordPress names."""
    from .importer import CORE_TAXONOMIES

    return dict(CORE_TAXONOMIES)


@hookimpl(tryfirst=True)
def export_wordpress_items(app, export):
    """Core's posts, pages and attachments, before the other plugins' items (they may refer to them)."""
    return export_item_hook(app, export)


@hookimpl(tryfirst=True)
def html_view(app, request):
    return permalink_redirect(app, request)


@hookimpl
def html_not_found(app, request):
    return path_redirect(app, request)


@hookimpl
def register_admin_pages(app):
    from .admin import admin_pages

    return admin_pages(IMPORT_CAPABILITY)


@hookimpl
def register_abilities(app):
    from .abilities import ABILITIES

    return ABILITIES
