"""The options the spam/v1 routes edit (service key, the two settings, the alert), in `spam_options`.

Kept in the database, not in one worker's memory, so every worker answers the same.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from .tables import OPTIONS, table

DEFAULTS = {"key": "", "spam_strictness": "1", "spam_show_user_comments_approved": "1", "alert_code": "",
            "alert_msg": ""}


def read_all(app, session) -> dict[str, str]:
    options = table(app, OPTIONS)
    stored = dict(session.execute(select(options.c.name, options.c.value)).all())
    return {name: stored.get(name, default) for name, default in DEFAULTS.items()}


def read(app, session, name: str) -> str:
    options = table(app, OPTIONS)
    value = session.execute(select(options.c.value).where(options.c.name == name)).scalar()
    return DEFAULTS[name] if value is None else value


def write(app, session, name: str, value: str) -> None:
    options = table(app, OPTIONS)
    session.execute(delete(options).where(options.c.name == name))
    session.execute(options.insert().values(name=name, value=value))


def flag(value: str) -> bool:
    return value == "1"
