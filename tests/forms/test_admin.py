"""The forms admin pages over HTTP (WebTest, signed in as a browser is): the list with create and delete,
the editor with its errors, configuration problems and preview, and the submissions pages with search,
CSV export, file downloads, resend (received by aiosmtpd) and delete."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from host.testing import stored_files

from tests.admin.helpers import csrf_of, form_with, sign_in

from .helpers import BASE, VALID, create_form, site, submit

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
FILE_FORM = "[text* your-name] [textarea your-message] [file* doc limit:1kb filetypes:pdf] [submit]"
FILE_MAIL = {"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
             "subject": "File from [your-name]", "body": "See [doc]. [your-message]", "attachments": "[doc]"}


def rows(app, table="forms_submissions"):
    found = app.db.metadata.tables[table]
    with app.db.session() as session:
        key = found.c.id if "id" in found.c else found.c.form_id
        return [dict(row) for row in session.execute(select(found).order_by(key)).mappings()]


def rest_form(app, form_id, status=200):
    return app.client.get(f"{BASE}/{form_id}", headers=app.people["editor"].headers, status=status).json


def field_error(page, name: str) -> str:
    element = page.html.select_one(f"#field-{name}-error")
    assert element is not None, f"no error beside {name}"
    assert page.html.select_one(f"#field-{name}")["aria-invalid"] == "true"
    return element.text


def notices(page) -> str:
    return " ".join(element.text for element in page.html.select(".notice"))


@pytest.fixture
def app(make_app, smtp_server):
    found = site(make_app, mail=smtp_server.mail_settings())
    found.smtp = smtp_server
    return found


# --- the list: create and delete -----------------------------------------------------------------

def test_an_editor_lists_adds_and_deletes_forms(app):
    existing = create_form(app, title="Absence report")
    client = sign_in(app, app.people["editor"])
    page = client.get("/admin/forms")
    assert [link.text for link in page.html.select("tbody td[data-label=Title] a")] == ["Absence report"]
    assert f'[contact-form id="{existing["id"]}"]' in page.text
    assert "Submissions" not in page.html.select_one("tbody").text  # submissions are the administrator's
    before = rows(app, "forms_forms")
    refused = form_with(page, "create", title="   ").submit(status=400)
    assert field_error(refused, "title") == "Give the form a title."
    assert rows(app, "forms_forms") == before
    created = form_with(page, "create", title="Trip consent").submit(status=303)
    form_id = int(created.headers["Location"].split("/admin/forms/")[1].split("?")[0])
    editor = created.follow()
    assert "The form was added" in notices(editor)
    assert editor.html.select_one("#field-title")["value"] == "Trip consent"
    stored = rest_form(app, form_id)
    assert stored["title"] == "Trip consent" and "[email* your-email" in stored["properties"]["form"]["content"]
    assert stored["properties"]["mail"]["active"] is True
    listed = client.get("/admin/forms")
    answer = form_with(listed, "delete", _match={"form_id": str(form_id)}).submit()
    assert "Trip consent" in notices(answer) and "was deleted" in notices(answer)
    rest_form(app, form_id, status=404)
    assert [link.text for link in answer.html.select("tbody td[data-label=Title] a")] == ["Absence report"]
    token = csrf_of(client)
    before = rows(app, "forms_forms")
    for bad in (str(form_id), "abc", "0", "", "9999999999"):
        missing = client.post("/admin/forms", {"csrf_token": token, "action": "delete", "form_id": bad}, status=404)
        assert "nothing was deleted" in notices(missing)
    assert rows(app, "forms_forms") == before


def test_editing_actions_on_the_list_and_an_unknown_form_are_refused(app):
    client = sign_in(app, app.people["editor"])
    token = csrf_of(client)
    answer = client.post("/admin/forms", {"csrf_token": token, "action": "save"}, status=400)
    assert "Open a form" in notices(answer)
    client.get("/admin/forms/999999", status=404)
    client.get("/admin/forms/9999999999", status=404)  # beyond the id column: never reaches the database
    client.get("/admin/forms/nonsense", status=404)
    author = sign_in(app, app.people["author"])
    author.get("/admin/forms", status=403)


# --- the editor ----------------------------------------------------------------------------------

def test_the_editor_saves_template_mails_messages_and_settings_as_the_rest_write(app):
    form = create_form(app)
    client = sign_in(app, app.people["editor"])
    page = client.get(f"/admin/forms/{form['id']}")
    assert page.html.select_one("#field-form").text == form["properties"]["form"]["content"]
    assert page.html.select_one("#field-message-mail_sent_ok")["value"] == "Thank you, your message has been sent."
    template = "<p>[text* your-name]</p>\n<p>[email* your-email]</p>\n[textarea your-message]\n[submit \"Go\"]"
    editor = next(candidate for candidate in page.forms.values() if "form" in candidate.fields)
    editor["title"] = "Admissions enquiry"
    editor["form"] = template
    editor["message-mail_sent_ok"] = "Thanks! We reply within two school days."
    editor["mail-subject"] = "Admissions: [your-name]"
    editor["mail_2-active"] = True
    editor["mail_2-recipient"] = "[your-email]"
    editor["mail_2-sender"] = "Riverside <noreply@school.test>"
    editor["mail_2-subject"] = "Your enquiry"
    editor["additional_settings"] = "submissions_per_minute: 5"
    saved = editor.submit("action", value="save")
    assert saved.status_int == 200 and "The form was saved." in notices(saved)
    stored = rest_form(app, form["id"])
    assert stored["title"] == "Admissions enquiry"
    assert stored["properties"]["form"]["content"] == template
    assert stored["properties"]["messages"]["mail_sent_ok"] == "Thanks! We reply within two school days."
    assert stored["properties"]["mail"]["subject"] == "Admissions: [your-name]"
    assert stored["properties"]["mail_2"]["active"] is True
    assert stored["properties"]["mail_2"]["recipient"] == "[your-email]"
    assert stored["properties"]["additional_settings"]["settings"] == [["submissions_per_minute", "5"]]
    # what visitors now read after sending
    assert submit(app, form["id"], VALID).json["message"] == "Thanks! We reply within two school days."


def test_configuration_problems_are_saved_and_shown_beside_their_fields(app):
    form = create_form(app)
    client = sign_in(app, app.people["editor"])
    editor = next(candidate for candidate in client.get(f"/admin/forms/{form['id']}").forms.values()
                  if "form" in candidate.fields)
    editor["form"] = "[text* your-name] [sparkle thing] [submit]"
    editor["mail-sender"] = "not an address"
    saved = editor.submit("action", value="save")
    assert saved.status_int == 200 and "configuration problems" in notices(saved)
    assert "not an address" in saved.html.select_one("#field-mail-sender-problems").text
    assert "sparkle" in saved.html.select_one("#field-form-problems").text
    assert saved.html.select_one("#field-form").text == "[text* your-name] [sparkle thing] [submit]"
    stored = rest_form(app, form["id"])
    assert stored["properties"]["form"]["content"] == "[text* your-name] [sparkle thing] [submit]"
    # shown again when the form is opened later
    assert client.get(f"/admin/forms/{form['id']}").html.select_one("#field-mail-sender-problems") is not None


def test_a_choice_of_addresses_is_a_valid_recipient_and_a_choice_of_words_is_not(app):
    """The reference's department picker: `[select dept "Admissions|admissions@school.test" ...]` as the To."""
    form = create_form(app, form='[select* dept "Admissions|admissions@school.test" "Office|office@school.test"] '
                                 '[select* topic "Lunch" "Buses"] [submit]')
    client = sign_in(app, app.people["editor"])
    editor = next(candidate for candidate in client.get(f"/admin/forms/{form['id']}").forms.values()
                  if "form" in candidate.fields)
    editor["mail-recipient"] = "[dept]"
    saved = editor.submit("action", value="save")
    assert saved.html.select_one(".notice").text == "The form was saved."
    assert saved.html.select_one("#field-mail-recipient-problems") is None
    editor["mail-recipient"] = "[topic]"
    saved = editor.submit("action", value="save")
    assert "'[topic]' does not give a valid email address." in \
        saved.html.select_one("#field-mail-recipient-problems").text


