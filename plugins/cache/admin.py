"""Operator routes of cache/v1 (manage_options): crawler switches, IP detection, guest lists, status."""

from __future__ import annotations

import datetime
import logging

from marshmallow import Schema, fields, validate
from sqlalchemy import func, select

from host import RawBody

from .crawler import CRAWLERS, Warmer
from .tables import tables
from . import service_ips
from .outbound import detect_public_ipv4, fetch_guest_list
from .runtime import runtime_of
from .state import get_state, set_state
from .validation import documented_only, load_payload

log = logging.getLogger("sitehost.cache")

BYPASSED_CRAWLERS = "crawlers_bypassed"  # the real plugin's "bypass list": every other crawler is active
LAST_CRAWL = "crawler_last_run"
GUEST_LISTS = "guest_lists"
MAX_CRAWLER_ID = 999  # bounds the stored bypass list; the real plugin's ids are indexes of its crawler list
IP_DETECTION_FAILED = "Failed to detect IP"


class ToggleCrawlerSchema(Schema):
    crawler_id = fields.Integer(validate=validate.Range(min=0, max=MAX_CRAWLER_ID), metadata={
        "description": "Id of the crawler to switch on or off (0: indexes, 1: content; any other id is only "
                       "recorded). Without it nothing changes and the answer is null."})


# Declared for discovery only: a missing or empty crawler_id answers null, which the pipeline's check would refuse.
ToggleCrawlerArgs = documented_only(ToggleCrawlerSchema)


def toggle_crawler_state(request):
    """Flip one crawler as the real plugin does: every crawler starts active, the first toggle
    puts it on the bypass list and answers 0, the next takes it off and answers 1 (and a known
    crawler then warms the cache right away). No crawler_id: null, nothing changes."""
    app = request.app
    if request.params.get("crawler_id") in (None, ""):
        return RawBody(b"null", "application/json; charset=UTF-8")  # WordPress encodes the callback's null
    crawler_id = load_payload(ToggleCrawlerSchema(), {"crawler_id": request.params["crawler_id"]})["crawler_id"]
    bypassed = set(get_state(request.session, app, BYPASSED_CRAWLERS, []))
    now_active = crawler_id in bypassed
    if now_active:
        bypassed.discard(crawler_id)
    else:
        bypassed.add(crawler_id)
    set_state(request.session, app, BYPASSED_CRAWLERS, sorted(bypassed))
    if now_active and crawler_id in CRAWLERS:
        environ = dict(request.environ)
        request.after_commit(lambda: warm(app, environ, [crawler_id]))
    return 1 if now_active else 0


def active_crawlers(session, app) -> list[int]:
    """The known crawlers not on the bypass list."""
    bypassed = set(get_state(session, app, BYPASSED_CRAWLERS, []))
    return [crawler_id for crawler_id in CRAWLERS if crawler_id not in bypassed]


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
    """The site's public IPv4 address as a JSON string, or the real plugin's "Failed to detect IP" (200 both)."""
    return detect_public_ipv4(runtime_of(request.app).config) or IP_DETECTION_FAILED


def guest_sync(request):
    """Download the guest-mode lists (addresses, user agents) and keep those that arrived, as the real plugin.

    The downloads run before any write and each list is stored in its own short transaction,
    so a slow list server never holds the database's write lock.
    """
    app = request.app
    config = runtime_of(app).config
    fetched = {kind: fetch_guest_list(config, kind) for kind in ("ips", "uas")}
    arrived = {kind: lines for kind, lines in fetched.items() if lines is not None}
    if arrived:
        with app.db.session(write=True) as session, session.begin():
            lists = get_state(session, app, GUEST_LISTS, {})
            for kind, lines in arrived.items():
                lists[kind] = {"entries": lines, "synced": _now()}
            set_state(session, app, GUEST_LISTS, lists)
    success = len(arrived) == len(fetched)
    return {"success": success,
            "message": "Guest Mode lists synced successfully." if success else "Failed to sync Guest Mode lists."}


def cache_status(request):
    """What the cache holds in this process, the shared version, crawlers and service results."""
    app = request.app
    runtime = runtime_of(app)
    session = request.session
    config = runtime.config
    active = set(active_crawlers(session, app))
    service = service_ips.stored(app)
    guest_lists = get_state(session, app, GUEST_LISTS, {})
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
        "callbacks": {
            "secret_required": bool(config.callback_secret),
            "service_ips": {"url": config.service_ips_url, "count": len(service["ips"]),
                            "fetched": _iso(service["fetched"]), "attempted": _iso(service["attempted"]),
                            "error": service["error"]},
        },
        "guest_lists": {kind: {"count": len(guest_lists[kind]["entries"]), "synced": guest_lists[kind]["synced"]}
                        if kind in guest_lists else {"count": 0, "synced": None} for kind in ("ips", "uas")},
        "cdn": get_state(session, app, "cdn", {"status": None, "cdn_enabled": False}),
        "err_domains": get_state(session, app, "err_domains", []),
        "images": {"count": image_totals[0], "bytes_saved": {"original": image_totals[1], "webp": image_totals[2],
                                                              "avif": image_totals[3]}},
        "page_optimizations": {kind: page_counts.get(kind, 0) for kind in ("ccss", "ucss", "vpi")},
    }


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _iso(timestamp: float) -> str | None:
    """A stored Unix time as ISO 8601 (UTC); None for never."""
    if not timestamp:
        return None
    return datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc).isoformat(timespec="seconds")
