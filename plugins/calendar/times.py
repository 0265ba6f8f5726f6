"""Event times: IANA zones (zoneinfo), UTC storage, the answer formats and the list's date arguments.

Stored times are naive UTC datetimes. An event's local times are computed from its zone at
that instant, so 09:00 Europe/London is 08:00 UTC in summer and 09:00 UTC in winter. Date
arguments of the list are read in the site's zone (the reference's §1.2 and §14); dateutil
parses the many ways people write a date, plus a few words (now, today, tomorrow, yesterday).
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import parser as date_parser
from dateutil.relativedelta import relativedelta

UTC = datetime.timezone.utc
FORMAT = "%Y-%m-%d %H:%M:%S"
MAX_DATE_TEXT = 64  # longer "dates" are refused before any parsing
RELATIVE_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1}


def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`; ValueError when it is not one (offsets such as UTC+2 are refused too)."""
    if not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        raise ValueError(f"{name!r} is not an IANA time zone")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"{name!r} is not an IANA time zone") from None


def is_zone(name: str) -> bool:
    try:
        zone(name)
    except ValueError:
        return False
    return True


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def to_utc(local: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """A naive local wall time in `tz` as naive UTC (a time skipped by a clock change moves forward)."""
    aware = local.replace(tzinfo=tz)
    return aware.astimezone(UTC).replace(tzinfo=None)


def to_local(utc: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    return utc.replace(tzinfo=UTC).astimezone(tz)


def parse_text(text: str, tz: datetime.tzinfo, now: datetime.datetime | None = None) -> datetime.datetime:
    """A date as people send it, read as wall time in `tz` unless it carries an offset; answers naive
    local time in `tz`. ValueError when it cannot be read."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_DATE_TEXT:
        raise ValueError("Invalid date.")
    word = text.strip().lower()
    current = (now or datetime.datetime.now(UTC)).astimezone(tz).replace(tzinfo=None, microsecond=0)
    if word == "now":
        return current
    if word in RELATIVE_DAYS:
        return datetime.datetime.combine(current.date() + datetime.timedelta(days=RELATIVE_DAYS[word]),
                                         datetime.time())
    try:
        parsed = date_parser.parse(text, default=datetime.datetime.combine(current.date(), datetime.time()))
    except (ValueError, OverflowError, TypeError):
        raise ValueError("Invalid date.") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(tz).replace(tzinfo=None)
    if not 1 <= parsed.year <= 9998:
        raise ValueError("Invalid date.")
    return parsed.replace(microsecond=0)


def start_of_day(local: datetime.datetime) -> datetime.datetime:
    return datetime.datetime.combine(local.date(), datetime.time())


def end_of_day(local: datetime.datetime) -> datetime.datetime:
    return datetime.datetime.combine(local.date(), datetime.time(23, 59, 59))


def months_ahead(local: datetime.datetime, months: int) -> datetime.datetime:
    return local + relativedelta(months=months)


def text(value: datetime.datetime) -> str:
    return value.strftime(FORMAT)


def details(value: datetime.datetime) -> dict[str, str]:
    """{year, month, day, hour, minutes, seconds} as zero-padded strings."""
    return {"year": f"{value.year:04d}", "month": f"{value.month:02d}", "day": f"{value.day:02d}",
            "hour": f"{value.hour:02d}", "minutes": f"{value.minute:02d}", "seconds": f"{value.second:02d}"}


def iso_with_offset(utc: datetime.datetime, tz: datetime.tzinfo) -> str:
    return to_local(utc, tz).isoformat()
