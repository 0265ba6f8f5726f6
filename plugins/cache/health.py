"""The cache's site-health test and abilities: is it answering, how often from memory, and purge it."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from host import Ability, HealthResult, HealthTest

from .runtime import runtime_of


def response_cache_test(app, _site_url: str) -> HealthResult:
    runtime = runtime_of(app)
    if runtime is None or not runtime.config.enabled:
        return HealthResult("recommended", "The response cache is turned off",
                            "Anonymous reads are built for every request.",
                            "Set enabled = true in [plugins.cache] of sitehost.toml.")
    try:
        version = runtime.cache.current_version()
    except SQLAlchemyError as error:
        return HealthResult("critical", "The response cache cannot read its version",
                            f"The cache_version table is unreadable ({type(error).__name__}); every answer is "
                            "built without the cache.", "Check the database, then restart sitehost.")
    stats = runtime.cache.stats()
    lookups = stats["hits"] + stats["misses"]
    rate = f"{stats['hits'] / lookups:.0%} of {lookups:,} cacheable reads" if lookups else "no cacheable reads yet"
    return HealthResult("good", "The response cache is working",
                        f"This process answered {rate} from memory; {stats['entries']:,} answers "
                        f"({stats['bytes']:,} bytes) are held at content version {version}.")


HEALTH_TESTS = [HealthTest("response-cache", "Response cache", "Performance", response_cache_test)]


def _operator(request, _input) -> bool:
    return request.user.can("manage_options")


def _status(request, _input) -> dict:
    runtime = runtime_of(request.app)
    return {"enabled": runtime.config.enabled, **runtime.cache.stats(), "version": runtime.cache.current_version()}


def _purge(request, _input) -> dict:
    return {"version": runtime_of(request.app).cache.invalidate()}


_COUNT = {"type": "integer", "minimum": 0}
ABILITIES = [
    Ability("cache/status", "Cache status", "Whether the response cache is on, what it holds and its hits and misses.",
            "site", _operator, _status, output_schema={
                "type": "object", "properties": {"enabled": {"type": "boolean"}, "entries": _COUNT, "bytes": _COUNT,
                                                 "hits": _COUNT, "misses": _COUNT, "version": _COUNT},
                "required": ["enabled", "entries", "hits", "misses", "version"]},
            readonly=True, idempotent=True),
    Ability("cache/purge", "Purge the cache", "Make every cached answer stale, in every server process.",
            "site", _operator, _purge,
            output_schema={"type": "object", "properties": {"version": _COUNT}, "required": ["version"]},
            idempotent=True),
]
