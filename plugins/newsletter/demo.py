"""Demo content: the lists and forms a school starts with, and two confirmed families."""

from __future__ import annotations

import secrets

from sqlalchemy import insert

from .messages import messages_of
from .store import CONFIRMED, utcnow
from .tables import FORMS, LISTS, SUBSCRIBERS, SUBSCRIPTIONS, table

LISTS_DEMO = [
    ("Whole school", "News for every family: term dates, events, closures."),
    ("Year 7 parents", "Trips, homework clubs and meetings for Year 7."),
    ("Sports news", "Fixtures, results and kit reminders."),
]
NAME_FIELDS = [{"tag": "EMAIL", "label": "Email address", "type": "email", "required": True},
               {"tag": "FNAME", "label": "First name", "type": "text", "required": True},
               {"tag": "LNAME", "label": "Last name", "type": "text", "required": False}]
FAMILIES = [("amira.hassan@example.org", "Amira", "Hassan"), ("tom.price@example.org", "Tom", "Price")]


def write_demo(app, session) -> None:
    now = utcnow()
    lists, forms = table(app, LISTS), table(app, FORMS)
    ids = [session.execute(insert(lists).values(name=name, description=description, created=now))
           .inserted_primary_key[0] for name, description in LISTS_DEMO]
    session.execute(insert(forms).values(
        title="Family newsletter", action="subscribe", lists=ids, list_choice=1, fields=NAME_FIELDS,
        messages=messages_of({}), created=now, modified=now))
    session.execute(insert(forms).values(
        title="Leave our newsletters", action="unsubscribe", lists=ids, list_choice=0, fields=NAME_FIELDS[:1],
        messages=messages_of({}), created=now, modified=now))
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    for email, first, last in FAMILIES:
        subscriber_id = session.execute(insert(subscribers).values(
            email=email, email_key=email.lower(), fields={"FNAME": first, "LNAME": last}, pending_fields=None,
            nonce=secrets.token_hex(16), signup_ip="", created=now, modified=now)).inserted_primary_key[0]
        session.execute(insert(subscriptions).values(
            subscriber_id=subscriber_id, list_id=ids[0], status=CONFIRMED, source="demo content", requested=now,
            confirmed=now, confirm_ip=""))
