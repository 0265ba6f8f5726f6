"""schemathesis against a real `sitehost serve`, driven by the server's own /openapi.json.

Every operation gets SITEHOST_FUZZ_EXAMPLES generated requests (default 8, so CI stays
fast), anonymously and as an administrator. Pass: no 5xx (501/502/503 with a specific
error code, deliberate refusals, excepted), status codes and JSON bodies as documented, no request that
hangs (each has a timeout). Deeper run: `SITEHOST_FUZZ_EXAMPLES=500 pytest tests/reliability/test_fuzz.py`.
"""

from __future__ import annotations

import os

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

from .servers import Server, prepare_site, postgres_available, session_for, throwaway_database

EXAMPLES = int(os.environ.get("SITEHOST_FUZZ_EXAMPLES", "8"))
REQUEST_TIMEOUT = 30  # seconds; a request that takes longer counts as a hang
DELIBERATE = (501, 502, 503)  # documented refusals: not supported here, an outside service failed, unavailable


def no_server_error(ctx, response, case):
    """5xx means the server failed, unless it is a documented deliberate refusal with its own error code."""
    deliberate = response.status_code in DELIBERATE and _error_code(response) not in (None, "internal_server_error")
    if response.status_code >= 500 and not deliberate:
        raise AssertionError(f"{case.method} {case.formatted_path} answered {response.status_code}: "
                             f"{response.text[:500]}")
    return None


def _error_code(response):
    try:
        return response.json().get("code")
    except ValueError:
        return None


CHECKS = [no_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _database_kind() -> str:
    return "postgresql" if os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql") else "sqlite"


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    if _database_kind() == "postgresql" and postgres_available():
        pytest.fail(postgres_available())
    with throwaway_database(_database_kind(), folder) as url:
        users = prepare_site(url, folder)
        server = Server(folder / "server", url, threads=4).start()
        server.users = users
        yield server
        server.stop()
        log = server.log()
        assert "unexpected error in" not in log, log[-5000:]  # a handler crashed, whatever it answered


def fuzz_every_operation(server, user=None) -> tuple[int, int]:
    """Run schemathesis over every operation of the served document; returns (operations, examples)."""
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    session = session_for(user)
    operations = examples = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        calls = []

        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate, Phase.shrink],
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def check_operation(case):
            try:
                response = case.call(session=session, timeout=REQUEST_TIMEOUT)
            except requests.Timeout:
                raise AssertionError(f"{case.method} {case.formatted_path} hung for {REQUEST_TIMEOUT}s") from None
            calls.append(response.status_code)
            case.validate_response(response, checks=CHECKS)

        check_operation()
        operations += 1
        examples += len(calls)
    return operations, examples


def test_fuzz_anonymous(fuzz_server):
    operations, examples = fuzz_every_operation(fuzz_server)
    assert operations >= 20 and examples >= operations
    print(f"fuzz anonymous: {operations} operations, {examples} requests")


def test_fuzz_as_administrator(fuzz_server):
    operations, examples = fuzz_every_operation(fuzz_server, fuzz_server.users["administrator"])
    assert operations >= 20 and examples >= operations
    print(f"fuzz administrator: {operations} operations, {examples} requests")
