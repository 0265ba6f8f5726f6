"""core/v2 types, statuses and taxonomies: what plugins registered, described as WordPress does.

Every registered post type with a `rest_base` (plugin-owned ones included), every status a
type uses and every taxonomy with a `rest_base` is listed, with WordPress's fields per
context and its visibility rules: the edit context needs the capability to edit posts of
the type; a status that is not public is shown only to users who can edit posts of a type
that uses it.
"""

from __future__ import annotations

from marshmallow import fields

from host import RestError, Route, forbidden
from host.args import ContextArgs

from .item_schemas import ALL, EDIT, VIEW_EDIT, _schema, prop
from .permissions import type_caps
from .shaping import core_url

NAMESPACE = "core/v2"


class TaxonomyListArgs(ContextArgs):
    type = fields.String(metadata={"description": "Limit results to taxonomies associated with a specific post type."})


TYPE_SCHEMA = _schema("TypeItem", {
    "capabilities": prop("object", "All capabilities used by the post type.", EDIT, readonly=True),
    "description": prop("string", "A human-readable description of the post type.", VIEW_EDIT, readonly=True),
    "hierarchical": prop("boolean", "Whether or not the post type should have children.", VIEW_EDIT, readonly=True),
    "viewable": prop("boolean", "Whether or not the post type can be viewed.", EDIT, readonly=True),
    "labels": prop("object", "Human-readable labels for the post type for various contexts.", EDIT, readonly=True),
    "name": prop("string", "The title for the post type.", ALL, readonly=True),
    "slug": prop("string", "An alphanumeric identifier for the post type.", ALL, readonly=True),
    "supports": prop("object", "All features, supported by the post type.", EDIT, readonly=True),
    "has_archive": prop(["string", "boolean"], "If the value is a string, the value will be used as the archive slug. "
                        "If the value is false the post type has no archive.", VIEW_EDIT, readonly=True),
    "taxonomies": prop("array", "Taxonomies associated with post type.", VIEW_EDIT, readonly=True,
                       items={"type": "string"}),
    "rest_base": prop("string", "REST base route for the post type.", ALL, readonly=True),
    "rest_namespace": prop("string", "REST route's namespace for the post type.", ALL, readonly=True),
    "visibility": prop("object", "The visibility settings for the post type.", EDIT, readonly=True),
    "icon": prop(["string", "null"], "The icon for the post type.", ALL, readonly=True),
    "template": prop(["array"], "The block template associated with the post type.", ALL, readonly=True),
    "template_lock": prop(["string", "boolean"], "The template_lock associated with the post type, or false if none.",
                          ALL, readonly=True, enum=["all", "insert", "contentOnly", False]),
})

STATUS_SCHEMA = _schema("StatusItem", {
    "name": prop("string", "The title for the status.", ALL, readonly=True),
    "private": prop("boolean", "Whether posts with this status should be private.", EDIT, readonly=True),
    "protected": prop("boolean", "Whether posts with this status should be protected.", EDIT, readonly=True),
    "public": prop("boolean", "Whether posts of this status should be shown in the front end of the site.",
                   VIEW_EDIT, readonly=True),
    "queryable": prop("boolean", "Whether posts with this status should be publicly-queryable.", VIEW_EDIT,
                      readonly=True),
    "show_in_list": prop("boolean", "Whether to include posts in the edit listing for their post type.", EDIT,
                         readonly=True),
    "slug": prop("string", "An alphanumeric identifier for the status.", ALL, readonly=True),
    "date_floating": prop("boolean", "Whether posts of this status may have floating published dates.", VIEW_EDIT,
                          readonly=True),
})

TAXONOMY_SCHEMA = _schema("TaxonomyItem", {
    "capabilities": prop("object", "All capabilities used by the taxonomy.", EDIT, readonly=True),
    "description": prop("string", "A human-readable description of the taxonomy.", VIEW_EDIT, readonly=True),
    "hierarchical": prop("boolean", "Whether or not the taxonomy should have children.", VIEW_EDIT, readonly=True),
    "labels": prop("object", "Human-readable labels for the taxonomy for various contexts.", EDIT, readonly=True),
    "name": prop("string", "The title for the taxonomy.", ALL, readonly=True),
    "slug": prop("string", "An alphanumeric identifier for the taxonomy.", ALL, readonly=True),
    "show_cloud": prop("boolean", "Whether or not the term cloud should be displayed.", EDIT, readonly=True),
    "types": prop("array", "Types associated with the taxonomy.", VIEW_EDIT, readonly=True, items={"type": "string"}),
    "rest_base": prop("string", "REST base route for the taxonomy.", ALL, readonly=True),
    "rest_namespace": prop("string", "REST namespace route for the taxonomy.", ALL, readonly=True),
    "visibility": prop("object", "The visibility settings for the taxonomy.", EDIT, readonly=True),
})

_CONTEXT_FIELDS = {"view": ("view", "edit", "embed"), "edit": ("edit",), "embed": ("embed",)}


