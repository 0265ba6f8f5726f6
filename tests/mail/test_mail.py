"""host.mail: the durable outbox, delivery over real SMTP (aiosmtpd), retries, .eml files, settings, CLI."""

from __future__ import annotations

import os
import socket
import time

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from host.cli import main
from host.config import ConfigError
from host.mail import Attachment, Message
from host.testing import mail_header_problems, start_sitehost, stop_sitehost

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
INJECTING_WORD = "=?utf-8?q?Hi=0D=0ABcc=3A_victim=40school.test?="  # "Hi\r\nBcc: victim@school.test"


def outbox_rows(app):
    table = app.db.metadata.tables["mail_outbox"]
    with app.db.session() as session:
        return [dict(row) for row in session.execute(select(table).order_by(table.c.id)).mappings()]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_message_reaches_the_smtp_server_with_headers_body_html_and_attachment(make_app, smtp_server):
    app = make_app(plugins=[], mail=smtp_server.mail_settings(from_address="Riverside School <office@school.test>"))
    outbox_id = app.mail.send(Message(
        to=["Parent One <parent@school.test>", "head@school.test"], subject="Trip consent: Année 7 ✓",
        text="Thank you, we received the form.\n", html="<p>Thank you, we received the form.</p>",
        reply_to="teacher@school.test", headers={"X-Form-Id": "12"},
        attachments=[Attachment("consent.pdf", "application/pdf", PDF)]))
    assert outbox_rows(app)[0]["status"] == "queued"
    assert smtp_server.messages == []  # send() never talks to SMTP
    assert app.mail.deliver_pending() == 1
    received = smtp_server.wait_for(1)[0]
    assert received["Subject"] == "Trip consent: Année 7 ✓"
    assert received["From"] == "Riverside School <office@school.test>"
    assert received["To"] == "Parent One <parent@school.test>, head@school.test"
    assert received["Reply-To"] == "teacher@school.test"
    assert received["X-Form-Id"] == "12"
    assert received["Message-ID"].startswith("<") and received["Date"]
    assert received.get_body(("plain",)).get_content().replace("\r\n", "\n") == "Thank you, we received the form.\n"
    assert received.get_body(("html",)).get_content().strip() == "<p>Thank you, we received the form.</p>"
    [attachment] = list(received.iter_attachments())
    assert attachment.get_filename() == "consent.pdf"
    assert attachment.get_content_type() == "application/pdf"
    assert attachment.get_content() == PDF
    assert smtp_server.envelopes[0] == ("office@school.test", ["parent@school.test", "head@school.test"])
    row = outbox_rows(app)[0]
    assert (row["id"], row["status"], row["attempts"], row["last_error"]) == (outbox_id, "sent", 1, "")
    assert row["sent_at"] is not None
    assert app.mail.deliver_pending() == 0  # nothing is sent twice
    time.sleep(0.2)
    assert len(smtp_server.messages) == 1


def test_send_inside_the_callers_transaction_commits_and_rolls_back_with_it(make_app):
    app = make_app(plugins=[])
    with app.db.session(write=True) as session:
        with session.begin():
            kept = app.mail.send(Message(to=["a@school.test"], subject="kept", text="x"), session=session)
        transaction = session.begin()
        app.mail.send(Message(to=["b@school.test"], subject="dropped", text="x"), session=session)
        transaction.rollback()
    assert [(row["id"], row["subject"]) for row in outbox_rows(app)] == [(kept, "kept")]


