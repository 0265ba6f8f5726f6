"""A real `sitehost serve` holds its limits against slow and oversized clients.

The site's `channel_timeout`, `connection_limit` and `max_body_bytes` reach waitress: a client
that never finishes its header is cut even while it trickles bytes, clients that hold every
connection are cut so that others get served, and a body over the limit is refused from its
Content-Length before it is sent.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from host.testing import start_sitehost, stop_sitehost

CHANNEL_TIMEOUT = 1
CONNECTION_LIMIT = 4  # waitress counts its listening socket and its wake-up pipe: two clients fit
MAX_BODY_BYTES = 1000
GIVE_UP_SECONDS = 30  # how long a test waits for something before failing; never a measured budget


@pytest.fixture(scope="module")
def limited_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("limited")
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder / "site.db"}"\n'
                      f"channel_timeout = {CHANNEL_TIMEOUT}\nconnection_limit = {CONNECTION_LIMIT}\n"
                      f"max_body_bytes = {MAX_BODY_BYTES}\n")
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", env={**os.environ})
    host, port = rest.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    yield {"rest": rest, "address": (host, int(port)), "process": process}
    stop_sitehost(process)


def open_partial_request(address) -> socket.socket:
    """A connection that starts a request and leaves its header unfinished."""
    sock = socket.create_connection(address, timeout=GIVE_UP_SECONDS)
    sock.sendall(b"GET /wp-json/ HTTP/1.1\r\nHost: school.test\r\n")
    return sock


def closed_by_server(sock: socket.socket, trickle: bool) -> bool:
    """Wait until the server closes `sock`; with `trickle`, send a header byte every poll meanwhile."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    sock.settimeout(0.25)
    while time.monotonic() < deadline:
        try:
            if trickle:
                sock.sendall(b"X")
            if sock.recv(1024) == b"":
                return True
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def get_root(rest: str) -> dict:
    with urllib.request.urlopen(rest + "/", timeout=GIVE_UP_SECONDS) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_a_partial_header_is_cut_even_while_it_trickles_and_others_are_served_meanwhile(limited_site):
    slow = open_partial_request(limited_site["address"])
    try:
        assert "core/v2" in get_root(limited_site["rest"])["namespaces"]  # served while the slow one is open
        assert closed_by_server(slow, trickle=True)
    finally:
        slow.close()


def test_clients_holding_every_connection_are_cut_so_that_a_new_client_is_served(limited_site):
    holders = [open_partial_request(limited_site["address"]) for _ in range(CONNECTION_LIMIT - 2)]
    try:
        # The limit is reached; the new client's connection waits in the backlog until the holders are cut.
        assert get_root(limited_site["rest"])["name"]
        assert all(closed_by_server(sock, trickle=False) for sock in holders)
    finally:
        for sock in holders:
            sock.close()


