"""backup/v1 over HTTP: the version probe, and creating, following, listing, downloading and deleting backups."""

from __future__ import annotations

import hashlib
import time

import pytest

from host.testing import assert_in_root_index, assert_rest_error, create_test_user
from plugins.backup.archive import verify_archive
from plugins.backup.create import sitehost_version
from plugins.backup.jobs import queue_job

REST = "/wp-json/backup/v1"


@pytest.fixture(scope="module")
def probe_site(make_module_app):
    app = make_module_app(plugins=["core", "backup"])
    app.people = {role: create_test_user(app, role) for role in ("administrator", "editor", "subscriber")}
    return app


def test_versions_answers_the_administrator_as_the_original_does(probe_site):
    response = probe_site.client.get(f"{REST}/versions", headers=probe_site.people["administrator"].headers,
                                     status=200)
    assert response.json == {"success": False, "message": "", "wp": sitehost_version(), "plugin": "1.0.0"}
    assert response.headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("role, status", [("editor", 403), ("subscriber", 403), (None, 401)])
def test_versions_refuses_everyone_else(probe_site, role, status):
    headers = probe_site.people[role].headers if role else {}
    response = probe_site.client.get(f"{REST}/versions", headers=headers, expect_errors=True)
    body = assert_rest_error(response, "rest_forbidden", status)
    assert body["message"] == "You cannot execute this action."


def test_the_namespace_is_advertised_with_its_routes(probe_site):
    index = assert_in_root_index(probe_site, "backup/v1")
    assert {"/backup/v1/versions", "/backup/v1/backups", "/backup/v1/jobs"} <= set(index["routes"])
    assert index["routes"]["/backup/v1/versions"]["methods"] == ["GET"]


@pytest.mark.parametrize("method, path", [
    ("GET", "/backups"), ("POST", "/backups"), ("GET", "/jobs"), ("GET", "/jobs/1"),
    ("GET", "/backups/sitehost-backup-20250101T000000Z-abcdef.tar"),
    ("GET", "/backups/sitehost-backup-20250101T000000Z-abcdef.tar/download"),
    ("DELETE", "/backups/sitehost-backup-20250101T000000Z-abcdef.tar")])
def test_operator_routes_need_manage_options(probe_site, method, path):
    for role, status in (("editor", 403), (None, 401)):
        headers = probe_site.people[role].headers if role else {}
        response = probe_site.client.request(REST + path, method=method, headers=headers, expect_errors=True)
        assert response.status_int == status, (role, response.body)
        assert response.json["code"] == "rest_forbidden"


def test_unknown_archives_and_jobs_are_404_and_bad_names_400(probe_site):
    admin = probe_site.people["administrator"].headers
    missing = probe_site.client.get(f"{REST}/backups/sitehost-backup-20250101T000000Z-abcdef.tar", headers=admin,
                                    expect_errors=True)
    assert_rest_error(missing, "backup_not_found", 404)
    assert_rest_error(probe_site.client.get(f"{REST}/jobs/999", headers=admin, expect_errors=True),
                      "backup_job_not_found", 404)
    for name in ("..%2F..%2Fsitehost.db", "sitehost.db", "sitehost-backup-..tar", ".."):
        response = probe_site.client.get(f"{REST}/backups/{name}", headers=admin, expect_errors=True)
        assert response.status_int in (400, 404), name
        assert response.json["code"] in ("rest_no_route", "rest_invalid_param")
        # checked after the permission: an outsider learns nothing about names
        refused = probe_site.client.delete(f"{REST}/backups/{name}", expect_errors=True)
        assert refused.status_int in (401, 404), name
    listing = probe_site.client.get(f"{REST}/backups?per_page=1000", headers=admin, expect_errors=True)
    assert_rest_error(listing, "rest_invalid_param", 400)


