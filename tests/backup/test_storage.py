"""Backups on both storage backends (host.storage): archives kept in the folder or in the object store,
their uploads read from and restored into where the site keeps them, and a site moved from its local
folders to S3 (through a backup and a restore, or `sitehost storage copy --to s3`).

The S3 cases run against moto's standalone server (a process on 127.0.0.1, host.testing's `s3_server`);
what is stored is read straight from the folders and buckets (host.testing.stored_files).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner

from host.cli import main
from host.config import load_settings
from host.testing import create_test_user, stored_files
from plugins.backup.archive import read_manifest, verify_archive

from .helpers import engine_under_test, new_database, open_site, table_counts

REST = "/wp-json/backup/v1"
MEDIA = "/wp-json/core/v2/media"
PDF = b"%PDF-1.4 timetable " * 50


def write_config(folder: Path, url: str, storage: dict, keep: int = 3) -> Path:
    config = folder / "sitehost.toml"
    config.write_text(tomli_w.dumps({
        "database_url": url, "uploads_dir": str(folder / "uploads"), "storage": storage,
        "plugins": {"backup": {"directory": str(folder / "backups"), "keep": keep}}}), encoding="utf-8")
    return config


def invoke(config: Path, *args):
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, ["--config", str(config), *args], env=unset)


def site_of(config: Path):
    return open_site(load_settings(config, env={}))


def storage_of(backend: str, request) -> dict:
    return {} if backend == "local" else request.getfixturevalue("s3_server").storage_settings()


def upload(app, admin, name="timetable.pdf", data=PDF) -> str:
    media = app.client.post(MEDIA, data, headers={**admin, "Content-Type": "application/pdf",
                                                  "Content-Disposition": f'attachment; filename="{name}"'},
                            status=201).json
    return media["source_url"].split("/uploads/", 1)[1]


def back_up(app, admin) -> str:
    job = app.client.post(f"{REST}/backups", headers=admin, status=201).json
    assert job["status"] == "done", job
    return job["archive"]


def test_archives_are_kept_listed_downloaded_and_retained_where_the_site_keeps_its_files(
        tmp_path, storage_backend):
    with new_database(tmp_path, engine_under_test()) as url:
        app = site_of(write_config(tmp_path, url, storage_backend, keep=1))
        try:
            admin = create_test_user(app, "administrator").headers
            key = upload(app, admin)
            first = back_up(app, admin)
            second = back_up(app, admin)  # keep = 1: the first goes
            expected = {second} if not storage_backend else {second, second + ".manifest.json"}
            assert set(stored_files(app, "backups")) == expected
            if storage_backend:  # written in the folder, uploaded, then removed from the folder
                assert not list((tmp_path / "backups").glob("*.tar"))
            listing = app.client.get(f"{REST}/backups", headers=admin, status=200).json
            assert [(entry["name"], entry["readable"], entry["uploads"]) for entry in listing] == [(second, True, 1)]
            app.client.get(f"{REST}/backups/{first}", headers=admin, status=404)
            download = app.client.get(f"{REST}/backups/{second}/download", headers=admin, status=200)
            assert download.headers["Content-Disposition"] == f'attachment; filename="{second}"'
            assert int(download.headers["Content-Length"]) == listing[0]["size"] == len(download.body)
            assert download.body == stored_files(app, "backups")[second]
            copy = tmp_path / second
            copy.write_bytes(download.body)
            verified = verify_archive(copy)
            assert [(entry["path"], entry["sha256"]) for entry in verified.manifest["uploads"]["files"]] == [
                (key, hashlib.sha256(PDF).hexdigest())]
            health = app.client.get("/wp-json/site-health/v1/tests/last-backup", headers=admin, status=200).json
            assert health["status"] == "good" and second in health["description"]
            app.client.delete(f"{REST}/backups/{second}", headers=admin, status=200)
            assert stored_files(app, "backups") == {}
            assert app.client.get(f"{REST}/backups", headers=admin, status=200).json == []
        finally:
            app.close()


@pytest.mark.parametrize("source_backend, target_backend", [("local", "local"), ("s3", "s3"), ("local", "s3")])
def test_a_backup_restores_its_files_into_the_target_sites_storage(tmp_path, request, source_backend,
                                                                    target_backend):
    source_folder, target_folder = tmp_path / "source", tmp_path / "target"
    source_folder.mkdir()
    target_folder.mkdir()
    with new_database(source_folder, engine_under_test()) as source_url, \
            new_database(target_folder, engine_under_test()) as target_url:
        source_config = write_config(source_folder, source_url, storage_of(source_backend, request))
        source = site_of(source_config)
        try:
            admin = create_test_user(source, "administrator").headers
            note = b"Bring a packed lunch.\n"
            keys = {upload(source, admin): PDF, upload(source, admin, "plan.txt", note): note}
            name = back_up(source, admin)
            archive = tmp_path / name
            archive.write_bytes(source.client.get(f"{REST}/backups/{name}/download", headers=admin).body)
        finally:
            source.close()
        target_storage = storage_of(target_backend, request)
        target_config = write_config(target_folder, target_url, target_storage)
        if target_backend == "s3":  # a file that is no upload of the backup: refused, then kept aside
            request.getfixturevalue("s3_server").client().put_object(
                Bucket=target_storage["bucket"], Key="uploads/2020/01/old.txt", Body=b"old")
            refused = invoke(target_config, "backup", "restore", str(archive))
            assert refused.exit_code == 1 and "hold other files" in refused.stderr, refused.output
        restored = invoke(target_config, "backup", "restore", str(archive), "--force")
        assert restored.exit_code == 0, restored.output
        assert f"{len(keys)} uploads" in restored.stdout
        counts = table_counts(target_url)
        archived = {table["name"]: table["rows"] for table in read_manifest(archive)["tables"]}
        assert counts["posts"] == archived["posts"] == 2 and counts["users"] == archived["users"]
        target = site_of(target_config)
        try:
            assert stored_files(target) == keys
            for key, data in keys.items():
                assert target.client.get(f"/uploads/{key}", status=200).body == data
            if target_backend == "s3":
                aside = [area for area in target.storage.known_areas() if area[0] == "uploads"]
                assert aside and "uploads.before-restore-" in restored.stdout
                moved = request.getfixturevalue("s3_server").keys(target_storage["bucket"], "uploads.before-restore-")
                assert list(moved.values()) == [b"old"] and next(iter(moved)).endswith("/2020/01/old.txt")
                assert not request.getfixturevalue("s3_server").keys(target_storage["bucket"], "uploads.restoring-")
        finally:
            target.close()
        if source_backend == "s3":  # an archive kept in the store is restored by its name alone
            with new_database(tmp_path, engine_under_test()) as third_url:
                by_name = invoke(source_config, "backup", "restore", name, "--into", third_url)
                assert by_name.exit_code == 0, by_name.output
                assert table_counts(third_url)["posts"] == counts["posts"]
                assert not list((source_folder / "backups").iterdir())  # the download was removed


def test_storage_copy_moves_a_local_sites_files_into_the_store(tmp_path, s3_server):
    with new_database(tmp_path, engine_under_test()) as url:
        config = write_config(tmp_path, url, {})
        app = site_of(config)
        try:
            admin = create_test_user(app, "administrator").headers
            key = upload(app, admin)
            name = back_up(app, admin)
            archive = stored_files(app, "backups")[name]
        finally:
            app.close()
        refused = invoke(config, "storage", "copy", "--to", "s3")
        assert refused.exit_code == 1 and "backend = \"s3\"" in refused.stderr
        storage = s3_server.storage_settings()
        config = write_config(tmp_path, url, storage)
        copied = invoke(config, "storage", "copy", "--to", "s3")
        assert copied.exit_code == 0, copied.output
        assert "uploads: 1 files copied" in copied.stdout and "backups: 1 files copied" in copied.stdout
        again = invoke(config, "storage", "copy", "--to", "s3")
        assert "done: 0 files copied" in again.stdout and "uploads: 0 files copied" in again.stdout
        info = invoke(config, "storage", "info")
        assert f"s3://{storage['bucket']}/" in info.stdout and "uploads: 1 files" in info.stdout
        app = site_of(config)
        try:
            assert stored_files(app) == {key: PDF}
            assert app.client.get(f"/uploads/{key}", status=200).body == PDF
            admin = create_test_user(app, "administrator").headers
            [entry] = app.client.get(f"{REST}/backups", headers=admin, status=200).json  # its manifest read once
            assert entry["name"] == name and entry["readable"] is True and entry["uploads"] == 1
            assert stored_files(app, "backups")[name] == archive
        finally:
            app.close()
