"""core/v2: the site's content (posts, pages, media, revisions, autosaves, terms) and its users.

The content store serves every registered post type; other plugins add types, statuses,
taxonomies and meta keys through the registration hooks, get core/v2 routes for them, and
read and write their items through the content service, `app.content` (host/content.py).
"""

from __future__ import annotations

from host import MetaKey, Namespace, PluginInfo, PostType, Status, Taxonomy, hookimpl

from .permissions import map_meta_capability  # noqa: F401  (hook implementation)
from .settings import CoreSettingsSchema
from .tables import (create_missing_indexes, define_tables, install_content_version, install_rendered_content, install_search_index,
                     install_term_counts, tables)

PLUGIN = PluginInfo(name="core", version="0.1.0", description="Posts, pages, media, terms and users (core/v2)",
                    settings=CoreSettingsSchema)
NAMESPACE = "core/v2"

CORE_STATUSES = [
    Status("publish", "Published", public=True),
    Status("future", "Scheduled", protected=True),
    Status("draft", "Draft", protected=True),
    Status("pending", "Pending", protected=True),
    Status("private", "Private", private=True),
    Status("trash", "Trash", internal=True, writable=False),
    Status("auto-draft", "Auto Draft", internal=True, writable=False),
    Status("inherit", "Inherit", internal=True, writable=False),
    Status("request-pending", "Pending", internal=True, writable=False),
    Status("request-confirmed", "Confirmed", internal=True, writable=False),
    Status("request-failed", "Failed", internal=True, writable=False),
    Status("request-completed", "Completed", internal=True, writable=False),
    # Listed among the read filters of the interface; it comes from a republishing workflow.
    Status("rewrite-republish", "Republish", internal=True, writable=False),
]


@hookimpl
def register_tables(metadata):
    define_tables(metadata)


@hookimpl
def register_namespaces():
    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_statuses():
    return CORE_STATUSES


@hookimpl
def register_post_types():
    return [
        PostType("post", "Posts", rest_base="posts", taxonomies=("category", "post_tag"),
                 supports=("title", "editor", "author", "excerpt", "revisions", "thumbnail", "comments",
                           "post-formats")),
        PostType("page", "Pages", rest_base="pages", hierarchical=True, capability_type="page",
                 supports=("title", "editor", "author", "revisions", "thumbnail", "comments", "page-attributes")),
        PostType("attachment", "Media", rest_base="media", supports=("title", "author", "comments")),
        PostType("revision", "Revisions", public=False, supports=("author",)),
    ]


@hookimpl
def register_taxonomies():
    return [
        Taxonomy("category", "Categories", rest_base="categories", hierarchical=True, object_types=("post",)),
        Taxonomy("post_tag", "Tags", rest_base="tags", object_types=("post",)),
    ]


@hookimpl
def register_abilities():
    from .abilities import ABILITIES

    return ABILITIES


@hookimpl
def register_meta():
    keys = []
    for object_type in ("post", "page"):
        keys.append(MetaKey(object_type, "footnotes", {"type": "string", "default": ""}, revisions=True))
        keys.append(MetaKey(object_type, "_fields_changed", {"type": "boolean", "default": False}, context=("edit",)))
    return keys


@hookimpl
def register_routes(app):
    from .routes import routes

    return routes(app)


@hookimpl
def register_admin_pages(app):
    from .admin import admin_pages

    return admin_pages()


@hookimpl
def register_pages(app):
    from .feeds import feed_pages
    from .media import uploads_page
    from .public_comments import comment_post_page
    from .sitemaps import sitemap_pages
    from .views import password_page

    return [uploads_page(), password_page(), comment_post_page(), *feed_pages(), *sitemap_pages()]


@hookimpl
def register_jobs():
    from .scheduled import declared_jobs

    return declared_jobs()


@hookimpl
def register_services(app):
    """`app.content`, `app.comments` and `app.users` (host.services) for the plugins that require core."""
    from .comment_store import CoreCommentService
    from .content import CoreContentService
    from .users import CoreUserService

    return {"content": CoreContentService(app), "comments": CoreCommentService(app), "users": CoreUserService(app)}


@hookimpl
def startup(app):
    """Indexes added since the database was created, the content version, the full-text index and the
    stored term counts with their triggers, the stored renderings' table, and the default category (id 1)
    every site has."""
    from sqlalchemy import insert, select

    create_missing_indexes(app)
    if app.schema_changes_allowed:  # not while a newer release serves the same database (a rolling upgrade)
        install_content_version(app)
        install_search_index(app)
        install_term_counts(app)
    install_rendered_content(app)
    terms = tables(app)["terms"]
    with app.db.session(write=True) as session, session.begin():
        # Inserted without an explicit id so that PostgreSQL's sequence stays in step (the first row is 1).
        if session.execute(select(terms.c.id).limit(1)).first() is None:
            session.execute(insert(terms).values(taxonomy="category", name="Uncategorized",
                                                 slug="uncategorized", description="", parent=0))


@hookimpl
def html_view(app, request):
    from .feeds import feed_redirect
    from .views import permalink_view

    return feed_redirect(app, request) or permalink_view(app, request)


@hookimpl
def site_head(app, request):
    """The site's posts and comments feeds, announced on every page (as WordPress's `feed_links`)."""
    from .feeds import site_feed_links

    return site_feed_links(app, request)


@hookimpl
def html_head(app, request, item):
    """A post's (or page's) own comments feed, announced on its page (`feed_links_extra`)."""
    from .feeds import item_feed_links

    return item_feed_links(app, request, item)


@hookimpl
def html_not_found(app, request):
    from .views import pretty_view

    return pretty_view(app, request)


@hookimpl
def site_menu_entries(app, request):
    from .views import menu_pages

    return menu_pages(app, request)


@hookimpl(tryfirst=True)  # first: other plugins' demos build on its pages and picture
def demo_content(app, session):
    from .comment_store import write_demo_comments
    from .demo import write_demo_content

    write_demo_content(app, session)
    write_demo_comments(app, session)