def _wait_for(app, headers, job_id: int, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = app.client.get(f"{REST}/jobs/{job_id}", headers=headers, status=200).json
        if job["status"] != "running":
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still running after {timeout} s")


def test_a_backup_made_over_rest_is_followed_listed_downloaded_and_deleted(make_app, tmp_path):
    app = make_app(plugins=["core", "backup"], config={"backup": {"directory": str(tmp_path / "kept"), "keep": 2}})
    admin = create_test_user(app, "administrator").headers
    app.client.post_json("/wp-json/core/v2/posts", {"title": "Open evening", "status": "publish"}, headers=admin,
                         status=201)
    started = app.client.post(f"{REST}/backups", headers=admin, status=201)  # small: done within the wait
    job = started.json
    assert started.headers["Location"].endswith(f"/backup/v1/jobs/{job['id']}")
    assert job["trigger"] == "rest" and job["status"] == "done"
    assert _wait_for(app, admin, job["id"]) == job
    assert job["status"] == "done", job
    assert job["percent"] == 100 and job["stage"] == "finished" and job["finished"] >= job["created"]
    name = job["archive"]
    assert job["_links"]["archive"][0]["href"].endswith(f"/backup/v1/backups/{name}")

    listing = app.client.get(f"{REST}/backups", headers=admin, status=200)
    assert listing.headers["X-WP-Total"] == "1"
    entry = listing.json[0]
    assert entry["name"] == name and entry["readable"] is True and entry["rows"] > 0
    assert entry["plugins"]["backup"] == {"version": "1.0.0", "enabled": True}
    assert app.client.get(f"{REST}/backups/{name}", headers=admin, status=200).json["size"] == entry["size"]

    download = app.client.get(f"{REST}/backups/{name}/download", headers=admin, status=200)
    assert download.headers["Content-Type"] == "application/x-tar"
    assert download.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert int(download.headers["Content-Length"]) == entry["size"] == len(download.body)
    stored = tmp_path / "kept" / name
    assert hashlib.sha256(download.body).hexdigest() == hashlib.sha256(stored.read_bytes()).hexdigest()
    copy = tmp_path / name
    copy.write_bytes(download.body)
    assert verify_archive(copy).checked_tables > 0
    head = app.client.head(f"{REST}/backups/{name}/download", headers=admin, status=200)
    assert head.body == b"" and head.headers["Content-Length"] == str(entry["size"])

    jobs = app.client.get(f"{REST}/jobs", headers=admin, status=200)
    assert jobs.headers["X-WP-Total"] == "1" and jobs.json[0]["id"] == job["id"]

    deleted = app.client.delete(f"{REST}/backups/{name}", headers=admin, status=200).json
    assert deleted["deleted"] is True and deleted["previous"]["name"] == name
    assert not stored.exists()
    assert app.client.get(f"{REST}/backups", headers=admin, status=200).json == []


def test_retention_keeps_the_newest_archives(make_app, tmp_path):
    app = make_app(plugins=["core", "backup"], config={"backup": {"directory": str(tmp_path), "keep": 2}})
    admin = create_test_user(app, "administrator").headers
    names = []
    for _round in range(3):
        job = app.client.post(f"{REST}/backups", headers=admin, status=201).json
        names.append(_wait_for(app, admin, job["id"])["archive"])
    kept = [entry["name"] for entry in app.client.get(f"{REST}/backups", headers=admin, status=200).json]
    assert kept == [names[2], names[1]]
    assert sorted(path.name for path in tmp_path.glob("*.tar")) == sorted(names[1:])
    assert "removed 1 older archive" in app.client.get(f"{REST}/jobs/3", headers=admin).json["message"]


def test_a_second_backup_while_one_runs_is_409_and_changes_nothing(make_app, tmp_path):
    app = make_app(plugins=["core", "backup"], config={"backup": {"directory": str(tmp_path)}})
    admin = create_test_user(app, "administrator").headers
    queued = queue_job(app, "backup.create", "rest", 0)  # another process is about to back the site up
    try:
        response = app.client.post(f"{REST}/backups", headers=admin, expect_errors=True)
        assert_rest_error(response, "backup_in_progress", 409)
        assert app.client.get(f"{REST}/jobs", headers=admin).headers["X-WP-Total"] == "1"  # only the other's
    finally:
        assert app.jobs.cancel(queued[1])
    app.client.post(f"{REST}/backups", headers=admin, status=201)


def test_backups_may_not_be_kept_under_the_public_uploads_folder(make_app, tmp_path):
    app = make_app(plugins=["core", "backup"], uploads_dir=str(tmp_path / "uploads"),
                   config={"backup": {"directory": str(tmp_path / "uploads" / "backups")}})
    record = app.plugin("backup")
    assert record.state == "failed" and "inside the uploads folder" in record.error
    assert app.client.get(f"{REST}/versions", expect_errors=True).status_int == 404


def test_a_value_out_of_range_stops_the_start_naming_the_key(make_app, tmp_path):
    from host.config import ConfigError

    with pytest.raises(ConfigError, match=r"\[plugins.backup\]: keep = -1 is not valid"):
        make_app(plugins=["core", "backup"], config={"backup": {"directory": str(tmp_path), "keep": -1}})


@pytest.mark.parametrize("config, problem", [
    ({"schedule": "weekly"}, "not `daily HH:MM` or `every N hours`"),
    ({"schedule": "daily 25:00"}, "not `daily HH:MM`"),
    ({"schedule": "every 0 hours"}, "N from 1"),
])
def test_bad_settings_name_the_setting(make_app, tmp_path, config, problem):
    app = make_app(plugins=["core", "backup"], config={"backup": {"directory": str(tmp_path), **config}})
    record = app.plugin("backup")
    assert record.state == "failed" and "[plugins.backup]" in record.error and problem in record.error
