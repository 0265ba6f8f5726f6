"""Site-local and UTC dates as the reference describes them (RFC 3339 in, no offset out)."""

from __future__ import annotations

import datetime
import re

_INPUT = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?$")


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def local_to_utc(value: datetime.datetime, tz) -> datetime.datetime:
    return value.replace(tzinfo=tz).astimezone(datetime.timezone.utc).replace(tzinfo=None)


def utc_to_local(value: datetime.datetime, tz) -> datetime.datetime:
    return value.replace(tzinfo=datetime.timezone.utc).astimezone(tz).replace(tzinfo=None)


def parse(value: str) -> tuple[datetime.datetime, bool]:
    """(naive datetime, has_offset); an offset is applied, giving UTC. ValueError when malformed."""
    match = _INPUT.match(value.strip())
    if not match:
        raise ValueError("Invalid date.")
    parts = [int(match.group(index)) for index in range(1, 7)]
    parsed = datetime.datetime(*parts)
    zone = match.group("zone")
    if not zone:
        return parsed, False
    if zone in ("Z", "z"):
        return parsed, True
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return parsed - sign * offset, True


def parse_local(value: str, tz) -> datetime.datetime:
    """A date parameter as site-local time: without an offset it already is; with one it is converted."""
    parsed, has_offset = parse(value)
    return utc_to_local(parsed, tz) if has_offset else parsed


def parse_utc(value: str) -> datetime.datetime:
    """A `*_gmt` parameter as UTC: an offset, if any, is honoured."""
    return parse(value)[0]


def fmt(value: datetime.datetime | None) -> str | None:
    """Seconds precision, no offset (stored values are naive); isoformat is several times cheaper than strftime."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.replace(microsecond=0).isoformat() if value.microsecond else value.isoformat()
