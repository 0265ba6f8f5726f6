"""Cache: status, hit rate and purge, through the cache plugin's REST routes (never its modules)."""

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
    body = ("<section aria-labelledby=\"status-heading\"><h2 id=\"status-heading\">Status</h2><dl class=\"facts\">"
            f"<dt>Cache</dt><dd>{'on' if cache.get('enabled') else 'off'}</dd>"
            f"<dt>Hit rate</dt><dd>{escape(rate)} <span class=\"muted\">({hits:,} hits, {misses:,} misses in "
            "the server process that answered this page)</span></dd>"
            f"<dt>Answers kept</dt><dd>{int(cache.get('entries', 0)):,} of {int(cache.get('max_entries', 0)):,}</dd>"
            f"<dt>Bytes kept</dt><dd>{int(cache.get('bytes', 0)):,} of {int(cache.get('max_bytes', 0)):,}</dd>"
            f"<dt>Kept for</dt><dd>{int(cache.get('ttl_seconds', 0))} s at most</dd>"
            f"<dt>Cached paths</dt><dd>{', '.join(f'<code>{escape(path)}</code>' for path in cache.get('paths', []))}</dd>"
            "</dl></section>")
    purge = page.form_html("purge", "", "Purge the cache", danger=True)
    if not page.has_namespace("abilities/v1"):
        purge = "<p class=\"muted\">Purging needs the abilities plugin, which is disabled.</p>"
    return AdminAnswer(body + "<section aria-labelledby=\"purge-heading\"><h2 id=\"purge-heading\">Purge</h2>"
                       "<p>Makes every cached answer stale in every server process.</p>" + purge + "</section>",
                       status)
