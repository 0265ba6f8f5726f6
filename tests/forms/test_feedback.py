"""POST forms/v1/contact-forms/{id}/feedback: preconditions in order, every status, files, limits, storage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from host.testing import TEST_SITE_ADDRESS, assert_rest_error, make_plugin, stored_files

from .helpers import BASE, BROWSER, VALID, create_form, site, submit

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


def rows(app, table="forms_submissions"):
    found = app.db.metadata.tables[table]
    with app.db.session() as session:
        return [dict(row) for row in session.execute(select(found).order_by(found.c.id)).mappings()]


# --- preconditions -------------------------------------------------------------------------

def test_preconditions_are_checked_in_the_reference_order(make_app):
    app = site(make_app)
    form = create_form(app)
    # 415 first, even for a form that does not exist
    response = app.client.post(f"{BASE}/999999/feedback", {"_forms_unit_tag": "x"}, expect_errors=True)
    assert_rest_error(response, "forms_unsupported_media_type", 415)
    response = app.client.post_json(f"{BASE}/{form['id']}/feedback", {"_forms_unit_tag": "x"}, expect_errors=True)
    assert_rest_error(response, "forms_unsupported_media_type", 415)
    # then 404 for an unknown form, before the unit tag
    assert_rest_error(submit(app, 999999, VALID, unit_tag="", status=404), "forms_not_found", 404)
    # then the unit tag: empty after stripping anything but letters, digits, _ and -
    assert_rest_error(submit(app, form["id"], VALID, unit_tag="", status=400), "forms_unit_tag_not_found", 400)
    assert_rest_error(submit(app, form["id"], VALID, unit_tag="<>/ !", status=400), "forms_unit_tag_not_found", 400)
    assert rows(app) == []  # nothing stored for a request refused before the pipeline


# --- statuses ------------------------------------------------------------------------------

def test_validation_failed_lists_invalid_fields_in_the_reference_shape(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* your-name] [email* your-email] [textarea note maxlength:5] "
                                 "[number kids min:1 max:9] [date d min:2026-01-01] [url site] [tel phone] "
                                 "[select year \"Y7\" \"Y8\"] [checkbox clubs exclusive \"a\" \"b\"] [text x.y] [submit]")
    body = submit(app, form["id"], {"your-email": "not-an-address", "note": "too long text", "kids": "12",
                                    "d": "2025-12-31", "site": "javascript:alert(1)", "phone": "call me",
                                    "year": "Y9", "clubs": ["a", "b"], "x.y": ""}).json
    assert body["status"] == "validation_failed"
    assert body["posted_data_hash"] == ""
    assert body["into"] == f"#forms-f{form['id']}-p0-o1"
    assert body["message"] == "Some fields need your attention. Please check them and send again."
    by_field = {item["field"]: item for item in body["invalid_fields"]}
    assert set(by_field) == {"your-name", "your-email", "note", "kids", "d", "site", "phone", "year", "clubs"}
    assert by_field["your-name"] == {"field": "your-name", "message": "Please fill in this field.", "idref": None,
                                     "error_id": f"forms-f{form['id']}-p0-o1-ve-your-name"}
    assert by_field["your-email"]["message"] == "Please enter an email address."
    assert by_field["note"]["message"] == "This is longer than allowed."
    assert by_field["kids"]["message"] == "This number is larger than allowed."
    assert by_field["d"]["message"] == "This date is earlier than allowed."
    assert [row["status"] for row in rows(app)] == ["validation_failed"]


def test_dotted_field_names_are_reported_with_underscores(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* parent.name] [submit]")
    body = submit(app, form["id"], {}).json
    assert body["invalid_fields"][0]["field"] == "parent_name"
    assert body["invalid_fields"][0]["error_id"].endswith("-ve-parent_name")


def test_acceptance_missing_comes_after_validation_and_is_not_an_invalid_field(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* your-name] [acceptance terms]I agree[/acceptance] [acceptance news optional]"
                                 "News[/acceptance] [submit]")
    body = submit(app, form["id"], {}).json
    assert body["status"] == "validation_failed"  # validation runs first
    body = submit(app, form["id"], {"your-name": "Sam"}).json
    assert (body["status"], body["invalid_fields"], body["posted_data_hash"]) == ("acceptance_missing", [], "")
    assert body["message"] == "Please accept the terms before sending your message."
    assert submit(app, form["id"], {"your-name": "Sam", "terms": "1"}).json["status"] == "mail_sent"


def test_a_short_user_agent_is_spam(make_app):
    app = site(make_app)
    form = create_form(app)
    body = submit(app, form["id"], VALID, headers={"User-Agent": "x"}).json
    assert (body["status"], body["posted_data_hash"], body["invalid_fields"]) == ("spam", "", [])
    assert body["message"] == "Sorry, your message could not be sent. Please try again later."
    stored = rows(app)[0]
    assert stored["status"] == "spam"
    assert json.loads(stored["spam_log"]) == [{"agent": "user_agent",
                                               "reason": "User-Agent string is unnaturally short."}]
    assert rows(app, "mail_outbox") == []


def test_the_check_spam_hook_is_asked_first_with_the_submission(make_app):
    seen = []

    def check_spam(app, submission):
        seen.append(submission)
        return {"spam": "casino" in submission["content"], "reason": "a disallowed word"}

    filter_plugin = make_plugin("spamcheck", check_spam=check_spam)
    app = site(make_app, extra_plugins=[filter_plugin])
    form = create_form(app)
    assert submit(app, form["id"], VALID).json["status"] == "mail_sent"
    body = submit(app, form["id"], {**VALID, "your-message": "Visit my casino"}).json
    assert body["status"] == "spam"
    submission = seen[-1]
    assert submission["type"] == "form"
    assert (submission["author"], submission["email"]) == ("Sam Parent", "sam@school.test")
    assert submission["content"] == "Visit my casino"
    assert submission["ip"] == "203.0.113.7" and submission["user_agent"] == BROWSER["User-Agent"]
    assert len(submission["guid"]) == 36
    stored = rows(app)[-1]
    assert stored["guid"] == submission["guid"]
    assert json.loads(stored["spam_log"]) == [{"agent": "check_spam", "reason": "a disallowed word"}]


def test_the_abort_hook_ends_with_aborted(make_app):
    def forms_before_send_mail(app, form_id, submission):
        if "abort" in submission["content"]:
            return {"abort": True}
        if "quiet" in submission["content"]:
            return {"abort": True, "message": "Held for review."}
        return None

    app = site(make_app, extra_plugins=[make_plugin("aborter", forms_before_send_mail=forms_before_send_mail)])
    form = create_form(app)
    body = submit(app, form["id"], {**VALID, "your-message": "please abort"}).json
    assert (body["status"], body["message"]) == ("aborted", "Sending mail has been aborted.")
    assert len(body["posted_data_hash"]) == 32
    assert submit(app, form["id"], {**VALID, "your-message": "quiet"}).json["message"] == "Held for review."
    assert rows(app, "mail_outbox") == []
    assert [row["status"] for row in rows(app)] == ["aborted", "aborted"]


def test_mail_sent_queues_the_mail_which_reaches_smtp_with_headers_and_body(make_app, smtp_server):
    app = site(make_app, mail=smtp_server.mail_settings())
    form = create_form(app, mail_2={"active": True, "recipient": "[your-email]",
                                    "sender": "Riverside <noreply@school.test>", "subject": "Copy: [your-name]",
                                    "body": "We received: [your-message]"})
    body = submit(app, form["id"], VALID).json
    assert body["status"] == "mail_sent"
    assert body["message"] == "Thank you, your message has been sent."
    assert len(body["posted_data_hash"]) == 32 and body["invalid_fields"] == []
    assert [row["status"] for row in rows(app, "mail_outbox")] == ["queued", "queued"]  # mail_sent = queued
    stored = rows(app)[0]
    assert (stored["status"], json.loads(stored["mail_ids"])) == ("mail_sent", [1, 2])
    assert json.loads(stored["fields"]) == VALID
    assert app.mail.deliver_pending() == 2
    first, second = sorted(smtp_server.wait_for(2), key=lambda message: message["To"])
    assert first["To"] == "office@school.test"
    assert first["Subject"] == "Enquiry from Sam Parent"
    assert first["From"] == "Riverside <noreply@school.test>"
    assert first["Reply-To"] == "sam@school.test"
    assert first.get_content().replace("\r\n", "\n") == "From: Sam Parent <sam@school.test>\n\nIs there a bus on Friday?\n"
    # the copy goes to an address the visitor typed: its subject names nothing the visitor wrote
    assert (second["To"], second["Subject"]) == ("sam@school.test", "Copy: ")


def test_visitor_input_cannot_inject_mail_headers(make_app, smtp_server):
    app = site(make_app, mail=smtp_server.mail_settings())
    form = create_form(app, form="[text* your-name] [email* your-email] [textarea your-message] [submit]")
    body = submit(app, form["id"], {**VALID, "your-name": "Sam\r\nBcc: victim@school.test"}).json
    assert body["status"] == "mail_sent"
    app.mail.deliver_pending()
    [message] = smtp_server.wait_for(1)
    assert message["Subject"] == "Enquiry from Sam Bcc: victim@school.test"
    assert message["Bcc"] is None and smtp_server.envelopes[0][1] == ["office@school.test"]


def test_mail_failed_when_the_mail_cannot_be_made_but_the_submission_is_kept(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* your-name] [text where] [submit]",
                       mail={"recipient": "[where]", "sender": "Riverside <noreply@school.test>"})
    body = submit(app, form["id"], {"your-name": "Sam", "where": "not an address"}).json
    assert body["status"] == "mail_failed"
    assert body["message"] == "Sorry, your message could not be sent. Please try again later."
    assert len(body["posted_data_hash"]) == 32
    assert rows(app)[0]["status"] == "mail_failed"
    assert json.loads(rows(app)[0]["fields"]) == {"your-name": "Sam", "where": "not an address"}


@pytest.mark.parametrize("setting", ["demo_mode: on", "skip_mail: on"])
def test_demo_mode_and_skip_mail_count_as_sent_without_mail(make_app, setting):
    app = site(make_app)
    form = create_form(app, additional_settings=setting)
    body = submit(app, form["id"], VALID).json
    assert body["status"] == "mail_sent"
    assert body.get("demo_mode") is (True if setting.startswith("demo") else None)
    assert rows(app, "mail_outbox") == []
    assert rows(app)[0]["status"] == "mail_sent"


def test_subscribers_only_forms_refuse_anonymous_submissions_without_the_pipeline(make_app):
    app = site(make_app)
    form = create_form(app, additional_settings="subscribers_only: true")
    body = submit(app, form["id"], {}).json
    assert body["status"] == "error" and body["invalid_fields"] == []
    assert body["message"] == "This contact form is available only for logged in users."
    signed_in = submit(app, form["id"], VALID, headers=app.people["subscriber"].headers).json
    assert signed_in["status"] == "mail_sent"


# --- files ---------------------------------------------------------------------------------

def file_form(app):
    return create_form(app, form="[text* your-name] [file* doc limit:1kb filetypes:pdf|png] [submit]",
                       mail={"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                             "subject": "File from [your-name]", "body": "See [doc].", "attachments": "[doc]"})


@pytest.mark.parametrize("store_submissions", [True, False])
def test_an_uploaded_file_is_attached_to_the_mail_and_kept_only_while_submissions_are_stored(
        make_app, smtp_server, store_submissions, storage_backend):
    app = site(make_app, mail=smtp_server.mail_settings(), storage=storage_backend,
               config={"forms": {"store_submissions": store_submissions}})
    form = file_form(app)
    body = submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.pdf", PDF)]).json
    assert body["status"] == "mail_sent"
    if store_submissions:  # kept for the admin's Form submissions page (download, resend)
        stored = json.loads(rows(app)[0]["files"])
        assert [(item["field"], item["name"], item["content_type"], item["size"]) for item in stored] == [
            ("doc", "note.pdf", "application/pdf", len(PDF))]
        assert stored_files(app, "form-files") == {stored[0]["path"]: PDF}
    else:  # the outbox holds the only copy now
        assert json.loads(rows(app)[0]["files"]) == []
        assert stored_files(app, "form-files") == {}
    if not storage_backend:
        folder = Path(app.settings.uploads_dir).resolve().parent / "form-files"
        assert not str(folder).startswith(str(Path(app.settings.uploads_dir).resolve()))
    assert stored_files(app, "uploads") == {}  # never among the files the site serves
    app.mail.deliver_pending()
    [message] = smtp_server.wait_for(1)
    [attachment] = list(message.iter_attachments())
    assert (attachment.get_filename(), attachment.get_content()) == ("note.pdf", PDF)
    assert message.get_body(("plain",)).get_content().strip() == "See note.pdf."


def test_files_not_attached_stay_with_the_submission_outside_the_public_uploads(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* your-name] [file doc filetypes:png] [submit]")
    submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", "../../etc/photo.png", PNG)])
    [stored] = json.loads(rows(app)[0]["files"])
    path = Path(app.settings.uploads_dir).resolve().parent / "form-files" / stored["path"]
    assert path.read_bytes() == PNG and path.name == "photo.png"
    assert Path(app.settings.uploads_dir).resolve() not in path.parents


@pytest.mark.parametrize("name, data, message", [
    ("note.exe", b"MZ" + b"\x00" * 10, "Files of this type are not accepted."),
    ("note.pdf", b"just text", "Files of this type are not accepted."),  # bytes that are not a PDF
    ("note.png", PDF, "Files of this type are not accepted."),
    ("big.pdf", b"%PDF-1.4" + b"x" * 2000, "The file is larger than allowed."),
])
def test_refused_files_are_validation_failures(make_app, name, data, message):
    app = site(make_app)
    form = file_form(app)
    body = submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", name, data)]).json
    assert body["status"] == "validation_failed"
    assert body["invalid_fields"][0]["field"] == "doc" and body["invalid_fields"][0]["message"] == message
    assert json.loads(rows(app)[0]["files"]) == []
    assert rows(app, "mail_outbox") == []


def test_a_required_file_that_is_missing_is_invalid(make_app):
    app = site(make_app)
    form = file_form(app)
    body = submit(app, form["id"], {"your-name": "Sam"}).json
    assert [(item["field"], item["message"]) for item in body["invalid_fields"]] == [
        ("doc", "Please fill in this field.")]


# --- quiz, schema and refill ---------------------------------------------------------------

def test_quiz_refill_and_answers(make_app):
    app = site(make_app)
    form = create_form(app, form='[text* your-name] [quiz check "What is 2+3?|5" "Capital of France?|Paris"] [submit]')
    refill = app.client.get(f"{BASE}/{form['id']}/refill").json
    question, answer_hash = refill["quiz"]["check"]
    assert question in ("What is 2+3?", "Capital of France?") and len(answer_hash) == 32
    answer = "5" if question.startswith("What") else " paris "
    good = submit(app, form["id"], {"your-name": "Sam", "check": answer, "_forms_quiz_answer_check": answer_hash})
    assert good.json["status"] == "mail_sent"
    assert set(good.json["quiz"]["check"][0:1]) <= {"What is 2+3?", "Capital of France?"}  # a fresh question
    bad = submit(app, form["id"], {"your-name": "Sam", "check": "7", "_forms_quiz_answer_check": answer_hash}).json
    assert bad["status"] == "validation_failed"
    assert bad["invalid_fields"][0]["message"] == "That answer is not correct."
    forged = submit(app, form["id"], {"your-name": "Sam", "check": "7", "_forms_quiz_answer_check": "0" * 32}).json
    assert forged["status"] == "validation_failed"


def test_refill_without_quiz_is_an_empty_list(make_app):
    app = site(make_app)
    form = create_form(app)
    assert app.client.get(f"{BASE}/{form['id']}/refill").json == []


def test_schema_lists_every_rule_in_its_shape(make_app):
    app = site(make_app)
    form = create_form(app, form="[text* a minlength:2] [email b] [url c] [tel d] [number* e min:1 max:9 step:2] "
                                 "[date f min:2026-01-01 max:2026-12-31 dayofweek:1|2|3] [textarea g] "
                                 "[select h \"x\" \"y\"] [checkbox i min_items:1 max_items:2 \"p\" \"q\" \"r\"] "
                                 "[file* j limit:2mb filetypes:pdf min_size:1kb] [submit]")
    body = app.client.get(f"{BASE}/{form['id']}/feedback/schema").json
    assert body["version"] == "Forms SWV Schema 2024-10" and body["locale"] == "en_US"
    found = {(rule["rule"], rule["field"]): rule for rule in body["rules"]}
    assert all(set(rule) >= {"rule", "field", "error"} for rule in body["rules"])
    assert found[("required", "a")]["error"] == "Please fill in this field."
    assert found[("minlength", "a")]["threshold"] == 2 and found[("maxlength", "a")]["threshold"] == 400
    assert ("email", "b") in found and ("url", "c") in found and ("tel", "d") in found
    assert found[("minnumber", "e")]["threshold"] == 1 and found[("maxnumber", "e")]["threshold"] == 9
    assert (found[("stepnumber", "e")]["base"], found[("stepnumber", "e")]["interval"]) == (1, 2)
    assert found[("mindate", "f")]["threshold"] == "2026-01-01" and found[("maxdate", "f")]["threshold"] == "2026-12-31"
    assert found[("dayofweek", "f")]["accept"] == [1, 2, 3]
    assert found[("maxlength", "g")]["threshold"] == 2000
    assert found[("enum", "h")]["accept"] == ["x", "y"] and found[("maxitems", "h")]["threshold"] == 1
    assert found[("minitems", "i")]["threshold"] == 1 and found[("maxitems", "i")]["threshold"] == 2
    assert ("requiredfile", "j") in found and found[("file", "j")]["accept"] == [".pdf"]
    assert found[("maxfilesize", "j")]["threshold"] == 2 * 1024 * 1024
    assert found[("minfilesize", "j")]["threshold"] == 1024


def test_schema_rules_are_what_validation_enforces(make_app):
    app = site(make_app)
    form = create_form(app, form="[number* e min:1 max:9 step:2] [date f dayofweek:1] [submit]")
    assert submit(app, form["id"], {"e": "4"}).json["invalid_fields"][0]["message"] == "Please enter a number."
    assert submit(app, form["id"], {"e": "3", "f": "2026-11-24"}).json["invalid_fields"][0]["field"] == "f"  # a Tuesday
    assert submit(app, form["id"], {"e": "3", "f": "2026-11-23"}).json["status"] == "mail_sent"  # a Monday


# --- limits and abuse ----------------------------------------------------------------------

def _early_in_a_minute(needed: float = 10) -> None:
    """The limit counts per clock minute: start with time to spare, so no count crosses into the next.

    The counting part of a test takes a second or two; ten seconds of spare leave room for a busy
    machine, and a test waits (a sixth of the time, five seconds on average) only when it must."""
    import time

    left = 60 - time.time() % 60
    if left < needed:
        time.sleep(left + 0.1)


def test_the_rate_limit_is_per_address_and_shared_by_every_worker(make_app):
    app = site(make_app, config={"forms": {"submissions_per_minute": 3}})
    _early_in_a_minute()
    form = create_form(app)
    other_worker = make_app(plugins=["core", "forms"], database_url=app.settings.database_url,
                            config={"forms": {"submissions_per_minute": 3}})
    assert submit(app, form["id"], VALID).json["status"] == "mail_sent"
    assert submit(other_worker, form["id"], VALID).json["status"] == "mail_sent"
    assert submit(app, form["id"], VALID).json["status"] == "mail_sent"
    refused = submit(other_worker, form["id"], VALID, status=429)
    assert_rest_error(refused, "forms_rate_limited", 429)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert len(rows(app)) == 3
    elsewhere = app.client.post(f"{BASE}/{form['id']}/feedback",
                                [("_forms_unit_tag", "forms-x"), *VALID.items()], headers=BROWSER,
                                content_type="multipart/form-data", extra_environ={"REMOTE_ADDR": "198.51.100.1"})
    assert elsewhere.json["status"] == "mail_sent"


def test_a_form_may_set_its_own_rate_limit(make_app):
    app = site(make_app)
    form = create_form(app, additional_settings="submissions_per_minute: 1")
    _early_in_a_minute()
    submit(app, form["id"], VALID)
    assert_rest_error(submit(app, form["id"], VALID, status=429), "forms_rate_limited", 429)


def test_absurd_field_counts_and_oversized_fields_answer_clear_errors(make_app):
    app = site(make_app, config={"forms": {"max_fields": 50, "max_field_characters": 1000}})
    form = create_form(app)
    many = {f"junk{number}": "x" for number in range(60)}
    assert_rest_error(submit(app, form["id"], {**VALID, **many}, status=400), "forms_too_many_fields", 400)
    body = assert_rest_error(submit(app, form["id"], {**VALID, "your-message": "x" * 1001}, status=400),
                             "forms_field_too_large", 400)
    assert body["data"]["field"] == "your-message"
    assert rows(app) == []


def test_over_long_values_within_the_hard_limit_fail_validation(make_app):
    app = site(make_app)
    form = create_form(app)
    body = submit(app, form["id"], {**VALID, "your-name": "x" * 401}).json
    assert body["invalid_fields"][0]["message"] == "This is longer than allowed."


def test_invalid_utf8_nested_names_and_objects_never_reach_a_500(make_app):
    app = site(make_app)
    form = create_form(app)
    boundary = "XyZ"
    parts = [("_forms_unit_tag", b"forms-x"), ("your-name", b"\xff\xfe\xfa"), ("your-email", b"a@school.test"),
             ("a" + "[b]" * 200, b"deep"), ("your-message[x][y]", b"object")]
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n".encode() + value + b"\r\n"
                    for name, value in parts) + f"--{boundary}--\r\n".encode()
    response = app.client.request(f"{BASE}/{form['id']}/feedback", method="POST", body=body, expect_errors=True,
                                  headers={**BROWSER, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert response.status_int in (200, 400), response.text
    if response.status_int == 200:
        assert response.json["status"] in ("validation_failed", "mail_sent")
    broken = app.client.request(f"{BASE}/{form['id']}/feedback", method="POST", body=b"--nope\r\n\r\n",
                                headers={**BROWSER, "Content-Type": "multipart/form-data; boundary=XyZ"},
                                expect_errors=True)
    assert broken.status_int == 400


# --- the record ----------------------------------------------------------------------------

def test_administrators_list_submissions_with_their_mail(make_app):
    app = site(make_app)
    form = create_form(app)
    submit(app, form["id"], VALID)
    submit(app, form["id"], VALID, headers={"User-Agent": "x"})
    path = "/wp-json/forms/v1/submissions"
    response = app.client.get(path, headers=app.people["administrator"].headers)
    assert response.headers["X-WP-Total"] == "2"
    newest, oldest = response.json
    assert (newest["status"], oldest["status"]) == ("spam", "mail_sent")
    assert oldest["fields"] == VALID and oldest["remote_ip"] == "203.0.113.7"
    assert oldest["mail"][0]["status"] == "queued" and oldest["mail"][0]["to"] == ["office@school.test"]
    only_sent = app.client.get(path, {"status": "mail_sent", "form": form["id"]},
                               headers=app.people["administrator"].headers)
    assert [item["id"] for item in only_sent.json] == [oldest["id"]]
    for role, status in (("editor", 403), ("subscriber", 403)):
        assert_rest_error(app.client.get(path, headers=app.people[role].headers, expect_errors=True),
                          "forms_forbidden", status)
    assert_rest_error(app.client.get(path, expect_errors=True), "forms_forbidden", 403)  # anonymous too


def test_a_disabled_plugin_keeps_its_data(make_app):
    app = site(make_app)
    form = create_form(app)
    submit(app, form["id"], VALID)
    again = make_app(plugins=["core"], database_url=app.settings.database_url)
    assert again.client.get(f"{BASE}/{form['id']}/refill", expect_errors=True).status_int == 404
    back = make_app(plugins=["core", "forms"], database_url=app.settings.database_url)
    assert len(rows(back)) == 1


def test_special_mail_tags_name_the_site_and_the_submission(make_app, smtp_server):
    app = site(make_app, mail=smtp_server.mail_settings(), site={"name": "Riverside School"})
    app.people["administrator"]  # the first administrator: [_site_admin_email]
    form = create_form(app, mail={"recipient": "[_site_admin_email]", "sender": "[_site_title] <noreply@school.test>",
                                  "subject": "#[_serial_number] [_form_title]: [your-name]",
                                  "body": "[_remote_ip] [_user_agent] [unknown-tag]"})
    submit(app, form["id"], VALID)
    app.mail.deliver_pending()
    [message] = smtp_server.wait_for(1)
    assert message["To"] == app.people["administrator"].email
    assert message["From"] == "Riverside School <noreply@school.test>"
    assert message["Subject"] == f"#{rows(app)[0]['id']} Enquiry: Sam Parent"
    assert message.get_content().strip() == f"203.0.113.7 {BROWSER['User-Agent']} [unknown-tag]"


def test_a_form_with_fields_disabled_shows_disabled_fields_and_takes_no_submission(make_app):
    app = site(make_app)
    form = create_form(app)
    app.client.patch_json(f"{BASE}/{form['id']}", {"status": "fields-disabled"}, headers=app.people["editor"].headers)
    assert 'name="your-name" value="" class' in app.client.get(f"/contact-forms/{form['id']}").text
    assert " disabled" in app.client.get(f"/contact-forms/{form['id']}").text
    body = submit(app, form["id"], VALID).json
    assert (body["status"], body["message"]) == ("error", "This form does not take submissions at the moment.")
    assert rows(app, "mail_outbox") == []


def test_with_verify_nonce_a_signed_in_submission_needs_the_nonce_of_its_page(make_app):
    app = site(make_app, config={"forms": {"verify_nonce": True}})
    form = create_form(app)
    parent = app.people["subscriber"]
    page = app.client.get(f"/contact-forms/{form['id']}", headers=parent.headers).text
    nonce = page.split('name="_forms_nonce" value="', 1)[1].split('"', 1)[0]
    assert len(nonce) == 20
    assert 'name="_forms_nonce"' not in app.client.get(f"/contact-forms/{form['id']}").text  # anonymous: none
    assert submit(app, form["id"], VALID, headers=parent.headers).json["status"] == "spam"
    assert submit(app, form["id"], {**VALID, "_forms_nonce": "0" * 20}, headers=parent.headers).json["status"] == "spam"
    assert submit(app, form["id"], {**VALID, "_forms_nonce": nonce}, headers=parent.headers).json["status"] == \
        "mail_sent"
    assert submit(app, form["id"], VALID).json["status"] == "mail_sent"  # anonymous callers have no nonce to check
    assert json.loads(rows(app)[0]["spam_log"]) == [{"agent": "nonce", "reason": "The form nonce is not valid."}]


def test_files_dir_inside_the_public_uploads_stops_the_plugin(make_app, tmp_path):
    app = make_app(plugins=["core", "forms"], uploads_dir=str(tmp_path / "uploads"),
                   config={"forms": {"files_dir": str(tmp_path / "uploads" / "forms")}})
    record = app.plugin("forms")
    assert not record.loaded and "inside the public uploads folder" in record.error


def test_the_mailed_site_url_is_the_site_address_not_the_host_header(make_app, smtp_server):
    app = site(make_app, mail=smtp_server.mail_settings())
    form = create_form(app, mail={"active": True, "recipient": "office@school.test", "sender": "noreply@school.test",
                                  "subject": "Enquiry", "body": "Sent from [_site_title] ([_site_url])."})
    assert submit(app, form["id"], VALID, headers={"Host": "attacker.example"}).json["status"] == "mail_sent"
    assert app.mail.deliver_pending() == 1
    text = smtp_server.wait_for(1)[0].get_content()
    assert f"({TEST_SITE_ADDRESS})" in text and "attacker.example" not in text
