"""Downloading an external image for media import: only public addresses, pinned, bounded.

Each hop (redirects included) is resolved first, and a name that resolves to a private,
loopback, link-local or otherwise non-global address is refused unless the operator allows
it (`allow_private_targets`). The connection then goes to the very address checked, so a DNS
answer that changes in between cannot smuggle the request inside the network.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 3
REDIRECTS = {301, 302, 303, 307, 308}
USER_AGENT = "sitehost-builder-media-import"


class FetchError(Exception):
    """Why a URL was not fetched: a short code and a message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Fetched:
    url: str
    content_type: str
    body: bytes


def fetch_image(url: str, limits) -> Fetched:
    deadline = time.monotonic() + limits.import_timeout_seconds
    for _hop in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError("builder_unsupported_url", "Only http and https images can be imported.")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise FetchError("builder_unsupported_url", "The URL has an invalid port.") from None
        address = checked_address(parts.hostname, port, limits.allow_private_targets)
        connection = (_PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP)(
            parts.hostname, port, address, _remaining(deadline))
        try:
            connection.request("GET", (parts.path or "/") + ("?" + parts.query if parts.query else ""),
                               headers={"User-Agent": USER_AGENT, "Accept": "image/*"})
            response = connection.getresponse()
            if response.status in REDIRECTS and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location"))
                continue
            if response.status != 200:
                raise FetchError("builder_fetch_failed", f"The image's server answered with HTTP {response.status}.")
            return Fetched(url, response.getheader("Content-Type") or "", _read(response, connection, limits, deadline))
        except TimeoutError:
            raise FetchError("builder_fetch_timeout", "The image's server did not answer in time.") from None
        except (OSError, http.client.HTTPException) as error:
            raise FetchError("builder_fetch_failed", f"The image could not be fetched ({type(error).__name__}).") from None
        finally:
            connection.close()
    raise FetchError("builder_too_many_redirects", "The image's address redirected too many times.")


def checked_address(host: str, port: int, allow_private: bool) -> str:
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise FetchError("builder_fetch_failed", "The image's host name could not be resolved.") from None
    addresses = [answer[4][0] for answer in answers]
    if not addresses:
        raise FetchError("builder_fetch_failed", "The image's host name could not be resolved.")
    if not allow_private:
        for address in addresses:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
            if not ip.is_global or ip.is_multicast:
                raise FetchError("builder_private_target", "The image's address is private, loopback or link-local; "
                                 "it is not fetched.")
    return addresses[0]


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError("builder_fetch_timeout", "The image's server did not answer in time.")
    return left


def _read(response, connection, limits, deadline: float) -> bytes:
    limit = limits.import_max_bytes
    declared = response.getheader("Content-Length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise FetchError("builder_image_too_large", f"The image is larger than {limit} bytes.")
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
            raise FetchError("builder_image_too_large", f"The image is larger than {limit} bytes.")


class _PinnedHTTP(http.client.HTTPConnection):
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
