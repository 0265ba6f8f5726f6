"""Large answers reach waitress as a file over the answer's bytes (root index CPU, feed RSS).

Over a real `sitehost serve`: the root index (far over LARGE_BODY_BYTES) arrives whole with its
Content-Length, the same on a kept-alive connection, HEAD carries no body (the connection stays
usable after it), and a small answer is unchanged. In process: only a large body
with a server file wrapper is handed over as one, reading the very same bytes.
"""

from __future__ import annotations

import http.client
import io
import json
import os

import pytest

from host.rest.server import LARGE_BODY_BYTES, _body_iterable
from host.testing import start_sitehost, stop_sitehost


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("large-answers")
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder / "site.db"}"\n')
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", env={**os.environ})
    host, port = rest.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    yield host, int(port)
    stop_sitehost(process)


def exchange(connection: http.client.HTTPConnection, method: str, path: str) -> tuple[int, dict, bytes]:
    connection.request(method, path, headers={"Host": "school.test"})
    response = connection.getresponse()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()


def test_the_root_index_arrives_whole_and_the_same_on_one_kept_alive_connection(served):
    connection = http.client.HTTPConnection(*served, timeout=30)
    try:
        first = exchange(connection, "GET", "/wp-json/")
        second = exchange(connection, "GET", "/wp-json/")
    finally:
        connection.close()
    status, headers, body = first
    assert status == 200 and len(body) >= LARGE_BODY_BYTES
    assert int(headers["content-length"]) == len(body)
    assert headers["content-type"] == "application/json; charset=UTF-8"
    assert "routes" in json.loads(body)
    assert second[0] == 200 and second[2] == body
    assert second[1]["content-length"] == headers["content-length"]


def test_head_of_a_large_answer_has_no_body_and_the_connection_goes_on(served):
    connection = http.client.HTTPConnection(*served, timeout=30)
    try:
        _status, got, body = exchange(connection, "GET", "/wp-json/")
        status, headers, head_body = exchange(connection, "HEAD", "/wp-json/")
        after = exchange(connection, "GET", "/wp-json/core/v2/posts?per_page=1")
    finally:
        connection.close()
    assert status == 200 and head_body == b"" and len(body) >= LARGE_BODY_BYTES
    assert headers["content-type"] == got["content-type"]
    assert int(headers["content-length"]) == int(got["content-length"]) == len(body)  # the GET's, not 0
    assert after[0] == 200 and isinstance(json.loads(after[2]), list)
    assert int(after[1]["content-length"]) == len(after[2]) < LARGE_BODY_BYTES


class _Wrapper:
    """Stands in for waitress's wsgi.file_wrapper."""

    def __init__(self, file):
        self.file = file


def test_only_a_large_body_with_a_file_wrapper_is_handed_over_as_a_file():
    large, small = b"x" * LARGE_BODY_BYTES, b"x" * (LARGE_BODY_BYTES - 1)
    assert _body_iterable({}, large) == [large]
    assert _body_iterable({"wsgi.file_wrapper": _Wrapper}, small) == [small]
    wrapped = _body_iterable({"wsgi.file_wrapper": _Wrapper}, large)
    assert isinstance(wrapped, _Wrapper) and isinstance(wrapped.file, io.BytesIO)
    assert wrapped.file.getvalue() == large
