"""core/v2's route table, built from what plugins registered.

Every registered post type with a `rest_base` gets its collection and item routes; its
revisions routes when it `supports` "revisions", its autosaves routes when it supports
"editor" (or "autosave"). Every taxonomy with a `rest_base` gets its term routes. So a
plugin that registers `PostType("menu", rest_base="menus")` is served at core/v2/menus.
"""

from __future__ import annotations

from host import Route

from . import comments, registered, search_route, site_settings, users
from .media import MediaController
from .posts import PostsController
from .revisions import RevisionsController
from .terms import TermsController


def controller_kind(name: str, hierarchical: bool) -> str:
    """Which fields a type's routes carry: "post" (sticky, format, categories and tags), "page"
    (parent, menu order) for hierarchical types, "item" for any other type."""
    if name == "post":
        return "post"
    return "page" if hierarchical else "item"


def routes(app) -> list[Route]:
    table: list[Route] = []
    for name, (post_type, _owner) in app.registry.post_types.items():
        if not post_type.rest_base:  # revisions are served under their parent's routes
            continue
        if name == "attachment":
            table += MediaController(app).routes()
            continue
        controller = PostsController(app, name, controller_kind(name, post_type.hierarchical), post_type.rest_base,
                                     hierarchical=post_type.hierarchical)
        table += controller.routes()
        supports = set(post_type.supports)
        table += RevisionsController(controller).routes(revisions="revisions" in supports,
                                                        autosaves=bool({"editor", "autosave"} & supports))
    for name, (taxonomy, _owner) in app.registry.taxonomies.items():
        if taxonomy.rest_base:
            table += TermsController(app, name, taxonomy.rest_base, taxonomy.hierarchical).routes()
    return table + users.routes(app) + registered.routes() + site_settings.routes() + search_route.routes() + comments.routes()