@pytest.mark.parametrize("message, reason", [
    (Message(to=["a@school.test"], subject="Hello\r\nBcc: victim@school.test", text="x"), "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x", headers={"X-Note": "a\nb"}), "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x", reply_to="x@school.test\nBcc: y@school.test"), "line breaks"),
    (Message(to=["a@school.test\r\nBcc: victim@school.test"], subject="Hi", text="x"), "line breaks"),
    (Message(to=["not an address"], subject="Hi", text="x"), "not"),
    (Message(to=["a@@school.test"], subject="Hi", text="x"), "not"),
    (Message(to=["a b@school..test"], subject="Hi", text="x"), "not"),
    (Message(to=[], subject="Hi", text="x"), "recipient"),
    (Message(to=["a@school.test"], subject="Hi", text="x", sender="nobody"), "sender"),
    (Message(to=["a@school.test"], subject="Hi", text="x", headers={"Bcc": "y@school.test"}), "set by the outbox"),
    (Message(to=["a@school.test"], subject="Hi", text="x", headers={"Bad Name": "v"}), "not valid"),
    (Message(to=["a@school.test"], subject="Hi", text="x",
             attachments=[Attachment("../x.pdf", "application/pdf", PDF)]), "filename"),
    (Message(to=["a@school.test"], subject="Hi", text="x",
             attachments=[Attachment("x.pdf", "pdf\r\nX: y", PDF)]), "line breaks"),
    # every line break str.splitlines() knows (the email package refuses them only when it writes)
    (Message(to=["a@school.test"], subject="Hi", text="x", headers={"X-Note": "a\u2028b"}), "line breaks"),
    (Message(to=["a@school.test"], subject="Hi\x85Bcc: victim@school.test", text="x"), "line breaks"),
    # encoded-words that the email package would decode into a line break, wherever they stand
    (Message(to=["a@school.test"], subject=f"Hi {INJECTING_WORD}", text="x"), "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x", headers={"X-Note": INJECTING_WORD}), "line breaks"),
    (Message(to=[f"{INJECTING_WORD} <a@school.test>"], subject="Hi", text="x"), "line breaks"),
    (Message(to=[f'"{INJECTING_WORD}" <a@school.test>'], subject="Hi", text="x"), "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x", sender=f"{INJECTING_WORD} <s@school.test>"),
     "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x", reply_to=f"{INJECTING_WORD} <r@school.test>"),
     "line breaks"),
    (Message(to=["a@school.test"], subject="=?utf-8?b?SGkNCkJjYzogdmljdGltQHNjaG9vbC50ZXN0?=", text="x"),
     "line breaks"),
    (Message(to=["a@school.test"], subject="Hi", text="x",
             attachments=[Attachment(f"{INJECTING_WORD}.pdf", "application/pdf", PDF)]), "line breaks"),
    # without SMTPUTF8 a non-ASCII local part cannot be sent (the email package failed on it in the sender)
    (Message(to=["zoë@school.test"], subject="Hi", text="x"), "SMTPUTF8"),
    # a URI header is written unencoded, so it must be ASCII
    (Message(to=["a@school.test"], subject="Hi", text="x",
             headers={"List-Unsubscribe": "<https://école.test/u>"}), "ASCII"),
])
def test_injection_and_bad_addresses_raise_value_error_and_queue_nothing(make_app, message, reason):
    app = make_app(plugins=[])
    with pytest.raises(ValueError, match=reason):
        app.mail.send(message)
    assert outbox_rows(app) == []


def test_plain_text_that_looks_like_an_encoded_word_is_sent_as_it_is(make_app):
    app = make_app(plugins=[])
    outbox_id = app.mail.send(Message(to=["a@school.test"], subject="Is 2+2=? =?utf-8?q?caf=C3=A9?=", text="x"))
    assert mail_header_problems(app.mail.message(outbox_id)["content"]) == []


