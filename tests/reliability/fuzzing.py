"""schemathesis against a real `sitehost serve`, driven by the server's own /openapi.json.

Every operation gets SITEHOST_FUZZ_EXAMPLES generated requests (default 8, so CI stays
fast), anonymously and as an administrator. Pass: no 5xx (501/502/503 with a specific
error code, deliberate refusals, excepted), status codes and JSON bodies as documented, no request that
hangs (each has a timeout). Deeper run: `SITEHOST_FUZZ_EXAMPLES=500 pytest tests/reliability/test_fuzz_*.py`.

Fuzzing every operation twice was the longest file after the permission matrix, and
`--dist loadfile` runs a file on one worker, so it runs in files test_fuzz_ROLE_N.py (each its
own server): for each caller, FUZZ_SHARES shares of the operations, by a stable hash of the
operation's path, so new routes join a share by themselves. test_fuzz.py checks the files are
there and that the shares split every operation of the document exactly once.
"""

from __future__ import annotations

import os
import zlib
from contextlib import contextmanager
from pathlib import Path

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
FUZZ_SHARES = 2  # per caller; files test_fuzz_anonymous_0.py, ..._1.py, test_fuzz_administrator_0.py, ...
FUZZ_CALLERS = ("anonymous", "administrator")
FUZZ_FILE = "test_fuzz_{caller}_{share}.py"


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


def share_of_operation(path: str) -> int:
    """The share an operation of /openapi.json runs in, by its path: stable across runs and processes."""
    return zlib.crc32(path.encode()) % FUZZ_SHARES


def caller_and_share_of_file(test_file: str) -> tuple[str, int]:
    """`.../test_fuzz_administrator_1.py` -> ("administrator", 1)."""
    _test, _fuzz, caller, share = Path(test_file).stem.split("_")
    return caller, int(share)


@contextmanager
def fuzz_server(tmp_path_factory):
    """A real `sitehost serve` with every plugin, the example and the probe, on a fresh database."""
    folder = tmp_path_factory.mktemp("fuzz")
    if _database_kind() == "postgresql" and postgres_available():
        pytest.fail(postgres_available())
    with throwaway_database(_database_kind(), folder) as url:
        users = prepare_site(url, folder)
        server = Server(folder / "server", url, threads=4).start()
        server.users = users
        try:
            yield server
        finally:
            server.stop()
        log = server.log()
        assert "unexpected error in" not in log, log[-5000:]  # a handler crashed, whatever it answered


def fuzz_every_operation(server, user=None, share: int | None = None) -> tuple[int, int]:
    """Run schemathesis over every operation (of `share`) of the served document; returns (operations, examples)."""
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    session = session_for(user)
    operations = examples = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if share is not None and share_of_operation(operation.path) != share:
            continue
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


def fuzz_share(tmp_path_factory, test_file: str) -> tuple[int, int]:
    """The body of each test_fuzz_CALLER_N.py: its share of the operations, as its caller, on a server of its own."""
    caller, share = caller_and_share_of_file(test_file)
    with fuzz_server(tmp_path_factory) as server:
        user = server.users["administrator"] if caller == "administrator" else None
        operations, examples = fuzz_every_operation(server, user, share)
    assert operations >= 20 // FUZZ_SHARES and examples >= operations
    print(f"fuzz {caller} share {share}: {operations} operations, {examples} requests")
    return operations, examples
