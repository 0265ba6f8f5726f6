"""`[plugins.backup]` in sitehost.toml: where archives go, the schedule and how many are kept.

Loaded by the host at start into a frozen object (app.plugin_settings). The backups folder may not be the
uploads folder nor lie inside it: everything under uploads is served to the public.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from marshmallow import ValidationError, fields, validate

from host import PluginSettings

from .tables import options_table

MAX_EVERY_HOURS = 24 * 7


@dataclass(frozen=True)
class Schedule:
    """`daily` at a local time, or `every` N hours; `describe()` says it back to the operator."""

    kind: str  # "daily" | "every"
    at: datetime.time | None = None
    hours: int = 0

    def describe(self) -> str:
        return f"daily at {self.at:%H:%M}" if self.kind == "daily" else f"every {self.hours} hours"

    def next_run(self, last: datetime.datetime | None, now: datetime.datetime,
                 zone: datetime.tzinfo) -> datetime.datetime:
        """When the next scheduled backup is due (aware UTC), given the last scheduled one."""
        if self.kind == "every":
            if last is None:
                return now
            return last + datetime.timedelta(hours=self.hours)
        local_now = now.astimezone(zone)
        today = datetime.datetime.combine(local_now.date(), self.at, tzinfo=zone)
        due = today if local_now >= today else today - datetime.timedelta(days=1)
        if last is not None and last >= due.astimezone(datetime.timezone.utc):
            due = due + datetime.timedelta(days=1)
        return due.astimezone(datetime.timezone.utc)


def parse_schedule(text: str) -> Schedule | None:
    """`daily 02:30`, `every 6 hours` (or `every 1 hour`), or empty; ValueError names the problem."""
    words = text.strip().lower().split()
    if not words:
        return None
    if words[0] == "daily" and len(words) == 2:
        hour, _, minute = words[1].partition(":")
        if hour.isdigit() and minute.isdigit() and len(minute) == 2 and int(hour) < 24 and int(minute) < 60:
            return Schedule("daily", at=datetime.time(int(hour), int(minute)))
    if words[0] == "every" and len(words) == 3 and words[1].isdigit() and words[2] in ("hour", "hours"):
        hours = int(words[1])
        if 1 <= hours <= MAX_EVERY_HOURS:
            return Schedule("every", hours=hours)
    raise ValueError(f"schedule {text!r} is not `daily HH:MM` or `every N hours` (N from 1 to {MAX_EVERY_HOURS})")


@dataclass(frozen=True)
class BackupSettings:
    directory: Path
    schedule: Schedule | None
    keep: int


class BackupConfigSchema(PluginSettings):
    settings_class = BackupSettings

    directory = fields.String(load_default="", validate=validate.Length(max=1000), metadata={
        "description": "Folder of backup archives; empty: `backups` beside the uploads folder. Never inside "
                       "the uploads folder (it is public)."})
    schedule = fields.String(load_default="", validate=validate.Length(max=40), metadata={
        "description": "Automatic backups inside `sitehost serve`: `daily HH:MM` (site time zone), "
                       "`every N hours`, or empty for none."})
    keep = fields.Integer(load_default=7, validate=validate.Range(min=0, max=10000), metadata={
        "description": "Archives kept in the folder; older ones are removed after each backup (0: keep all)."})

    def prepare(self, data):
        problems = {}
        try:
            schedule = parse_schedule(data["schedule"])
        except ValueError as error:
            problems["schedule"] = str(error)
        uploads = Path(self.host.uploads_dir).expanduser().resolve()
        directory = Path(data["directory"]).expanduser().resolve() if data["directory"] else uploads.parent / "backups"
        if directory == uploads or uploads in directory.parents:
            problems["directory"] = (f"{str(directory)!r} is inside the uploads folder {str(uploads)!r}, which is "
                                     "served to the public: choose a folder outside it")
        if problems:
            raise ValidationError(problems)
        return {"directory": directory, "schedule": schedule, "keep": data["keep"]}


def settings_of(app) -> BackupSettings:
    return app.plugin_settings("backup")


# --- the schedule an operator chose in the admin area ------------------------------------------

SCHEDULE_OPTION = "schedule"


def stored_schedule_text(app) -> str | None:
    """The schedule written from the admin area ("" for none), or None when it never was."""
    from sqlalchemy import select

    table = options_table(app)
    with app.db.session() as session:
        return session.execute(select(table.c.value).where(table.c.name == SCHEDULE_OPTION)).scalar()


def current_schedule(app) -> Schedule | None:
    """The schedule in force: the one stored from the admin area, else `[plugins.backup] schedule`.

    A stored text that no longer parses (written by a later version) counts as none, loudly in the log.
    """
    stored = stored_schedule_text(app)
    if stored is None:
        return settings_of(app).schedule
    try:
        return parse_schedule(stored)
    except ValueError:
        import logging

        logging.getLogger("sitehost.backup").warning("stored backup schedule %r is not valid: none", stored)
        return None


def store_schedule(app, text: str) -> Schedule | None:
    """Validate and keep `text` as the schedule (empty: none); ValueError names what is wrong."""
    from sqlalchemy import delete, insert

    schedule = parse_schedule(text)
    canonical = "" if schedule is None else (f"daily {schedule.at:%H:%M}" if schedule.kind == "daily"
                                             else f"every {schedule.hours} hours")
    table = options_table(app)
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table).where(table.c.name == SCHEDULE_OPTION))
        session.execute(insert(table).values(name=SCHEDULE_OPTION, value=canonical))
    return schedule
