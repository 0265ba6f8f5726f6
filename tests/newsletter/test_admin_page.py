"""The Newsletter admin page (/admin/newsletter) over WebTest with real sign-in and CSRF: lists (create,
rename, delete), subscribers and their consent records, CSV import in both modes with bad rows by line
number, confirmation mails sent again, the streamed export and mailings with their sending progress
(delivered to a real aiosmtpd server). Each error, and that a refused post changes nothing."""

from __future__ import annotations

import csv
import io

import pytest
from webtest import Upload

from host.testing import create_test_user

from tests.admin.helpers import form_with, sign_in

from .helpers import API, follow, link_in, local, queued_mails, standard_site, text_of

PAGE = "/admin/newsletter"


@pytest.fixture
def office(make_app, smtp_server):
    site = standard_site(make_app(plugins=["newsletter"], mail=smtp_server.mail_settings()))
    site.smtp = smtp_server
    site.browser = sign_in(site.app, site.admin_user)
    return site


def error_of(page, name: str) -> str:
    element = page.html.select_one(f"#field-{name}-error")
    assert element is not None, f"no error beside {name}"
    return element.text


def lists(site) -> dict[str, int]:
    return {row["name"]: row["subscribers"] for row in site.admin.get(API + "/lists").json}


def cells(page, column: str) -> list[str]:
    return [cell.text.strip() for cell in page.html.select(f"main tbody td[data-label='{column}']")]


def upload(site, content: str, list_name: str = "Whole school", mode: str = "confirm", consent: str = "",
           status: int = 200, file_name: str = "families.csv"):
    page = site.browser.get(PAGE + "/import")
    form = form_with(page, "import", list=str(site.lists[list_name]), consent=consent)
    form["mode"] = mode
    form["file"] = Upload(file_name, content.encode("utf-8"), "text/csv")
    return form.submit(status=status)


def test_lists_are_created_renamed_and_deleted_with_each_error(office):
    page = office.browser.get(PAGE)
    assert cells(page, "List")[0].startswith("Whole school") or "Whole school" in page.text
    assert [th.text for th in page.html.select("main thead th[scope=col]")][:2] == ["List", "Waiting to confirm"]
    empty = form_with(page, "create-list", name=" ").submit(status=400)
    assert error_of(empty, "name") == "Give the list a name."
    taken = form_with(page, "create-list", name="WHOLE SCHOOL").submit(status=400)
    assert error_of(taken, "name") == "Another list has that name."
    assert taken.html.select_one("#field-name")["value"] == "WHOLE SCHOOL"
    assert len(lists(office)) == 2
    made = form_with(page, "create-list", name="Sports club", description="Fixtures and results").submit(status=201)
    assert "Sports club</strong> created" in made.html.select_one(".notice.success").decode_contents()
    assert lists(office)["Sports club"] == {"pending": 0, "confirmed": 0, "unsubscribed": 0}
    club = form_with(made, "rename-list", _match={"list": str(max(row["id"] for row in office.admin.get(
        API + "/lists").json))})
    club["rename"] = "Year 7 parents"
    clash = club.submit(status=400)
    error = clash.html.select_one("td[data-label=Rename] .field-error")
    assert error is not None and error.text == "Another list has that name."
    club["rename"] = "Sports and clubs"
    renamed = club.submit(status=200)
    assert "renamed to <strong>Sports and clubs</strong>" in renamed.text
    assert "Sports and clubs" in lists(office) and "Sports club" not in lists(office)
    delete = form_with(renamed, "delete-list", _match={"list": club["list"].value})
    gone = delete.submit(status=200)
    assert "deleted with its 0 subscription(s)" in gone.text and "Sports and clubs" not in lists(office)
    assert "no longer exists" in delete.submit(status=409).text  # the same form again
    assert "no longer exists" in club.submit(status=409).text
    assert office.browser.get(PAGE + "/nonesuch", status=404)


