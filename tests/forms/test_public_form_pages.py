"""A form's page as a visitor without JavaScript uses it: the form posts to its own page, which runs the
feedback route and shows every state there (sent, each field's error, spam, acceptance missing, aborted,
file uploads, the rate limit, a post from another site), and the script that sends it in place."""

from __future__ import annotations

import json

import html5lib
import pytest
from bs4 import BeautifulSoup
from sqlalchemy import select

from host.testing import make_plugin

from .helpers import BROWSER, VALID, create_form, site

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
SITE = "http://school.test"


def parsed(text: str) -> BeautifulSoup:
    """The page, after html5lib parsed it strictly (any parse error fails the test)."""
    html5lib.HTMLParser(strict=True).parse(text)
    return BeautifulSoup(text, "html.parser")


def stored(app) -> list[dict]:
    table = app.db.metadata.tables["forms_submissions"]
    with app.db.session() as session:
        return [dict(row) for row in session.execute(select(table).order_by(table.c.id)).mappings()]


def hidden_fields(page: BeautifulSoup) -> list[tuple[str, str]]:
    return [(field["name"], field["value"]) for field in page.select("form.forms-form input[type=hidden]")]


def post_page(app, form_id: int, fields: dict, *, files=(), status=None, headers=None, page_path=None,
              address="203.0.113.9"):
    """Open the form's page (or `page_path`), then post its form as a browser does without JavaScript."""
    opened = parsed(app.client.get(page_path or f"/contact-forms/{form_id}", headers=BROWSER).text)
    form = opened.select_one("form.forms-form")
    pairs = hidden_fields(opened)
    for name, value in fields.items():
        pairs.extend((name, item) for item in value) if isinstance(value, list) else pairs.append((name, value))
    action = form["action"].replace(SITE, "")
    return app.client.post(action, pairs, upload_files=list(files), content_type="multipart/form-data",
                           headers={**BROWSER, "Origin": SITE, **(headers or {})}, status=status,
                           expect_errors=status is not None, extra_environ={"REMOTE_ADDR": address})


def wrap(page: BeautifulSoup, name: str):
    return page.select_one(f'.forms-form-control-wrap[data-name="{name}"]')


def assert_no_json(response) -> None:
    assert response.headers["Content-Type"].startswith("text/html")
    assert not response.text.lstrip().startswith("{")


def test_a_valid_submission_without_javascript_is_sent_and_the_form_is_shown_empty_again(make_app):
    app = site(make_app)
    form = create_form(app)
    response = post_page(app, form["id"], VALID)
    assert response.status_int == 200
    assert_no_json(response)
    assert response.headers["Cache-Control"] == "no-store"
    page = parsed(response.text)
    shown = page.select_one("form.forms-form")
    assert "sent" in shown["class"] and shown["data-status"] == "sent"
    assert page.select_one(".forms-response-output[role=alert]").get_text() == "Thank you, your message has been sent."
    assert shown["action"] == f"{SITE}/contact-forms/{form['id']}"
    assert page.select_one('input[name="your-name"]')["value"] == ""  # cleared on success
    assert page.select_one("textarea").get_text() == ""
    assert not page.select(".forms-not-valid-tip")
    [submission] = stored(app)
    assert submission["status"] == "mail_sent" and json.loads(submission["fields"])["your-name"] == "Sam Parent"
    assert submission["remote_ip"] == "203.0.113.9"


