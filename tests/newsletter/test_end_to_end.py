"""End to end through a real `sitehost serve` (2 workers) and a real SMTP server (aiosmtpd on 127.0.0.1).

A family signs up, reads the confirmation mail, follows its link, receives a mailing,
unsubscribes through the mail's List-Unsubscribe header (RFC 8058 one-click POST) and gets
no further mail. Along the way, simultaneous sign-ups of the same addresses from both
workers leave exactly one pending subscriber per address and exactly `email_limit` mails.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from host.testing import start_sitehost, stop_sitehost

from .cli_helpers import run, write_config
from .helpers import standard_site, text_of


def _post(url: str, data: dict | str, content_type: str = "application/x-www-form-urlencoded"):
    body = data if isinstance(data, str) else urllib.parse.urlencode(data, doseq=True)
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode()


def _wait_for_subject(smtp_server, subject: str, timeout: float = 30) -> list:
    """The received messages with this subject, once there is one (the confirmations of the rush
    may arrive around it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [message for message in list(smtp_server.messages) if message["Subject"] == subject]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no message {subject!r} within {timeout} s")


def test_sign_up_confirm_mailing_unsubscribe_and_silence(make_app, smtp_server, tmp_path):
    mail = smtp_server.mail_settings(poll_seconds=1)
    site = standard_site(make_app(mail=mail))
    form = site.forms["family"]
    config = write_config(site.app, tmp_path, mail=mail, site_url="")
    process, rest = start_sitehost(config, "--quiet", "--workers", "2")
    try:
        # The operator sets the site's address (where it is served) in the settings: every worker follows.
        site.admin.post_json("/wp-json/core/v2/settings", {"url": rest.rsplit("/wp-json", 1)[0]}, status=200)
        stamp = str(int(time.time()) - 5)
        status, headers, body = _post(rest + "/newsletter/v1/form", {
            "_newsletter_form_id": form, "_newsletter_timestamp": stamp, "_newsletter_honeypot": "",
            "EMAIL": "family@example.org", "FNAME": "Jo", "_newsletter_lists[]": [site.lists["Whole school"]]})
        assert (status, json.loads(body), headers["X-Newsletter-Result"]) == (200, True, "subscribed")

        [confirmation] = smtp_server.wait_for(1, timeout=20)
        assert confirmation["To"] == "family@example.org"
        link = next(word for word in text_of(confirmation).split() if "/newsletter/confirm?token=" in word)
        assert link.startswith(rest.rsplit("/wp-json", 1)[0])
        status, page = _get(link)  # what a mail provider's link scanner does: only a page with a button
        assert status == 200 and "Confirm my subscription" in page and "Subscription confirmed" not in page
        status, _headers, page = _post(link, "")  # the button
        assert status == 200 and "Subscription confirmed" in page

        # both workers at once, the same three addresses six times each: three subscribers
        outcomes = []

        def sign_up(index: int) -> None:
            outcomes.append(_post(rest + "/newsletter/v1/form", {
                "_newsletter_form_id": form, "_newsletter_timestamp": stamp,
                "EMAIL": f"rush{index % 3}@example.org", "FNAME": "R"})[0])

        threads = [threading.Thread(target=sign_up, args=(index,)) for index in range(18)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes == [200] * 18
        rushed = site.subscribers(search="rush")
        assert sorted(person["email"] for person in rushed) == [f"rush{index}@example.org" for index in range(3)]
        assert all({item["status"] for item in person["subscriptions"]} == {"pending"} for person in rushed)
        # six sign-ups per address, email_limit 3: exactly three confirmation mails each, across both workers
        queued = [row["recipients"] for row in site.app.mail.outbox(limit=1000)]
        assert sorted(recipients[0] for recipients in queued if recipients[0].startswith("rush")) == \
            [f"rush{index}@example.org" for index in range(3) for _ in range(3)]

        (tmp_path / "news.txt").write_text("The library reopens on Monday.\n")
        result = run(config, "send", "Whole school", "--subject", "Library news", "--body-file",
                     str(tmp_path / "news.txt"), "--site-url", rest.rsplit("/wp-json", 1)[0])
        assert "1 mail(s)" in result.output, result.output
        mailing = _wait_for_subject(smtp_server, "Library news")
        assert [message["To"] for message in mailing] == ["family@example.org"]
        assert "The library reopens on Monday." in text_of(mailing[0])

        unsubscribe = mailing[0]["List-Unsubscribe"].strip("<>")
        assert mailing[0]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        status, _headers, page = _post(unsubscribe, "List-Unsubscribe=One-Click")
        assert status == 200 and "You have been unsubscribed" in page

        count = len([message for message in list(smtp_server.messages) if message["To"] == "family@example.org"])
        result = run(config, "send", "Whole school", "--subject", "More news", "--body-file",
                     str(tmp_path / "news.txt"), "--site-url", rest.rsplit("/wp-json", 1)[0])
        assert "0 mail(s)" in result.output
        time.sleep(2.5)  # two polls of the background sender
        assert len([message for message in list(smtp_server.messages) if message["To"] == "family@example.org"]) == count
        assert not [message for message in smtp_server.messages if message["Subject"] == "More news"]
    finally:
        stop_sitehost(process)
