"""The SQLite database holds password hashes and the site secrets: owner-only (0600) from its
creation, with its -wal and -shm, in folders made 0700, whatever the umask would give."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from host.testing import create_test_user


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask():
    """022, the common default, under which files were created 0644 (readable by every local user)."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_database_its_wal_and_its_folders_are_owner_only(make_app, tmp_path, usual_umask):
    work = tmp_path / "work"
    work.mkdir(mode=0o755)
    database = work / "data" / "site" / "sitehost.db"
    app = make_app(plugins=["core"], database_url=f"sqlite:///{database}")
    create_test_user(app, "administrator")
    app.site_secret("test.signing")
    assert mode(database) == 0o600
    for suffix in ("-wal", "-shm"):  # the site is open: its write-ahead log and shared memory exist
        assert mode(database.with_name(database.name + suffix)) == 0o600, suffix
    assert mode(work / "data") == 0o700 and mode(work / "data" / "site") == 0o700
    assert mode(work) == 0o755  # a folder that was there (the operator's working folder) is left alone


def test_a_database_others_could_read_is_made_owner_only(make_app, tmp_path, usual_umask, caplog):
    database = tmp_path / "old-site.db"
    sqlite3.connect(database).close()
    database.chmod(0o644)
    with caplog.at_level("WARNING", logger="sitehost.db"):
        app = make_app(plugins=["core"], database_url=f"sqlite:///{database}")
    assert mode(database) == 0o600
    assert f"{database} could be read by other local users (mode 644)" in caplog.text
    create_test_user(app, "administrator")
    assert mode(database.with_name(database.name + "-wal")) == 0o600