def test_uri_headers_are_written_as_given_never_as_encoded_words(make_app):
    app = make_app(plugins=[])
    url = "https://school.test/newsletter/unsubscribe?token=" + "a1b2c3" * 30  # far past 78 characters
    outbox_id = app.mail.send(Message(to=["a@school.test"], subject="News " * 30, text="x", headers={
        "List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "List-Archive": "<https://school.test/news/>", "X-Long": "word " * 40}))
    raw = app.mail.message(outbox_id)["content"]
    assert f"\r\nList-Unsubscribe: <{url}>\r\n".encode() in raw
    assert b"\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw
    assert b"=?" not in raw
    assert mail_header_problems(raw) == []


def test_internationalised_domains_are_written_in_their_ascii_form(make_app):
    app = make_app(plugins=[], site={"name": "École", "url": "https://école.example"})
    outbox_id = app.mail.send(Message(to=["Zoë <zoe@école.example>"], subject="Bienvenue", text="x",
                                      reply_to="office@école.example"))
    raw = app.mail.message(outbox_id)["content"]
    assert mail_header_problems(raw) == []
    assert b"<zoe@xn--cole-9oa.example>" in raw and b"Reply-To: office@xn--cole-9oa.example" in raw
    assert b"@xn--cole-9oa.example>\r\n" in raw.split(b"Message-ID: ", 1)[1][:80]
    assert outbox_rows(app)[0]["recipients"] == '["zoe@xn--cole-9oa.example"]'


def test_a_stopped_server_leaves_mail_queued_then_it_is_delivered_when_back(make_app, smtp_server):
    port = free_port()  # nothing listens here
    app = make_app(plugins=[], mail={"smtp_host": "127.0.0.1", "smtp_port": port, "retry_seconds": 0})
    app.mail.send(Message(to=["a@school.test"], subject="one", text="1"))
    app.mail.send(Message(to=["b@school.test"], subject="two", text="2"))
    assert app.mail.deliver_pending() == 0
    rows = outbox_rows(app)
    assert [(row["status"], row["attempts"]) for row in rows] == [("queued", 1), ("queued", 1)]
    assert "cannot reach 127.0.0.1" in rows[0]["last_error"]
    # The server comes back (here: the site is pointed at a listening one; the rows are the same).
    back = make_app(plugins=[], database_url=app.settings.database_url, mail=smtp_server.mail_settings())
    assert back.mail.deliver_pending() == 2
    assert sorted(message["Subject"] for message in smtp_server.wait_for(2)) == ["one", "two"]
    assert [row["status"] for row in outbox_rows(back)] == ["sent", "sent"]


def test_a_message_is_marked_failed_after_max_attempts_with_backoff(make_app):
    app = make_app(plugins=[], mail={"smtp_host": "127.0.0.1", "smtp_port": free_port(), "max_attempts": 3,
                                     "retry_seconds": 0})
    app.mail.send(Message(to=["a@school.test"], subject="never", text="x"))
    for attempt in (1, 2):
        app.mail.deliver_pending()
        assert (outbox_rows(app)[0]["status"], outbox_rows(app)[0]["attempts"]) == ("queued", attempt)
    app.mail.deliver_pending()
    assert (outbox_rows(app)[0]["status"], outbox_rows(app)[0]["attempts"]) == ("failed", 3)
    assert app.mail.deliver_pending() == 0
    assert outbox_rows(app)[0]["attempts"] == 3  # a failed message is not tried again


def test_retries_wait_for_the_backoff(make_app):
    app = make_app(plugins=[], mail={"smtp_host": "127.0.0.1", "smtp_port": free_port(), "retry_seconds": 600})
    app.mail.send(Message(to=["a@school.test"], subject="later", text="x"))
    app.mail.deliver_pending()
    app.mail.deliver_pending()  # not due yet: no second attempt
    row = outbox_rows(app)[0]
    assert (row["status"], row["attempts"]) == ("queued", 1)
    assert (row["next_attempt_at"] - row["created_at"]).total_seconds() >= 599


def test_a_permanent_refusal_fails_at_once(make_app, smtp_server):
    from aiosmtpd.controller import Controller

    class Refusing:
        async def handle_RCPT(self, server, session, envelope, address, options):
            return "550 no such user here"

    port = free_port()
    controller = Controller(Refusing(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        app = make_app(plugins=[], mail={"smtp_host": "127.0.0.1", "smtp_port": port})
        app.mail.send(Message(to=["ghost@school.test"], subject="x", text="x"))
        assert app.mail.deliver_pending() == 0
    finally:
        controller.stop()
    row = outbox_rows(app)[0]
    assert (row["status"], row["attempts"]) == ("failed", 1)
    assert "550" in row["last_error"]


def test_without_smtp_host_mail_is_written_as_eml_files(make_app, tmp_path):
    folder = tmp_path / "outgoing"
    app = make_app(plugins=[], mail={"eml_dir": str(folder)})
    outbox_id = app.mail.send(Message(to=["a@school.test"], subject="Absence", text="Sam is ill."))
    assert app.mail.deliver_pending() == 1
    written = (folder / f"{outbox_id:08d}.eml").read_bytes()
    assert b"Subject: Absence" in written and b"Sam is ill." in written
    assert outbox_rows(app)[0]["status"] == "sent"
    assert "no [mail] smtp_host set" in app.mail.describe_transport()


@pytest.mark.parametrize("table, fragment", [
    ({"smtp_port": 0}, "smtp_port = 0 is not valid"),
    ({"smtp_port": "25"}, "smtp_port = '25' is not valid"),
    ({"smtp_hots": "x"}, "unknown setting 'smtp_hots'"),
    ({"max_attempts": 0}, "max_attempts = 0"),
    ({"from_address": "nobody"}, "from_address = 'nobody' is not valid"),
    ({"starttls": "yes"}, "starttls = 'yes'"),
    ({"starttls": True, "ssl": True}, "cannot both be true"),
])
def test_a_bad_mail_setting_stops_the_start_naming_it(make_app, table, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace("[", r"\[")):
        make_app(plugins=[], mail=table)


def test_the_mail_table_is_read_from_sitehost_toml(tmp_path):
    from host.app import create_app
    from host.config import load_settings

    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n[mail]\nsmtp_host = "mail.school.test"\n'
                      'smtp_port = 587\nstarttls = true\nmax_attempts = 4\n')
    app = create_app(load_settings(config, env={}, only_plugins=[]))
    try:
        settings = app.mail.settings
        assert (settings.smtp_host, settings.smtp_port, settings.starttls, settings.max_attempts) == \
            ("mail.school.test", 587, True, 4)
    finally:
        app.close()
    config.write_text('[mail]\nsmtp_port = 70000\n')
    with pytest.raises(ConfigError, match="smtp_port = 70000"):
        create_app(load_settings(config, env={}, only_plugins=[]))


def test_delivery_is_the_periodic_job_host_mail_deliver_run_once_per_interval(make_app, smtp_server):
    """Two apps on one database stand for two nodes: the job's lease and its next run decide who delivers."""
    app = make_app(plugins=[], mail={"smtp_host": "127.0.0.1", "smtp_port": smtp_server.port, "poll_seconds": 60})
    other_node = make_app(plugins=[], database_url=app.settings.database_url,
                          mail={"smtp_host": "127.0.0.1", "smtp_port": smtp_server.port, "poll_seconds": 60})
    assert app.jobs.declared["host.mail.deliver"].every == 60
    app.mail.send(Message(to=["a@school.test"], subject="one", text="1"))
    assert app.jobs.run_due() >= 1
    assert [message["Subject"] for message in smtp_server.wait_for(1)] == ["one"]
    app.mail.send(Message(to=["b@school.test"], subject="two", text="2"))
    assert other_node.jobs.run_due() == 0  # delivered a moment ago: not due again for 60 seconds
    assert app.mail.outbox(status="queued")[0]["subject"] == "two"
    other_node.jobs.run_soon("host.mail.deliver")
    assert other_node.jobs.run_due() == 1
    assert sorted(message["Subject"] for message in smtp_server.wait_for(2)) == ["one", "two"]


def cli(*args):
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, list(args), env=unset)


def test_cli_send_test_and_outbox(tmp_path, smtp_server):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n[mail]\nsmtp_host = "127.0.0.1"\n'
                      f'smtp_port = {smtp_server.port}\n')
    assert cli("--config", str(config), "init").exit_code == 0  # commands never create a site themselves
    result = cli("--config", str(config), "mail", "send-test", "office@school.test")
    assert result.exit_code == 0, result.output
    assert "delivered to office@school.test through SMTP 127.0.0.1" in result.stdout
    assert smtp_server.wait_for(1)[0]["To"] == "office@school.test"
    result = cli("--config", str(config), "mail", "outbox")
    assert result.exit_code == 0, result.output
    assert "sent" in result.stdout and "office@school.test / Test message from" in result.stdout
    result = cli("--config", str(config), "mail", "send-test", "not-an-address")
    assert result.exit_code == 1 and "not an email address" in result.stderr
    result = cli("--config", str(config), "mail", "outbox", "--status", "failed")
    assert result.stdout.splitlines()[-1] == "no failed messages"


def test_cli_send_test_reports_an_unreachable_server(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n[mail]\nsmtp_host = "127.0.0.1"\n'
                      f'smtp_port = {free_port()}\n')
    assert cli("--config", str(config), "init").exit_code == 0
    result = cli("--config", str(config), "mail", "send-test", "office@school.test")
    assert result.exit_code == 1
    assert "not delivered (queued, will retry while queued): cannot reach 127.0.0.1" in result.stderr


def test_the_serving_process_delivers_the_outbox_once_with_two_workers(tmp_path, smtp_server):
    """Mail queued before a (killed) site started is delivered by the background sender, exactly once."""
    from host.app import create_app
    from host.config import load_settings

    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n[mail]\nsmtp_host = "127.0.0.1"\n'
                      f'smtp_port = {smtp_server.port}\npoll_seconds = 1\n')
    app = create_app(load_settings(config, env={}))
    app.install_site()
    for number in range(3):
        app.mail.send(Message(to=["office@school.test"], subject=f"queued {number}", text="x"))
    app.close()
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    process, _url = start_sitehost(config, "--workers", "2", "--quiet", env=env)
    try:
        received = smtp_server.wait_for(3, timeout=20)
        time.sleep(2.5)  # two more polls of both workers: nothing is delivered twice
        assert sorted(message["Subject"] for message in smtp_server.messages) == ["queued 0", "queued 1", "queued 2"]
        assert len(received) == 3
    finally:
        stop_sitehost(process)


def test_states_tell_what_became_of_queued_mail(make_app):
    app = make_app(plugins=[])
    first = app.mail.send(Message(to=["a@school.test"], subject="one", text="1"))
    second = app.mail.send(Message(to=["b@school.test"], subject="two", text="2"))
    app.mail.deliver_pending(limit=1)
    states = app.mail.states([first, second, 999])
    assert {key: (value["status"], value["recipients"]) for key, value in states.items()} == {
        first: ("sent", ["a@school.test"]), second: ("queued", ["b@school.test"])}
    assert "content" not in states[first]
