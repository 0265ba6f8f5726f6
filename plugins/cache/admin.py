"""Operator routes of cache/v1 (manage_options): crawler switches, IP detection, status."""

from __future__ import annotations

import datetime
import logging

from marshmallow import Schema, fields, validate
from sqlalchemy import func, select

from host import forbidden

from .crawler import CRAWLERS, Warmer
from .tables import tables
from .outbound import detect_public_ipv4
from .runtime import runtime_of
from .state import get_state, set_state
from .validation import load_payload

log = logging.getLogger("sitehost.cache")

ACTIVE_CRAWLERS = "crawlers_active"
LAST_CRAWL = "crawler_last_run"


def require_manage_options(request):
    if request.user.can("manage_options"):
        return True
    raise forbidden(request.user)


class ToggleCrawlerSchema(Schema):
    crawler_id = fields.Integer(required=True, validate=validate.OneOf(sorted(CRAWLERS)),
                                metadata={"description": "Id of the crawler to switch on or off."})


def toggle_crawler_state(request):
    """Flip one crawler; 1 = now active (and it warms the cache right away), 0 = now off."""
    app = request.app
    crawler_id = load_payload(ToggleCrawlerSchema(), request.params)["crawler_id"]
    active = set(get_state(request.session, app, ACTIVE_CRAWLERS, []))
    now_active = crawler_id not in active
    if now_active:
        active.add(crawler_id)
    else:
        active.discard(crawler_id)
    set_state(request.session, app, ACTIVE_CRAWLERS, sorted(active))
    if now_active:
        environ = dict(request.environ)
        request.after_commit(lambda: warm(app, environ, [crawler_id]))
    return 1 if now_active else 0


def warm(app, environ: dict, crawler_ids: list[int]) -> dict:
    """Run one bounded warming pass and record it for the status route."""
    runtime = runtime_of(app)
    if runtime is None or not runtime.config.enabled:
        return {"requests": 0, "cached": 0}
    result = Warmer(app, runtime.cache, environ, runtime.config.crawler_max_requests).run(crawler_ids)
    record = {"at": _now(), "crawlers": sorted(crawler_ids), **result}
    with app.db.session(write=True) as session, session.begin():
        set_state(session, app, LAST_CRAWL, record)
    return record


def check_ip(request):
    """The site's public IPv4 address as a JSON string, from the configured detection service."""
    return detect_public_ipv4(runtime_of(request.app).config.ip_service_url)


def cache_status(request):
    """What the cache holds in this process, the shared version, crawlers and service results."""
    app = request.app
    runtime = runtime_of(app)
    session = request.session
    config = runtime.config
    active = set(get_state(session, app, ACTIVE_CRAWLERS, []))
    images = tables(app)["cache_image_results"]
    image_totals = session.execute(select(
        func.count(), func.coalesce(func.sum(images.c.ori_reduced), 0), func.coalesce(func.sum(images.c.webp_reduced), 0),
        func.coalesce(func.sum(images.c.avif_reduced), 0))).one()
    pages = tables(app)["cache_page_results"]
    page_counts = dict(session.execute(select(pages.c.kind, func.count()).group_by(pages.c.kind)).all())
    return {
        "cache": {
            "enabled": config.enabled, **runtime.cache.stats(), "max_entries": config.max_entries,
            "max_bytes": config.max_bytes, "ttl_seconds": config.ttl_seconds, "paths": list(config.paths),
            "cache_indexes": config.cache_indexes, "version": runtime.cache.current_version(),
        },
        "crawlers": [{"id": crawler.id, "name": crawler.name, "description": crawler.description,
                      "active": crawler.id in active} for crawler in CRAWLERS.values()],
        "crawler_last_run": get_state(session, app, LAST_CRAWL),
        "callbacks_configured": bool(config.callback_secret),
        "cdn": get_state(session, app, "cdn", {"status": None, "cdn_enabled": False}),
        "err_domains": get_state(session, app, "err_domains", []),
        "images": {"count": image_totals[0], "bytes_saved": {"original": image_totals[1], "webp": image_totals[2],
                                                              "avif": image_totals[3]}},
        "page_optimizations": {kind: page_counts.get(kind, 0) for kind in ("ccss", "ucss", "vpi")},
    }


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
