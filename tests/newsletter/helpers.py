"""Shared helpers of the newsletter tests: a site with lists and forms made over REST, sign-ups."""

from __future__ import annotations

import time
from urllib.parse import unquote

from host.testing import client_as, create_test_user

API = "/wp-json/newsletter/v1"
FORM = API + "/form"
REMOTE = {"REMOTE_ADDR": "203.0.113.7"}  # not loopback: the address limit counts it


class Site:
    """An app, an administrator's client, and the lists and forms made for a test."""

    def __init__(self, app):
        self.app = app
        self.admin_user = create_test_user(app, "administrator")
        self.admin = client_as(app, self.admin_user)
        self.lists: dict[str, int] = {}
        self.forms: dict[str, int] = {}

    def add_list(self, name: str) -> int:
        self.lists[name] = self.admin.post_json(API + "/lists", {"name": name}, status=201).json["id"]
        return self.lists[name]

    def add_form(self, key: str, **body) -> int:
        body.setdefault("title", key)
        self.forms[key] = self.admin.post_json(API + "/forms", body, status=201).json["id"]
        return self.forms[key]

    def sign_up(self, form: str, status: int = 200, environ: dict | None = None, **fields):
        data = {"_newsletter_form_id": self.forms[form], "_newsletter_honeypot": "",
                "_newsletter_timestamp": str(int(time.time()) - 10), **fields}
        return self.app.client.post(FORM, data, status=status, extra_environ={**REMOTE, **(environ or {})})

    def subscribers(self, **query) -> list[dict]:
        return self.admin.get(API + "/subscribers", {"per_page": 100, **query}).json


def standard_site(app) -> Site:
    """Two lists; a family form (FNAME required, list choice), an unsubscribe form."""
    site = Site(app)
    site.add_list("Whole school")
    site.add_list("Year 7 parents")
    site.add_form("family", title="Family newsletter", lists=list(site.lists.values()), list_choice=True,
                  fields=[{"tag": "EMAIL"}, {"tag": "FNAME", "label": "First name", "required": True},
                          {"tag": "LNAME", "label": "Last name"}])
    site.add_form("leave", title="Leave", action="unsubscribe", lists=list(site.lists.values()))
    return site


def result_of(response) -> tuple[str, str]:
    """The outcome key and message text a 200 answer carries in its headers."""
    return response.headers["X-Newsletter-Result"], unquote(response.headers["X-Newsletter-Message"])


def queued_mails(app) -> list:
    """The outbox's messages, oldest first, parsed (email.message.EmailMessage)."""
    import email
    import email.policy

    rows = sorted(app.mail.outbox(limit=1000), key=lambda row: row["id"])
    return [email.message_from_bytes(app.mail.message(row["id"])["content"], policy=email.policy.default)
            for row in rows]


def link_in(message, path: str) -> str:
    """The first URL in the message's text that goes to `path` (/newsletter/confirm ...)."""
    text = message.get_body(("plain",)).get_content()
    for word in text.split():
        if path in word:
            return word
    raise AssertionError(f"no {path} link in:\n{text}")


def local(url: str) -> str:
    """A site URL as the test client requests it (path and query)."""
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def text_of(message) -> str:
    """The plain-text body with plain line ends."""
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def follow(client, path: str, extra_environ: dict | None = None, status: int | str = 200):
    """Open a mailed link as a person does: its page (a GET changes nothing), then the page's one
    button (a POST) when it has one. Returns the last answer."""
    environ = extra_environ or {}
    page = client.get(path, extra_environ=environ, status=status)
    if not page.forms:
        return page
    [form] = page.forms.values()
    return form.submit(extra_environ=environ, status=status)
