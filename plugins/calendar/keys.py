"""The calendar's token signers (app.signer), on two of the host's site secrets.

"calendar.views" signs the tvn1/tvn2 view tokens of cal/views/v2 (view_tokens), "calendar.wizard"
the setup wizard's action_nonce (onboarding). Sites made before the host kept secrets had the
first in `cal_keys` (row "views") and the second in `cal_options` (row "signing_key", JSON): the
host store adopts those values on its first read, so tokens handed out before (view tokens last a
day, nonces 12 hours) keep working.
"""

from __future__ import annotations

import json

from sqlalchemy import select

from host.signing import Signer

from .tables import tables

VIEWS = "calendar.views"
WIZARD = "calendar.wizard"


def views_signer(app) -> Signer:
    return app.signer(VIEWS, adopt=lambda session: _kept_in_keys(app, session, "views"))


def wizard_signer(app) -> Signer:
    return app.signer(WIZARD, adopt=lambda session: _kept_in_options(app, session, "signing_key"))


def load(app) -> None:
    """Made (or adopted) at start-up, so no request writes them (a refused one must change nothing)."""
    views_signer(app)
    wizard_signer(app)


def _kept_in_keys(app, session, name: str) -> str | None:
    keys = tables(app)["keys"]
    return session.execute(select(keys.c.value).where(keys.c.name == name)).scalar_one_or_none()


def _kept_in_options(app, session, name: str) -> str | None:
    options = tables(app)["options"]
    text = session.execute(select(options.c.value).where(options.c.name == name)).scalar_one_or_none()
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return value if isinstance(value, str) and value else None
