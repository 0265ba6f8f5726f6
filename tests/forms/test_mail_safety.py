"""What visitors can and cannot put into a form's mail: header injection, and the autoreply relay."""

from __future__ import annotations

import email
import email.policy

from host.testing import mail_header_problems

from .helpers import VALID, create_form, site, submit

ATTACK_NAME = "x\nReply-To: attacker@evil.example\nList-Unsubscribe: <https://evil.example/u>"


def queued(app) -> list[bytes]:
    """The raw bytes of every queued mail, oldest first."""
    rows = sorted(app.mail.outbox(limit=1000), key=lambda row: row["id"])
    return [app.mail.message(row["id"])["content"] for row in rows]


def parsed(raw: bytes):
    return email.message_from_bytes(raw, policy=email.policy.default)


def test_field_values_cannot_split_additional_headers_into_more_headers(make_app):
    app = site(make_app)
    form = create_form(app, mail={"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                                  "subject": "Enquiry from [your-name]", "body": "[your-message]",
                                  "additional_headers": "Reply-To: [your-email]\nX-Pupil: [your-name]"})
    assert submit(app, form["id"], {**VALID, "your-name": ATTACK_NAME}).json["status"] == "mail_sent"
    [raw] = queued(app)
    assert mail_header_problems(raw) == []
    message = parsed(raw)
    assert message.get_all("Reply-To") == ["sam@school.test"]
    assert message["List-Unsubscribe"] is None
    assert message["X-Pupil"].strip() == "x Reply-To: attacker@evil.example List-Unsubscribe: <https://evil.example/u>"
    assert message["Subject"] == "Enquiry from x Reply-To: attacker@evil.example List-Unsubscribe: " \
                                 "<https://evil.example/u>"


def test_an_encoded_word_that_hides_a_line_break_is_refused_not_sent(make_app):
    app = site(make_app)
    form = create_form(app)
    name = "=?utf-8?q?x=0D=0AReply-To=3A_attacker=40evil.example?="
    assert submit(app, form["id"], {**VALID, "your-name": name}).json["status"] == "mail_failed"
    assert queued(app) == []