def test_import_with_confirmation_mails_reports_bad_rows_and_skips_duplicates(office):
    office.sign_up("family", **{"EMAIL": "known@example.org", "FNAME": "Kim",
                                "_newsletter_lists[]": str(office.lists["Whole school"])})
    mails_before = len(queued_mails(office.app))
    content = ("email,name\n"
               "ana@example.org,Ana\n"
               "not-an-address,Bad\n"
               "known@example.org,Kim\n"
               "ANA@example.org,Ana again\n"
               ",Empty\n"
               "=cmd@example.org,Formula\n")
    answer = upload(office, content)
    assert "2 added as pending, 2 confirmation mail(s) queued" in answer.html.select_one(".notice").text
    report = dict(zip([dt.text for dt in answer.html.select("dl.facts dt")],
                      [dd.text for dd in answer.html.select("dl.facts dd")]))
    assert report["Added"] == "2" and report["Already on the list"].startswith("2")
    assert report["Rows with errors"] == "2"
    problems = [item.text for item in answer.html.select("ul.import-problems li")]
    assert [problem.split(":")[0] for problem in problems] == ["line 3", "line 6"]
    new_mails = queued_mails(office.app)[mails_before:]
    assert sorted(mail["To"] for mail in new_mails) == ["=cmd@example.org", "ana@example.org"]
    subscribers = {row["email"]: row for row in office.subscribers(list=office.lists["Whole school"])}
    assert subscribers["ana@example.org"]["fields"] == {"NAME": "Ana"}
    assert subscribers["ana@example.org"]["subscriptions"][0]["status"] == "pending"
    # confirmation mails again, to those still pending (Kim from the form, Ana and =cmd from the import)
    page = office.browser.get(PAGE)
    again = form_with(page, "send-confirmations", _match={"list": str(office.lists["Whole school"])}).submit(
        status=303)
    assert "3 confirmation mail(s) queued" in again.follow().html.select_one(".notice.success").text
    resent = queued_mails(office.app)[mails_before + 2:]
    assert sorted(mail["To"] for mail in resent) == ["=cmd@example.org", "ana@example.org", "known@example.org"]
    follow(office.app.client, local(link_in(resent[0], "/newsletter/confirm")),
           extra_environ={"REMOTE_ADDR": "198.51.100.20"})
    assert lists(office)["Whole school"]["confirmed"] == 1
    # nobody pending on the other list: refused, nothing sent
    count = len(queued_mails(office.app))
    refused = office.browser.post(PAGE, {"csrf_token": form_with(page, "create-list")["csrf_token"].value,
                                         "action": "send-confirmations", "list": str(office.lists["Year 7 parents"])},
                                  status=409)
    assert "nothing was sent" in refused.text and len(queued_mails(office.app)) == count


def test_import_as_confirmed_keeps_the_operators_statement_as_consent_evidence(office):
    missing = upload(office, "email\nlee@example.org\n", mode="confirmed", status=400)
    assert "how and when" in error_of(missing, "consent")
    assert office.subscribers() == []
    before = len(queued_mails(office.app))
    statement = "Paper form signed at the Year 7 parents' evening, 12 September"
    done = upload(office, "EMAIL,FNAME\nlee@example.org,Lee\n", list_name="Year 7 parents", mode="confirmed",
                  consent=statement)
    assert "1 added as confirmed" in done.text and len(queued_mails(office.app)) == before  # no mail
    [subscriber] = office.subscribers()
    membership = subscriber["subscriptions"][0]
    assert membership["status"] == "confirmed" and membership["confirmed"] is not None
    assert membership["source"] == f"import by {office.admin_user.login}: families.csv"
    detail = office.browser.get(f"{PAGE}/subscribers/{subscriber['id']}")
    assert cells(detail, "What") == ["confirmed"] and cells(detail, "How") == ["import"]
    assert cells(detail, "Agreed to") == [statement]
    assert cells(detail, "Source") == [f"import by {office.admin_user.login}: families.csv"] * 2  # list + record
    again = upload(office, "email\nlee@example.org\n", list_name="Year 7 parents", mode="confirmed",
                   consent=statement)
    assert "0 added" in again.text and len(office.subscribers()) == 1


def test_import_errors_change_nothing(office):
    page = office.browser.get(PAGE + "/import")
    bare = form_with(page, "import").submit(status=400)
    assert error_of(bare, "list") == "Choose one of the lists." and error_of(bare, "file") == "Choose a CSV file."
    assert "email" in error_of(upload(office, "name\nAna\n", status=400), "file")
    assert "UTF-8" in error_of(_latin1_upload(office), "file")
    huge = upload(office, "email,note\nana@example.org,fine\nben@example.org,\"" + "x" * 200_000 + "\"\n", status=400)
    assert "Line 3: the file is not valid CSV" in error_of(huge, "file")
    assert "Nothing was imported" in error_of(huge, "file")  # ana, before the bad line, neither
    assert office.subscribers() == [] and queued_mails(office.app) == []


def _latin1_upload(office):
    page = office.browser.get(PAGE + "/import")
    form = form_with(page, "import", list=str(office.lists["Whole school"]))
    form["file"] = Upload("latin.csv", "email,name\nzoe@example.org,Zoë\n".encode("latin-1"), "text/csv")
    return form.submit(status=400)


