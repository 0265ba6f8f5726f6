"""Every header of the newsletter's mails, read back with the standard library's email parser."""

from __future__ import annotations

import email
import email.policy

import pytest

from host.testing import mail_header_problems

from .cli_helpers import run, write_config
from .helpers import follow, link_in, local, standard_site


def raw_mails(app) -> list[bytes]:
    rows = sorted(app.mail.outbox(limit=1000), key=lambda row: row["id"])
    return [app.mail.message(row["id"])["content"] for row in rows]


def unsubscribe_line(raw: bytes) -> str:
    """The List-Unsubscribe header exactly as written (folding and encoding included)."""
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    start = head.index("\r\nList-Unsubscribe:") + 2
    end = head.index("\r\n", start)
    while head[end + 2:end + 3] in (" ", "\t"):  # folded continuation lines
        end = head.index("\r\n", end + 2)
    return head[start:end]


@pytest.mark.parametrize("site_url, host", [("https://school.example", "school.example"),
                                            ("https://école.example", "xn--cole-9oa.example")])
def test_confirmation_and_mailing_headers_parse_cleanly_with_a_plain_uri(make_app, tmp_path, site_url, host):
    site = standard_site(make_app(plugins=["newsletter"], site={"name": "Riverside School", "url": site_url}))
    school = str(site.lists["Whole school"])
    site.sign_up("family", **{"EMAIL": "amira@example.org", "FNAME": "Amira", "_newsletter_lists[]": school})
    [confirmation] = raw_mails(site.app)
    parsed = email.message_from_bytes(confirmation, policy=email.policy.default)
    follow(site.app.client, local(link_in(parsed, "/newsletter/confirm")), extra_environ={"REMOTE_ADDR": "198.51.100.8"})
    body = tmp_path / "fair.txt"
    body.write_text("The spring fair is on Saturday.\n", encoding="utf-8")
    config = write_config(site.app, tmp_path, site_url=site_url)
    assert run(config, "send", "Whole school", "--subject", "Spring fair", "--body-file", str(body)).exit_code == 0
    mails = raw_mails(site.app)
    assert len(mails) == 2
    for raw in mails:
        assert mail_header_problems(raw) == []
        line = unsubscribe_line(raw)
        assert line.startswith(f"List-Unsubscribe: <https://{host}/newsletter/unsubscribe?token=") and \
            line.endswith(">") and "=?" not in line and "\r\n" not in line, line
        assert b"\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw
    assert f"List-Id: <list-{school}.newsletter.{host}>".encode() in mails[1]