def _in_context(data: dict, schema_class, context: str) -> dict:
    """The fields of `data` whose schema context includes `context` (WordPress's filter_response_by_context)."""
    properties = schema_class().fields
    return {key: value for key, value in data.items()
            if key == "_links" or context in properties[key].metadata.get("context", ALL)}


# --- post types -----------------------------------------------------------------------------------

def _rest_types(app) -> dict:
    return {name: post_type for name, (post_type, _owner) in app.registry.post_types.items() if post_type.rest_base}


def _can_edit_type(user, app, name: str) -> bool:
    return user.can(type_caps(app, name)["edit"])


def _type_data(request, post_type, context: str) -> dict:
    app = request.app
    caps = type_caps(app, post_type.name)
    data = {
        # WordPress's generic capability names, each mapped to this type's own (edit_posts -> edit_pages).
        "capabilities": {**{f"{action}_posts": name for action, name in caps.items() if action not in ("create", "read")},
                         "create_posts": caps["create"], "read": "read",
                         **{f"{action}_post": f"{action}_{caps['edit'].split('_', 1)[1][:-1]}"
                            for action in ("edit", "read", "delete")}},
        "description": "",
        "hierarchical": post_type.hierarchical,
        "has_archive": False,
        "labels": {"name": post_type.label or post_type.name, "singular_name": post_type.label or post_type.name},
        "name": post_type.label or post_type.name,
        "slug": post_type.name,
        "icon": None,
        "supports": {feature: True for feature in post_type.supports},
        "taxonomies": [name for name, (taxonomy, _owner) in app.registry.taxonomies.items()
                       if post_type.name in taxonomy.object_types and taxonomy.rest_base],
        "rest_base": post_type.rest_base,
        "rest_namespace": NAMESPACE,
        "viewable": post_type.public,
        "visibility": {"show_in_nav_menus": post_type.public, "show_ui": True},
        "template": [],  # no type here declares a block template or a lock: WordPress's defaults
        "template_lock": False,
        "_links": {"collection": [{"href": core_url(request, "types")}],
                   "wp:items": [{"href": core_url(request, post_type.rest_base)}],
                   "curies": [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]},
    }
    return _in_context(data, TYPE_SCHEMA, context)


def check_types(request):
    if request.params.get("context") == "edit" and not any(
            _can_edit_type(request.user, request.app, name) for name in _rest_types(request.app)):
        raise forbidden(request.user, "rest_cannot_view", "Sorry, you are not allowed to edit posts in this post type.")
    return True


def list_types(request):
    context = request.params.get("context", "view")
    return {name: _type_data(request, post_type, context) for name, post_type in _rest_types(request.app).items()
            if context != "edit" or _can_edit_type(request.user, request.app, name)}


def _one_type(request):
    post_type = _rest_types(request.app).get(request.params["type"])
    if post_type is None:
        raise RestError("rest_type_invalid", "Invalid post type.", 404)
    return post_type


def check_type(request):
    post_type = _one_type(request)
    if request.params.get("context") == "edit" and not _can_edit_type(request.user, request.app, post_type.name):
        raise forbidden(request.user, "rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.")
    return True


def get_type(request):
    return _type_data(request, _one_type(request), request.params.get("context", "view"))


# --- statuses -------------------------------------------------------------------------------------

def _listed_statuses(app) -> dict:
    """Statuses WordPress lists: not internal (trash aside)."""
    return {name: status for name, (status, _owner) in app.registry.statuses.items()
            if not status.internal or name == "trash"}


def _can_read_status(request, status) -> bool:
    if status.public:
        return True
    app = request.app
    types = [name for name in _rest_types(app) if not status.post_types or name in status.post_types]
    return any(_can_edit_type(request.user, app, name) for name in types)


def _status_data(request, status, context: str) -> dict:
    app = request.app
    types = [name for name, post_type in _rest_types(app).items()
             if (not status.post_types or name in status.post_types) and name != "attachment"]
    data = {
        "name": status.label or status.name,
        "private": status.private,
        "protected": status.protected,
        "public": status.public,
        "queryable": status.public,
        "show_in_list": not status.internal,
        "slug": status.name,
        "date_floating": status.name in ("draft", "pending", "auto-draft"),
        "_links": {"archives": [{"href": core_url(request, app.registry.post_types[name][0].rest_base)}
                                for name in types]},
    }
    return _in_context(data, STATUS_SCHEMA, context)


def check_statuses(request):
    if request.params.get("context") == "edit" and not any(
            _can_edit_type(request.user, request.app, name) for name in _rest_types(request.app)):
        raise forbidden(request.user, "rest_cannot_view", "Sorry, you are not allowed to manage post statuses.")
    return True


def list_statuses(request):
    context = request.params.get("context", "view")
    return {name: _status_data(request, status, context) for name, status in _listed_statuses(request.app).items()
            if _can_read_status(request, status)}


