"""`sitehost backup create|list|verify|restore` as an operator runs them, and a restore killed halfway."""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import insert

from host.cli import main
from plugins.backup.archive import read_manifest, table_member

from .helpers import (craft_archive, engine_under_test, flip_byte, member_offset, mode, new_database, open_site,
                      site_settings, table_counts, usual_umask)


def invoke(config: Path, *args):
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, ["--config", str(config), *args], env=unset)


def write_config(folder: Path, url: str, name: str = "sitehost.toml") -> Path:
    config = folder / name
    config.write_text(f'database_url = "{url}"\nuploads_dir = "{folder}/uploads"\n\n'
                      f'[plugins.backup]\ndirectory = "{folder}/backups"\nkeep = 3\n')
    return config


def add_posts(app, count: int) -> None:
    posts = app.db.metadata.tables["posts"]
    moment = datetime.datetime(2024, 9, 1, 8, 0)
    with app.db.engine.begin() as connection:
        for start in range(0, count, 5000):
            connection.execute(insert(posts), [
                {"type": "post", "status": "publish", "slug": f"news-{number}", "title": f"News {number}",
                 "content": f"<p>Item {number} of the school news, with enough words to index.</p>",
                 "excerpt": "", "date": moment, "date_gmt": moment, "modified": moment, "modified_gmt": moment}
                for number in range(start, min(count, start + 5000))])


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-site")
    with new_database(folder, engine_under_test()) as url:
        config = write_config(folder, url)
        (folder / "uploads" / "2025").mkdir(parents=True)
        (folder / "uploads" / "2025" / "timetable.pdf").write_bytes(b"%PDF timetable" * 100)
        app = open_site(site_settings(url, folder / "uploads", folder / "backups"))
        app.install_site(demo=True)
        add_posts(app, 5000)
        app.close()
        yield folder, config, url


def test_create_list_and_verify(source):
    folder, config, _url = source
    (folder / "backups").mkdir(mode=0o755)
    older = folder / "backups" / "sitehost-backup-20200101T000000000Z-0a0b0c.tar"  # written 0644 before
    older.write_bytes(b"an archive of 2020")
    older.chmod(0o644)
    with usual_umask():
        created = invoke(config, "backup", "create")
    assert mode(older) == 0o600  # tightened by the next backup
    older.unlink()
    assert created.exit_code == 0, created.output
    assert "backup written: " in created.stdout
    archive = Path(created.stdout.split("backup written: ", 1)[1].split()[0])
    assert archive.parent == folder / "backups"
    assert mode(archive) == 0o600 and mode(archive.parent) == 0o755  # an existing folder keeps its mode
    assert "2 uploads" in created.stdout and "rows;" in created.stdout  # the timetable and the demo's picture
    listed = invoke(config, "backup", "list")
    assert listed.exit_code == 0 and archive.name in listed.stdout and "2 uploads" in listed.stdout
    verified = invoke(config, "backup", "verify", str(archive))
    assert verified.exit_code == 0, verified.output
    assert f"{archive}: OK," in verified.stdout and "2 uploads match their checksums" in verified.stdout


