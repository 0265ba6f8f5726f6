"""Outbound HTTP on behalf of a request: no private targets, pinned addresses, timeouts and size limits.

Plugins that fetch a URL an outsider names (the oEmbed proxy, media sideloading) go through
`fetch`, never through urllib directly. Every hop (redirects included) is resolved first;
unless `Limits.allow_private_targets`, a name that resolves to a private, loopback,
link-local or otherwise non-global address is refused. The connection then goes to the very
address that was checked, so a DNS answer that changes between check and connect cannot
smuggle the request inside.

Failures are `RestError`s whose codes start with the caller's `code_prefix`:
`<prefix>_unsupported_url`, `_private_target` (400), `_fetch_failed` (502), `_fetch_timeout`
(504), `_response_too_large` (502 or 413, see `too_large_status`), `_too_many_redirects` (502).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from .rest.response import RestError

REDIRECTS = {301, 302, 303, 307, 308}


@dataclass(frozen=True)
class Limits:
    """What one fetch may do; plugins fill it from their validated settings."""

    timeout_seconds: float = 5.0
    max_response_bytes: int = 1024 * 1024
    max_redirects: int = 3
    allow_private_targets: bool = False
    user_agent: str = "sitehost"
    too_large_status: int = 502


@dataclass
class Fetched:
    url: str
    content_type: str
    body: bytes
    headers: dict[str, str]


def fetch(url: str, limits: Limits, accept: str = "*/*", code_prefix: str = "outbound") -> Fetched:
    """GET `url` within `limits`; every failure is a RestError with a clear code."""
    deadline = time.monotonic() + limits.timeout_seconds
    for _hop in range(limits.max_redirects + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RestError(f"{code_prefix}_unsupported_url", "Only http and https URLs can be fetched.", 400,
                            {"url": url})
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise RestError(f"{code_prefix}_unsupported_url", "The URL has an invalid port.", 400,
                            {"url": url}) from None
        address = checked_address(parts.hostname, port, limits.allow_private_targets, code_prefix)
        connection_class = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
        connection = connection_class(parts.hostname, port, address, _remaining(deadline, code_prefix))
        path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        try:
            connection.request("GET", path, headers={"User-Agent": limits.user_agent, "Accept": accept})
            response = connection.getresponse()
            if response.status in REDIRECTS and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location"))
                continue
            if response.status != 200:
                raise RestError(f"{code_prefix}_fetch_failed", f"The target answered with HTTP {response.status}.",
                                502, {"url": url, "upstream_status": response.status})
            body = _read_limited(response, connection, limits, deadline, url, code_prefix)
            headers = {name.lower(): value for name, value in response.getheaders()}
            return Fetched(url, response.getheader("Content-Type") or "", body, headers)
        except TimeoutError:
            raise RestError(f"{code_prefix}_fetch_timeout", "The target did not answer in time.", 504,
                            {"url": url}) from None
        except (OSError, http.client.HTTPException) as error:
            raise RestError(f"{code_prefix}_fetch_failed",
                            f"The target could not be fetched ({type(error).__name__}).", 502, {"url": url}) from None
        finally:
            connection.close()
    raise RestError(f"{code_prefix}_too_many_redirects", "The target redirected too many times.", 502, {"url": url})


def checked_address(host: str, port: int, allow_private: bool, code_prefix: str = "outbound") -> str:
    """The address to connect to for `host`; refuses names resolving to any non-global address."""
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise RestError(f"{code_prefix}_fetch_failed", "The target's host name could not be resolved.", 502,
                        {"host": host}) from None
    addresses = [answer[4][0] for answer in answers if isinstance(answer[4][0], str)]  # IPv4/IPv6 hosts
    if not addresses:
        raise RestError(f"{code_prefix}_fetch_failed", "The target's host name could not be resolved.", 502,
                        {"host": host})
    if not allow_private:
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
            if not ip.is_global or ip.is_multicast:
                raise RestError(f"{code_prefix}_private_target", "The URL resolves to a private, loopback or "
                                "link-local address, which the site does not fetch.", 400, {"host": host})
    return addresses[0]


def _remaining(deadline: float, code_prefix: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise RestError(f"{code_prefix}_fetch_timeout", "The target did not answer in time.", 504)
    return left


def _read_limited(response, connection, limits: Limits, deadline: float, url: str, code_prefix: str) -> bytes:
    limit = limits.max_response_bytes
    too_large = RestError(f"{code_prefix}_response_too_large", f"The target's answer is larger than {limit} bytes.",
                          limits.too_large_status, {"url": url})
    declared = response.getheader("Content-Length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    while True:
        if connection.sock is not None:
            connection.sock.settimeout(_remaining(deadline, code_prefix))
        chunk = response.read(min(65536, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise too_large


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the address that was checked, whatever DNS says now."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float):
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)