def check_status(request):
    status = _listed_statuses(request.app).get(request.params["status"])
    if status is None:
        raise RestError("rest_status_invalid", "Invalid status.", 404)
    if not _can_read_status(request, status):
        raise forbidden(request.user, "rest_cannot_read_status", "Cannot view status.")
    return True


def get_status(request):
    status = _listed_statuses(request.app)[request.params["status"]]
    return _status_data(request, status, request.params.get("context", "view"))


# --- taxonomies -----------------------------------------------------------------------------------

def _rest_taxonomies(app) -> dict:
    return {name: taxonomy for name, (taxonomy, _owner) in app.registry.taxonomies.items() if taxonomy.rest_base}


def _can_manage_terms(request, taxonomy) -> bool:
    return request.user.can("manage_categories") or any(
        _can_edit_type(request.user, request.app, name) for name in taxonomy.object_types if name in _rest_types(request.app))


def _taxonomy_data(request, taxonomy, context: str) -> dict:
    data = {
        "capabilities": {"manage_terms": "manage_categories", "edit_terms": "manage_categories",
                         "delete_terms": "manage_categories", "assign_terms": "edit_posts"},
        "description": "",
        "hierarchical": taxonomy.hierarchical,
        "labels": {"name": taxonomy.label or taxonomy.name, "singular_name": taxonomy.label or taxonomy.name},
        "name": taxonomy.label or taxonomy.name,
        "slug": taxonomy.name,
        "show_cloud": not taxonomy.hierarchical,
        "types": list(taxonomy.object_types),
        "rest_base": taxonomy.rest_base,
        "rest_namespace": NAMESPACE,
        "visibility": {"public": True, "publicly_queryable": True, "show_admin_column": True,
                       "show_in_nav_menus": True, "show_in_quick_edit": True, "show_ui": True},
        "_links": {"collection": [{"href": core_url(request, "taxonomies")}],
                   "wp:items": [{"href": core_url(request, taxonomy.rest_base)}],
                   "curies": [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]},
    }
    return _in_context(data, TAXONOMY_SCHEMA, context)


def check_taxonomies(request):
    if request.params.get("context") == "edit" and not any(
            _can_manage_terms(request, taxonomy) for taxonomy in _rest_taxonomies(request.app).values()):
        raise forbidden(request.user, "rest_cannot_view", "Sorry, you are not allowed to manage terms in this taxonomy.")
    return True


def list_taxonomies(request):
    context = request.params.get("context", "view")
    wanted_type = request.params.get("type")
    return {name: _taxonomy_data(request, taxonomy, context) for name, taxonomy in _rest_taxonomies(request.app).items()
            if (not wanted_type or wanted_type in taxonomy.object_types)
            and (context != "edit" or _can_manage_terms(request, taxonomy))}


def _one_taxonomy(request):
    taxonomy = _rest_taxonomies(request.app).get(request.params["taxonomy"])
    if taxonomy is None:
        raise RestError("rest_taxonomy_invalid", "Invalid taxonomy.", 404)
    return taxonomy


def check_taxonomy(request):
    taxonomy = _one_taxonomy(request)
    if request.params.get("context") == "edit" and not _can_manage_terms(request, taxonomy):
        raise forbidden(request.user, "rest_forbidden_context", "Sorry, you are not allowed to manage terms in this taxonomy.")
    return True


def get_taxonomy(request):
    return _taxonomy_data(request, _one_taxonomy(request), request.params.get("context", "view"))


# What the enabled plugins registered, nothing stored: only the plugin set (a `settings` write) changes it.
REGISTERED_ONLY = {"cacheable": True, "changes_with": ("settings",)}


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, "/types", "GET", list_types, args=ContextArgs, permission=check_types,
              schema=TYPE_SCHEMA, title="type", **REGISTERED_ONLY),
        Route(NAMESPACE, r"/types/(?P<type>[\w-]+)", "GET", get_type, args=ContextArgs, permission=check_type,
              schema=TYPE_SCHEMA, title="type", **REGISTERED_ONLY),
        Route(NAMESPACE, "/statuses", "GET", list_statuses, args=ContextArgs, permission=check_statuses,
              schema=STATUS_SCHEMA, title="status", **REGISTERED_ONLY),
        Route(NAMESPACE, r"/statuses/(?P<status>[\w-]+)", "GET", get_status, args=ContextArgs, permission=check_status,
              schema=STATUS_SCHEMA, title="status", **REGISTERED_ONLY),
        Route(NAMESPACE, "/taxonomies", "GET", list_taxonomies, args=TaxonomyListArgs, permission=check_taxonomies,
              schema=TAXONOMY_SCHEMA, title="taxonomy", **REGISTERED_ONLY),
        Route(NAMESPACE, r"/taxonomies/(?P<taxonomy>[\w-]+)", "GET", get_taxonomy, args=ContextArgs,
              permission=check_taxonomy, schema=TAXONOMY_SCHEMA, title="taxonomy", **REGISTERED_ONLY),
    ]