def test_create_to_a_named_file_and_verify_a_damaged_copy(source, tmp_path):
    _folder, config, _url = source
    target = tmp_path / "copies" / "before-upgrade.tar"
    with usual_umask():
        created = invoke(config, "backup", "create", "--to", str(target))
    assert created.exit_code == 0, created.output
    assert target.is_file() and mode(target) == 0o600 and mode(target.parent) == 0o700
    again = invoke(config, "backup", "create", "--to", str(target))
    assert again.exit_code == 1 and "exists already" in again.stderr
    offset, size = member_offset(target, table_member("terms"))
    flip_byte(target, offset + size // 2)
    damaged = invoke(config, "backup", "verify", str(target))
    assert damaged.exit_code == 1
    assert "is damaged" in damaged.stderr and "table terms" in damaged.stderr
    refused = invoke(config, "backup", "restore", str(target), "--into", f"sqlite:///{tmp_path}/new.db",
                     "--uploads", str(tmp_path / "new-uploads"))
    assert refused.exit_code == 1 and "nothing was restored" in refused.stderr and "table terms" in refused.stderr
    assert not (tmp_path / "new.db").exists() or table_counts(f"sqlite:///{tmp_path}/new.db") == {}


def test_verify_refuses_what_restore_refuses(source, tmp_path):
    """Archives whose checksums all match, but that restore refuses: verify answers the same, not OK."""
    _folder, config, _url = source
    escaping = craft_archive(tmp_path / "escaping.tar", None, {"../../x": b"#!/bin/sh\n", "/etc/cron.d/x": b"* * *"})
    verified = invoke(config, "backup", "verify", str(escaping))
    assert verified.exit_code == 1, verified.output
    assert "is damaged" in verified.stderr and "OK" not in verified.stdout
    assert "upload '../../x': a path outside the uploads folder" in verified.stderr
    assert "upload '/etc/cron.d/x': a path outside the uploads folder" in verified.stderr
    restored = invoke(config, "backup", "restore", str(escaping), "--into", f"sqlite:///{tmp_path}/new.db",
                      "--uploads", str(tmp_path / "new-uploads"))
    assert restored.exit_code == 1 and "nothing was restored" in restored.stderr
    assert "upload '../../x': a path outside the uploads folder" in restored.stderr
    foreign = craft_archive(tmp_path / "foreign.tar", None, {}, tables={"gradebook_entries": ["id", "student"]})
    verified = invoke(config, "backup", "verify", str(foreign))
    assert verified.exit_code == 1 and "cannot be restored here" in verified.stderr
    assert "table gradebook_entries (plugin unknown) is in the backup, but no plugin installed here defines it" \
        in verified.stderr
    assert not (tmp_path / "new-uploads").exists() and not (tmp_path.parent / "x").exists()


def test_restore_into_an_empty_database_then_refuse_a_second_time(source, tmp_path):
    folder, config, _url = source
    archive = Path(invoke(config, "backup", "create").stdout.split("backup written: ", 1)[1].split()[0])
    manifest = read_manifest(archive)
    with new_database(tmp_path, engine_under_test()) as target:
        restored = invoke(config, "backup", "restore", str(archive), "--into", target,
                          "--uploads", str(tmp_path / "uploads"))
        assert restored.exit_code == 0, restored.output
        assert f"restored {archive.name} into " in restored.stdout and "sequences set" in restored.stdout
        counts = table_counts(target)
        assert all(counts[table["name"]] == table["rows"] for table in manifest["tables"])
        assert (tmp_path / "uploads" / "2025" / "timetable.pdf").read_bytes() == b"%PDF timetable" * 100
        second = invoke(config, "backup", "restore", str(archive), "--into", target,
                        "--uploads", str(tmp_path / "uploads"))
        assert second.exit_code == 1
        assert "nothing was restored: the target database is not empty" in second.stderr
        assert "--force" in second.stderr
        assert table_counts(target) == counts


def test_a_restore_killed_halfway_leaves_the_target_empty_then_a_new_one_completes(source, tmp_path):
    folder, config, _url = source
    archive = Path(invoke(config, "backup", "create").stdout.split("backup written: ", 1)[1].split()[0])
    manifest = read_manifest(archive)
    with new_database(tmp_path, engine_under_test()) as target:
        command = [sys.executable, "-m", "host.cli", "--config", str(config), "backup", "restore", str(archive),
                   "--into", target, "--uploads", str(tmp_path / "uploads")]
        env = {**{key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")},
               "PYTHONUNBUFFERED": "1"}
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        seen = []
        for line in process.stdout:
            seen.append(line)
            if "loading table posts" in line:  # earlier tables are loaded, posts is under way
                process.send_signal(signal.SIGKILL)
                break
        process.wait(timeout=60)
        assert process.returncode == -signal.SIGKILL, "".join(seen)
        assert not any("restored " in line for line in seen)
        assert sum(table_counts(target).values()) == 0, table_counts(target)  # nothing half-written
        assert not (tmp_path / "uploads").exists()  # the unpacked uploads were never put in place
        finished = invoke(config, "backup", "restore", str(archive), "--into", target,
                          "--uploads", str(tmp_path / "uploads"))
        assert finished.exit_code == 0, finished.output
        counts = table_counts(target)
        assert all(counts[table["name"]] == table["rows"] for table in manifest["tables"])
        assert counts["posts"] > 5000
