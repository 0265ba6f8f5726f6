"""The form in HTML (its page and the shortcode in a page), demo forms, the CLI, and a real server."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import urllib.request
import uuid

from click.testing import CliRunner

from host.cli import main
from host.testing import TEST_SITE_ADDRESS
from host.testing import start_sitehost, stop_sitehost

from .helpers import BASE, BROWSER, VALID, create_form, site, submit


def hidden_fields(page: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))


def test_the_form_page_carries_the_controls_and_the_hidden_fields(make_app):
    app = site(make_app)
    form = create_form(app, form='<p onclick="x()">Hello <script>alert(1)</script></p>'
                                 '<label>Name [text* your-name placeholder "Jane"]</label> '
                                 '[email* your-email] [select year include_blank "Y7" "Y8"] '
                                 '[checkbox clubs "Chess" "Choir"] [acceptance ok]I agree[/acceptance] '
                                 '[quiz q "2+2?|4"] [file doc filetypes:pdf] [submit "Send it"]')
    page = app.client.get(f"/contact-forms/{form['id']}")
    assert page.status_int == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.text
    fields = hidden_fields(html)
    unit = f"forms-f{form['id']}-p0-o1"
    assert {key: fields[key] for key in ("_forms", "_forms_version", "_forms_locale", "_forms_unit_tag",
                                         "_forms_container_post", "_forms_posted_data_hash")} == {
        "_forms": str(form["id"]), "_forms_version": "1.0.0", "_forms_locale": "en_US", "_forms_unit_tag": unit,
        "_forms_container_post": "0", "_forms_posted_data_hash": ""}
    assert len(fields["_forms_quiz_answer_q"]) == 32
    assert f'<div class="forms" id="{unit}"' in html
    # without JavaScript the form posts to its own page; forms.js sends it to the feedback route
    assert f'action="http://school.test/contact-forms/{form["id"]}"' in html
    assert f'data-forms-feedback="http://school.test/wp-json/forms/v1/contact-forms/{form["id"]}/feedback"' in html
    assert '<script src="/static/forms/forms.js" defer></script>' in html.split("</head>")[0]
    assert 'enctype="multipart/form-data"' in html
    assert '<input type="text" name="your-name" value=""' in html and 'placeholder="Jane"' in html
    assert '<input type="email" name="your-email"' in html and 'aria-required="true"' in html
    assert '<select name="year"' in html and '<option value="Y8">Y8</option>' in html
    assert 'name="clubs[]" value="Chess"' in html
    assert '<input type="file" name="doc"' in html and 'accept=".pdf"' in html
    assert '<input type="submit" value="Send it"' in html
    assert "<script" not in html.split("<main", 1)[1] and "onclick" not in html
    # what the page carries is what the feedback route takes
    response = submit(app, form["id"], {"your-name": "Sam", "your-email": "sam@school.test", "ok": "1", "q": "4",
                                        "_forms_quiz_answer_q": fields["_forms_quiz_answer_q"]},
                      unit_tag=fields["_forms_unit_tag"])
    assert response.json["status"] == "mail_sent" and response.json["into"] == f"#{unit}"


def test_a_missing_form_page_is_404(make_app):
    app = site(make_app)
    assert app.client.get("/contact-forms/999", expect_errors=True).status_int == 404


def test_the_shortcode_renders_the_form_inside_a_published_page(make_app):
    app = site(make_app)
    form = create_form(app)
    page = app.client.post_json("/wp-json/core/v2/pages", {
        "title": "Contact", "status": "publish", "content": f'<p>Write to us.</p>[contact-form id="{form["id"]}" '
                                                            f'title="Enquiry"]'}, headers=app.people["editor"].headers)
    html = app.client.get(f"/?page_id={page.json['id']}").text
    fields = hidden_fields(html)
    assert fields["_forms_unit_tag"] == f"forms-f{form['id']}-p{page.json['id']}-o1"
    assert fields["_forms_container_post"] == str(page.json["id"])
    assert "Write to us." in html
    # the rendering is stored: its form posts to the site address (it was http://localhost before)
    assert f'action="{TEST_SITE_ADDRESS}/contact-forms/{form["id"]}"' in html
    assert f'data-forms-feedback="{TEST_SITE_ADDRESS}/wp-json/forms/v1/contact-forms/{form["id"]}/feedback"' in html


def test_demo_content_has_a_contact_form_and_an_absence_report(make_app, smtp_server):
    app = make_app(plugins=["core", "forms"], mail=smtp_server.mail_settings())
    app.install_site(demo=True)
    from host.testing import create_test_user

    admin = create_test_user(app, "administrator")
    forms = app.client.get(BASE, headers=admin.headers).json
    assert [item["title"] for item in forms] == ["Contact the school office", "Report an absence"]
    for item in forms:
        body = app.client.get(f"{BASE}/{item['id']}", headers=admin.headers).json
        assert body["properties"]["form"]["fields"], item
    absence = forms[1]["id"]
    response = submit(app, absence, {"pupil-name": "Sam Lee", "year-group": "Year 8", "absence-date": "2026-11-25",
                                     "days": "2", "reason": "Illness", "parent-email": "parent@school.test"},
                      unit_tag=f"forms-f{absence}-p0-o1")
    assert response.json["status"] == "mail_sent"
    app.mail.deliver_pending()
    subjects = sorted(message["Subject"] for message in smtp_server.wait_for(2))
    assert subjects == ["Absence: Sam Lee (Year 8) from 2026-11-25", "We received your absence report"]

    contact_page = app.client.get("/wp-json/core/v2/pages?slug=contact").json[0]
    rendered = contact_page["content"]["rendered"]
    assert rendered.startswith("<p>Riverside School, Mill Lane.")  # the demo page's own text stays
    assert f'data-forms-id="{forms[0]["id"]}"' in rendered  # with the contact form embedded below it
    assert "<p><div" not in rendered and "</form></div>" in rendered  # not inside a paragraph
    assert app.client.get(contact_page["link"].replace(TEST_SITE_ADDRESS, "")).html.select_one("article form")


def test_sitehost_forms_submissions(tmp_path):
    from host.app import create_app
    from host.config import load_settings

    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\nuploads_dir = "{tmp_path}/uploads"\n'
                      f'[mail]\neml_dir = "{tmp_path}/mail"\n')
    app = create_app(load_settings(config, env={}))
    app.install_site(demo=True)
    from webtest import TestApp

    app.client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
    from .helpers import LazyUsers

    app.people = LazyUsers(app)
    form = create_form(app)
    submit(app, form["id"], VALID)
    app.close()
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    result = CliRunner().invoke(main, ["--config", str(config), "forms", "submissions"], env=unset)
    assert result.exit_code == 0, result.output
    assert "mail_sent" in result.stdout and "your-name=Sam Parent" in result.stdout
    result = CliRunner().invoke(main, ["--config", str(config), "forms", "submissions", "--json"], env=unset)
    assert json.loads(result.stdout.splitlines()[0])["fields"] == VALID
    result = CliRunner().invoke(main, ["--config", str(config), "forms", "submissions", "--status", "spam"],
                                env=unset)
    assert result.stdout.strip() == "no submissions"


def _multipart(fields: dict[str, str]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
                    for name, value in fields.items()) + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_a_killed_site_loses_no_submission_and_no_mail(tmp_path, smtp_server):
    """Submissions while the mail server is down stay queued; after kill -9 and a restart they are delivered."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    config = tmp_path / "sitehost.toml"
    common = (f'database_url = "sqlite:///{tmp_path}/site.db"\nuploads_dir = "{tmp_path}/uploads"\n'
              '[plugins.forms]\nsubmissions_per_minute = 0\n')
    # Every pass retries at once and fails against the dead port: enough attempts that none is marked failed
    # however slowly a loaded machine submits.
    retries = 'retry_seconds = 0\nmax_attempts = 100\n'
    config.write_text(common + f'[mail]\nsmtp_host = "127.0.0.1"\nsmtp_port = {dead_port}\npoll_seconds = 1\n'
                      + retries)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    process, rest = start_sitehost(config, "--workers", "1", "--quiet", env=env)
    try:
        form_id = _demo_form_id(tmp_path)
        for number in range(3):
            body, content_type = _multipart({"_forms_unit_tag": "forms-x", "your-name": f"Parent {number}",
                                             "your-email": "parent@school.test", "your-subject": "Admissions",
                                             "your-message": "Hello", "privacy": "1"})
            request = urllib.request.Request(f"{rest}/forms/v1/contact-forms/{form_id}/feedback", data=body,
                                             headers={"Content-Type": content_type, **BROWSER})
            assert json.loads(urllib.request.urlopen(request).read())["status"] == "mail_sent"
    finally:
        _kill_between_deliveries(process, tmp_path / "site.db")
    assert smtp_server.messages == []
    config.write_text(common + f'[mail]\nsmtp_host = "127.0.0.1"\nsmtp_port = {smtp_server.port}\npoll_seconds = 1\n'
                      + retries)
    process, _rest = start_sitehost(config, "--workers", "1", "--quiet", env=env)
    try:
        received = smtp_server.wait_for(3, timeout=120)  # a bound, not a timing: a loaded machine restarts slowly
        assert sorted(message["Reply-To"] for message in received) == ["parent@school.test"] * 3
        assert all(message["Subject"] == 'Website enquiry: Admissions' for message in received)
    finally:
        stop_sitehost(process)


def _kill_between_deliveries(process, database) -> None:
    """kill -9 while no delivery pass holds a message: a message claimed by a killed pass waits out its claim
    (five minutes) before another process may send it, longer than this test waits."""
    import sqlite3
    import time

    for _attempt in range(200):
        process.send_signal(signal.SIGSTOP)
        with sqlite3.connect(database, timeout=30) as connection:
            claimed = connection.execute("SELECT count(*) FROM mail_outbox WHERE status = 'sending'").fetchone()[0]
        if not claimed:
            break
        process.send_signal(signal.SIGCONT)
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()


def _demo_form_id(folder) -> int:
    import sqlite3

    with sqlite3.connect(folder / "site.db") as connection:
        return connection.execute("SELECT form_id FROM forms_forms ORDER BY form_id LIMIT 1").fetchone()[0]
