"""The cache's page in the admin area: status, hit rate and purge, from this plugin's own runtime.

The body is templates/cache_admin.html; only operators (manage_options, the page's default) reach it.
"""

from __future__ import annotations

from host import PageAnswer
from host.admin import AdminRequest

from .runtime import runtime_of

ACTIONS = ("purge",)


def cache_page(page: AdminRequest):
    runtime = runtime_of(page.app)
    if runtime is None:  # its startup has not run: nothing is kept yet
        page.notice(page.render("cache_notice.html", done="not-started"), "error")
        return PageAnswer("", 503)
    if page.method == "POST":  # its one action, purge (the host refuses any other)
        runtime.cache.invalidate()
        page.notice(page.render("cache_notice.html", done="purged"))
    config, stats = runtime.config, runtime.cache.stats()
    hits, misses = int(stats.get("hits", 0)), int(stats.get("misses", 0))
    rate = f"{hits / (hits + misses):.0%}" if hits + misses else "no cacheable reads yet"
    shown = {"enabled": config.enabled, "entries": int(stats.get("entries", 0)), "bytes": int(stats.get("bytes", 0)),
             "max_entries": config.max_entries, "max_bytes": config.max_bytes, "ttl_seconds": config.ttl_seconds,
             "paths": [str(path) for path in config.paths]}
    return page.render("cache_admin.html", cache=shown, hits=hits, misses=misses, rate=rate)
