"""The options the spam/v1 routes edit (service key, the two settings, the alert), in `spam_options`.

Kept in the database, not in one worker's memory, so every worker answers the same.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from host import Kept

from .tables import OPTIONS, table

CACHE_SECONDS = 1.0  # how long another worker's change may take to be seen by the filter

DEFAULTS = {"key": "", "spam_strictness": "1", "spam_show_user_comments_approved": "1", "alert_code": "",
            "alert_msg": ""}


def read_all(app, session) -> dict[str, str]:
    options = table(app, OPTIONS)
    stored = dict(session.execute(select(options.c.name, options.c.value)).all())
    return {name: stored.get(name, default) for name, default in DEFAULTS.items()}


def cached(app, session) -> dict[str, str]:
    """The options for judging: read at most once a second per worker (routes read them fresh)."""
    return _kept(app).get_or_build("options", (), lambda: read_all(app, session))


def _kept(app) -> Kept[dict[str, str]]:
    """The options table has no version: a time bound, and this worker forgets them when it writes."""
    return app.kept("spam.options", 1, CACHE_SECONDS)


def read(app, session, name: str) -> str:
    options = table(app, OPTIONS)
    value = session.execute(select(options.c.value).where(options.c.name == name)).scalar()
    return DEFAULTS[name] if value is None else value


def write(app, session, name: str, value: str) -> None:
    options = table(app, OPTIONS)
    session.execute(delete(options).where(options.c.name == name))
    session.execute(options.insert().values(name=name, value=value))
    _kept(app).clear()  # this worker judges with the new value at once


def flag(value: str) -> bool:
    return value == "1"