def test_each_invalid_field_shows_its_error_beside_it_and_the_values_are_kept_escaped(make_app):
    app = site(make_app)
    form = create_form(app)
    sent = {"your-name": "", "your-email": "not an address", "your-message": '<b>Sam & "co"</b></textarea>'}
    response = post_page(app, form["id"], sent, status=400)
    assert_no_json(response)
    page = parsed(response.text)
    shown = page.select_one("form.forms-form")
    assert "invalid" in shown["class"] and shown["data-status"] == "invalid"
    assert page.select_one(".forms-response-output").get_text() == \
        "Some fields need your attention. Please check them and send again."
    unit = f"forms-f{form['id']}-p0-o1"
    for name, message in (("your-name", "Please fill in this field."),
                          ("your-email", "Please enter an email address.")):
        control = wrap(page, name).select_one(".forms-form-control")
        tip = wrap(page, name).select_one(".forms-not-valid-tip")
        assert tip.get_text() == message and tip["id"] == f"{unit}-ve-{name}"
        assert control["aria-invalid"] == "true" and control["aria-describedby"] == tip["id"]
        assert "forms-not-valid" in control["class"]
    message_control = wrap(page, "your-message").select_one("textarea")
    assert message_control["aria-invalid"] == "false" and not wrap(page, "your-message").select(".forms-not-valid-tip")
    # the visitor's values come back, escaped: no markup of theirs reaches the page
    assert page.select_one('input[name="your-email"]')["value"] == "not an address"
    assert message_control.get_text() == '<b>Sam & "co"</b></textarea>'
    assert "<b>Sam" not in response.text and "&lt;b&gt;Sam &amp; &#34;co&#34;&lt;/b&gt;&lt;/textarea&gt;" in response.text
    assert stored(app)[0]["status"] == "validation_failed"


def test_an_unchecked_acceptance_box_is_acceptance_missing_with_the_values_kept(make_app):
    app = site(make_app)
    form = create_form(app, form="<label>Name [text* your-name]</label> [email* your-email] [textarea your-message] "
                                 "[acceptance ok]I agree[/acceptance] [submit]")
    response = post_page(app, form["id"], VALID, status=400)
    page = parsed(response.text)
    assert page.select_one("form.forms-form")["data-status"] == "unaccepted"
    assert page.select_one(".forms-response-output").get_text() == \
        "Please accept the terms before sending your message."
    assert page.select_one('input[name="your-name"]')["value"] == "Sam Parent"
    assert not page.select_one('input[name="ok"]').has_attr("checked")
    accepted = post_page(app, form["id"], {**VALID, "ok": "1"})
    assert parsed(accepted.text).select_one("form.forms-form")["data-status"] == "sent"
    assert [row["status"] for row in stored(app)] == ["acceptance_missing", "mail_sent"]


def test_spam_is_answered_with_the_spam_message_and_nothing_is_mailed(make_app):
    def check_spam(app, submission):
        return {"spam": "casino" in submission["content"], "reason": "a disallowed word"}

    app = site(make_app, extra_plugins=[make_plugin("spamcheck", check_spam=check_spam)])
    form = create_form(app)
    response = post_page(app, form["id"], {**VALID, "your-message": "Visit my casino"})
    assert response.status_int == 200
    page = parsed(response.text)
    assert page.select_one("form.forms-form")["data-status"] == "spam"
    assert page.select_one(".forms-response-output").get_text() == \
        "Sorry, your message could not be sent. Please try again later."
    short_agent = post_page(app, form["id"], VALID, headers={"User-Agent": "x"})
    assert parsed(short_agent.text).select_one("form.forms-form")["data-status"] == "spam"
    assert [row["status"] for row in stored(app)] == ["spam", "spam"]
    assert [json.loads(row["mail_ids"]) for row in stored(app)] == [[], []]


def test_an_aborted_submission_says_so(make_app):
    def forms_before_send_mail(app, form_id, submission):
        return {"abort": True, "message": "The office is closed for the holidays."}

    app = site(make_app, extra_plugins=[make_plugin("closer", forms_before_send_mail=forms_before_send_mail)])
    form = create_form(app)
    page = parsed(post_page(app, form["id"], VALID).text)
    assert page.select_one("form.forms-form")["data-status"] == "aborted"
    assert page.select_one(".forms-response-output").get_text() == "The office is closed for the holidays."