@pytest.mark.parametrize("field, value, fragment", [
    ("locale", "english!", "String does not match"),
    ("status", "draft", "Must be one of"),
    ("mail-subject", "x" * 2001, "Longer than maximum length 2000"),
    ("message-spam", "x" * 2001, "Longer than maximum length 2000"),
    ("title", "t" * 201, "Longer than maximum length 200"),
])
def test_values_the_rest_write_refuses_answer_400_marked_and_change_nothing(app, field, value, fragment):
    form = create_form(app)
    client = sign_in(app, app.people["editor"])
    editor = next(candidate for candidate in client.get(f"/admin/forms/{form['id']}").forms.values()
                  if "form" in candidate.fields)
    before = rows(app, "forms_forms")
    editor["form"] = "[text* changed] [submit]"
    if field == "status":
        editor[field].force_value(value)
    else:
        editor[field] = value
    for action in ("save", "preview"):
        answer = editor.submit("action", value=action, status=400)
        assert fragment in field_error(answer, field)
        assert answer.html.select_one("#field-form").text == "[text* changed] [submit]"  # kept as typed
    assert rows(app, "forms_forms") == before


def test_a_long_template_is_saved_whole(app):
    form = create_form(app)
    client = sign_in(app, app.people["editor"])
    editor = next(candidate for candidate in client.get(f"/admin/forms/{form['id']}").forms.values()
                  if "form" in candidate.fields)
    long_template = "<p>" + "Please read the trip letter first. " * 600 + "</p>[text* your-name] [submit]"
    editor["form"] = long_template
    assert editor.submit("action", value="save").status_int == 200
    assert rest_form(app, form["id"])["properties"]["form"]["content"] == long_template


