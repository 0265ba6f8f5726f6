"""What a backup holds, verification, corrupted archives, and restores of every kind of column.

One site per module: demo content of every built-in plugin, a test plugin (`gradebook`) with
a table of every column type, and a plugin (`oldarchive`) that wrote rows and was then
disabled, plus real upload files. It is backed up once; tests copy the archive to damage it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from host.testing import create_test_user
from plugins.backup.archive import END_LENGTH, MANIFEST, ArchiveError, table_member, verify_archive
from plugins.backup.create import sitehost_version
from plugins.backup.restore import RestoreRefused
from plugins.backup.service import backup_site, restore_site

from .helpers import (ARCHIVED, GRADES, archive_plugin, craft_archive, engine_under_test, flip_byte,
                      gradebook_plugin, member_offset, mode, usual_umask, new_database, open_site, raw_rows, site_settings, table_counts, write_grades)

UPLOADS = {"2025/06/sports-day.jpg": bytes(range(256)) * 400, "2025/06/notes/minutes.pdf": b"%PDF-1.4 minutes",
           "logo.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 5000}


def _files_under(folder: Path, known: dict) -> dict[str, bytes]:
    """{relative path: bytes} of the files in `folder` not in `known`."""
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*")
            if path.is_file() and str(path.relative_to(folder)) not in known}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The source site, closed after it was backed up; yields (settings, archive path, source url)."""
    root = tmp_path_factory.mktemp("backup-site")
    with new_database(root, engine_under_test()) as url:
        grades, old = gradebook_plugin(), archive_plugin()
        uploads, backups = root / "uploads", root / "backups"
        for relative, data in UPLOADS.items():
            (uploads / relative).parent.mkdir(parents=True, exist_ok=True)
            (uploads / relative).write_bytes(data)
        first = open_site(site_settings(url, uploads, backups, [grades, old]))
        first.install_site(demo=True)
        UPLOADS.update(_files_under(uploads, UPLOADS))  # the demo's picture is an upload the archive holds too
        with first.db.engine.begin() as connection:
            connection.execute(first.db.metadata.tables[ARCHIVED].insert(),
                               [{"title": "Prize giving 2019"}, {"title": "Prize giving 2020"}])
        first.close()
        settings = site_settings(url, uploads, backups, [grades, old], disabled=["oldarchive"])
        app = open_site(settings)
        admin = create_test_user(app, "administrator", login="head")
        write_grades(app)
        app.client.post_json("/wp-json/core/v2/posts", {"title": "Deleted", "status": "draft"},
                             headers=admin.headers, status=201)
        deleted = app.client.get("/wp-json/core/v2/posts?status=draft&search=Deleted", headers=admin.headers).json
        app.client.delete(f"/wp-json/core/v2/posts/{deleted[0]['id']}?force=true", headers=admin.headers, status=200)
        with usual_umask():
            result, _removed = backup_site(app)
        app.close()
        yield settings, result.path, url, admin


@pytest.fixture
def damaged(site, tmp_path):
    """A copy of the archive to damage."""
    copy = tmp_path / site[1].name
    shutil.copyfile(site[1], copy)
    return copy


def test_archives_and_their_folder_are_owner_only(site):
    """An archive holds password hashes and site secrets: no other local user may read it."""
    archive = site[1]
    assert mode(archive) == 0o600
    assert mode(archive.parent) == 0o700  # the backups folder, made by the first backup