def test_a_file_upload_without_javascript_is_stored_and_a_refused_type_is_a_field_error(make_app):
    app = site(make_app)
    form = create_form(app, form="<label>Name [text* your-name]</label> <label>Note [file doc filetypes:pdf]</label> "
                                 "[submit]", mail={"recipient": "office@school.test", "sender": "noreply@school.test",
                                                   "subject": "File", "body": "See [doc].", "attachments": "[doc]"})
    refused = post_page(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.exe", b"MZ\x90\x00")],
                        status=400)
    tip = wrap(parsed(refused.text), "doc").select_one(".forms-not-valid-tip")
    assert tip.get_text() in ("Files of this type are not accepted.", "You are not allowed to upload files of this type.")
    response = post_page(app, form["id"], {"your-name": "Sam"}, files=[("doc", "note.pdf", PDF)])
    assert parsed(response.text).select_one("form.forms-form")["data-status"] == "sent"
    kept = json.loads(stored(app)[-1]["files"])
    assert [(item["field"], item["name"], item["size"]) for item in kept] == [("doc", "note.pdf", len(PDF))]


def test_past_the_rate_limit_the_page_answers_429_with_the_values_kept(make_app):
    app = site(make_app)
    form = create_form(app, additional_settings="submissions_per_minute: 1")
    assert post_page(app, form["id"], VALID).status_int == 200
    response = post_page(app, form["id"], VALID, status=429)
    assert response.headers["Retry-After"].isdigit()
    assert_no_json(response)
    page = parsed(response.text)
    assert page.select_one("form.forms-form")["data-status"] == "failed"
    assert page.select_one(".forms-response-output").get_text().strip()
    assert page.select_one('input[name="your-name"]')["value"] == "Sam Parent"
    assert len(stored(app)) == 1
    assert post_page(app, form["id"], VALID, address="203.0.113.10").status_int == 200  # another visitor


def test_a_post_from_another_site_is_refused_and_changes_nothing(make_app):
    app = site(make_app)
    form = create_form(app)
    for claimed in ({"Origin": "https://evil.test"}, {"Origin": "", "Referer": "https://evil.test/page"},
                    {"Origin": "http://school.test.evil.test"}):
        response = post_page(app, form["id"], VALID, headers=claimed, status=403)
        page = parsed(response.text)
        assert page.select_one(".forms-response-output").get_text() == \
            "This form can only be sent from this site's own pages."
    assert stored(app) == []
    same_site = post_page(app, form["id"], VALID, headers={"Origin": "", "Referer": f"{SITE}/contact/"})
    assert same_site.status_int == 200 and len(stored(app)) == 1


def test_refusals_before_the_form_is_processed_are_pages_with_the_reason(make_app):
    app = site(make_app)
    form = create_form(app)
    missing = app.client.post("/contact-forms/999999", {"your-name": "x"}, headers={**BROWSER, "Origin": SITE},
                              status=404)
    assert_no_json(missing)
    parsed(missing.text)
    no_unit = app.client.post(f"/contact-forms/{form['id']}", [("your-name", "Sam")], headers={**BROWSER, "Origin": SITE},
                              content_type="multipart/form-data", status=400)
    assert parsed(no_unit.text).select_one(".forms-response-output").get_text() == "There is no valid unit tag."
    assert stored(app) == []


def test_a_body_over_the_site_limit_is_refused_before_it_is_read(make_app):
    app = site(make_app, max_body_bytes=2000)
    form = create_form(app)
    too_large = post_page(app, form["id"], {**VALID, "your-message": "x" * 3000}, status=413)
    page = parsed(too_large.text)
    assert page.select_one(".forms-response-output").get_text() == "The form is larger than the limit of 2,000 bytes."
    assert stored(app) == []


def test_a_quiz_gets_a_new_question_after_a_wrong_answer(make_app):
    app = site(make_app)
    form = create_form(app, form='<label>Name [text* your-name]</label> [quiz q "2+2?|4"] [submit]')
    opened = app.client.get(f"/contact-forms/{form['id']}")
    assert opened.headers["Cache-Control"] == "no-store"
    response = post_page(app, form["id"], {"your-name": "Sam", "q": "5"}, status=400)
    page = parsed(response.text)
    assert wrap(page, "q").select_one(".forms-not-valid-tip").get_text()
    assert not page.select_one('input[name="q"]').has_attr("value")  # a new question: the old answer is gone
    assert dict(hidden_fields(page))["_forms_quiz_answer_q"]
    assert parsed(post_page(app, form["id"], {"your-name": "Sam", "q": "4"}).text).select_one(
        "form.forms-form")["data-status"] == "sent"


