"""Shared helpers of the forms tests: a site with forms, a form made over REST, a multipart submission."""

from __future__ import annotations

from host.testing import create_test_user

BASE = "/wp-json/forms/v1/contact-forms"
BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"}

SIMPLE_FORM = """<label>Name [text* your-name]</label>
<label>Email [email* your-email]</label>
<label>Message [textarea your-message]</label>
[submit "Send"]"""


class LazyUsers(dict):
    """Users by role, created on first use (each costs a slow password hash)."""

    def __init__(self, app):
        super().__init__()
        self.app = app

    def __missing__(self, role):
        self[role] = create_test_user(self.app, role)
        return self[role]


def site(make_app, **settings):
    app = make_app(plugins=["core", "forms", *settings.pop("extra_plugins", [])], **settings)
    app.people = LazyUsers(app)
    return app


def create_form(app, **body):
    body.setdefault("title", "Enquiry")
    body.setdefault("form", SIMPLE_FORM)
    body.setdefault("mail", {"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                             "subject": "Enquiry from [your-name]",
                             "body": "From: [your-name] <[your-email]>\n\n[your-message]",
                             "additional_headers": "Reply-To: [your-email]"})
    response = app.client.post_json(BASE, body, headers=app.people["editor"].headers)
    assert response.status_int == 200, response.text
    return response.json


def submit(app, form_id, fields=None, files=None, unit_tag=None, headers=None, status=200):
    pairs = [("_forms", str(form_id)), ("_forms_version", "1.0.0"), ("_forms_locale", "en_US"),
             ("_forms_unit_tag", unit_tag if unit_tag is not None else f"forms-f{form_id}-p0-o1"),
             ("_forms_container_post", "0")]
    for name, value in (fields or {}).items():
        if isinstance(value, list):
            pairs.extend((name + "[]", item) for item in value)
        else:
            pairs.append((name, value))
    return app.client.post(f"{BASE}/{form_id}/feedback", pairs, upload_files=files or [],
                           headers={**BROWSER, **(headers or {})}, content_type="multipart/form-data",
                           status=status, extra_environ={"REMOTE_ADDR": "203.0.113.7"})


VALID = {"your-name": "Sam Parent", "your-email": "sam@school.test", "your-message": "Is there a bus on Friday?"}
