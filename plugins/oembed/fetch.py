"""Outbound HTTP for the proxy: no private targets, pinned addresses, timeouts and size limits.

Every hop (redirects included) is resolved first; unless the operator allows it, a name
that resolves to a private, loopback, link-local or otherwise non-global address is
refused. The connection then goes to the very address that was checked, so a DNS answer
that changes between check and connect cannot smuggle the request inside.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from host import RestError

from .settings import OembedConfig

USER_AGENT = "sitehost-oembed-proxy"
REDIRECTS = {301, 302, 303, 307, 308}


@dataclass
class Fetched:
    url: str
    content_type: str
    body: bytes


def fetch(url: str, config: OembedConfig, accept: str) -> Fetched:
    """GET `url` within the configured limits; every failure is a RestError with a clear code."""
    deadline = time.monotonic() + config.fetch_timeout_seconds
    for _hop in range(config.max_redirects + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RestError("oembed_unsupported_url", "Only http and https URLs can be fetched.", 400, {"url": url})
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise RestError("oembed_unsupported_url", "The URL has an invalid port.", 400, {"url": url}) from None
        address = _checked_address(parts.hostname, port, config)
        connection_class = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
        connection = connection_class(parts.hostname, port, address, _remaining(deadline))
        path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        try:
            connection.request("GET", path, headers={"User-Agent": USER_AGENT, "Accept": accept})
            response = connection.getresponse()
            if response.status in REDIRECTS and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location"))
                continue
            if response.status != 200:
                raise RestError("oembed_fetch_failed", f"The target answered with HTTP {response.status}.", 502,
                                {"url": url, "upstream_status": response.status})
            body = _read_limited(response, connection, config.max_response_bytes, deadline, url)
            return Fetched(url, response.getheader("Content-Type") or "", body)
        except TimeoutError:
            raise RestError("oembed_fetch_timeout", "The target did not answer in time.", 504, {"url": url}) from None
        except (OSError, http.client.HTTPException) as error:
            raise RestError("oembed_fetch_failed", f"The target could not be fetched ({type(error).__name__}).", 502,
                            {"url": url}) from None
        finally:
            connection.close()
    raise RestError("oembed_too_many_redirects", "The target redirected too many times.", 502, {"url": url})


def _checked_address(host: str, port: int, config: OembedConfig) -> str:
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise RestError("oembed_fetch_failed", "The target's host name could not be resolved.", 502,
                        {"host": host}) from None
    addresses = [answer[4][0] for answer in answers]
    if not addresses:
        raise RestError("oembed_fetch_failed", "The target's host name could not be resolved.", 502, {"host": host})
    if not config.allow_private_targets:
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
            if not ip.is_global or ip.is_multicast:
                raise RestError("oembed_private_target", "The URL resolves to a private, loopback or link-local "
                                "address, which the proxy does not fetch.", 400, {"host": host})
    return addresses[0]


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise RestError("oembed_fetch_timeout", "The target did not answer in time.", 504)
    return left


def _read_limited(response, connection, limit: int, deadline: float, url: str) -> bytes:
    declared = response.getheader("Content-Length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise RestError("oembed_response_too_large", f"The target's answer is larger than {limit} bytes.", 502,
                        {"url": url})
    chunks, size = [], 0
    while True:
        if connection.sock is not None:
            connection.sock.settimeout(_remaining(deadline))
        chunk = response.read(min(65536, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise RestError("oembed_response_too_large", f"The target's answer is larger than {limit} bytes.", 502,
                            {"url": url})


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the address that was checked, whatever DNS says now."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
