"""Idle connections give way: one client address hoarding sockets cannot stall the site.

One client holding `connection_limit` idle connections (and reopening each as soon as it was
dropped) made every other request wait up to `channel_timeout`. Now an address holds at most
`connection_limit_per_address` connections (its longest idle one closes for its next), and at
`connection_limit` the longest idle connection closes for a newcomer. The hoarders here connect
from other loopback addresses (127.0.0.2, ...), the newcomer from 127.0.0.1.
"""

import json
import os
import socket
import threading
import time
import urllib.request
from contextlib import contextmanager

import pytest

from host.testing import start_sitehost, stop_sitehost

CHANNEL_TIMEOUT = 120  # the idle timeout never frees a slot during a test: only the shedding can
CONNECTION_LIMIT = 12  # waitress counts its listening socket and its wake-up pipe: ten clients fit
PER_ADDRESS = 4
ANSWER_WITHIN = 10  # seconds a newcomer may wait here: a fraction of CHANNEL_TIMEOUT, not a measured budget
GIVE_UP_SECONDS = 30


def write_config(folder, extra: str = "") -> object:
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder / "site.db"}"\nchannel_timeout = {CHANNEL_TIMEOUT}\n'
                      f"connection_limit = {CONNECTION_LIMIT}\nconnection_limit_per_address = {PER_ADDRESS}\n{extra}")
    return config


def served(config) -> tuple:
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", "--quiet", env={**os.environ})
    host, port = rest.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    return process, rest, (host, int(port))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    process, rest, address = served(write_config(tmp_path_factory.mktemp("hoarded")))
    yield {"rest": rest, "address": address}
    stop_sitehost(process)


def connect(address, source: str) -> socket.socket:
    return socket.create_connection(address, timeout=GIVE_UP_SECONDS, source_address=(source, 0))


def is_closed(sock: socket.socket) -> bool:
    """Whether the server closed `sock` (read without waiting)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.settimeout(GIVE_UP_SECONDS)


@contextmanager
def hoarding(address, sources: list[str], per_source: int):
    """Hold `per_source` idle connections from each source address, reopening each one the server closes."""
    stop = threading.Event()
    held = {source: [connect(address, source) for _ in range(per_source)] for source in sources}
    reopened = [0]

    def keep_them_open() -> None:
        while not stop.is_set():
            for source, socks in held.items():
                for index, sock in enumerate(socks):
                    if is_closed(sock):
                        sock.close()
                        socks[index] = connect(address, source)
                        reopened[0] += 1
            time.sleep(0.01)

    thread = threading.Thread(target=keep_them_open, daemon=True)
    thread.start()
    try:
        yield held, reopened
    finally:
        stop.set()
        thread.join(GIVE_UP_SECONDS)
        for socks in held.values():
            for sock in socks:
                sock.close()


def get_root(rest: str) -> dict:
    request = urllib.request.Request(rest + "/", headers={"Connection": "close"})
    with urllib.request.urlopen(request, timeout=ANSWER_WITHIN) as response:
        assert response.status == 200
        return json.loads(response.read())


def wait_for(condition) -> bool:
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_one_address_keeps_only_its_share_of_connections(site):
    socks = [connect(site["address"], "127.0.0.2") for _ in range(3 * CONNECTION_LIMIT)]
    try:
        assert "core/v2" in get_root(site["rest"])["namespaces"]  # served while the hoard is open
        # The server closes the hoarder's longest idle connections until it holds its share.
        assert wait_for(lambda: sum(not is_closed(sock) for sock in socks) <= PER_ADDRESS)
        still_open = [sock for sock in socks if not is_closed(sock)]
        assert len(still_open) == PER_ADDRESS
        assert still_open == socks[-PER_ADDRESS:]  # the newest stay, the longest idle went first
    finally:
        for sock in socks:
            sock.close()


def test_a_new_client_is_served_while_one_address_reopens_every_dropped_socket(site):
    with hoarding(site["address"], ["127.0.0.2"], 3 * CONNECTION_LIMIT) as (_held, reopened):
        for _attempt in range(3):
            assert get_root(site["rest"])["name"]
        assert reopened[0] > 0  # the server did drop hoarded sockets, and they came back


def test_a_new_client_is_served_while_several_addresses_fill_every_connection_with_idle_ones(site):
    sources = [f"127.0.0.{number}" for number in range(2, 6)]  # 4 x 4 = 16 idle connections for 10 places
    with hoarding(site["address"], sources, PER_ADDRESS):
        for _attempt in range(3):
            assert get_root(site["rest"])["name"]


def read_answer(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_requests_in_progress_are_never_cut_and_a_further_connection_of_that_address_is_refused(site):
    body = b'{"title": "in progress"}'
    busy = [connect(site["address"], "127.0.0.6") for _ in range(PER_ADDRESS)]
    try:
        for sock in busy:  # a body on its way: a request in progress
            sock.sendall(b"POST /wp-json/core/v2/posts HTTP/1.1\r\nHost: school.test\r\n"
                         b"Content-Type: application/json\r\n"
                         + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[:5])
        time.sleep(1.0)  # let the server read the headers (a connection not read yet would count as idle)
        extra = connect(site["address"], "127.0.0.6")
        try:
            assert wait_for(lambda: is_closed(extra))  # none of the address's connections is idle: refused
        finally:
            extra.close()
        assert not any(is_closed(sock) for sock in busy)
        for sock in busy:
            sock.sendall(body[5:])
            assert read_answer(sock).startswith(b"HTTP/1.1 401 ")  # answered (anonymous), not cut
    finally:
        for sock in busy:
            sock.close()


def test_behind_a_trusted_proxy_one_address_may_hold_more_than_the_per_address_share(tmp_path):
    """With trust_proxy every connection comes from the proxy: the proxy caps per client, not sitehost."""
    process, _rest, address = served(write_config(tmp_path, "trust_proxy = true\n"))
    socks = [connect(address, "127.0.0.2") for _ in range(2 * PER_ADDRESS)]
    try:
        for sock in socks:
            sock.sendall(b"GET /wp-json/ HTTP/1.1\r\nHost: school.test\r\n\r\n")
        assert all(read_answer(sock).startswith(b"HTTP/1.1 200 ") for sock in socks)
    finally:
        for sock in socks:
            sock.close()
        stop_sitehost(process)
