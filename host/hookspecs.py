"""Every hook of sitehost: when it runs, what it receives, what it returns.

Implementations take only the arguments they use (pluggy passes by name), and never give
them defaults. Registration hooks return lists of small frozen dataclasses from `host`;
the host validates and merges them and owns the resulting registry.
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("sitehost")


# --- registration: called once per app, in create_app, in this order ----------------------

@hookspec
def register_tables(metadata):
    """Add the plugin's SQLAlchemy tables to `metadata` (a sqlalchemy.MetaData).

    Called before the database is opened; the tables of every enabled plugin are created
    when missing. Return nothing. A disabled plugin's tables are never touched.
    """


@hookspec
def register_namespaces(app):
    """Return a list of `host.Namespace` the plugin serves (for example `cal/events/v1`).

    A namespace belongs to exactly one plugin; two plugins registering the same one stop
    the start-up with an error naming both.
    """


@hookspec
def register_statuses(app):
    """Return a list of `host.Status`: content statuses with their public/protected/internal flags.

    Enums in route args are built from the registered set, so a disabled plugin's
    statuses vanish from them.
    """


@hookspec
def register_post_types(app):
    """Return a list of `host.PostType`: content types stored by the content plugin."""


@hookspec
def register_taxonomies(app):
    """Return a list of `host.Taxonomy`: term vocabularies (categories, tags, event categories ...)."""


@hookspec
def register_meta(app):
    """Return a list of `host.MetaKey`: typed meta keys per object type, shown under `meta`."""


@hookspec
def register_capabilities(app):
    """Return a dict {capability: [role, ...]} of extra capabilities and the roles that hold them."""


@hookspec
def register_schemas(app):
    """Return a dict {name: marshmallow Schema class} of resource shapes (OpenAPI components)."""


@hookspec
def register_routes(app):
    """Return a list of `host.Route`: REST endpoints, each in a registered namespace.

    Several Route objects with the same namespace and pattern form one route with several
    endpoints, tried in registration order.
    """


@hookspec
def register_pages(app):
    """Return a list of `host.Page`: HTML pages of the site outside the REST root."""


@hookspec
def register_authentication(app):
    """Return a dict merged into the root index's `authentication` object.

    For example {"application-passwords": {"endpoints": {"authorization": url}}}; `app`
    gives access to settings. Return None when the scheme is unavailable.
    """


@hookspec
def register_commands(cli):
    """Add click commands to the `sitehost` command group `cli`."""


# --- lifecycle -------------------------------------------------------------------------

@hookspec
def startup(app):
    """Called once when the app is built, after the registry and tables are ready.

    Raise `host.StartupError` for a configuration that cannot work; the plugin is then
    reported as failed and the site starts without it.
    """


@hookspec
def shutdown(app):
    """Called when the app is closed (server stop, end of a test)."""


@hookspec
def site_installed(app, session):
    """Called once, the first time `sitehost serve` or `sitehost init` runs on an empty database.

    Do first-time set-up with the SQLAlchemy `session` (for example create the first
    administrator). Return a list of lines to print to the operator, or None.
    """


@hookspec
def demo_content(app, session):
    """Write realistic sample data with the SQLAlchemy `session` (for `sitehost init --demo`)."""


# --- request pipeline ------------------------------------------------------------------

@hookspec(firstresult=True)
def authenticate(app, request):
    """Decide who sends `request` (a host.rest.RestRequest or a page request).

    Return a user object (see host.users) or None for "no opinion". Raise
    `host.RestError` to refuse the request before routing (for example a wrong
    application password: 401). firstresult: the first non-None answer wins.
    """


@hookspec(firstresult=True)
def handle_exception(app, request, exception):
    """Turn an unexpected exception from a handler into a `host.RestResponse`, or None.

    The host's own answer (500 `internal_server_error`, traceback only in the log) is
    used when no plugin answers. firstresult.
    """


@hookspec(firstresult=True)
def map_meta_capability(app, user, capability, args):
    """Map a meta capability on an object to the primitive capabilities it needs.

    `args` is the tuple passed to `user.can(capability, *args)` (for example the post
    dict for "edit_post"). Return a list of primitive capabilities, all of which the user
    must hold (["do_not_allow"] refuses everyone), or None when the capability is not
    yours: it is then checked as a primitive capability. firstresult.
    """


@hookspec
def response_headers(app, request, response):
    """Add or change headers on a finished REST `response` before it is sent.

    Called for every REST response, errors included. Return nothing.
    """


@hookspec(firstresult=True)
def cached_response(app, request):
    """Return a finished (status, headers, body) triple for an anonymous GET, or None.

    Called after authentication and before routing; the first answer is sent as it is.
    A response cache implements this together with `store_response`.
    """


@hookspec
def store_response(app, request, status, headers, body):
    """Called after an anonymous GET was answered, with the final status, headers and body."""


@hookspec
def request_finished(app, request, status):
    """Called after every REST request (and each batch sub-request) has its response."""


# --- cross-plugin events ---------------------------------------------------------------

@hookspec
def content_saved(app, item, created):
    """Called after a content item was written and its transaction committed.

    `item` is a dict with at least `id`, `type` and `status`; `created` is True for a new item.
    """


@hookspec
def content_deleted(app, item, force):
    """Called after a content item was trashed (`force` False) or deleted for good (True)."""


@hookspec(firstresult=True)
def check_spam(app, submission):
    """Return a spam verdict for a form, comment or sign-up `submission` dict, or None."""


@hookspec
def render_content(app, item, content):
    """Change rendered HTML: `content` is a dict with key `html` that each plugin may rewrite."""


@hookspec
def oembed_providers(app):
    """Return a list of (url_pattern, endpoint_url) pairs the oEmbed proxy may call."""


@hookspec(historic=True)
def add_hookspecs(plugin_manager):
    """Let a plugin publish hooks of its own for other plugins (calls `plugin_manager.add_hookspecs`)."""
