"""The outbox's site-health test: is mail leaving, and has any been given up on?"""

from __future__ import annotations

import datetime

from ..registry import HealthResult, HealthTest

STUCK = datetime.timedelta(hours=1)  # retries back off, but an hour-old queued mail means nothing leaves
RECENT_FAILURES = datetime.timedelta(days=7)


def outbox_test(app, _site_url: str) -> HealthResult:
    from sqlalchemy import func, select
    from .outbox import FAILED, QUEUED, SENDING, utcnow

    service = app.mail
    table = service.tables["mail_outbox"]
    now = utcnow()
    with app.db.engine.connect() as connection:
        waiting, oldest = connection.execute(select(func.count(), func.min(table.c.created_at)).where(
            table.c.status.in_((QUEUED, SENDING)))).one()
        failed = connection.execute(select(func.count()).select_from(table).where(
            table.c.status == FAILED, table.c.created_at >= now - RECENT_FAILURES)).scalar()
        last_error = connection.execute(select(table.c.last_error).where(table.c.status == FAILED)
                                        .order_by(table.c.id.desc()).limit(1)).scalar()
    transport = service.describe_transport()
    described = f"Mail goes out through {transport}. {waiting} waiting"
    described += f", the oldest queued {_age(now - oldest)} ago" if oldest else ""
    described += f"; {failed} given up on in the last 7 days." if failed else "; none given up on in the last 7 days."
    if oldest is not None and now - oldest > STUCK:
        return HealthResult("critical", "Outgoing mail is not leaving", described + (
            f" Last failure: {last_error}." if last_error else ""),
            "Check [mail] smtp_host, smtp_port and the credentials with `sitehost mail send-test ADDRESS`; "
            "`sitehost mail outbox` lists the queue.")
    if failed:
        return HealthResult("recommended", "Some mail could not be delivered", described + (
            f" Last failure: {last_error}." if last_error else ""),
            "`sitehost mail outbox --status failed` lists them; check the addresses and the mail server's log.")
    if service.uses_files():
        return HealthResult("recommended", "Mail is written to files, not sent", described,
                            "Set [mail] smtp_host (and port, username, password) so that mail reaches people.")
    return HealthResult("good", "Outgoing mail is leaving", described)


def _age(age: datetime.timedelta) -> str:
    minutes = age.total_seconds() / 60
    return f"{minutes:.0f} minutes" if minutes < 120 else f"{minutes / 60:.0f} hours"


HEALTH_TESTS = [HealthTest("mail-outbox", "Outgoing mail", "Performance", outbox_test)]
