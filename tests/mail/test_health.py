"""The outbox's site-health test against a real SMTP server: leaving, failed, stuck, and files only."""

from __future__ import annotations

import datetime

from sqlalchemy import update

from host.mail import Message
from host.testing import role_users

TEST = "/wp-json/site-health/v1/tests/mail-outbox"


def test_outbox_health_follows_what_happens_to_mail(make_app, smtp_server):
    app = make_app(plugins=["core", "site_health"], mail=smtp_server.mail_settings(max_attempts=1))
    admin = role_users(app)["administrator"].headers
    app.mail.send(Message(to=["office@riverside-school.org.uk"], subject="Absence", text="Sam is ill."))
    assert app.mail.deliver_pending() == 1 and smtp_server.wait_for(1)
    body = app.client.get(TEST, headers=admin).json
    assert (body["status"], body["label"]) == ("good", "Outgoing mail is leaving")
    assert f"SMTP 127.0.0.1:{smtp_server.port}" in body["description"] and "0 waiting" in body["description"]

    outbox = app.mail.tables["mail_outbox"]
    failed = app.mail.send(Message(to=["office@riverside-school.org.uk"], subject="Trip", text="Coats."))
    with app.db.engine.begin() as connection:
        connection.execute(update(outbox).where(outbox.c.id == failed).values(status="failed",
                                                                               last_error="550 mailbox unknown"))
    body = app.client.get(TEST, headers=admin).json
    assert (body["status"], body["label"]) == ("recommended", "Some mail could not be delivered")
    assert "1 given up on" in body["description"] and "550 mailbox unknown" in body["description"]

    stuck = app.mail.send(Message(to=["office@riverside-school.org.uk"], subject="Stuck", text="Waiting."))
    two_hours_ago = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - datetime.timedelta(hours=2)
    with app.db.engine.begin() as connection:
        connection.execute(update(outbox).where(outbox.c.id == stuck).values(created_at=two_hours_ago))
    body = app.client.get(TEST, headers=admin).json
    assert (body["status"], body["label"]) == ("critical", "Outgoing mail is not leaving")
    assert "1 waiting, the oldest queued 2 hours ago" in body["description"]
    assert "sitehost mail send-test" in body["actions"]


def test_mail_written_to_files_is_a_recommendation(make_app):
    app = make_app(plugins=["core", "site_health"])
    body = app.client.get(TEST, headers=role_users(app)["administrator"].headers).json
    assert (body["status"], body["label"]) == ("recommended", "Mail is written to files, not sent")
    assert ".eml files in" in body["description"] and "smtp_host" in body["actions"]
