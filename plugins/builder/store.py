"""Small reads and writes of the builder's option and per-user tables (JSON values)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, insert, select

from .tables import OPTIONS, USER_DATA, table


def get_option(request, key: str, default: Any = None) -> Any:
    options = table(request.app, OPTIONS)
    found = request.session.execute(select(options.c.value).where(options.c.key == key)).scalar()
    return json.loads(found) if found is not None else default


def set_option(request, key: str, value: Any) -> None:
    options = table(request.app, OPTIONS)
    request.session.execute(delete(options).where(options.c.key == key))
    if value is not None:
        request.session.execute(insert(options).values(key=key, value=json.dumps(value)))


def get_user_value(request, key: str, default: Any = None) -> Any:
    data = table(request.app, USER_DATA)
    found = request.session.execute(select(data.c.value).where(data.c.user_id == request.user.id,
                                                               data.c.key == key)).scalar()
    return json.loads(found) if found is not None else default


def set_user_value(request, key: str, value: Any) -> None:
    data = table(request.app, USER_DATA)
    request.session.execute(delete(data).where(data.c.user_id == request.user.id, data.c.key == key))
    request.session.execute(insert(data).values(user_id=request.user.id, key=key, value=json.dumps(value)))
