"""The calendar's keys live in the host's site secrets; a site made before adopts the keys it kept itself."""

from __future__ import annotations

import json
import re

from sqlalchemy import delete, insert, select
from webtest import TestApp

from host.testing import client_as, create_test_user

from tests.calendar.helpers import LONDON

HTML = "/wp-json/cal/views/v2/html"
WIZARD = "/wp-json/calx/v2/onboarding/wizard"
SITE = "http://school.test"


def tokens_of(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="cal-tokens">(.*?)</script>', text).group(1))


def stored_secrets(app) -> dict[str, str]:
    table = app.host_tables["site_secrets"]
    with app.db.session() as session:
        return dict(session.execute(select(table.c.name, table.c.value)).all())


def test_tokens_and_nonces_handed_out_before_the_host_kept_the_keys_still_work(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin_user = create_test_user(app, "administrator")
    visitor_tokens = tokens_of(app.client.get("/events/").text)
    nonce = client_as(app, admin_user).get(WIZARD).json["action_nonce"]
    # Make the database what an earlier version left: the view key in cal_keys, the wizard's in cal_options.
    views_key, wizard_key = app.site_secret("calendar.views"), app.site_secret("calendar.wizard")
    names = app.db.metadata.tables
    with app.db.session(write=True) as session, session.begin():
        secrets_table = app.host_tables["site_secrets"]
        session.execute(delete(secrets_table).where(secrets_table.c.name.in_(["calendar.views", "calendar.wizard"])))
        session.execute(insert(names["cal_keys"]).values(name="views", value=views_key.decode()))
        session.execute(insert(names["cal_options"]).values(name="signing_key", value=json.dumps(wizard_key.decode())))
    upgraded = make_app(plugins=["core", "calendar"], site=LONDON, database_url=app.settings.database_url)
    visitor = TestApp(upgraded, extra_environ={"HTTP_HOST": "school.test"})
    answer = visitor.get(HTML, {"u": f"{SITE}/events/month/2030-06/", "tvn2": visitor_tokens["tvn2"]})
    assert answer.status_int == 200 and "June 2030" in answer.json["html"]
    saved = client_as(upgraded, admin_user).post_json(WIZARD, {"action_nonce": nonce, "begun": True})
    assert saved.json["success"] is True
    assert {name: stored_secrets(upgraded)[name] for name in ("calendar.views", "calendar.wizard")} == {
        "calendar.views": views_key.decode(), "calendar.wizard": wizard_key.decode()}


def test_a_new_site_keeps_no_key_of_its_own(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    assert {"calendar.views", "calendar.wizard"} <= set(stored_secrets(app))
    with app.db.session() as session:
        assert session.execute(select(app.db.metadata.tables["cal_keys"])).all() == []
        options = app.db.metadata.tables["cal_options"]
        assert session.execute(select(options.c.name).where(options.c.name == "signing_key")).first() is None
    assert app.site_secret("calendar.views") != app.site_secret("calendar.wizard")
