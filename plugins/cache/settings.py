"""`[plugins.cache]` in sitehost.toml, loaded by the host at start into a frozen object."""

from __future__ import annotations

from dataclasses import dataclass

from marshmallow import fields, validate

from host import PluginSettings

DEFAULT_PATHS = ["/core/v2/posts", "/core/v2/pages", "/core/v2/media"]
# The real service publishes its callers' addresses here (`?json`: a JSON array) and its guest-mode lists there.
DEFAULT_SERVICE_IPS_URL = "https://quic.cloud/ips?json"
DEFAULT_GUEST_LISTS_URL = "https://wpapi.quic.cloud"


@dataclass(frozen=True)
class CacheConfig:
    enabled: bool
    max_entries: int
    max_bytes: int
    ttl_seconds: int
    cache_indexes: bool
    paths: tuple[str, ...]
    callback_secret: str
    service_ips_url: str
    guest_lists_url: str
    allow_private_targets: bool
    image_servers: tuple[str, ...]
    ip_service_url: str
    crawler_max_requests: int


class CacheConfigSchema(PluginSettings):
    settings_class = CacheConfig

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
        "description": "Shared secret of the optimisation service: when set, callbacks must also send it in "
                       "X-Cache-Secret (besides coming from a listed address); it signs ip_validate and wp_rest_echo."})
    service_ips_url = fields.Url(load_default=DEFAULT_SERVICE_IPS_URL, require_tld=False, schemes={"http", "https"},
                                 metadata={"description": "The optimisation service's published list of the addresses "
                                                          "its callbacks come from (a JSON array)."})
    guest_lists_url = fields.Url(load_default=DEFAULT_GUEST_LISTS_URL, require_tld=False, schemes={"http", "https"},
                                 metadata={"description": "Where guest/sync downloads the guest-mode lists "
                                                          "(the address followed by /gm_ips and /gm_uas)."})
    allow_private_targets = fields.Boolean(load_default=False, metadata={
        "description": "Let the plugin's outbound requests (address list, guest lists, IP detection) reach private "
                       "or loopback addresses (a service on the same network; tests)."})
    image_servers = fields.List(fields.String(validate=validate.Length(min=1)), load_default=list,
                                metadata={"description": "Host names the image callbacks may name."})
    ip_service_url = fields.Url(load_default="https://api.ipify.org", require_tld=False, schemes={"http", "https"},
                                metadata={"description": "Where the site asks for its public address."})
    crawler_max_requests = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000),
                                          metadata={"description": "Pages one cache-warming run requests at most."})

    def prepare(self, data):
        return {**data, "paths": tuple(path.rstrip("/") or "/" for path in data["paths"]),
                "guest_lists_url": data["guest_lists_url"].rstrip("/"),
                "image_servers": tuple(server.lower().lstrip(".") for server in data["image_servers"])}


def config_of(app) -> CacheConfig:
    return app.plugin_settings("cache")
