"""The backup plugin's site-health test: how old is the newest archive, and is a schedule set?"""

from __future__ import annotations

import datetime

from host import HealthResult, HealthTest

from .settings import current_schedule


FRESH = datetime.timedelta(hours=36)  # a daily backup plus slack for a slow night
STALE = datetime.timedelta(days=7)


def _age_text(age: datetime.timedelta) -> str:
    hours = age.total_seconds() / 3600
    return f"{hours:.0f} hours" if hours < 48 else f"{hours / 24:.0f} days"


def last_backup_test(app, _site_url: str) -> HealthResult:
    from .shelf import stored_archives, where_kept

    chosen = current_schedule(app)
    schedule = chosen.describe() if chosen else "no schedule"
    archives = stored_archives(app)
    fix = ("Run `sitehost backup create`, and set [plugins.backup] schedule (for example \"daily 02:30\") so "
           "that backups happen without anyone remembering.")
    if not archives:  # a new site: worth saying, not a failure that should fail a container health check
        return HealthResult("recommended", "This site has no backup",
                            f"No archive is in {where_kept(app)} ({schedule}).", fix)
    newest = archives[-1]
    age = datetime.datetime.now(datetime.timezone.utc) - newest.modified
    described = f"The newest archive, {newest.key}, is {_age_text(age)} old ({len(archives)} kept; {schedule})."
    if age > STALE:
        return HealthResult("critical" if chosen else "recommended", "The last backup is over a week old",
                            described,
                            "Check `sitehost backup list` and the server log for failed scheduled backups. " + fix)
    if age > FRESH:
        return HealthResult("recommended", "The last backup is more than a day old", described, fix)
    return HealthResult("good", "A recent backup exists", described)


HEALTH_TESTS = [HealthTest("last-backup", "Last backup", "Security", last_backup_test)]
