"""A real `sitehost serve`: headers of absurd size, and bad input over a real socket."""

from __future__ import annotations

import socket

import pytest

from .servers import Server, prepare_site, session_for, throwaway_database


@pytest.fixture
def server(tmp_path):
    with throwaway_database("sqlite", tmp_path) as url:
        users = prepare_site(url, tmp_path)
        running = Server(tmp_path / "server", url, config="max_body_bytes = 65536\n").start()
        running.users = users
        yield running
        running.stop()


def _raw(server, request: bytes) -> bytes:
    """Send raw bytes; return whatever the server answered (it may close while we are still sending)."""
    host, port = server.url.removeprefix("http://").split(":")
    answer = b""
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        try:
            for start in range(0, len(request), 16384):
                connection.sendall(request[start:start + 16384])
            connection.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    return answer


def test_headers_of_absurd_size_are_refused(server):
    huge = b"X-Filler: " + b"h" * 300_000 + b"\r\n"
    answer = _raw(server, b"GET /wp-json/ HTTP/1.1\r\nHost: school.test\r\n" + huge + b"\r\n")
    status_line = answer.split(b"\r\n", 1)[0]
    assert status_line.split(b" ", 1)[1] == b"431 Request Header Fields Too Large", answer[:200]
    # and the server still answers normal requests
    assert session_for().get(server.url + "/wp-json/", timeout=30).status_code == 200


def test_body_over_the_limit_is_refused_over_http(server):
    response = session_for(server.users["administrator"]).post(
        server.url + "/wp-json/probe/v1/tripwire", data=b"{" + b" " * 70_000 + b"}",
        headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 413
    assert response.json()["code"] == "rest_request_too_large"


def test_long_query_string_is_refused_over_http(server):
    response = session_for().get(server.url + "/wp-json/probe/v1/items?search=" + "q" * 20_000, timeout=30)
    assert response.status_code == 414
    assert response.json()["code"] == "rest_query_too_long"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_openapi_document_is_served_by_the_real_server(server):
    document = session_for().get(server.url + "/openapi.json", timeout=30).json()
    assert document["servers"] == [{"url": server.url}]
    assert "/wp-json/probe/v1/items/{id}" in document["paths"]
