"""What a visitor types into a sign-up form is shown to administrators (and in mails) as plain text."""

from __future__ import annotations

from sqlalchemy import update

from .helpers import standard_site


def test_merge_fields_are_kept_and_served_without_markup(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    site.sign_up("family", EMAIL="parent@example.org", FNAME="<img src=x onerror=alert(1)>Ana",
                 LNAME="<script>alert(2)</script><b>Lee</b>  Smith")
    [person] = site.subscribers()
    assert person["fields"] == {"FNAME": "Ana", "LNAME": "Lee Smith"}
    # a row stored before sign-ups were cleaned (or imported) is served cleaned too
    subscribers = site.app.db.metadata.tables["newsletter_subscribers"]
    with site.app.db.session(write=True) as session, session.begin():
        session.execute(update(subscribers).values(fields={"FNAME": "<img src=x onerror=alert(1)>"},
                                                   pending_fields={"FNAME": "<svg onload=alert(1)>Ana"}))
    for served in (site.subscribers()[0], site.admin.get(f"/wp-json/newsletter/v1/subscribers/{person['id']}").json):
        assert (served["fields"], served["pending_fields"]) == ({"FNAME": ""}, {"FNAME": "Ana"})
