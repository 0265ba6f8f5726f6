"""The one outbound HTTP call of the cache plugin (public IP detection), bounded and proxy-free."""

from __future__ import annotations

import ipaddress
import urllib.error
import urllib.request

from host import RestError

TIMEOUT_SECONDS = 5
MAX_ANSWER_BYTES = 64  # an IPv4 address and some white space

# No proxies from the environment: the operator configured exactly which URL to ask.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def detect_public_ipv4(service_url: str) -> str:
    """Ask the configured "what is my IP" service; 502 `cache_ip_detection_failed` on any failure."""
    failure = RestError("cache_ip_detection_failed", "Failed to detect IP.", 502, {"service": service_url})
    request = urllib.request.Request(service_url, headers={"User-Agent": "sitehost-cache", "Accept": "text/plain"})
    try:
        with _OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
            raw = response.read(MAX_ANSWER_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError):
        raise failure from None
    if len(raw) > MAX_ANSWER_BYTES:
        raise failure
    try:
        return str(ipaddress.IPv4Address(raw.decode("ascii").strip()))
    except (UnicodeDecodeError, ValueError):
        raise failure from None
