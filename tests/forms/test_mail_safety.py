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


# --- autoreplies: mail to an address the visitor typed ---------------------------------------

VICTIM = "victim@example.org"


def mails_to(app, address: str) -> list:
    return [parsed(raw) for raw in queued(app) if parsed(raw)["To"] == address]


def demo_site(make_app, **config):
    app = make_app(plugins=["core", "forms"], config={"forms": config} if config else None)
    app.install_site(demo=True)
    forms = app.client.get("/wp-json/forms/v1/contact-forms",
                           headers=site_users(app)["administrator"].headers).json
    return app, next(item["id"] for item in forms if item["title"] == "Report an absence")


def site_users(app):
    from .helpers import LazyUsers

    if not hasattr(app, "people"):
        app.people = LazyUsers(app)
    return app.people


def report_absence(app, form_id, pupil: str, parent: str = VICTIM):
    fields = {"pupil-name": pupil, "year-group": "Year 8", "absence-date": "2026-11-25", "days": "2",
              "reason": "Illness", "details": f"{pupil} says hello", "parent-email": parent}
    return submit(app, form_id, fields, unit_tag=f"forms-f{form_id}-p0-o1").json["status"]


def test_the_demo_absence_form_relays_no_visitor_text_and_at_most_three_mails_a_day(make_app):
    app, absence = demo_site(make_app)
    spam = ["Cheap watches at https://spam.example/{}".format(number) for number in range(5)]
    assert [report_absence(app, absence, text) for text in spam] == ["mail_sent"] * 5  # nothing to probe
    assert len(mails_to(app, "attendance@school.test")) == 5  # the school gets every report
    replies = mails_to(app, VICTIM)
    assert len(replies) == 3
    for reply in replies:
        assert reply["Subject"] == "We received your absence report"
        assert "spam.example" not in reply.get_body(("plain",)).get_content()
        assert mail_header_problems(reply.as_bytes()) == []
    # counted per address, whatever its case or +tag, and kept only as a digest
    assert report_absence(app, absence, "Sam", "Victim+again@Example.org") == "mail_sent"
    assert mails_to(app, "Victim+again@Example.org") == []
    table = app.host_tables["rate_events"]
    with app.db.session() as session:
        stored = [row.subject for row in session.execute(table.select().where(table.c.scope == "forms.autoreplies"))]
    assert len(stored) == 3 and len(set(stored)) == 1  # one event per autoreply sent, all one recipient
    assert "victim" not in stored[0] and len(stored[0]) == 64


def test_the_daily_limit_is_a_setting_shared_by_every_process_through_the_database(make_app):
    app, absence = demo_site(make_app, autoreplies_per_recipient_per_day=1)
    other = make_app(plugins=["core", "forms"], database_url=app.settings.database_url,
                     config={"forms": {"autoreplies_per_recipient_per_day": 1}})
    assert report_absence(app, absence, "Sam") == "mail_sent"
    assert report_absence(other, absence, "Sam") == "mail_sent"
    assert len(mails_to(app, VICTIM)) == 1
    assert len(mails_to(app, "attendance@school.test")) == 2
    none, absence_none = demo_site(make_app, autoreplies_per_recipient_per_day=0)
    assert report_absence(none, absence_none, "Sam") == "mail_sent"
    assert mails_to(none, VICTIM) == [] and len(mails_to(none, "attendance@school.test")) == 1


def test_an_autoreply_is_sent_only_after_the_spam_check_passes(make_app):
    app = site(make_app)
    copy = {"active": True, "recipient": "[your-email]", "sender": "Riverside <noreply@school.test>",
            "subject": "Your message to Riverside", "body": "We received: [your-message]"}
    checked = create_form(app, mail_2=copy)
    unchecked = create_form(app, mail_2=copy, additional_settings="skip_spam_check: on")
    assert submit(app, checked["id"], VALID).json["status"] == "mail_sent"
    assert submit(app, unchecked["id"], VALID).json["status"] == "mail_sent"
    assert len(mails_to(app, "office@school.test")) == 2  # the site's own mail goes either way
    assert len(mails_to(app, VALID["your-email"])) == 1  # the autoreply only from the checked form


def test_an_autoreply_carries_no_visitor_text_in_its_headers_and_site_addresses_are_not_limited(make_app):
    app = site(make_app)
    form = create_form(app, form='[text* your-name] [email* your-email] [textarea your-message] '
                                 '[select* desk "Office|office@school.test" "Head|head@school.test"] [submit]',
                       mail={"recipient": "[desk]", "sender": "Riverside <noreply@school.test>",
                             "subject": "Enquiry from [your-name]", "body": "[your-message]",
                             "additional_headers": "Reply-To: [your-email]"},
                       mail_2={"active": True, "recipient": "[your-email]",
                               "sender": "[your-name] via Riverside <noreply@school.test>",
                               "subject": "Copy: [your-name] ([_site_title])", "body": "We received: [your-message]",
                               "additional_headers": "X-Visitor: [your-name]\nX-Form: [_form_title]"})
    fields = {**VALID, "your-name": "Buy now at spam.example", "desk": "Office"}
    assert [submit(app, form["id"], fields).json["status"] for _ in range(5)] == ["mail_sent"] * 5
    assert len(mails_to(app, "office@school.test")) == 5  # a choice held to its list is the site's address
    assert mails_to(app, "office@school.test")[0]["Subject"] == "Enquiry from Buy now at spam.example"
    replies = mails_to(app, VALID["your-email"])
    assert len(replies) == 3
    reply = replies[0]
    assert reply["Subject"] == "Copy:  (Riverside School)"  # the visitor's name left out
    assert reply["From"] == "via Riverside <noreply@school.test>"
    assert reply["X-Visitor"] is None and reply["X-Form"] == "Enquiry"
    assert "Is there a bus on Friday?" in reply.get_body(("plain",)).get_content()  # the body may quote them


def test_the_editor_is_told_which_tags_an_autoreply_leaves_out(make_app):
    app = site(make_app)
    body = create_form(app, mail_2={"active": True, "recipient": "[your-email]", "sender": "Riverside <noreply@school.test>",
                                    "subject": "Copy: [your-name]", "body": "We received: [your-message]",
                                    "additional_headers": "X-Visitor: [your-name]"})
    errors = body["config_errors"]
    assert set(errors) == {"mail_2.subject", "mail_2.additional_headers"}
    assert "[your-name] will be left empty" in errors["mail_2.subject"][0]["message"]
    assert create_form(app)["config_errors"] == []  # mail 1 to the office may name anything