def test_preview_renders_the_edited_template_as_visitors_see_it_and_saves_nothing(app):
    form = create_form(app)
    client = sign_in(app, app.people["editor"])
    editor = next(candidate for candidate in client.get(f"/admin/forms/{form['id']}").forms.values()
                  if "form" in candidate.fields)
    before = rows(app, "forms_forms")
    editor["form"] = ("<p>Phone [tel* phone placeholder \"Your number\"]</p><script>alert(1)</script>"
                      "[submit \"Call me\"]")
    answer = editor.submit("action", value="preview")
    assert answer.status_int == 200 and "nothing was saved" in notices(answer)
    frame = answer.html.select_one(".forms-preview-frame")
    assert frame.name == "fieldset" and frame.has_attr("disabled")  # shown to everyone, sendable by no one
    control = frame.select_one("input[name=phone]")
    assert control["type"] == "tel" and control["placeholder"] == "Your number"
    assert frame.select_one("input[type=submit]")["value"] == "Call me"
    assert "<script>" not in str(frame) and frame.select_one("script") is None
    assert answer.html.select_one("#field-form").text.startswith("<p>Phone [tel* phone")
    assert rows(app, "forms_forms") == before
    # a broken template: the preview shows the error and what visitors would get
    editor = next(candidate for candidate in answer.forms.values() if "form" in candidate.fields)
    editor["form"] = "[text* your-name] [text t sparkle]"
    broken = editor.submit("action", value="preview")
    alert = broken.html.select_one(".forms-preview .notice.error").text
    assert "unknown option 'sparkle'" in alert and "no [submit] button" in alert
    assert broken.html.select_one(".forms-preview-frame input[name=your-name]") is not None
    assert rows(app, "forms_forms") == before


# --- submissions ---------------------------------------------------------------------------------

def send(app, form_id, **values):
    return submit(app, form_id, {**VALID, **values}).json


