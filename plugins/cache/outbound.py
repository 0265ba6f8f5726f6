"""The cache plugin's outbound HTTP, all through the host's guard (host.outbound): the service's
address list, the guest-mode lists and public IP detection. Every URL comes from `[plugins.cache]`."""

from __future__ import annotations

import ipaddress
import json

from host import RestError
from host.outbound import Limits, fetch

from .settings import CacheConfig

TIMEOUT_SECONDS = 5
USER_AGENT = "sitehost-cache"
MAX_ADDRESS_ANSWER = 64  # an IPv4 address and some white space
MAX_SERVICE_IPS_BYTES = 512 * 1024
MAX_SERVICE_IPS = 10_000
MAX_GUEST_LIST_BYTES = 1024 * 1024
MAX_GUEST_LIST_LINES = 20_000
MAX_GUEST_LINE = 500


class ListRefused(ValueError):
    """The answer arrived but is not a list the plugin can use."""


def _get(config: CacheConfig, url: str, max_bytes: int, accept: str) -> bytes:
    limits = Limits(timeout_seconds=TIMEOUT_SECONDS, max_response_bytes=max_bytes, max_redirects=3,
                    allow_private_targets=config.allow_private_targets, user_agent=USER_AGENT)
    return fetch(url, limits, accept=accept, code_prefix="cache").body


def detect_public_ipv4(config: CacheConfig) -> str | None:
    """The site's public IPv4 address from the configured "what is my IP" service, or None."""
    try:
        raw = _get(config, config.ip_service_url, MAX_ADDRESS_ANSWER, "text/plain")
        return str(ipaddress.IPv4Address(raw.decode("ascii").strip()))
    except (RestError, UnicodeDecodeError, ValueError):
        return None


def fetch_service_ips(config: CacheConfig) -> list[str]:
    """The service's published caller addresses, normalised; RestError or ListRefused on failure.

    The list is a JSON array of address strings (an object's values are read the same way, as
    PHP's in_array reads them). Entries that are not addresses are skipped; an answer without a
    single address is refused, so a broken list never replaces a good one.
    """
    raw = _get(config, config.service_ips_url, MAX_SERVICE_IPS_BYTES, "application/json")
    try:
        data = json.loads(raw)
    except ValueError:
        raise ListRefused("the address list is not JSON") from None
    entries = list(data.values()) if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ListRefused("the address list is not a JSON array")
    if len(entries) > MAX_SERVICE_IPS:
        raise ListRefused(f"the address list has more than {MAX_SERVICE_IPS} entries")
    addresses = sorted({address for address in map(normalized_address, entries) if address})
    if not addresses:
        raise ListRefused("the address list holds no address")
    return addresses


def fetch_guest_list(config: CacheConfig, kind: str) -> list[str] | None:
    """One guest-mode list (`ips` or `uas`): its non-empty lines, or None when it cannot be had."""
    try:
        raw = _get(config, f"{config.guest_lists_url}/gm_{kind}", MAX_GUEST_LIST_BYTES, "text/plain")
        text = raw.decode("utf-8")
    except (RestError, UnicodeDecodeError):
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or len(lines) > MAX_GUEST_LIST_LINES or any(len(line) > MAX_GUEST_LINE for line in lines):
        return None
    return lines


def normalized_address(value) -> str | None:
    """`value` as one spelling of an IP address (an IPv4-mapped IPv6 address as IPv4), or None."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        address = ipaddress.ip_address(value.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)