def test_a_form_without_quiz_or_nonce_may_be_cached_and_its_page_links_the_script(make_app):
    app = site(make_app)
    form = create_form(app)
    opened = app.client.get(f"/contact-forms/{form['id']}")
    assert "no-store" not in opened.headers.get("Cache-Control", "")
    page = parsed(opened.text)
    assert page.select_one('head script[src="/static/forms/forms.js"][defer]')
    assert page.select_one('head link[rel=stylesheet][href="/static/forms/forms.css"]')
    assert not [script for script in page.select("script") if script.string]  # no inline script
    script = app.client.get("/static/forms/forms.js")
    assert script.status_int == 200 and "javascript" in script.headers["Content-Type"]
    assert "data-forms-feedback" in script.text


def test_the_shortcode_posts_to_the_form_page_which_links_back_to_the_page_it_is_on(make_app):
    app = site(make_app)
    form = create_form(app)
    editor = app.people["editor"].headers
    contact = app.client.post_json("/wp-json/core/v2/pages", {
        "title": "Contact us", "status": "publish", "content": f'[contact-form id="{form["id"]}"]'},
        headers=editor).json
    draft = app.client.post_json("/wp-json/core/v2/pages", {
        "title": "Secret plans for the staff party", "status": "draft",
        "content": f'[contact-form id="{form["id"]}"]'}, headers=editor).json
    response = post_page(app, form["id"], VALID, page_path=f"/?page_id={contact['id']}")
    page = parsed(response.text)
    assert page.select_one("form.forms-form")["data-status"] == "sent"
    assert page.select_one(".forms-back a")["href"] == f"{SITE}/?page_id={contact['id']}"
    assert stored(app)[0]["container_post"] == contact["id"]
    # a visitor who names a draft as the container learns nothing about it
    opened = parsed(app.client.get(f"/contact-forms/{form['id']}").text)
    pairs = [(name, str(draft["id"]) if name == "_forms_container_post" else value)
             for name, value in hidden_fields(opened)] + list(VALID.items())
    answer = app.client.post(f"/contact-forms/{form['id']}", pairs, content_type="multipart/form-data",
                             headers={**BROWSER, "Origin": SITE})
    assert "Secret plans" not in answer.text and not parsed(answer.text).select(".forms-back")
    parsed(answer.text)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_form_that_is_not_published_has_no_page(make_app, method):
    app = site(make_app)
    form = create_form(app)
    app.client.delete(f"/wp-json/forms/v1/contact-forms/{form['id']}", headers=app.people["editor"].headers)
    response = app.client.request(f"/contact-forms/{form['id']}", method=method, headers={**BROWSER, "Origin": SITE},
                                  status=404)
    assert "Enquiry" not in response.text
    parsed(response.text)


# --- in a real browser, against a real `sitehost serve` -----------------------------------------


def demo_contact_page(site: str, rest: str) -> tuple[str, int]:
    """(address of the demo's Contact page, id of the form on it)."""
    import re
    import urllib.request

    with urllib.request.urlopen(f"{rest}/core/v2/pages?slug=contact") as response:
        contact = json.load(response)[0]
    form_id = int(re.search(r'data-forms-id="(\d+)"', contact["content"]["rendered"]).group(1))
    return contact["link"].replace(contact["link"].split("/?")[0], site), form_id


def fill_contact_form(page, message: str, accept: bool = True) -> None:
    """The demo form, filled in; each submission needs a message of its own (the spam filter marks repeats)."""
    page.get_by_label("Your name").fill("Sam Parent")
    page.get_by_label("Your email").fill("sam@school.test")
    page.get_by_label("Subject").select_option(label="Timetable and lessons")
    page.get_by_label("Your message").fill(message)
    if accept:
        page.get_by_label("I agree that the school keeps my message to answer it.").check()