def test_submissions_are_listed_per_form_searched_over_values_and_filtered_by_status(app):
    form = create_form(app)
    other = create_form(app, title="Lost property")
    send(app, form["id"], **{"your-message": "Is there a bus on Friday?"})
    send(app, form["id"], **{"your-name": "Élodie Martin", "your-message": "Lunch menu please"})
    send(app, form["id"], **{"your-email": "not-an-address", "your-message": "Trip money"})  # validation_failed
    send(app, other["id"], **{"your-message": "Blue coat, bus stop"})
    client = sign_in(app, app.people["administrator"])
    index = client.get("/admin/form-submissions")
    counts = {row.select_one("a").text: row.select("td")[1].text for row in index.html.select("tbody tr")}
    assert counts == {"Enquiry": "3", "Lost property": "1"}
    listed = client.get(f"/admin/form-submissions/{form['id']}")
    assert len(listed.html.select("tbody tr")) == 3 and "3 submissions" in listed.text

    def found(**query):
        page = client.get(f"/admin/form-submissions/{form['id']}", query)
        return [row.select_one("td[data-label='Values sent']").text for row in page.html.select("tbody tr")]

    assert found(s="BUS") == ["Sam Parent · sam@school.test · Is there a bus on Friday?"]
    assert found(s="élodie") == ["Élodie Martin · sam@school.test · Lunch menu please"]
    assert found(s="your-message") == []  # field names are not searched
    assert found(s='"') == [] and found(s="%") == [] and found(s="_") == []
    assert len(found(s="sam@school")) == 2
    assert found(status="validation_failed") == ["Sam Parent · not-an-address · Trip money"]
    assert found(s="lunch", status="validation_failed") == []
    for query, field in (({"status": "sent"}, "status"), ({"s": "x" * 201}, "s"), ({"paged": "0"}, "paged"),
                         ({"paged": "x"}, "paged")):
        bad = client.get(f"/admin/form-submissions/{form['id']}", query, status=400)
        assert bad.html.select_one(f"#field-{field}-error") is not None
    client.get("/admin/form-submissions/999999", status=404)
    client.get("/admin/form-submissions/9999999999", status=404)
    client.get(f"/admin/form-submissions/{form['id']}/9999999999", status=404)
    sign_in(app, app.people["editor"]).get(f"/admin/form-submissions/{form['id']}", status=403)


def test_the_list_pages_through_many_submissions(app):
    form = create_form(app, additional_settings="submissions_per_minute: 0")
    for number in range(23):
        send(app, form["id"], **{"your-message": f"message {number}"})
    client = sign_in(app, app.people["administrator"])
    first = client.get(f"/admin/form-submissions/{form['id']}", {"s": "message"})
    assert len(first.html.select("tbody tr")) == 20 and "Page 1 of 2" in first.text
    second = client.get(first.html.select_one("a[rel=next]")["href"])
    assert [row.select_one("td[data-label='Values sent']").text.rsplit(" ", 1)[1] for row in
            second.html.select("tbody tr")] == ["2", "1", "0"]


def test_the_csv_export_is_streamed_with_a_header_row_and_formulas_made_harmless(app):
    form = create_form(app, form="[text* your-name] [email* your-email] [checkbox topics \"Bus\" \"Lunch\"] "
                                 "[textarea your-message] [submit]")
    dangerous = ["=HYPERLINK(\"http://evil.test\")", "+41 22 000", "-2+3", "@SUM(A1)"]
    for text in dangerous:
        send(app, form["id"], **{"your-message": text})
    send(app, form["id"], **{"your-name": "Sam, \"the\" parent", "your-message": "two\nlines",
                             "topics": ["Bus", "Lunch"]})
    client = sign_in(app, app.people["administrator"])
    answer = client.get(f"/admin/form-submissions/{form['id']}/export.csv")
    assert answer.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert answer.headers["Content-Disposition"] == f"attachment; filename=\"form-{form['id']}-submissions.csv\""
    assert answer.headers["Cache-Control"] == "no-store" and answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.body.startswith(b"\xef\xbb\xbf")
    table = list(csv.reader(io.StringIO(answer.body.decode("utf-8-sig"), newline="")))
    assert table[0] == ["Submission", "Date (UTC)", "Status", "your-name", "your-email", "topics", "your-message",
                        "Other fields"]
    assert len(table) == 6
    newest = table[1]
    assert newest[3] == "Sam, \"the\" parent" and newest[5] == "Bus, Lunch" and newest[6] == "two\nlines"
    assert newest[2] == "mail_sent" and newest[0] == str(rows(app)[-1]["id"])
    assert [row[6] for row in table[2:]] == ["'" + text for text in reversed(dangerous)]
    filtered = client.get(f"/admin/form-submissions/{form['id']}/export.csv", {"s": "hyperlink"})
    assert len(list(csv.reader(io.StringIO(filtered.body.decode("utf-8-sig"))))) == 2
    client.get(f"/admin/form-submissions/{form['id']}/export.csv", {"status": "nope"}, status=400)
    sign_in(app, app.people["editor"]).get(f"/admin/form-submissions/{form['id']}/export.csv", status=403)


