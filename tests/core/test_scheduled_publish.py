"""Scheduled posts go live through the periodic job core.publish_scheduled: their stored status turns from
`future` to `publish` once their date has come, and `content_saved` is heard once per post, however many
processes run the job."""

from __future__ import annotations

import datetime

from sqlalchemy import update

from host.testing import create_test_user, make_plugin
from tests.core.helpers import API


def test_a_scheduled_post_goes_live_once_when_its_date_has_come(make_app):
    heard = []

    def content_saved(event):
        heard.append((event.id, event.status, event.created))

    app = make_app(plugins=["core", make_plugin("listener", content_saved)])
    other_node = make_app(plugins=["core"], database_url=app.settings.database_url)
    editor = create_test_user(app, "editor")
    later = app.client.post_json(f"{API}/posts", {"title": "Open day", "status": "future",
                                                  "date_gmt": "2099-01-01T09:00:00"},
                                 headers=editor.headers, status=201).json
    soon = app.client.post_json(f"{API}/posts", {"title": "Sports day", "status": "future",
                                                 "date_gmt": "2099-01-02T09:00:00"},
                                headers=editor.headers, status=201).json
    assert later["status"] == soon["status"] == "future"
    heard.clear()
    app.jobs.run_soon("core.publish_scheduled")
    app.jobs.run_due()
    assert heard == []  # nothing is due yet
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():  # the time of "Sports day" has come
        session.execute(update(posts).where(posts.c.id == soon["id"]).values(
            date_gmt=datetime.datetime(2020, 1, 1, 9), date=datetime.datetime(2020, 1, 1, 9)))
    for site in (app, other_node, app):
        site.jobs.run_soon("core.publish_scheduled")
        site.jobs.run_due()
    assert heard == [(soon["id"], "publish", False)]
    shown = app.client.get(f"{API}/posts/{soon['id']}", headers=editor.headers, params={"context": "edit"}).json
    assert shown["status"] == "publish"
    assert app.client.get(f"{API}/posts/{later['id']}", headers=editor.headers).json["status"] == "future"
    assert [post["id"] for post in app.client.get(f"{API}/posts").json] == [soon["id"]]
