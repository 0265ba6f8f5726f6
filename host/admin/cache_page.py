"""Cache: status, hit rate and purge, through the cache plugin's REST routes (never its modules).

The body is templates/admin/cache.html."""

from __future__ import annotations

from .framework import AdminAnswer, AdminRequest, escape

ACTIONS = ("purge",)
CACHE_NAMESPACE = "cache/v1"
PURGE_ABILITY = "/abilities/v1/abilities/cache/purge/run"


def cache_page(page: AdminRequest):
    if not page.has_namespace(CACHE_NAMESPACE):
        if page.method == "POST":
            page.notice("<p>The cache plugin is disabled; there is nothing to purge.</p>", "error")
            return AdminAnswer("", 409)
        return "<p>The cache plugin is disabled. Enable it on the <a href=\"/admin/plugins\">Plugins</a> page.</p>"
    status = 200
    if page.method == "POST":
        answer = page.rest("POST", PURGE_ABILITY)
        if answer.ok:
            page.notice("<p>The cache was purged: every server process answers afresh from now on.</p>")
        else:
            status = 502 if answer.status >= 500 else 409
            reason = answer.data.get("message", "") if isinstance(answer.data, dict) else ""
            page.notice(f"<p>The cache could not be purged (HTTP {answer.status}). {escape(reason)}</p>", "error")
    answer = page.rest("GET", f"/{CACHE_NAMESPACE}/status")
    if not answer.ok or not isinstance(answer.data, dict):
        page.notice(f"<p>The cache status could not be read (HTTP {answer.status}).</p>", "error")
        return AdminAnswer("", 502)
    cache = answer.data.get("cache", {})
    hits, misses = int(cache.get("hits", 0)), int(cache.get("misses", 0))
    rate = f"{hits / (hits + misses):.0%}" if hits + misses else "no cacheable reads yet"
    numbers = {key: int(cache.get(key, 0)) for key in ("entries", "max_entries", "bytes", "max_bytes", "ttl_seconds")}
    shown = {**numbers, "enabled": bool(cache.get("enabled")), "paths": [str(path) for path in cache.get("paths", [])]}
    body = page.render("admin/cache.html", cache=shown, hits=hits, misses=misses, rate=rate,
                       can_purge=page.has_namespace("abilities/v1"))
    return AdminAnswer(body, status)