@pytest.fixture
def stored_app(make_app, smtp_server, storage_backend):
    """`app` on each storage backend in turn (local folders, then a bucket of a real S3 server)."""
    found = site(make_app, mail=smtp_server.mail_settings(), storage=storage_backend)
    found.smtp = smtp_server
    return found


def test_a_submission_shows_its_values_files_and_mail_and_its_file_downloads_only_here(stored_app):
    app = stored_app
    form = create_form(app, form=FILE_FORM, mail=FILE_MAIL)
    submit(app, form["id"], {"your-name": "Sam", "your-message": "<b>hello</b>"}, files=[("doc", "note.pdf", PDF)])
    [row] = rows(app)
    [kept] = json.loads(row["files"])
    assert stored_files(app, "form-files") == {kept["path"]: PDF}  # kept after the mail carried it
    if app.storage.backend == "local":
        folder = Path(app.settings.uploads_dir).resolve().parent / "form-files"
        assert oct((folder / kept["path"]).parent.stat().st_mode)[-3:] == "700"
    client = sign_in(app, app.people["administrator"])
    page = client.get(f"/admin/form-submissions/{form['id']}/{row['id']}")
    values = {cells[0].text: cells[1].text for cells in (tr.select("td") for tr in page.html.select(
        "section[aria-labelledby=fields-heading] tbody tr"))}
    assert values == {"your-name": "Sam", "your-message": "<b>hello</b>"}
    assert "<b>hello</b>" not in page.text  # escaped
    assert "queued" in page.html.select_one("section[aria-labelledby=mails-heading] tbody").text
    link = page.html.select_one("section[aria-labelledby=files-heading] a")
    assert link.text == "note.pdf"
    download = client.get(link["href"])
    assert download.body == PDF and download.headers["Content-Type"].startswith("application/octet-stream")
    assert download.headers["Content-Disposition"].startswith("attachment; filename=\"note.pdf\"")
    assert download.headers["X-Content-Type-Options"] == "nosniff" and download.headers["Cache-Control"] == "no-store"
    client.get(f"/admin/form-submissions/{form['id']}/{row['id']}/files/1", status=404)
    client.get(f"/admin/form-submissions/{form['id'] + 1}/{row['id']}/files/0", status=404)
    client.get(f"/admin/form-submissions/{form['id']}/{row['id']}/files/../0", status=404)
    sign_in(app, app.people["editor"]).get(link["href"], status=403)
    # the uploads the site serves do not hold it
    assert stored_files(app, "uploads") == {}


def test_resend_queues_the_form_mail_again_with_its_files_and_smtp_receives_it(app):
    form = create_form(app, form=FILE_FORM, mail=FILE_MAIL)
    submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.pdf", PDF)])
    app.mail.deliver_pending()
    assert len(app.smtp.wait_for(1)) == 1
    [row] = rows(app)
    client = sign_in(app, app.people["administrator"])
    page = client.get(f"/admin/form-submissions/{form['id']}/{row['id']}")
    answer = form_with(page, "resend").submit()
    assert answer.status_int == 200 and "queued again" in notices(answer)
    mail_ids = json.loads(rows(app)[0]["mail_ids"])
    assert len(mail_ids) == 2
    assert len(answer.html.select("section[aria-labelledby=mails-heading] tbody tr")) == 2
    app.mail.deliver_pending()
    first, second = app.smtp.wait_for(2)
    assert second["Subject"] == first["Subject"] == "File from Sam"
    assert second["To"] == "office@school.test"
    [attachment] = list(second.iter_attachments())
    assert (attachment.get_filename(), attachment.get_content()) == ("note.pdf", PDF)
    assert second.get_body(("plain",)).get_content().strip() == "See note.pdf."


