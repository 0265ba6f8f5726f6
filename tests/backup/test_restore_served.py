"""`backup restore` and a real `sitehost serve` on the same database.

Every serve process holds a lock on its database for its life (host.server_lock): a restore
into a served database is refused with one `Error:` line naming the server, `--stop-server`
stops the server(s) and then restores, and a server killed with SIGKILL leaves no lock behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from host.testing import start_sitehost, stop_sitehost

from .helpers import engine_under_test, new_database, table_counts

PORTS = iter(range(18510, 18530))  # this suite's range for served sites


def sitehost(config: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    return subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), *args], cwd=config.parent,
                          env=env, capture_output=True, text=True, timeout=300)


def serve(config: Path, *args: str):
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    return start_sitehost(config, "--port", str(next(PORTS)), "--quiet", "--no-pin-cpus", *args, env=env)


def title_of_first_post(rest: str) -> str:
    with urllib.request.urlopen(f"{rest}/core/v2/posts?per_page=1&orderby=id&order=asc", timeout=30) as answer:
        return json.loads(answer.read())[0]["title"]["rendered"]


@pytest.fixture
def site(tmp_path):
    """A demo site with a backup of it; the config and the archive."""
    with new_database(tmp_path, engine_under_test()) as url:
        config = tmp_path / "sitehost.toml"
        config.write_text(f'database_url = "{url}"\nuploads_dir = "{tmp_path}/uploads"\n\n'
                          f'[plugins.backup]\ndirectory = "{tmp_path}/backups"\n')
        assert sitehost(config, "init", "--demo").returncode == 0
        created = sitehost(config, "backup", "create")
        assert created.returncode == 0, created.stderr
        yield config, url, Path(created.stdout.split("backup written: ", 1)[1].split()[0])


def test_restore_into_a_served_database_is_refused_in_one_line_and_changes_nothing(site):
    config, url, archive = site
    process, rest = serve(config, "--workers", "1")
    try:
        before = table_counts(url)
        refused = sitehost(config, "backup", "restore", str(archive), "--force")
        assert refused.returncode == 1
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1, refused.stderr
        assert lines[0].startswith("Error: nothing was restored: the database is being served (sitehost serve pid "
                                   f"{process.pid} on ")
        assert lines[0].endswith("; stop it first, or pass --stop-server")
        assert table_counts(url) == before
        assert process.poll() is None and title_of_first_post(rest)  # still serving
    finally:
        stop_sitehost(process)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_stop_server_stops_every_server_then_restores(site, workers):
    config, url, archive = site
    first, rest = serve(config, "--workers", workers)
    second, _rest = serve(config, "--workers", "1")  # a second server of the same database
    try:
        restored = sitehost(config, "backup", "restore", str(archive), "--force", "--stop-server")
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert f"stopped sitehost serve pid {first.pid} on " in restored.stdout
        assert f"stopped sitehost serve pid {second.pid} on " in restored.stdout
        assert "restored " in restored.stdout
        assert first.wait(timeout=30) == 0 and second.wait(timeout=30) == 0  # a clean stop, not a kill
    finally:
        for process in (first, second):
            if process.poll() is None:
                stop_sitehost(process)
    again, rest = serve(config, "--workers", "1")  # the restored site serves
    try:
        assert title_of_first_post(rest)
    finally:
        stop_sitehost(again)


def test_a_server_killed_with_sigkill_leaves_no_lock(site):
    config, url, archive = site
    process, _rest = serve(config, "--workers", "1")
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    restored = sitehost(config, "backup", "restore", str(archive), "--force")
    assert restored.returncode == 0, restored.stderr
    assert "stopped" not in restored.stdout


def test_no_server_starts_while_a_restore_holds_the_database(site):
    from host.server_lock import held_for_restore

    config, url, _archive = site
    with held_for_restore(url):
        started = sitehost(config, "serve", "--port", str(next(PORTS)), "--workers", "1")
    assert started.returncode == 1
    assert started.stderr.strip() == ("Error: a restore of this database is running; start the server when it "
                                      "has finished")
