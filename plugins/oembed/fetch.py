"""Outbound HTTP for the proxy: the host's guarded fetch (host/outbound.py) with `[plugins.oembed]` limits.

No private targets unless the operator allows them, pinned addresses, timeouts and size
limits; errors are `oembed_*` codes.
"""

from __future__ import annotations

from host.outbound import Fetched, Limits, fetch as guarded_fetch

from .settings import OembedConfig

USER_AGENT = "sitehost-oembed-proxy"

__all__ = ["Fetched", "fetch"]


def fetch(url: str, config: OembedConfig, accept: str) -> Fetched:
    """GET `url` within the configured limits; every failure is a RestError with an `oembed_` code."""
    limits = Limits(timeout_seconds=config.fetch_timeout_seconds, max_response_bytes=config.max_response_bytes,
                    max_redirects=config.max_redirects, allow_private_targets=config.allow_private_targets,
                    user_agent=USER_AGENT)
    return guarded_fetch(url, limits, accept, code_prefix="oembed")