def test_resend_is_refused_for_a_mail_that_is_off_or_goes_to_the_visitor_and_changes_nothing(app):
    form = create_form(app, mail={"recipient": "[your-email]", "sender": "Riverside <noreply@school.test>",
                                  "subject": "Your copy", "body": "[your-message]"})
    send(app, form["id"])
    [row] = rows(app)
    client = sign_in(app, app.people["administrator"])
    page = client.get(f"/admin/form-submissions/{form['id']}/{row['id']}")
    before = (rows(app), rows(app, "mail_outbox"))
    refused = form_with(page, "resend").submit(status=409)
    assert "address the visitor typed" in notices(refused)
    app.client.post_json(f"{BASE}/{form['id']}", {"mail": {"active": False}}, headers=app.people["editor"].headers)
    refused = form_with(page, "resend").submit(status=409)
    assert "turned off" in notices(refused)
    assert (rows(app), rows(app, "mail_outbox")) == before


def test_deleting_a_submission_removes_it_and_its_files(stored_app):
    app = stored_app
    form = create_form(app, form=FILE_FORM, mail=FILE_MAIL)
    submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.pdf", PDF)])
    send_other = create_form(app, title="Other")
    send(app, send_other["id"])
    first = rows(app)[0]
    assert list(stored_files(app, "form-files")) == [json.loads(first["files"])[0]["path"]]
    client = sign_in(app, app.people["administrator"])
    page = client.get(f"/admin/form-submissions/{form['id']}/{first['id']}")
    # the other form's submission cannot be reached through this form
    client.get(f"/admin/form-submissions/{form['id']}/{rows(app)[1]['id']}", status=404)
    deleted = form_with(page, "delete").submit(status=303)
    assert deleted.headers["Location"].endswith(f"/admin/form-submissions/{form['id']}?deleted=1")
    assert "was deleted" in notices(deleted.follow())
    assert [row["form_id"] for row in rows(app)] == [send_other["id"]]
    assert stored_files(app, "form-files") == {}
    token = csrf_of(client)
    client.post(f"/admin/form-submissions/{form['id']}/{first['id']}", {"csrf_token": token, "action": "delete"},
                status=404)


def test_a_deleted_forms_submissions_stay_readable_and_exportable_but_not_resent(app):
    form = create_form(app)
    send(app, form["id"], **{"your-message": "=1+1"})
    app.client.delete(f"{BASE}/{form['id']}", headers=app.people["editor"].headers)
    client = sign_in(app, app.people["administrator"])
    index = client.get("/admin/form-submissions")
    assert f"Deleted form {form['id']}" in index.text
    [row] = rows(app)
    page = client.get(f"/admin/form-submissions/{form['id']}/{row['id']}")
    assert not [candidate for candidate in page.forms.values() if candidate.fields.get("action")
                and candidate["action"].value == "resend"]
    token = csrf_of(client)
    refused = client.post(f"/admin/form-submissions/{form['id']}/{row['id']}", {"csrf_token": token,
                                                                                 "action": "resend"}, status=409)
    assert "was deleted" in notices(refused)
    table = list(csv.reader(io.StringIO(client.get(f"/admin/form-submissions/{form['id']}/export.csv")
                                        .body.decode("utf-8-sig"))))
    assert table[0] == ["Submission", "Date (UTC)", "Status", "Other fields"]
    assert json.loads(table[1][3]) == {**VALID, "your-message": "=1+1"}  # a JSON object: no formula


def test_with_store_submissions_off_values_and_files_are_not_kept(make_app, smtp_server):
    app = site(make_app, mail=smtp_server.mail_settings(), config={"forms": {"store_submissions": False}})
    form = create_form(app, form=FILE_FORM, mail=FILE_MAIL)
    submit(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.pdf", PDF)])
    [row] = rows(app)
    assert (row["fields"], row["files"], row["remote_ip"], row["user_agent"]) == ("{}", "[]", "", "")
    folder = Path(app.settings.uploads_dir).resolve().parent / "form-files"
    assert not [path for path in folder.rglob("*") if path.is_file()]
    app.mail.deliver_pending()
    [message] = smtp_server.wait_for(1)
    assert [attachment.get_content() for attachment in message.iter_attachments()] == [PDF]
    client = sign_in(app, app.people["administrator"])
    page = client.get(f"/admin/form-submissions/{form['id']}/{row['id']}")
    assert "were not kept" in page.text
    assert "not kept" in notices(form_with(page, "resend").submit(status=409))
