"""/newsletter/confirm and /newsletter/unsubscribe: signed links, one-click POST (RFC 8058), clear error pages."""

from __future__ import annotations

import itsdangerous
import pytest
from sqlalchemy import delete, insert, select

from plugins.newsletter.tables import KEYS

from .helpers import follow, link_in, local, queued_mails, standard_site


@pytest.fixture
def signed_up(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")
    mail = queued_mails(site.app)[0]
    return site, local(link_in(mail, "/newsletter/confirm")), local(mail["List-Unsubscribe"].strip("<>"))


def test_forged_and_altered_tokens_get_a_clear_page(signed_up):
    site, confirm, unsubscribe = signed_up
    token = confirm.split("token=", 1)[1]
    for path in ("/newsletter/confirm", "/newsletter/confirm?token=", "/newsletter/confirm?token=abc",
                 "/newsletter/confirm?token=" + token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
                 "/newsletter/confirm?token=" + "x" * 5000,
                 # a confirm token is not an unsubscribe token, nor the other way round
                 "/newsletter/unsubscribe?token=" + token,
                 "/newsletter/confirm?" + unsubscribe.split("?", 1)[1]):
        page = site.app.client.get(path, status=400)
        assert "This link is not valid" in page.text and page.headers["Cache-Control"] == "no-store"
        assert page.content_type == "text/html"
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"pending"}


def test_expired_links_say_so(signed_up, monkeypatch):
    site, confirm, _unsubscribe = signed_up
    real = itsdangerous.timed.TimestampSigner.get_timestamp
    monkeypatch.setattr(itsdangerous.timed.TimestampSigner, "get_timestamp",
                        lambda self: real(self) + 8 * 86400)  # a week and a day later
    page = site.app.client.get(confirm, status=410)
    assert "This link has expired" in page.text and "sign up again" in page.text
    monkeypatch.setattr(itsdangerous.timed.TimestampSigner, "get_timestamp",
                        lambda self: real(self) + 6 * 86400)
    assert "Subscription confirmed" in follow(site.app.client, confirm).text


def test_one_click_unsubscribe_by_post_and_by_link(signed_up):
    site, confirm, unsubscribe = signed_up
    follow(site.app.client, confirm)
    # RFC 8058: the mail client POSTs List-Unsubscribe=One-Click to the header's URL
    page = site.app.client.post(unsubscribe, "List-Unsubscribe=One-Click",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert page.status_int == 200 and "You have been unsubscribed" in page.text
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"unsubscribed"}
    assert all(item["unsubscribed"] for item in site.subscribers()[0]["subscriptions"])
    again = site.app.client.get(unsubscribe)
    assert again.status_int == 200 and "already unsubscribed" in again.text
    # the confirmation link does not undo an unsubscription
    assert "Nothing to confirm" in site.app.client.get(confirm).text
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"unsubscribed"}


def _statuses(site) -> set[str]:
    return {item["status"] for item in site.subscribers()[0]["subscriptions"]}


def _one_button(page, action: str) -> None:
    """The page a GET shows: one form that POSTs the link's token back, no script (the site's CSP)."""
    assert page.status_int == 200 and page.headers["Cache-Control"] == "no-store"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"] and "<script" not in page.text
    [form] = page.forms.values()
    assert (form.method.upper(), form.action) == ("POST", action)
    assert [(name, field.tag) for name, field in form.field_order] == [("token", "input"), (None, "button")]
    assert form["token"].value == page.request.GET["token"]


def test_a_link_scanners_get_confirms_and_unsubscribes_nothing(signed_up):
    """Mail providers GET every link of a mail: only the button's POST (or RFC 8058's) acts."""
    site, confirm, unsubscribe = signed_up
    for _ in range(2):
        page = site.app.client.get(confirm)
        _one_button(page, "confirm")
        assert "Confirm my subscription" in page.text
        site.app.client.head(confirm)
    assert _statuses(site) == {"pending"}
    assert "Subscription confirmed" in page.forms[0].submit().text
    assert _statuses(site) == {"confirmed"}

    page = site.app.client.get(unsubscribe)
    _one_button(page, "unsubscribe")
    site.app.client.head(unsubscribe)
    assert _statuses(site) == {"confirmed"}
    assert "You have been unsubscribed" in page.forms[0].submit().text
    assert _statuses(site) == {"unsubscribed"}
    # once done, a GET says so instead of offering the button again
    assert not site.app.client.get(unsubscribe).forms and "already unsubscribed" in site.app.client.get(unsubscribe)


def test_links_of_an_erased_subscriber_lead_nowhere(signed_up):
    site, confirm, unsubscribe = signed_up
    person = site.subscribers()[0]
    site.admin.delete(f"/wp-json/newsletter/v1/subscribers/{person['id']}", {"force": "true"})
    assert "Subscription not found" in site.app.client.get(confirm, status=404).text
    assert "not on our lists any more" in site.app.client.get(unsubscribe).text
    # signing up again makes a new subscriber; the old links stay void
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")
    assert site.app.client.get(confirm, status=404)
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"pending"}


def test_a_confirmation_after_erasure_lifts_the_suppression(make_app, tmp_path):
    from .cli_helpers import run, write_config

    site = standard_site(make_app(plugins=["newsletter"]))
    config = write_config(site.app, tmp_path)
    assert "suppression entry was recorded" in run(config, "erase", "parent@example.org").output
    (tmp_path / "one.csv").write_text("email\nparent@example.org\n")
    assert "1 erased before" in run(config, "import", str(tmp_path / "one.csv"), "--list", "Whole school").output
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")  # the person asks again themselves
    follow(site.app.client, local(link_in(queued_mails(site.app)[-1], "/newsletter/confirm")))
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"confirmed"}
    assert "0 erased before" in run(config, "import", str(tmp_path / "one.csv"), "--list", "Whole school").output


def as_made_before_the_host_kept_secrets(app, name: str, put_old_row) -> str:
    """Make `app`'s database what an earlier version left: its key only in the plugin's own table."""
    key = app.site_secret(name).decode()
    secrets_table = app.host_tables["site_secrets"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(secrets_table).where(secrets_table.c.name == name))
        put_old_row(session, key)
    return key


def test_links_mailed_before_the_host_kept_the_key_still_work(make_app):
    """Earlier versions kept the key in newsletter_keys; the host's store adopts it, so mailed links work."""
    site = standard_site(make_app(plugins=["newsletter"]))
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")
    mail = queued_mails(site.app)[0]
    confirm, unsubscribe = local(link_in(mail, "/newsletter/confirm")), local(mail["List-Unsubscribe"].strip("<>"))
    keys = site.app.db.metadata.tables[KEYS]
    old_key = as_made_before_the_host_kept_secrets(
        site.app, "newsletter.signing",
        lambda session, key: session.execute(insert(keys).values(name="signing", value=key)))
    upgraded = make_app(plugins=["newsletter"], database_url=site.app.settings.database_url)
    assert "Subscription confirmed" in follow(upgraded.client, confirm).text
    assert "You have been unsubscribed" in follow(upgraded.client, unsubscribe).text
    assert upgraded.site_secret("newsletter.signing") == old_key.encode()
    # adopted into the host's store: every later process reads it from there
    secrets_table = upgraded.host_tables["site_secrets"]
    with upgraded.db.session() as session:
        stored = session.execute(select(secrets_table.c.value).where(secrets_table.c.name == "newsletter.signing"))
        assert stored.scalar_one() == old_key
