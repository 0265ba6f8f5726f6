"""`sitehost newsletter export` (GDPR evidence) and `send` (a mailing through the outbox, with a progress bar)."""

from __future__ import annotations

import csv
import io

from .cli_helpers import run, write_config
from .helpers import follow, link_in, local, queued_mails, standard_site, text_of


def _confirmed_site(make_app, **app_options):
    site = standard_site(make_app(plugins=["newsletter"], **app_options))
    school = str(site.lists["Whole school"])
    for email, first in (("amira@example.org", "Amira"), ("tom@example.org", "=cmd|' /C calc'!A0")):
        site.sign_up("family", **{"EMAIL": email, "FNAME": first, "_newsletter_lists[]": school})
        follow(site.app.client, local(link_in(queued_mails(site.app)[-1], "/newsletter/confirm")),
                            extra_environ={"REMOTE_ADDR": "198.51.100.8"})
    site.sign_up("family", **{"EMAIL": "pending@example.org", "FNAME": "Pat", "_newsletter_lists[]": school})
    return site


def test_export_lists_confirmed_subscribers_with_consent_evidence(make_app, tmp_path):
    site = _confirmed_site(make_app)
    config = write_config(site.app, tmp_path)
    result = run(config, "export", "whole school", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "exported 2 confirmed subscriber(s) of 'Whole school'" in result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("exported ")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    assert [row["email"] for row in rows] == ["amira@example.org", "tom@example.org"]
    assert list(rows[0]) == ["email", "FNAME", "consent_time_utc", "consent_ip", "requested_utc", "source"]
    assert rows[0]["FNAME"] == "Amira" and rows[1]["FNAME"] == "'=cmd|' /C calc'!A0"  # never a formula
    assert rows[0]["consent_ip"] == "198.51.100.8"
    assert rows[0]["source"] == f"form {site.forms['family']}: Family newsletter"
    assert rows[0]["consent_time_utc"][:4] == rows[0]["requested_utc"][:4] and "T" in rows[0]["consent_time_utc"]
    out = tmp_path / "consent.csv"
    assert run(config, "export", "Whole school", "--output", str(out)).exit_code == 0
    assert out.read_text().count("\n") == 3
    assert "exported 0 confirmed" in run(config, "export", "Year 7 parents").output
    assert run(config, "export", "Whole school", "--format", "xlsx").exit_code == 2


def test_send_queues_one_mail_per_confirmed_subscriber_with_its_unsubscribe_link(make_app, tmp_path):
    site = _confirmed_site(make_app)
    config = write_config(site.app, tmp_path)
    before = len(queued_mails(site.app))
    body = tmp_path / "spring.txt"
    body.write_text("Dear families,\n\nThe spring fair is on Saturday.\n", encoding="utf-8")
    result = run(config, "send", "Whole school", "--subject", "Spring term", "--body-file", str(body))
    assert result.exit_code == 0, result.output
    assert "Queuing mails to Whole school" in result.output
    assert "mailing 1: 2 mail(s) to 'Whole school' queued in the outbox" in result.output
    mails = queued_mails(site.app)[before:]
    assert sorted(mail["To"] for mail in mails) == ["amira@example.org", "tom@example.org"]
    for mail in mails:
        assert mail["Subject"] == "Spring term"
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert mail["List-Unsubscribe"].startswith("<https://school.example/newsletter/unsubscribe?token=")
        assert mail["List-Id"] == f"<list-{site.lists['Whole school']}.newsletter.school.example>"
        text = text_of(mail)
        assert text.startswith("Dear families,\n\nThe spring fair is on Saturday.")
        assert mail["List-Unsubscribe"].strip("<>") in text
    # the link ends this list only
    unsubscribe = local(mails[0]["List-Unsubscribe"].strip("<>"))
    page = site.app.client.post(unsubscribe, "List-Unsubscribe=One-Click",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert "unsubscribed from Whole school" in page.text
    result = run(config, "send", "Whole school", "--subject", "Again", "--body-file", str(body))
    assert "mailing 2: 1 mail(s)" in result.output


def test_send_refuses_what_it_cannot_send(make_app, tmp_path):
    site = _confirmed_site(make_app)
    body = tmp_path / "body.txt"
    body.write_text("Hello\n")
    config = write_config(site.app, tmp_path, site_url="")
    result = run(config, "send", "Whole school", "--site-url", "school.example", "--subject", "S", "--body-file",
                 str(body))
    assert result.exit_code == 1 and "pass --site-url https://www.school.example" in result.output
    assert "1 mail(s)" not in result.output
    (tmp_path / "empty.txt").write_text("  \n")
    for args, message in [(["--subject", "S", "--body-file", str(tmp_path / "empty.txt")], "is empty"),
                          (["--subject", "Two\nlines", "--body-file", str(body)], "--subject must be one line"),
                          (["--subject", "", "--body-file", str(body)], "--subject must be one line")]:
        result = run(config, "send", "Whole school", "--site-url", "https://school.example", *args)
        assert result.exit_code == 1 and message in result.output
    before = len(queued_mails(site.app))
    result = run(config, "send", "Whole school", "--site-url", "https://school.example/", "--subject", "S",
                 "--body-file", str(body))
    assert result.exit_code == 0 and len(queued_mails(site.app)) == before + 2


def test_send_with_deliver_hands_the_mails_to_the_smtp_server(make_app, tmp_path, smtp_server):
    site = _confirmed_site(make_app, mail=smtp_server.mail_settings())
    site.app.mail.deliver_pending()
    confirmations = len(smtp_server.wait_for(3))
    config = write_config(site.app, tmp_path, mail=smtp_server.mail_settings())
    (tmp_path / "body.txt").write_text("Sports day moved to Friday.\n")
    result = run(config, "send", "1", "--subject", "Sports day", "--body-file", str(tmp_path / "body.txt"),
                 "--deliver")
    assert result.exit_code == 0 and "2 mail(s)" in result.output and "2 delivered now" in result.output
    received = smtp_server.wait_for(confirmations + 2)[confirmations:]
    assert sorted(message["To"] for message in received) == ["amira@example.org", "tom@example.org"]
    assert all(message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" for message in received)