def test_a_visitor_sends_the_contact_form_in_place_with_javascript_and_on_its_page_without(browser, tmp_path):
    from playwright.sync_api import expect

    from host.testing import stop_sitehost
    from tests.admin.served import init_site, serve

    config, _login, _password = init_site(tmp_path, demo=True)
    process, site, rest = serve(config, workers="1")
    try:
        contact, form_id = demo_contact_page(site, rest)
        feedback = f"{rest}/forms/v1/contact-forms/{form_id}/feedback"

        # With JavaScript: every answer is shown in the form, and the page never changes.
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text)
                if message.type == "error" and "404" not in message.text else None)  # a missing favicon
        page.goto(contact)
        page.evaluate("window.stillTheSamePage = true")
        form = page.locator("form.forms-form")
        output = form.locator(".forms-response-output")
        send = page.get_by_role("button", name="Send message")

        send.click()
        expect(form).to_have_attribute("data-status", "invalid")
        expect(output).to_have_text("Some fields need your attention. Please check them and send again.")
        expect(output).to_have_attribute("role", "alert")
        name = page.get_by_label("Your name")
        expect(name).to_have_attribute("aria-invalid", "true")
        tip = page.locator('[data-name="your-name"] .forms-not-valid-tip')
        expect(tip).to_have_text("Please fill in this field.")
        expect(name).to_have_attribute("aria-describedby", tip.get_attribute("id"))

        fill_contact_form(page, "Is there a school bus on Friday afternoon?", accept=False)
        send.click()
        expect(form).to_have_attribute("data-status", "unaccepted")
        expect(output).to_have_text("Please accept the terms before sending your message.")
        expect(page.locator(".forms-not-valid-tip")).to_have_count(0)
        expect(name).to_have_attribute("aria-invalid", "false")

        # The button is off while the form is on its way.
        held = []
        page.route(feedback, lambda route: held.append(route))
        page.get_by_label("I agree that the school keeps my message to answer it.").check()
        send.click()
        expect(send).to_be_disabled()
        expect(form).to_have_attribute("data-status", "submitting")
        for _ in range(300):  # until the held request reached the route handler
            if held:
                break
            page.wait_for_timeout(100)
        held[0].continue_()
        expect(form).to_have_attribute("data-status", "sent")
        expect(form).to_have_class("forms-form sent")
        expect(output).to_have_text("Thank you, your message has been sent.")
        expect(send).to_be_enabled()
        expect(name).to_have_value("")  # the form is reset
        page.unroute(feedback)
        assert page.evaluate("window.stillTheSamePage") is True and page.url == contact
        assert errors == []
        context.close()

        # A spam verdict (a browser whose User-Agent is too short to be one) is shown as spam.
        context = browser.new_context(user_agent="x")
        page = context.new_page()
        page.goto(contact)
        fill_contact_form(page, "Which day is the Year 8 rocket launch?")
        page.get_by_role("button", name="Send message").click()
        expect(page.locator("form.forms-form")).to_have_attribute("data-status", "spam")
        expect(page.locator(".forms-response-output")).to_have_text(
            "Sorry, your message could not be sent. Please try again later.")
        context.close()

        # Without JavaScript: the form posts to its page, which shows the result.
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(contact)
        page.get_by_label("Your email").fill("not an address")
        page.get_by_role("button", name="Send message").click()
        page.wait_for_url(f"{site}/contact-forms/{form_id}")
        expect(page.locator("form.forms-form")).to_have_attribute("data-status", "invalid")
        expect(page.locator('[data-name="your-email"] .forms-not-valid-tip')).to_have_text(
            "Please enter an email address.")
        expect(page.get_by_label("Your email")).to_have_value("not an address")
        fill_contact_form(page, "May my son leave early on Tuesday for the dentist?")
        page.get_by_role("button", name="Send message").click()
        expect(page.locator(".forms-response-output")).to_have_text("Thank you, your message has been sent.")
        expect(page.get_by_label("Your name")).to_have_value("")
        page.get_by_role("link", name="Back to the page the form is on").click()
        expect(page.locator("form.forms-form")).to_have_attribute("data-status", "init")
        context.close()
    finally:
        stop_sitehost(process)