def test_manifest_says_what_the_archive_holds(site):
    settings, archive, _url, _admin = site
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        manifest = json.loads(tar.extractfile(MANIFEST).read())
    assert names[-1] == MANIFEST
    assert manifest["format"] == "sitehost-backup" and manifest["format_version"] == 1
    assert manifest["site"]["name"] == settings.site["name"]
    assert manifest["sitehost_version"] == sitehost_version()
    assert manifest["plugins"]["core"]["enabled"] is True
    assert manifest["plugins"]["gradebook"] == {"version": "2.3.1", "enabled": True}
    assert manifest["plugins"]["backup"]["version"] == "1.0.0"
    assert "oldarchive" not in manifest["plugins"]
    assert manifest["disabled_plugins"]["oldarchive"] == {"version": "0.9.0", "enabled": False}
    assert len(manifest["schema_version"]) == 16
    assert manifest["created"].endswith("+00:00")
    assert manifest["snapshot"]["engine"] == engine_under_test()
    tables = {table["name"]: table for table in manifest["tables"]}
    for name in ("posts", "terms", "users", "application_passwords", "site_state", GRADES, ARCHIVED,
                 "backup_jobs", "cache_version"):
        assert table_member(name) in names, name
    assert tables[GRADES]["plugin"] == "gradebook" and tables[GRADES]["rows"] == 3
    assert tables[ARCHIVED]["plugin"] == "oldarchive" and tables[ARCHIVED]["rows"] == 2
    assert tables["users"]["plugin"] == "host"
    assert tables["posts"]["plugin"] == "core"
    assert tables["posts"]["columns"][0] == "id" and tables["posts"]["primary_key"] == ["id"]
    assert all(len(table["sha256"]) == 64 for table in manifest["tables"])
    # the checksum is of the uncompressed JSON lines, whose line count is the row count
    with tarfile.open(archive) as tar:
        import gzip

        data = gzip.decompress(tar.extractfile(table_member(GRADES)).read())
    assert hashlib.sha256(data).hexdigest() == tables[GRADES]["sha256"]
    assert data.count(b"\n") == 3
    first = json.loads(data.splitlines()[0])
    assert first[1] == "Ada Lovelace" and first[3] == {"decimal": "97.50"}
    assert first[9] == [{"b": [1, 2], "a": "ü ✓"}] and first[10] == {"base64": "AAH+/yBiaW5hcnk="}
    assert first[8] == "2025-06-12T11:00:05.123456"
    # the deleted draft's id is not handed out again after a restore: the counter is recorded
    assert tables["posts"]["sequence"] is not None
    files = {entry["path"]: entry for entry in manifest["uploads"]["files"]}
    assert set(files) == set(UPLOADS)
    for relative, data in UPLOADS.items():
        assert files[relative] == {"path": relative, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_verify_accepts_an_intact_archive(site):
    verified = verify_archive(site[1])
    assert verified.checked_tables == len(verified.manifest["tables"])
    assert verified.checked_files == len(UPLOADS)


def _assert_refused(settings, archive, tmp_path, *expected):
    with pytest.raises(ArchiveError) as verify_error:
        verify_archive(archive)
    for text in expected:
        assert text in str(verify_error.value), str(verify_error.value)
    with new_database(tmp_path, engine_under_test()) as target:
        with pytest.raises(ArchiveError) as restore_error:
            restore_site(settings, archive, target, tmp_path / "restored-uploads")
        assert str(restore_error.value) == str(verify_error.value)
        assert table_counts(target) == {}  # not a table was created
    assert not (tmp_path / "restored-uploads").exists()
    return str(verify_error.value)


def test_a_flipped_byte_in_a_table_is_named(site, damaged, tmp_path):
    offset, size = member_offset(damaged, table_member("posts"))
    flip_byte(damaged, offset + size // 2)
    message = _assert_refused(site[0], damaged, tmp_path, "table posts")
    assert "damaged" in message or "checksum mismatch" in message


def test_a_flipped_byte_in_an_upload_is_named(site, damaged, tmp_path):
    offset, size = member_offset(damaged, "uploads/2025/06/sports-day.jpg")
    flip_byte(damaged, offset + 1000)
    _assert_refused(site[0], damaged, tmp_path, "upload 2025/06/sports-day.jpg: checksum mismatch")


def test_a_flipped_byte_in_the_manifest_is_named(site, damaged, tmp_path):
    offset, size = member_offset(damaged, MANIFEST)
    text = damaged.read_bytes()[offset:offset + size]
    flip_byte(damaged, offset + text.index(b'"name"') + 9)  # inside the site's name: still valid JSON
    _assert_refused(site[0], damaged, tmp_path, "manifest.json is damaged")


def test_a_flipped_byte_in_a_tar_header_or_padding_is_caught(site, damaged, tmp_path):
    offset, size = member_offset(damaged, table_member(GRADES))
    padding = offset + size + 3  # tar pads each member to 512 bytes with zeros
    assert size % 512 != 0
    flip_byte(damaged, padding)
    _assert_refused(site[0], damaged, tmp_path, "damaged outside its tables and files")


@pytest.mark.parametrize("keep", [0.5, 0.97])
def test_a_truncated_archive_is_refused(site, damaged, tmp_path, keep):
    size = damaged.stat().st_size
    with open(damaged, "r+b") as handle:
        handle.truncate(int(size * keep))
    message = _assert_refused(site[0], damaged, tmp_path, "truncated")
    assert "no end marker" in message


def test_a_file_that_is_not_an_archive_is_refused(site, tmp_path):
    other = tmp_path / "notes.tar"
    other.write_bytes(b"just some text\n" * 100)
    _assert_refused(site[0], other, tmp_path, "no end marker")
    with pytest.raises(ArchiveError, match="does not exist"):
        verify_archive(tmp_path / "missing.tar")


def test_verify_refuses_an_upload_path_that_restore_refuses(site, tmp_path):
    """Every checksum of the crafted archive matches: verify said OK, and restore then refused it."""
    outside = ["../../x", "/tmp/x", "2025/../../x", "a\\..\\x", "./x", "a//x"]
    crafted = craft_archive(tmp_path / "crafted.tar", site[1], {**{path: b"#!/bin/sh\n" for path in outside},
                                                                 "fine.txt": b"ok"})
    message = _assert_refused(site[0], crafted, tmp_path,
                              *(f"upload {path!r}: a path outside the uploads folder" for path in outside))
    assert "fine.txt" not in message


def test_verify_refuses_uploads_that_cannot_all_be_unpacked(site, tmp_path):
    """`2025-old` sorts between `2025` and `2025/...`: the check must still see `2025` as a folder."""
    crafted = craft_archive(tmp_path / "crafted.tar", site[1], {"2025": b"a file", "2025-old/a.jpg": b"fine",
                                                                 "2025/06/photo.jpg": b"and a folder"})
    message = _assert_refused(site[0], crafted, tmp_path, "upload '2025': both a file and the folder of another upload")
    assert "2025-old" not in message


def test_verify_refuses_an_upload_path_longer_than_a_file_system_takes(site, tmp_path):
    """A crafted manifest may hold one very deep path; it is refused by its length, never walked folder by folder."""
    deep = "/".join(["a"] * 3000)
    crafted = craft_archive(tmp_path / "crafted.tar", site[1], {deep: b"x", "fine.txt": b"ok"})
    _assert_refused(site[0], crafted, tmp_path, f"upload {deep!r}: a path outside the uploads folder")


def test_verify_refuses_a_manifest_entry_of_the_wrong_shape(site, tmp_path):
    """A crafted manifest (its checksum in the end marker matching) with an upload path that is not text."""
    import io

    from plugins.backup.archive import ArchiveWriter, read_manifest

    manifest = read_manifest(site[1])
    manifest.update(tables=[], uploads={"count": 1, "bytes": 0, "files": [{"path": ["x"], "size": 0, "sha256": ""}]})
    writer = ArchiveWriter(tmp_path / "crafted.tar", created=0)
    writer._tar.addfile(writer._info("uploads/x", 0), io.BytesIO(b""))
    writer.finish(manifest)
    _assert_refused(site[0], tmp_path / "crafted.tar", tmp_path, "upload entry 0 lacks a path, size or sha256")


def test_restore_gives_back_every_row_and_column_type(site, tmp_path, caplog):
    settings, archive, source, _admin = site
    uploads = tmp_path / "uploads"
    with new_database(tmp_path, engine_under_test()) as target:
        with usual_umask(), caplog.at_level("WARNING"):
            result = restore_site(settings, archive, target, uploads)
        if engine_under_test() == "sqlite":  # the restored file is owner-only from its first byte
            assert mode(Path(target.removeprefix("sqlite:///"))) == 0o600
            assert "could be read by other local users" not in caplog.text
        assert result.tables == len(result.manifest["tables"]) and result.files == len(UPLOADS)
        assert raw_rows(target, GRADES) == raw_rows(source, GRADES)  # SQL NULL and JSON null kept apart
        assert raw_rows(target, ARCHIVED) == [(1, "Prize giving 2019"), (2, "Prize giving 2020")]
        for name in ("posts", "users", "application_passwords", "terms", "term_relationships", "post_meta"):
            assert raw_rows(target, name) == raw_rows(source, name), name
        for relative, data in UPLOADS.items():
            assert (uploads / relative).read_bytes() == data
        # a backup of the restored site has the same checksums
        again = open_site(site_settings(target, uploads, tmp_path / "again", settings.extra_plugins,
                                        disabled=["oldarchive"]))
        try:
            second, _removed = backup_site(again)
            # the next post gets a new id, never the deleted draft's
            admin = site[3]
            created = again.client.post_json("/wp-json/core/v2/posts", {"title": "After restore"},
                                             headers=admin.headers, status=201).json
        finally:
            again.close()
    before = {table["name"]: (table["rows"], table["sha256"]) for table in result.manifest["tables"]}
    after = {table["name"]: (table["rows"], table["sha256"]) for table in second.manifest["tables"]}
    assert after == before
    highest = max(row[0] for row in raw_rows(source, "posts"))
    sequence = next(table["sequence"] for table in result.manifest["tables"] if table["name"] == "posts")
    assert sequence > highest  # the deleted draft had the last id
    assert created["id"] == sequence + 1


def test_restore_refuses_a_site_that_is_not_empty_unless_forced(site, tmp_path):
    settings, archive, _source, _admin = site
    uploads = tmp_path / "uploads"
    with new_database(tmp_path, engine_under_test()) as target:
        other = open_site(site_settings(target, uploads, tmp_path / "b", settings.extra_plugins))
        other.install_site(demo=False)
        create_test_user(other, "editor", login="someone-else")
        other.close()
        uploads.mkdir(exist_ok=True)
        (uploads / "old.txt").write_bytes(b"an older upload")
        before = table_counts(target)
        with pytest.raises(RestoreRefused, match=r"not empty \(rows in [a-z_, .]+\)") as refused:
            restore_site(settings, archive, target, uploads)
        assert "uploads folder" in str(refused.value) and "--force" in str(refused.value)
        assert table_counts(target) == before
        assert (uploads / "old.txt").read_bytes() == b"an older upload"
        result = restore_site(settings, archive, target, uploads, force=True)
        counts = table_counts(target)
        for table in result.manifest["tables"]:
            assert counts[table["name"]] == table["rows"], table["name"]
        assert not (uploads / "old.txt").exists()
        assert (result.moved_aside / "old.txt").read_bytes() == b"an older upload"
        assert (uploads / "logo.png").read_bytes() == UPLOADS["logo.png"]
        restored = open_site(site_settings(target, uploads, tmp_path / "b", settings.extra_plugins))
        try:
            logins = [user["slug"] for user in restored.client.get(
                "/wp-json/core/v2/users", headers=site[3].headers).json]
            assert "head" in logins and "someone-else" not in logins
            # the full-text index was rebuilt from the restored posts: search finds them
            found = restored.client.get("/wp-json/core/v2/posts?search=welcome", headers=site[3].headers).json
            assert found
        finally:
            restored.close()


def test_restore_refuses_an_archive_whose_plugin_is_not_installed(site, tmp_path):
    settings, archive, _source, _admin = site
    without = site_settings(settings.database_url, tmp_path / "u", tmp_path / "b", [archive_plugin()])
    with new_database(tmp_path, engine_under_test()) as target:
        with pytest.raises(RestoreRefused, match=f"table {GRADES} \\(plugin gradebook\\) is in the backup"):
            restore_site(without, archive, target, tmp_path / "u")
        assert table_counts(target) == {}


def test_end_marker_is_the_last_line(site):
    tail = site[1].read_bytes()[-END_LENGTH:]
    assert tail.startswith(b"SITEHOST-BACKUP-END sha256=") and tail.endswith(b"\n")
    body = site[1].read_bytes()[:-END_LENGTH]
    assert hashlib.sha256(body).hexdigest().encode() in tail


def test_sqlite_rows_read_from_the_driver_encode_exactly_as_through_sqlalchemy(site, tmp_path):
    """The fast path of plain tables on SQLite (snapshot.py) gives the generic path's bytes, table by table."""
    from plugins.backup.catalog import build_catalog
    from plugins.backup.codec import RowEncoder
    from plugins.backup.snapshot import _sqlite_readers, open_snapshot

    settings, _archive, url, _admin = site
    app = open_site(settings)
    try:
        catalog = build_catalog(app)
    finally:
        app.close()
    fast = 0
    with open_snapshot(url, tmp_path) as snapshot:
        for table in catalog.tables:
            if table.name not in snapshot.existing:
                continue
            encoder = RowEncoder(list(table.columns))
            quick = [encoder.line(row) for row in snapshot.rows(table)]
            generic = [encoder.line(row) for row in snapshot.rows(table, generic=True)]
            assert quick == generic, table.name
            fast += _sqlite_readers(table) is not None
    if engine_under_test() == "sqlite":
        assert fast >= 10  # posts, terms, users, ... take the fast path; the gradebook (Numeric, binary) does not