def read_response(sock: socket.socket) -> tuple[int, dict, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    while len(body) < int(headers.get("Content-Length", 0)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def test_a_body_over_the_limit_is_refused_from_its_content_length_before_it_is_sent(limited_site):
    with socket.create_connection(limited_site["address"], timeout=GIVE_UP_SECONDS) as sock:
        sock.sendall(b"POST /wp-json/core/v2/posts HTTP/1.1\r\nHost: school.test\r\n"
                     b"Content-Type: application/json\r\n"
                     + f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode())
        status, headers, body = read_response(sock)  # no body sent: the answer must not wait for it
    assert status == 413
    assert headers["Content-Type"] == "application/json; charset=UTF-8"
    assert headers["Connection"] == "close"
    assert json.loads(body) == {"code": "rest_request_too_large",
                                "message": f"The request body is larger than the limit of {MAX_BODY_BYTES} bytes.",
                                "data": {"status": 413}}


def test_a_body_of_exactly_the_limit_reaches_the_site(limited_site):
    payload = json.dumps({"title": "x" * (MAX_BODY_BYTES - 13)}).encode()
    assert len(payload) == MAX_BODY_BYTES
    request = urllib.request.Request(limited_site["rest"] + "/core/v2/posts", data=payload, method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=GIVE_UP_SECONDS)
    assert refused.value.code == 401  # anonymous: refused by permission, not by size
    assert json.loads(refused.value.read())["code"] == "rest_cannot_create"


def rest_of_stream(sock: socket.socket) -> bytes:
    """Everything the server sends after the answer read, until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


SMUGGLED = b"GET /wp-json/ HTTP/1.1\r\nHost: school.test\r\n\r\n"


@pytest.mark.parametrize("version, framing", [
    ("1.1", b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
    ("1.1", b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
    ("1.0", b"Transfer-Encoding: chunked\r\n"),  # RFC 9112 6.1: faulty framing in HTTP/1.0, Content-Length or not
    ("1.0", b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
])
def test_a_request_framed_by_both_content_length_and_transfer_encoding_is_refused_and_the_connection_closed(
        limited_site, version, framing):
    """A proxy that trusts Content-Length and a server that trusts chunked see different requests (smuggling)."""
    with socket.create_connection(limited_site["address"], timeout=GIVE_UP_SECONDS) as sock:
        sock.sendall(f"POST /wp-json/core/v2/posts HTTP/{version}\r\nHost: school.test\r\n".encode()
                     + b"Content-Type: application/json\r\nConnection: keep-alive\r\n" + framing
                     + b"\r\n0\r\n\r\n" + SMUGGLED)
        status, headers, body = read_response(sock)
        assert status == 400
        assert headers["Connection"] == "close"
        assert headers["Content-Type"] == "application/json; charset=UTF-8"
        assert json.loads(body) == {
            "code": "rest_ambiguous_framing",
            "message": "A request may not carry Transfer-Encoding together with Content-Length, "
                       "nor Transfer-Encoding in HTTP/1.0.",
            "data": {"status": 400}}
        assert rest_of_stream(sock) == b""  # the smuggled request is never answered


def test_a_chunked_request_alone_still_reaches_the_site_and_keeps_its_connection(limited_site):
    with socket.create_connection(limited_site["address"], timeout=GIVE_UP_SECONDS) as sock:
        sock.sendall(b"POST /wp-json/core/v2/posts HTTP/1.1\r\nHost: school.test\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"2\r\n{}\r\n0\r\n\r\n" + SMUGGLED)
        status, _headers, body = read_response(sock)
        assert (status, json.loads(body)["code"]) == (401, "rest_cannot_create")
        status, _headers, body = read_response(sock)  # a pipelined request on a sound connection is answered
        assert status == 200 and "core/v2" in json.loads(body)["namespaces"]


@pytest.mark.parametrize("line, message", [
    ("channel_timeout = 0", "channel_timeout = 0 is not valid; allowed: a whole number from 1 to 3,600 (seconds)"),
    ('connection_limit = "many"', "connection_limit = 'many' is not valid; allowed: a whole number from 1 to 100,000"),
])
def test_a_wrong_limit_stops_serve_with_one_error_line(tmp_path, line, message):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n{line}\n')
    result = subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "serve", "--port", "0",
                             "--workers", "1"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == f"Error: {config}: {message}"  # checked with every setting (host/config.py)
    assert not (tmp_path / "site.db").exists()


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="workers share a port through SO_REUSEPORT")
def test_worker_processes_hold_the_same_limits(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\nchannel_timeout = {CHANNEL_TIMEOUT}\n'
                      f"max_body_bytes = {MAX_BODY_BYTES}\n")
    process, rest = start_sitehost(config, "--workers", "2", env={**os.environ})
    address = rest.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    try:
        with socket.create_connection((address[0], int(address[1])), timeout=GIVE_UP_SECONDS) as sock:
            sock.sendall(b"PUT /wp-json/core/v2/posts/1 HTTP/1.1\r\nHost: school.test\r\n"
                         + f"Content-Length: {MAX_BODY_BYTES * 10}\r\n\r\n".encode())
            status, _headers, body = read_response(sock)
        assert (status, json.loads(body)["code"]) == (413, "rest_request_too_large")
        slow = open_partial_request((address[0], int(address[1])))
        try:
            assert closed_by_server(slow, trickle=True)
        finally:
            slow.close()
    finally:
        stop_sitehost(process)


@pytest.mark.parametrize("trusted", [True, False])
def test_forwarded_headers_reach_the_site_only_with_trust_proxy(tmp_path, trusted):
    """waitress drops X-Forwarded-* unless told otherwise; with `trust_proxy = true` the site reads them itself."""
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\ntrust_proxy = {str(trusted).lower()}\n')
    process, rest = start_sitehost(config, "--workers", "1", env={**os.environ})
    try:
        request = urllib.request.Request(rest + "/", headers={"X-Forwarded-Proto": "https", "Host": "school.test"})
        with urllib.request.urlopen(request, timeout=GIVE_UP_SECONDS) as response:
            root = json.loads(response.read())
    finally:
        stop_sitehost(process)
    assert root["url"] == ("https://school.test" if trusted else "http://school.test")
