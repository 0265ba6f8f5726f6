"""cache/v1 + cache/v3: a response cache for anonymous REST reads, its crawler, and service callbacks.

The cache answers anonymous GETs of the REST root, namespace indexes and the configured
path prefixes (core/v2 posts, pages, media by default), and the site's cacheable pages
(host/page_cache.py: core's public pages, feeds, the calendar's and the catalogue's pages)
from memory, and stays correct across server processes through a version counter in the
database that every content write bumps (`content_saved` / `content_deleted`; also
`terms_changed`, `site_settings_changed`, and a shown user field changed or an account
deleted, on commit) before the write's response is sent.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl
from host.content import commit_round

from .settings import CacheConfigSchema, config_of
from . import health, tables

PLUGIN = PluginInfo(name="cache", version="0.1.0", settings=CacheConfigSchema,
                    description="Response cache for anonymous REST reads, cache warming and optimisation callbacks")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from .routes import V1, V3

    return [Namespace(V1, description="Page cache: crawler, tools and optimisation callbacks"),
            Namespace(V3, description="Page cache: callbacks of the optimisation service")]


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_admin_pages():
    from host import AdminPage

    from .admin_page import ACTIONS, cache_page

    return [AdminPage("Cache", "cache", cache_page, actions=ACTIONS)]


@hookimpl
def register_health_tests():
    return health.HEALTH_TESTS


@hookimpl
def register_abilities():
    return health.ABILITIES


@hookimpl
def startup(app):
    from .runtime import attach

    runtime = attach(app, config_of(app))
    runtime.cache.ensure_version_row()


@hookimpl
def shutdown(app):
    from .runtime import detach

    detach(app)


# --- the response cache in the request pipeline ----------------------------------------------

@hookimpl
def cached_response(app, request):
    from .runtime import runtime_of

    runtime = runtime_of(app)
    return runtime.cache.lookup(request) if runtime else None


@hookimpl
def store_response(app, request, status, headers, body):
    from .runtime import runtime_of

    runtime = runtime_of(app)
    if runtime:
        runtime.cache.store(request, status, headers, body)


@hookimpl
def response_headers(app, request, response):
    from .runtime import runtime_of

    runtime = runtime_of(app)
    if runtime and runtime.cache.was_looked_up(request):
        response["X-Cache"] = "miss"


# --- invalidation ------------------------------------------------------------------------------

@hookimpl
def content_saved(app):
    _invalidate(app)


@hookimpl
def content_deleted(app):
    _invalidate(app)


@hookimpl
def terms_changed(app):
    _invalidate(app)


@hookimpl
def site_settings_changed(app):
    """The root index shows the site's title and tagline: a cached one is stale once they change."""
    _invalidate(app)


# What public pages show of an account: the author line of posts, the author archive's title and address.
_SHOWN_USER_FIELDS = frozenset({"display_name", "slug"})


@hookimpl
def user_updated(app, session, user, changed):
    """A post page names its author: a renamed author's pages are stale once the change commits."""
    if _SHOWN_USER_FIELDS & set(changed):
        _invalidate_after_commit(app, session)


@hookimpl
def user_deleted(app, session, user, reassign_to):
    """The deleted author's posts move to another author (or go): stale once the deletion commits."""
    _invalidate_after_commit(app, session)


def _invalidate_after_commit(app, session) -> None:
    """These hooks run inside the changing transaction: purge when it commits (never for a rollback)."""
    from sqlalchemy import event

    event.listen(session, "after_commit", lambda _session: _invalidate(app), once=True)


def _invalidate(app) -> None:
    """Runs after the content commit and before the write's response goes out (after_commit).

    Once per commit: the events of the items one commit wrote (a batch of 200 imported posts)
    share a `commit_round` token, and one version bump after that commit makes stale whatever
    was kept before it; each further bump was a write transaction of its own."""
    from .runtime import runtime_of

    runtime = runtime_of(app)
    if runtime:
        runtime.invalidate_once(commit_round())
