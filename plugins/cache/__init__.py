"""cache/v1 + cache/v3: a response cache for anonymous REST reads, its crawler, and service callbacks.

The cache answers anonymous GETs of the REST root, namespace indexes, the configured path
prefixes (core/v2 posts, pages, media by default) and every route that declares itself
`cacheable` (`_embed` and `_fields` included), and the site's cacheable pages (host/page_cache.py:
core's public pages, feeds, the calendar's and the catalogue's pages) from memory. It stays
correct across server processes through version counters in the database, one per kind of
write (store.FAMILIES), bumped before the write's response is sent: `content` by
`content_saved` / `content_deleted` of an item, `comments` by the same hooks for a comment,
`terms` by `terms_changed`, `users` by a changed or deleted account (on commit), `settings` by
`site_settings_changed`. An entry is stale once a family its route declares (`changes_with`;
every family by default) was bumped.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl
from host.content import commit_round

from .settings import CacheConfigSchema, config_of
from . import health, tables
from .runtime import attach, detach, runtime_of

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
    runtime = attach(app, config_of(app))
    runtime.cache.ensure_version_row()


@hookimpl
def shutdown(app):
    detach(app)


# --- the response cache in the request pipeline ----------------------------------------------

@hookimpl
def cached_response(app, request):
    runtime = runtime_of(app)
    return runtime.cache.lookup(request) if runtime else None


@hookimpl
def store_response(app, request, status, headers, body):
    runtime = runtime_of(app)
    if runtime:
        runtime.cache.store(request, status, headers, body)


@hookimpl
def response_headers(app, request, response):
    runtime = runtime_of(app)
    if runtime and runtime.cache.was_looked_up(request):
        response["X-Cache"] = "miss"


# --- invalidation ------------------------------------------------------------------------------

@hookimpl
def content_saved(app, event):
    _invalidate(app, _family_of(event))


@hookimpl
def content_deleted(app, event):
    _invalidate(app, _family_of(event))


def _family_of(event) -> tuple[str, ...]:
    """A comment changes what shows comments (and the pages of its post); any other item, the content."""
    return ("comments",) if event.type == "comment" else ("content",)


@hookimpl
def terms_changed(app):
    """A term's name, slug or description, or a new or deleted term (its count follows `content`)."""
    _invalidate(app, ("terms",))


@hookimpl
def site_settings_changed(app):
    """The root index shows the site's title and tagline, links follow the permalink settings: every answer."""
    _invalidate(app, ("settings",))


# A new password shows nowhere; any other change may (the name, slug, url, description, the avatar
# an email gives, the role that makes an account an author, what a user search matches).
_UNSHOWN_USER_FIELDS = frozenset({"password"})


@hookimpl
def user_updated(app, session, user, changed):
    """A post page and an `_embed` name their author, the users list shows the account: stale once the
    change commits."""
    if set(changed) - _UNSHOWN_USER_FIELDS:
        _invalidate_after_commit(app, session, ("users",))


@hookimpl
def user_deleted(app, session, user, reassign_to):
    """The deleted author's posts and comments move to another author (or go): stale once the deletion commits."""
    _invalidate_after_commit(app, session, ("users", "content", "comments"))


def _invalidate_after_commit(app, session, families: tuple[str, ...]) -> None:
    """These hooks run inside the changing transaction: purge when it commits (never for a rollback)."""
    from sqlalchemy import event

    event.listen(session, "after_commit", lambda _session: _invalidate(app, families), once=True)


def _invalidate(app, families: tuple[str, ...]) -> None:
    """Runs after the content commit and before the write's response goes out (after_commit).

    Once per commit and family: the events of the items one commit wrote (a batch of 200 imported
    posts) share a `commit_round` token, and one version bump after that commit makes stale whatever
    was kept before it; each further bump was a write transaction of its own."""
    runtime = runtime_of(app)
    if runtime:
        runtime.invalidate_once(commit_round(), families)
