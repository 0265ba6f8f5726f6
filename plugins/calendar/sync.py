"""Keeping `cal_events` in step with writes that did not come through cal/events/v1 (core/v2's routes)."""

from __future__ import annotations

from sqlalchemy import delete, insert, select, update

from . import times
from .settings import settings_of
from .tables import tables


def saved(app, event) -> None:
    item = event.item
    events = tables(app)["events"]
    status = item.get("stored_status") or event.status
    with app.db.session(write=True) as session, session.begin():
        found = session.execute(select(events.c.status, events.c.parent).where(events.c.post_id == event.id)).first()
        if found is None:
            start = item.get("date_gmt") or times.to_utc(item["date"], app.timezone())
            config = settings_of(app)
            session.execute(insert(events).values(
                post_id=event.id, status=status, parent=item.get("parent") or 0, start_utc=start, end_utc=start,
                timezone=app.settings.site.get("timezone_string") or "UTC", currency_symbol=config.currency_symbol,
                currency_code=config.currency_code, currency_position=config.currency_position))
        elif (found.status, found.parent) != (status, item.get("parent") or 0):
            session.execute(update(events).where(events.c.post_id == event.id)
                            .values(status=status, parent=item.get("parent") or 0))


def deleted(app, event) -> None:
    t = tables(app)
    with app.db.session(write=True) as session, session.begin():
        if not event.force:
            session.execute(update(t["events"]).where(t["events"].c.post_id == event.id).values(status="trash"))
            return
        session.execute(delete(t["events"]).where(t["events"].c.post_id == event.id))
        links = t["links"]
        session.execute(delete(links).where((links.c.event_id == event.id) | (links.c.linked_id == event.id)))
