"""The Backups page of the admin area (WebTest): the archives, a backup now, download, verify (good and
damaged), the jobs' state, the schedule (validated, kept in the database, used by the scheduler and the
health test) and the restore command; only the backup capability reaches it."""

from __future__ import annotations

import datetime
import hashlib

import pytest

from host.testing import create_test_user
from plugins.backup.jobs import queue_job, run_due_backup
from tests.admin.helpers import form_with, sign_in


@pytest.fixture
def site(make_app, tmp_path):
    app = make_app(plugins=["core", "backup", "site_health"], config={"backup": {"directory": str(tmp_path / "backups")}},
                   extra={"auth": {"slow_seconds": 0}})
    return app, create_test_user(app, "administrator"), tmp_path / "backups"


def archive_rows(page):
    return page.html.select("section[aria-labelledby=archives-heading] tbody tr")


def make_backup(client):
    page = client.get("/admin/backups")
    return form_with(page, "create").submit()


def test_back_up_now_lists_the_archive_and_its_job(site):
    app, admin, folder = site
    client = sign_in(app, admin)
    empty = client.get("/admin/backups")
    assert "No backup yet" in empty.text and "No schedule" in empty.text
    answer = make_backup(client)
    assert answer.status_int == 200 and "Backup done (job 1)" in answer.text
    rows = archive_rows(answer)
    assert len(rows) == 1
    name = rows[0].select_one("[data-label=Name] code").text
    assert (folder / name).is_file() and name.startswith("sitehost-backup-")
    assert rows[0].select_one("[data-label=Kind]").text == "made in the admin area"
    assert rows[0].select_one("[data-label=Size]").text.endswith("KB")
    job = answer.html.select_one("section[aria-labelledby=jobs-heading] tbody tr")
    assert job.select_one("[data-label=State]").text.strip() == "done"
    assert "tables" in job.select_one("[data-label=Result]").text


def test_a_second_backup_while_one_runs_is_refused(site):
    app, admin, folder = site
    client = sign_in(app, admin)
    page = client.get("/admin/backups")
    queued = queue_job(app, "backup.create", "admin", 0)  # another process's backup, not started yet
    try:
        refused = form_with(page, "create").submit(status=409)
        assert "already running" in refused.text and not list(folder.glob("*.tar"))
    finally:
        assert app.jobs.cancel(queued[1])


def test_download_streams_the_archive_to_administrators_only(site):
    app, admin, folder = site
    client = sign_in(app, admin)
    page = make_backup(client)
    link = archive_rows(page)[0].select_one("a[download]")["href"]
    name = link.rsplit("/", 1)[1]
    answer = client.get(link)
    assert answer.status_int == 200 and answer.headers["Content-Type"] == "application/x-tar"
    assert answer.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert answer.headers["Cache-Control"] == "no-store"
    assert hashlib.sha256(answer.body).hexdigest() == hashlib.sha256((folder / name).read_bytes()).hexdigest()
    client.get("/admin/backups/download/sitehost-backup-20250101T000000Z-abcdef.tar", status=404)
    client.get("/admin/backups/download/..%2Fsite.db", status=404)
    client.get("/admin/backups/download/sitehost.db", status=404)
    editor = sign_in(app, create_test_user(app, "editor"))
    editor.get(link, status=403)
    assert sign_in(app, create_test_user(app, "subscriber")).get("/admin/backups", status=403)


def test_verify_shows_the_result_for_a_good_and_a_damaged_archive(site):
    app, admin, folder = site
    client = sign_in(app, admin)
    page = make_backup(client)
    name = archive_rows(page)[0].select_one("[data-label=Name] code").text
    good = form_with(page, "verify", _match={"name": name}).submit()
    assert good.status_int == 200
    assert f"Verification of {name} done" in good.text and "match their checksums" in good.text
    data = bytearray((folder / name).read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the middle of the archive
    (folder / name).write_bytes(bytes(data))
    damaged = form_with(good, "verify", _match={"name": name}).submit()
    assert f"Verification of {name} failed" in damaged.html.select_one(".notice.error").text
    form = form_with(damaged, "verify", _match={"name": name})
    form["name"].force_value("../site.db")
    assert form.submit(status=400).html.select_one(".notice.error")
    form["name"].force_value("sitehost-backup-20250101T000000Z-abcdef.tar")
    form.submit(status=404)


def test_the_schedule_is_validated_kept_and_used(site):
    app, admin, _folder = site
    client = sign_in(app, admin)
    page = client.get("/admin/backups")
    for wrong, message in (("weekly", "not `daily HH:MM`"), ("daily 25:00", "not `daily HH:MM`"),
                           ("every 0 hours", "N from 1"), ("x" * 41, "at most 40")):
        refused = form_with(page, "schedule", schedule=wrong).submit(status=400)
        assert message in refused.html.select_one("#field-schedule-error").text
        assert refused.html.select_one("#field-schedule")["value"] == wrong[:40] or len(wrong) > 40
        assert "No schedule" in refused.text  # nothing changed
    saved = form_with(page, "schedule", schedule="  every 6   hours ").submit()
    assert "Backups now run every 6 hours" in saved.text
    assert saved.html.select_one("#field-schedule")["value"] == "every 6 hours"
    assert "Chosen on this page" in saved.text and "one is due now" in saved.text  # none ran yet
    # the scheduler follows it at once (a backup is due: none ran yet), and the health test sees it
    now = datetime.datetime.now(datetime.timezone.utc)
    assert run_due_backup(app, now) is not None and run_due_backup(app, now) is None
    assert "the next is due" in client.get("/admin/backups").text
    health = app.client.get("/wp-json/site-health/v1/tests/last-backup", headers=admin.headers, status=200)
    assert "every 6 hours" in health.json["description"]
    cleared = form_with(saved, "schedule", schedule="").submit()
    assert "only when asked for" in cleared.text
    assert run_due_backup(app, now + datetime.timedelta(days=1)) is None


def test_the_page_says_how_to_restore(site):
    app, admin, folder = site
    page = sign_in(app, admin).get("/admin/backups")
    command = page.html.select("section[aria-labelledby=restore-heading] code")[0].text
    assert command.endswith(f"backup restore {folder.resolve()}/ARCHIVE --force") and command.startswith("sitehost ")
    assert "?paged=2" not in page.text
    sign_in(app, admin).get("/admin/backups?paged=2", status=400)
    sign_in(app, admin).get("/admin/backups/nothing", status=404)
