"""Which peers may speak for the client: `trusted_proxies` and the X-Forwarded-* headers.

Behind a load balancer every connection comes from the balancer, which says who the client is in
`X-Forwarded-For`, which scheme it used in `X-Forwarded-Proto` and which host it asked for in
`X-Forwarded-Host`. Anyone can send those headers, so sitehost believes them only on a connection
from an address listed in `trusted_proxies` (addresses or networks). From any other peer they are
ignored: the client is the peer, the scheme is the connection's, and the host is the Host header,
which links follow only when it names the site itself (App.site_url).

`trust_proxy = true`, the older spelling, trusts this machine's loopback addresses: the proxy on the
same machine that the README's single-node setup describes.
"""

from __future__ import annotations

import ipaddress
import string
from typing import Iterable, NamedTuple
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.0/8", "::1/128")
MAX_FORWARDED_HOPS = 32  # entries of X-Forwarded-For looked at, from the right (the header's length is the client's)
# What a forwarded host may hold: a name or an address, and a port (no user info, no path, no space).
_HOST_CHARACTERS = frozenset(string.ascii_letters + string.digits + ".-:[]")
FORWARDED_KEY = "sitehost.forwarded"  # environ key of the request's Forwarded view, computed once


def parse_networks(entries: Iterable[str]) -> tuple:
    """ip_network of each entry ("10.0.0.5", "10.0.0.0/24", "::1"); ValueError names a bad one."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(str(entry).strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network") from None
    return tuple(networks)


def trusted_networks(settings) -> tuple:
    """The networks of `settings`: `trusted_proxies`, or the loopback ones for `trust_proxy = true`."""
    listed = settings.extra.get("trusted_proxies") or []
    if listed:
        return parse_networks(listed)
    return parse_networks(LOOPBACK) if settings.extra.get("trust_proxy") is True else ()


def is_trusted(address: str, networks: tuple) -> bool:
    if not networks or not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks)


class Forwarded(NamedTuple):
    """The request as the client made it: its address, scheme and Host (None: the request gave none).

    A named tuple, not a frozen dataclass: every request makes one, and a frozen dataclass sets each
    field through object.__setattr__."""

    client: str
    scheme: str
    host: str | None
    via_proxy: bool  # the peer is a trusted proxy, so the three come from its headers where it sent them


def client_address(app, environ) -> str:
    """The client's address: REMOTE_ADDR, or behind a trusted proxy what it put in X-Forwarded-For."""
    return forwarded(environ, app.trusted_proxies).client


def forwarded(environ: dict, networks: tuple) -> Forwarded:
    """The client's address, scheme and host of a request, believing X-Forwarded-* only from trusted peers.

    X-Forwarded-For is read from the right: each proxy appends the address it saw, so entries are
    skipped while they are trusted proxies themselves (a chain of balancers), and the first one that
    is not is the client. Entries left of it were written by the client and are never believed.
    """
    known = environ.get(FORWARDED_KEY)
    if known is not None:
        return known
    peer = environ.get("REMOTE_ADDR", "")
    scheme = environ.get("wsgi.url_scheme", "http")
    host = environ.get("HTTP_HOST") or None
    view = Forwarded(peer, scheme, host, False)
    if is_trusted(peer, networks):
        client = peer
        hops = [hop.strip() for hop in environ.get("HTTP_X_FORWARDED_FOR", "").split(",")[-MAX_FORWARDED_HOPS:]]
        for hop in reversed([hop for hop in hops if hop]):
            client = hop[:100]
            if not is_trusted(hop, networks):
                break
        proto = _last(environ.get("HTTP_X_FORWARDED_PROTO", "")).lower()
        forwarded_host = _last(environ.get("HTTP_X_FORWARDED_HOST", ""))
        view = Forwarded(client, proto if proto in ("http", "https") else scheme,
                         forwarded_host if _plain_host(forwarded_host) else host, True)
    environ[FORWARDED_KEY] = view
    return view


def _plain_host(value: str) -> bool:
    """`host` or `host:port` as a proxy forwards it, and nothing else."""
    if not value or len(value) > 255 or not set(value) <= _HOST_CHARACTERS:
        return False
    try:
        parts = urlsplit("//" + value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        return False
    return bool(parts.hostname) and parts.netloc == value


def _last(value: str) -> str:
    """The entry the nearest proxy appended to a comma list."""
    return value.rsplit(",", 1)[-1].strip()[:300]
