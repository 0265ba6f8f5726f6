"""The spam filter judges contact-form entries and newsletter sign-ups too, wherever those plugins run."""

from __future__ import annotations

import time

from host.testing import create_test_user, client_as

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"}
SPAMMY = "Cheap casino bonus, click now"


def test_a_contact_form_entry_with_a_disallowed_word_is_spam(make_app):
    app = make_app(plugins=["core", "forms", "spam"], site={"disallowed_keys": ["casino"]})
    editor = create_test_user(app, "editor")
    form = app.client.post_json("/wp-json/forms/v1/contact-forms", {
        "title": "Enquiry", "form": "[text* your-name] [email* your-email] [textarea your-message] [submit]",
        "mail": {"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                 "subject": "Enquiry", "body": "[your-message]"}}, headers=editor.headers, status=200).json

    def send(message, address, email):
        fields = [("_forms", str(form["id"])), ("_forms_version", "1.0.0"), ("_forms_locale", "en_US"),
                  ("_forms_unit_tag", f"forms-f{form['id']}-p0-o1"), ("_forms_container_post", "0"),
                  ("your-name", "Sam Parent"), ("your-email", email), ("your-message", message)]
        return app.client.post(f"/wp-json/forms/v1/contact-forms/{form['id']}/feedback", fields, headers=BROWSER,
                               content_type="multipart/form-data", extra_environ={"REMOTE_ADDR": address}).json

    assert send(SPAMMY, "203.0.113.9", "promo@cheap-deals.example.com")["status"] == "spam"  # (a sender's spam counts against its address later)
    assert send("Is there a bus to the match on Friday?", "198.51.100.20", "sam@riverside-school.org.uk")["status"] == "mail_sent"
    stats = app.client.get("/wp-json/spam/v1/stats", headers=create_test_user(app, "administrator").headers).json
    assert stats["all"]["spam"] >= 1 and stats["all"]["ham"] >= 1  # both verdicts are in the history


def test_a_newsletter_sign_up_with_a_disallowed_word_is_refused_as_spam(make_app):
    app = make_app(plugins=["core", "newsletter", "spam"], site={"disallowed_keys": ["casino"]})
    admin = client_as(app, create_test_user(app, "administrator"))
    listed = admin.post_json("/wp-json/newsletter/v1/lists", {"name": "Whole school"}, status=201).json["id"]
    form = admin.post_json("/wp-json/newsletter/v1/forms", {"title": "Family", "lists": [listed],
                                                              "fields": [{"tag": "EMAIL"}, {"tag": "FNAME"}]},
                           status=201).json["id"]

    def sign_up(first_name, email, status, address):
        return app.client.post("/wp-json/newsletter/v1/form", {
            "_newsletter_form_id": form, "_newsletter_honeypot": "", "_newsletter_timestamp": str(int(time.time()) - 10),
            "EMAIL": email, "FNAME": first_name}, status=status, extra_environ={"REMOTE_ADDR": address})

    assert sign_up("casino king", "promo@cheap-deals.example.com", 400, "203.0.113.9").json["code"] == "spam"
    assert sign_up("Priya", "priya@riverside-school.org.uk", 200, "198.51.100.20").json is True
    emails = [row["email"] for row in admin.get("/wp-json/newsletter/v1/subscribers").json]
    assert emails == ["priya@riverside-school.org.uk"]


def test_a_clean_entry_from_the_address_of_a_spam_one_is_still_sent(make_app):
    """Parents share a school's or a home's address: one spam from it must not make the next sender's
    clean message spam (reputation may count against an address, never on its own)."""
    app = make_app(plugins=["core", "forms", "spam"])
    editor = create_test_user(app, "editor")
    form = app.client.post_json("/wp-json/forms/v1/contact-forms", {
        "title": "Enquiry", "form": "[text* your-name] [email* your-email] [textarea your-message] [submit]",
        "mail": {"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                 "subject": "Enquiry", "body": "[your-message]"}}, headers=editor.headers, status=200).json

    def send(message, name, email):
        fields = [("_forms", str(form["id"])), ("_forms_version", "1.0.0"), ("_forms_locale", "en_US"),
                  ("_forms_unit_tag", f"forms-f{form['id']}-p0-o1"), ("_forms_container_post", "0"),
                  ("your-name", name), ("your-email", email), ("your-message", message)]
        return app.client.post(f"/wp-json/forms/v1/contact-forms/{form['id']}/feedback", fields, headers=BROWSER,
                               content_type="multipart/form-data", extra_environ={"REMOTE_ADDR": "203.0.113.40"}).json

    repeated = "Please send me the dates of the summer term again"
    verdicts = [send(repeated, "Sam Parent", "sam@riverside-school.org.uk")["status"] for _ in range(3)]
    assert verdicts == ["mail_sent", "mail_sent", "spam"]  # the third identical message is spam (correct)
    for number in range(3):
        reply = send(f"Is there a bus to the match on Friday? Question {number} from another family", f"Parent {number}",
                     f"parent{number}@example.org")
        assert reply["status"] == "mail_sent", reply
