"""Admin pages written as Jinja2 templates: AdminRequest.render and the host's admin/macros.html.

A plugin's page renders a template from its own package's templates/ folder (this test package's
templates/probe.html) and imports the host's macros; values are escaped, forms carry the CSRF token,
and a field with an error keeps what was typed, marked for screen readers.
"""

from __future__ import annotations

from webtest import TestApp

from host import AdminPage
from host.auth import sessions
from host.testing import create_test_user, make_plugin


def _say_page(page):
    said = ""
    if page.method == "POST":
        said = page.form.get("words", "")
        if said.strip() == "":
            page.error("words", "Type some <words>.")
    return page.render("probe.html", said=said, url_for=lambda number: page.url(f"?p={number}"))


def _client(make_app):
    site = make_app(extra_plugins=[make_plugin("probe_pages", register_admin_pages=lambda app: [
        AdminPage("Say", "say", _say_page, actions=("say",))])])
    user = create_test_user(site, "administrator")
    token, csrf = sessions.start_session(site, user.id)
    client = TestApp(site, extra_environ={"HTTP_HOST": "school.test"})
    client.set_cookie(sessions.SESSION_COOKIE, token)
    return client, csrf


def test_a_plugin_template_renders_with_the_hosts_macros_and_escapes_values(make_app):
    client, csrf = _client(make_app)
    answer = client.post("/admin/say", {"csrf_token": csrf, "action": "say", "words": "<b>hello</b>", "tone": "loud",
                                        "again": "1"})
    assert answer.status_int == 200
    html = answer.text
    assert '<p id="said">&lt;b&gt;hello&lt;/b&gt;</p>' in html
    assert f'<input type="hidden" name="csrf_token" value="{csrf}">' in html
    assert '<input type="hidden" name="action" value="say">' in html
    assert 'aria-label="Say something"' in html
    assert '<span class="visually-hidden"> &lt;b&gt;hello&lt;/b&gt;</span>' in html
    assert 'value="&lt;b&gt;hello&lt;/b&gt;"' in html  # the typed value is kept, escaped
    assert '<option value="loud" selected>Loud</option>' in html
    assert 'id="field-again" name="again" value="1" checked' in html.replace('type="checkbox" ', '')
    assert 'aria-describedby="field-words-help"' in html and "required" in html
    assert 'rel="prev"' in html and 'rel="next"' in html and "Page 2 of 3" in html


def test_a_field_error_is_shown_beside_its_field_and_announced(make_app):
    client, csrf = _client(make_app)
    html = client.post("/admin/say", {"csrf_token": csrf, "action": "say", "words": "  "}).text
    assert 'aria-invalid="true"' in html
    assert 'aria-describedby="field-words-help field-words-error"' in html
    assert '<p class="field-error" id="field-words-error">Type some &lt;words&gt;.</p>' in html
    assert "Please correct the fields marked below." in html
    assert '<div class="notice error" role="alert">' in html  # the host's notices stay markup beside a template
