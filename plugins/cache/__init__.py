"""cache/v1 + cache/v3: a response cache for anonymous REST reads, its crawler, and service callbacks.

The cache answers anonymous GETs of the REST root, namespace indexes and the configured
path prefixes (core/v2 posts, pages, media by default) from memory, and stays correct
across server processes through a version counter in the database that every content
write bumps (`content_saved` / `content_deleted`) before the write's response is sent.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, Route, hookimpl

from . import admin, callbacks, models
from .runtime import attach, detach, runtime_of
from .settings import load_config

PLUGIN = PluginInfo(name="cache", version="0.1.0",
                    description="Response cache for anonymous REST reads, cache warming and optimisation callbacks")
V1 = "cache/v1"
V3 = "cache/v3"


@hookimpl
def register_tables(metadata):
    models.define_tables(metadata)


@hookimpl
def register_namespaces():
    return [Namespace(V1, description="Page cache: crawler, tools and optimisation callbacks"),
            Namespace(V3, description="Page cache: callbacks of the optimisation service")]


@hookimpl
def register_routes():
    operator = admin.require_manage_options
    service = callbacks.require_callback_secret
    return [
        Route(V1, "/toggle_crawler_state", "POST", admin.toggle_crawler_state, permission=operator),
        Route(V1, "/tool/check_ip", "GET", admin.check_ip, permission=operator),
        Route(V1, "/status", "GET", admin.cache_status, permission=operator),
        Route(V1, "/notify_img", "POST", callbacks.notify_img, permission=service),
        Route(V1, "/notify_ccss", "POST", callbacks.notify_page_result("ccss"), permission=service),
        Route(V1, "/notify_ucss", "POST", callbacks.notify_page_result("ucss"), permission=service),
        Route(V1, "/notify_vpi", "POST", callbacks.notify_page_result("vpi"), permission=service),
        Route(V1, "/check_img", "POST", callbacks.check_img, permission=service),
        Route(V3, "/ip_validate", "POST", callbacks.ip_validate, permission=service),
        Route(V3, "/wp_rest_echo", "POST", callbacks.wp_rest_echo, permission=service),
        Route(V3, "/ping", "POST", callbacks.ping, permission=service),
        Route(V3, "/cdn_status", "POST", callbacks.cdn_status, permission=service),
        Route(V3, "/err_domains", "POST", callbacks.err_domains, permission=service),
    ]


@hookimpl
def startup(app):
    runtime = attach(app, load_config(app.plugin_config("cache")))
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
def content_saved(app):
    _invalidate(app)


@hookimpl
def content_deleted(app):
    _invalidate(app)


def _invalidate(app) -> None:
    """Runs after the content commit and before the write's response goes out (after_commit)."""
    runtime = runtime_of(app)
    if runtime:
        runtime.cache.invalidate()
