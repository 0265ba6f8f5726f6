"""The backup plugin's HTTP scenario (the version probe migration tools send) and its budget.

The issue's budget for backups themselves (100,000 posts and 100 MB of uploads backed up in under
3x `sqlite3 .backup` + `tar`, peak RSS at most 200 MB) is not a request rate: it is measured by
`python -m tests.benchmarks.backup` (tests/benchmarks/backup.py), whose figures the README quotes.
"""

from __future__ import annotations

from tests.benchmarks.scenarios import Context, Scenario, Unavailable, fetch
from tests.benchmarks.wrk import lua_string

VERSIONS = "/backup/v1/versions"


def _lua_versions(context: Context) -> str:
    return (f'wrk.method = "GET"\nwrk.path = {lua_string(context.rest_path + VERSIONS)}\n'
            f'wrk.headers["Authorization"] = {lua_string(context.admin_authorization)}\n')


def _check_versions(context: Context) -> None:
    status, _headers, body = fetch(context.rest + VERSIONS, headers={"Authorization": context.admin_authorization})
    if status != 200 or not isinstance(body, dict) or body.get("success") is not False or "plugin" not in body:
        raise Unavailable(f"{VERSIONS}: {status} {body!r}")


SCENARIOS = [Scenario("backup-versions", "GET backup/v1/versions (administrator)", _lua_versions, _check_versions)]
BUDGET: list = []  # the issue sets no request-rate budget for the probe
