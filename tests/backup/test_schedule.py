"""The schedule: when a backup is due, and that two server processes on one site run it once."""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest

from plugins.backup.jobs import run_due_backup
from plugins.backup.settings import parse_schedule

from .helpers import engine_under_test, new_database, open_site, site_settings

UTC = datetime.timezone.utc


def at(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_daily_schedule_is_due_once_a_day_at_the_local_time():
    schedule = parse_schedule("daily 02:30")
    zone = ZoneInfo("Europe/London")  # BST in June: 02:30 local is 01:30 UTC
    assert schedule.describe() == "daily at 02:30"
    assert schedule.next_run(None, at("2025-06-10T01:00:00"), zone) == at("2025-06-09T01:30:00")
    assert schedule.next_run(at("2025-06-09T01:30:05"), at("2025-06-10T01:00:00"), zone) == at("2025-06-10T01:30:00")
    assert schedule.next_run(at("2025-06-10T01:30:05"), at("2025-06-10T09:00:00"), zone) == at("2025-06-11T01:30:00")


def test_every_n_hours_counts_from_the_last_run():
    schedule = parse_schedule("every 6 hours")
    assert schedule.describe() == "every 6 hours"
    assert schedule.next_run(None, at("2025-06-10T01:00:00"), UTC) == at("2025-06-10T01:00:00")
    assert schedule.next_run(at("2025-06-10T01:00:00"), at("2025-06-10T02:00:00"), UTC) == at("2025-06-10T07:00:00")
    assert parse_schedule("every 1 hour").hours == 1
    assert parse_schedule("  ") is None


@pytest.mark.parametrize("text", ["weekly", "daily", "daily 7", "daily 07:60", "every 0 hours", "every 200 hours",
                                  "every six hours", "daily 07:00 extra"])
def test_schedules_that_mean_nothing_are_refused(text):
    with pytest.raises(ValueError, match="daily HH:MM"):
        parse_schedule(text)


def test_two_workers_run_a_due_backup_once_and_keep_n(tmp_path):
    """Two apps on one database stand for two worker processes; the lease and the due check decide."""
    backups = tmp_path / "backups"
    with new_database(tmp_path, engine_under_test()) as url:
        settings = site_settings(url, tmp_path / "uploads", backups)
        settings.plugins["backup"].update(schedule="every 6 hours", keep=2)
        first, second = open_site(settings), open_site(settings)
        try:
            first.install_site(demo=True)
            now = datetime.datetime.now(UTC)
            ran = run_due_backup(first, now)
            assert ran is not None
            assert run_due_backup(second, now) is None  # done already: not due again for 6 hours
            assert run_due_backup(first, now + datetime.timedelta(hours=5)) is None
            later = run_due_backup(second, now + datetime.timedelta(hours=6, seconds=1))
            third = run_due_backup(first, now + datetime.timedelta(hours=12, seconds=2))
            assert later is not None and third is not None
            assert len(list(backups.glob("*.tar"))) == 2  # keep = 2
            jobs = first.client.get("/wp-json/backup/v1/jobs", headers=_admin(first)).json
            assert [job["trigger"] for job in jobs] == ["schedule"] * 3
            assert all(job["status"] == "done" for job in jobs)
        finally:
            first.close()
            second.close()


def _admin(app):
    from host.testing import create_test_user

    return create_test_user(app, "administrator").headers
