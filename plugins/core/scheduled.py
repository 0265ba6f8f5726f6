"""Scheduled posts go live: the periodic job `core.publish_scheduled` turns `future` into `publish`.

Readers never wait for it: a `future` item whose date has come already reads as `publish`
(store.items.effective_status). The job makes the stored status follow, so that listeners of
`content_saved` (the cache, the newsletter, search pings, a plugin's own) hear of the post going live,
once per post on the whole site (a host job: one process runs it at a time, and the conditional
UPDATE publishes each post once even when two runs overlapped after a lost lease).
"""

from __future__ import annotations

from sqlalchemy import select, update

from host import ContentSaved
from host.jobs import Job, JobContext

from . import dates, store
from .tables import tables

EVERY_SECONDS = 30.0
BATCH = 200  # posts published per transaction


def declared_jobs() -> list[Job]:
    return [Job("core.publish_scheduled", publish_scheduled, every=EVERY_SECONDS)]


def publish_scheduled(context: JobContext) -> None:
    while publish_due(context.app) >= BATCH:
        context.check()


def publish_due(app) -> int:
    """Publish up to BATCH scheduled items whose date has come; how many went live."""
    posts = tables(app)["posts"]
    now = dates.utcnow()
    with app.db.session(write=True) as session, session.begin():
        due = list(session.execute(select(posts.c.id, posts.c.type).where(
            posts.c.status == "future", posts.c.date_gmt <= now).order_by(posts.c.date_gmt).limit(BATCH)))
        published = []
        for post_id, post_type in due:
            changed = session.execute(update(posts).where(posts.c.id == post_id, posts.c.status == "future")
                                      .values(status="publish")).rowcount
            if changed:
                published.append(store.get_item(app, session, post_id, post_type))
    for item in published:
        if item is not None:
            app.hook.content_saved(app=app, event=ContentSaved.of(item, False))
    return len(due)
