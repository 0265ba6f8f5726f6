"""Page builder: builder/v1, builder/v1/documents and builder-ai/v1 (hook implementations only).

Pages whose `_builder_edit_mode` is `builder` render their element tree (`_builder_data`)
into `content.rendered` and their HTML view; the kit's colours and fonts travel with them as
CSS custom properties. See docs/builder.md.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, PostType, hookimpl

from . import settings, tables
from .tables import EVENTS, FAVORITES, USER_DATA, table
from .schemas import BuilderDocumentSchema, GlobalEntrySchema, TemplateSchema
from .kit import ensure_kit

PLUGIN = PluginInfo(name="builder", version="0.1.0", requires=("core",), settings=settings.BuilderSettingsSchema,
                    description="Page builder: element trees that render, global styles, templates, editor data")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def user_deleted(app, session, user, reassign_to):
    """A deleted account's favourites, editor data and editor events go with it (same transaction)."""
    from sqlalchemy import delete

    for name in (FAVORITES, USER_DATA, EVENTS):
        rows = table(app, name)
        session.execute(delete(rows).where(rows.c.user_id == user.id))


@hookimpl
def register_namespaces():
    from .routes.common import AI_NAMESPACE, DOCUMENTS_NAMESPACE, NAMESPACE

    return [Namespace(DOCUMENTS_NAMESPACE, description="Builder documents"),
            Namespace(NAMESPACE, description="Page builder: global styles, settings, templates and editor data"),
            Namespace(AI_NAMESPACE, description="Page builder AI feature probe")]


@hookimpl
def register_post_types():
    return [PostType("builder_library", "Templates", public=False, supports=("title", "author"))]


@hookimpl
def register_meta(app):
    from . import documents

    return documents.meta_keys(app)


@hookimpl
def register_schemas():
    return {"BuilderDocument": BuilderDocumentSchema, "BuilderGlobal": GlobalEntrySchema,
            "BuilderTemplate": TemplateSchema}


@hookimpl
def register_routes(app):
    from .routes import routes

    return routes(app)


@hookimpl
def startup(app):
    ensure_kit(app)


@hookimpl
def render_content(app, item, content):
    from . import documents

    rendered = documents.render_item(app, item)
    if rendered is not None:
        content["html"] = rendered


@hookimpl
def render_cache_key(app, item):
    from . import documents

    return documents.render_cache_key(app, item)


@hookimpl
def html_head(app, request, item):
    from .page_style import head_links

    return head_links(app, item, request.site_url)


@hookimpl
def site_stylesheets(app, request):
    from .page_style import theme_stylesheets

    return theme_stylesheets(app, request)


@hookimpl
def editor_url(app, item, rest_url):
    from . import documents

    return documents.editor_url(item, rest_url)


@hookimpl
def register_pages():
    from .page_style import pages

    return pages()


@hookimpl
def content_saved(app, event):
    from . import documents

    documents.record_saved(app, event)


@hookimpl
def content_deleted(app, event):
    from . import documents

    documents.record_deleted(app, event)


@hookimpl
def demo_content(app, session):
    from .demo import write_demo_content

    write_demo_content(app, session)


@hookimpl
def import_wordpress_item(app, item, run):
    """The page builder's templates and kit of a WordPress export (`elementor_library`)."""
    from . import wordpress

    return wordpress.import_item(app, item, run)


@hookimpl
def wordpress_item_imported(app, item, new_id, run):
    """A post or page's `_elementor_*` meta becomes its builder document."""
    from . import wordpress

    wordpress.item_imported(app, item, new_id, run)


@hookimpl
def export_wordpress_items(app, export):
    from . import wordpress

    return wordpress.export_items(app, export)


@hookimpl
def wordpress_item_exported(app, item, post_id, export):
    from . import wordpress

    wordpress.item_exported(app, item, post_id, export)
