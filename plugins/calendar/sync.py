"""Keeping `cal_events` in step with writes that did not come through cal/events/v1 (core/v2's routes)."""

from __future__ import annotations

from sqlalchemy import delete, insert, select, update

from . import state, times
from .settings import settings_of
from .names import EVENT
from .tables import tables


def saved(app, event) -> None:
    item = event.item
    events = tables(app)["events"]
    if event.type != EVENT:  # a venue or organizer: events that show it change
        terms_changed(app)
        return
    status = item.get("stored_status") or event.status
    with app.db.session(write=True) as session, session.begin():
        found = session.execute(select(events.c.status, events.c.parent, events.c.published_utc)
                                .where(events.c.post_id == event.id)).first()
        if found is None:
            start = item.get("date_gmt") or times.to_utc(item["date"], app.timezone())
            config = settings_of(app)
            session.execute(insert(events).values(
                post_id=event.id, status=status, parent=item.get("parent") or 0, published_utc=item.get("date_gmt"),
                start_utc=start, end_utc=start,
                timezone=app.settings.site.get("timezone_string") or "UTC", currency_symbol=config.currency_symbol,
                currency_code=config.currency_code, currency_position=config.currency_position))
            state.changed(session, app)
        else:
            if (found.status, found.parent, found.published_utc) != (status, item.get("parent") or 0,
                                                                     item.get("date_gmt")):
                session.execute(update(events).where(events.c.post_id == event.id).values(
                    status=status, parent=item.get("parent") or 0, published_utc=item.get("date_gmt")))
            state.changed(session, app)  # its title, text or terms may have changed too


def terms_changed(app) -> None:
    """Something events show changed (a venue, an organizer, a term): the kept list objects go stale."""
    with app.db.session(write=True) as session, session.begin():
        state.changed(session, app)


def deleted(app, event) -> None:
    t = tables(app)
    with app.db.session(write=True) as session, session.begin():
        state.changed(session, app)
        if not event.force:
            session.execute(update(t["events"]).where(t["events"].c.post_id == event.id).values(status="trash"))
            return
        session.execute(delete(t["events"]).where(t["events"].c.post_id == event.id))
        links = t["links"]
        session.execute(delete(links).where((links.c.event_id == event.id) | (links.c.linked_id == event.id)))
        session.execute(delete(t["recurrence"]).where(t["recurrence"].c.event_id == event.id))
        session.execute(delete(t["overrides"]).where(t["overrides"].c.event_id == event.id))
