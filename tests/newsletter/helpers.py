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