def test_subscribers_are_filtered_and_show_their_consent_records(office):
    school = str(office.lists["Whole school"])
    office.sign_up("family", environ={"REMOTE_ADDR": "203.0.113.50"},
                   **{"EMAIL": "amira@example.org", "FNAME": "Amira", "_newsletter_lists[]": school})
    follow(office.app.client, local(link_in(queued_mails(office.app)[-1], "/newsletter/confirm")),
           extra_environ={"REMOTE_ADDR": "198.51.100.8"})
    office.sign_up("family", **{"EMAIL": "pat@example.org", "FNAME": "Pat", "_newsletter_lists[]": school})
    page = office.browser.get(PAGE + "/subscribers")
    assert cells(page, "Email") == ["amira@example.org", "pat@example.org"]
    assert cells(page, "Name") == ["Amira", "Pat"]
    assert "Whole school: confirmed" in cells(page, "Lists")[0]
    assert cells(office.browser.get(PAGE + "/subscribers", {"status": "pending"}), "Email") == ["pat@example.org"]
    assert cells(office.browser.get(PAGE + "/subscribers", {"search": "AMI"}), "Email") == ["amira@example.org"]
    assert cells(office.browser.get(PAGE + "/subscribers", {"list": office.lists["Year 7 parents"]}), "Email") == []
    detail = office.browser.get(page.html.select_one("td[data-label=Email] a")["href"])
    assert cells(detail, "What") == ["requested", "confirmed"]
    assert cells(detail, "How") == ["form", "link"]
    assert cells(detail, "Source")[-2:] == [f"form {office.forms['family']}: Family newsletter", "confirmation link"]
    assert "to receive: Whole school" in cells(detail, "Agreed to")[0]
    hashes = [code["title"] for code in detail.html.select("td[data-label='Address hash'] code")]
    assert len(hashes) == 2 and len(set(hashes)) == 2 and all(len(value) == 64 for value in hashes)
    assert "203.0.113.50" not in detail.text.split("Consent records")[1]
    assert office.browser.get(PAGE + "/subscribers/99999", status=404)
    # unsubscribing is recorded too, and erasure takes the records with the person
    follow(office.app.client, local(link_in(queued_mails(office.app)[-1], "/newsletter/unsubscribe")))
    pat = office.subscribers(search="pat")[0]
    assert cells(office.browser.get(f"{PAGE}/subscribers/{pat['id']}"), "What") == ["requested", "unsubscribed"]
    office.admin.delete(f"{API}/subscribers/{pat['id']}", {"force": "true"})
    assert office.browser.get(f"{PAGE}/subscribers/{pat['id']}", status=404)


def test_export_streams_confirmed_subscribers_as_formula_safe_csv(office):
    school = office.lists["Whole school"]
    upload(office, "email,FNAME\n=cmd@example.org,@SUM(A1)\nana@example.org,Ana\n", mode="confirmed",
           consent="Signed the paper form")
    upload(office, "email\nwaiting@example.org\n")
    page = office.browser.get(PAGE)
    link = page.html.select_one(f"a[href$='export?list={school}']")
    answer = office.browser.get(link["href"])
    assert answer.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert answer.headers["Content-Disposition"].startswith(f"attachment; filename=\"newsletter-list-{school}-")
    assert answer.headers["Cache-Control"] == "no-store" and answer.headers["X-Content-Type-Options"] == "nosniff"
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert [row["email"] for row in rows] == ["'=cmd@example.org", "ana@example.org"]
    assert rows[0]["FNAME"] == "'@SUM(A1)" and rows[0]["source"].startswith("import by ")
    assert list(rows[0]) == ["email", "FNAME", "consent_time_utc", "consent_ip", "requested_utc", "source"]
    assert office.browser.get(PAGE + "/export", {"list": 99999}, status=404)
    assert office.browser.get(PAGE + "/export", status=404)
    editor = create_test_user(office.app, "editor")
    assert sign_in(office.app, editor).get(f"{PAGE}/export?list={school}", status=403)


def test_mailings_are_queued_and_their_progress_read_from_the_outbox(office):
    school = str(office.lists["Whole school"])
    upload(office, "email\nana@example.org\nben@example.org\n", mode="confirmed", consent="Paper forms")
    page = office.browser.get(PAGE + "/mailings")
    assert "No mailings yet" in page.text
    bad = form_with(page, "send-mailing", subject="", body=" ").submit(status=400)
    assert error_of(bad, "list") and error_of(bad, "subject") and error_of(bad, "body")
    empty = form_with(page, "send-mailing", list=str(office.lists["Year 7 parents"]), subject="Trip",
                      body="Hello").submit(status=409)
    assert "no confirmed subscribers" in empty.text
    assert office.app.mail.outbox() == []
    queued = form_with(page, "send-mailing", list=school, subject="Spring fair",
                       body="Dear families,\r\nThe fair is on Saturday.").submit(status=303)
    assert queued.headers["Location"].endswith(f"{PAGE}/mailings?queued=1")  # a reload never sends it again
    sent = queued.follow()
    assert "2 mail(s) to <strong>Whole school</strong>" in sent.text
    assert sent.html.select_one("#field-subject")["value"] == ""  # an empty form for the next mailing
    assert cells(sent, "Subject") == ["Spring fair"] and cells(sent, "Recipients") == ["2"]
    assert (cells(sent, "Waiting"), cells(sent, "Sent"), cells(sent, "Failed")) == (["2"], ["0"], ["0"])
    assert office.app.mail.deliver_pending() == 2
    received = office.smtp.wait_for(2)
    assert sorted(message["To"] for message in received) == ["ana@example.org", "ben@example.org"]
    assert "The fair is on Saturday." in text_of(received[0])
    after = office.browser.get(PAGE + "/mailings")
    assert (cells(after, "Waiting"), cells(after, "Sent"), cells(after, "Failed")) == (["0"], ["2"], ["0"])


def test_the_page_is_for_administrators_only(office):
    editor = create_test_user(office.app, "editor")
    client = sign_in(office.app, editor)
    assert client.get(PAGE, status=403) and client.get(PAGE + "/import", status=403)
