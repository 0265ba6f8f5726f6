"""`[plugins.cache]` in sitehost.toml, checked with marshmallow at startup."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import Schema, ValidationError, fields, validate

from host import StartupError

DEFAULT_PATHS = ["/core/v2/posts", "/core/v2/pages", "/core/v2/media"]


class CacheConfigSchema(Schema):
    enabled = fields.Boolean(load_default=True, metadata={"description": "Answer anonymous reads from memory."})
    max_entries = fields.Integer(load_default=500, validate=validate.Range(min=1),
                                 metadata={"description": "Answers kept per server process."})
    max_bytes = fields.Integer(load_default=16 * 1024 * 1024, validate=validate.Range(min=1024),
                               metadata={"description": "Bytes of answers kept per server process."})
    ttl_seconds = fields.Integer(load_default=300, validate=validate.Range(min=0), metadata={
        "description": "Safety net for changes no hook reports (a scheduled post going live); 0: none."})
    cache_indexes = fields.Boolean(load_default=True, metadata={"description": "Cache the REST root and namespace indexes."})
    paths = fields.List(fields.String(validate=validate.Regexp(r"^/[^?#\s]*$")), load_default=lambda: list(DEFAULT_PATHS),
                        metadata={"description": "Route paths (and everything under them) whose anonymous GETs are cached."})
    callback_secret = fields.String(load_default="", metadata={
        "description": "Shared secret of the optimisation service's callbacks (cache/v3); empty: callbacks refused."})
    image_servers = fields.List(fields.String(validate=validate.Length(min=1)), load_default=list,
                                metadata={"description": "Host names the image callbacks may name."})
    ip_service_url = fields.Url(load_default="https://api.ipify.org", require_tld=False, schemes={"http", "https"},
                                metadata={"description": "Where the site asks for its public address."})
    crawler_max_requests = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000),
                                          metadata={"description": "Pages one cache-warming run requests at most."})


@dataclass(frozen=True)
class CacheConfig:
    enabled: bool
    max_entries: int
    max_bytes: int
    ttl_seconds: int
    cache_indexes: bool
    paths: tuple[str, ...]
    callback_secret: str
    image_servers: tuple[str, ...]
    ip_service_url: str
    crawler_max_requests: int


def load_config(raw: dict) -> CacheConfig:
    """The validated settings; a wrong value stops the plugin with a message naming it."""
    try:
        data = CacheConfigSchema().load(dict(raw))
    except ValidationError as error:
        problems = "; ".join(f"{name}: {' '.join(map(str, messages)) if isinstance(messages, list) else messages}"
                             for name, messages in error.messages.items())
        raise StartupError(f"[plugins.cache] is invalid: {problems}") from None
    data["paths"] = tuple(path.rstrip("/") or "/" for path in data["paths"])
    data["image_servers"] = tuple(server.lower().lstrip(".") for server in data["image_servers"])
    return CacheConfig(**data)
