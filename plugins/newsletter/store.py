"""Subscribers and subscriptions: sign-up, confirmation, unsubscription, erasure, export rows.

Every function works inside the caller's transaction (`session`) and never commits. Rows that
concurrent requests may both create (a subscriber per address, a subscription per list, a
suppression per hash) are inserted with ON CONFLICT DO NOTHING and read back, so two sign-ups
of one address at the same moment leave exactly one subscriber.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, insert, select, update

from .tables import CONSENTS, LISTS, SUBSCRIBERS, SUBSCRIPTIONS, SUPPRESSIONS, table
from .tokens import address_hash, email_hash

PENDING, CONFIRMED, UNSUBSCRIBED = "pending", "confirmed", "unsubscribed"
STATUSES = (PENDING, CONFIRMED, UNSUBSCRIBED)
REQUESTED = "requested"  # a consent event: asked for a list, not yet confirmed
FORM, LINK, IMPORT = "form", "link", "import"  # how: a sign-up form, a link in our mail, an operator's import


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def insert_ignoring_conflict(session, target, values, keys: list[str], returning=None):
    """INSERT ... ON CONFLICT (keys) DO NOTHING on SQLite and PostgreSQL alike.

    `values` is one dict or a list of them; with `returning` (a column), the new rows' values
    of it (none for rows that were already there).
    """
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    statement = dialect_insert(target).values(values).on_conflict_do_nothing(index_elements=keys)
    if returning is None:
        session.execute(statement)
        return []
    return list(session.execute(statement.returning(returning)).scalars())


def record_consent(app, session, subscriber_id: int, list_ids, event: str, method: str, source: str = "",
                   text: str = "", ip: str = "", at: datetime.datetime | None = None) -> None:
    """One consent evidence row per list (names kept, so deleting a list keeps what was agreed to)."""
    wanted = list(dict.fromkeys(list_ids))
    if not wanted:
        return
    names = list_names(app, session, wanted)
    hashed, when = address_hash(app, ip), at or utcnow()
    session.execute(insert(table(app, CONSENTS)), [
        {"subscriber_id": subscriber_id, "list_id": list_id, "list_name": names.get(list_id, "")[:200],
         "event": event, "method": method, "source": source[:300], "text": text[:2000], "ip_hash": hashed,
         "at": when} for list_id in wanted])


def consents_of(app, session, subscriber_id: int):
    """A subscriber's consent evidence, oldest first."""
    consents = table(app, CONSENTS)
    return session.execute(select(consents).where(consents.c.subscriber_id == subscriber_id)
                           .order_by(consents.c.id)).all()


@dataclass
class Subscriber:
    """What a sign-up needs of a subscriber (and what the confirmation mail names)."""

    id: int
    email: str
    email_key: str
    fields: dict
    pending_fields: dict | None
    nonce: str


@dataclass
class SignupResult:
    key: str  # subscribed, updated or already_subscribed
    subscriber: Subscriber
    needs_mail: bool
    requested: list[int]  # the lists this sign-up asked to confirm


def find_by_email(app, session, email_key: str):
    subscribers = table(app, SUBSCRIBERS)
    return session.execute(app.db.prepared("newsletter.subscriber_by_email", lambda: select(subscribers).where(
        subscribers.c.email_key == bindparam("email_key"))), {"email_key": email_key}).first()


def find_by_id(app, session, subscriber_id: int):
    subscribers = table(app, SUBSCRIBERS)
    return session.execute(select(subscribers).where(subscribers.c.id == subscriber_id)).first()


def statuses_of(app, session, subscriber_id: int) -> dict[int, str]:
    """{list id: status} of one subscriber."""
    subscriptions = table(app, SUBSCRIPTIONS)
    return {row.list_id: row.status for row in session.execute(app.db.prepared(
        "newsletter.statuses_of", lambda: select(subscriptions.c.list_id, subscriptions.c.status).where(
            subscriptions.c.subscriber_id == bindparam("subscriber_id"))), {"subscriber_id": subscriber_id})}


def list_names(app, session, list_ids) -> dict[int, str]:
    """{id: name} of those of `list_ids` that exist."""
    lists = table(app, LISTS)
    wanted = sorted(set(list_ids))
    if not wanted:
        return {}
    statement = app.db.prepared("newsletter.list_names", lambda: select(lists.c.id, lists.c.name).where(
        lists.c.id.in_(bindparam("list_ids", expanding=True))))
    return {row.id: row.name for row in session.execute(statement, {"list_ids": wanted})}


def existing_list_ids(app, session, list_ids) -> list[int]:
    return sorted(list_names(app, session, list_ids))


def is_suppressed(app, session, email_key: str) -> bool:
    suppressions = table(app, SUPPRESSIONS)
    return session.execute(select(suppressions.c.id).where(
        suppressions.c.email_hash == email_hash(app, email_key))).first() is not None


def sign_up(app, session, email: str, email_key: str, fields: dict, list_ids: list[int], source: str,
            ip: str, consent_text: str = "") -> SignupResult:
    """Ask for `list_ids` for this address: new lists (or changed fields) wait for confirmation.

    - a new address: a pending subscriber, `subscribed`;
    - an address with nothing confirmed yet: its data replaced, still pending, `subscribed` (the
      confirmation mail is sent again, within the per-email limit);
    - a confirmed subscriber asking for more lists or sending changed fields: `updated`, the new
      lists pending and the fields kept aside until the link in the new mail is followed;
    - a confirmed subscriber sending nothing new: `already_subscribed`, nothing to confirm (the
      form answers every outcome alike; the key only chooses the mail).
    A sign-up runs few statements (it is the public route under load): one read of the address,
    and writes only for what changes.
    """
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    now = utcnow()
    source = source[:300]
    row = find_by_email(app, session, email_key)
    if row is None:
        nonce = secrets.token_hex(16)
        made = insert_ignoring_conflict(session, subscribers, {
            "email": email, "email_key": email_key, "fields": fields, "pending_fields": None, "nonce": nonce,
            "signup_ip": ip[:64], "created": now, "modified": now}, ["email_key"], returning=subscribers.c.id)
        if made:
            session.execute(app.db.prepared("newsletter.insert_subscription", lambda: insert(subscriptions)), [
                {"subscriber_id": made[0], "list_id": list_id, "status": PENDING, "source": source, "requested": now}
                for list_id in list_ids])
            record_consent(app, session, made[0], list_ids, REQUESTED, FORM, source, consent_text, ip, now)
            return SignupResult("subscribed", Subscriber(made[0], email, email_key, fields, None, nonce), True,
                                list(list_ids))
        row = find_by_email(app, session, email_key)  # another request made it a moment ago
    statuses = statuses_of(app, session, row.id)
    confirmed_any = CONFIRMED in statuses.values()
    to_request = [list_id for list_id in list_ids if statuses.get(list_id) != CONFIRMED]
    stored = row.fields or {}
    merged = {**stored, **fields}
    fields_changed = merged != stored
    subscriber = Subscriber(row.id, row.email, row.email_key, stored, row.pending_fields, row.nonce)
    if not to_request and not fields_changed:
        return SignupResult("already_subscribed", subscriber, False, [])
    if confirmed_any:
        values = {"pending_fields": merged if fields_changed else None}
    else:  # nothing confirmed: nobody's data to protect yet, the newest sign-up stands
        values = {"fields": merged, "pending_fields": None}
    if any(getattr(subscriber, name) != value for name, value in values.items()):
        session.execute(update(subscribers).where(subscribers.c.id == row.id).values(
            modified=now, signup_ip=ip[:64], **values))
        for name, value in values.items():
            setattr(subscriber, name, value)
    missing = [list_id for list_id in to_request if list_id not in statuses]
    if missing:
        insert_ignoring_conflict(session, subscriptions, [
            {"subscriber_id": row.id, "list_id": list_id, "status": PENDING, "source": source, "requested": now}
            for list_id in missing], ["subscriber_id", "list_id"])
    again = [list_id for list_id in to_request if statuses.get(list_id) == UNSUBSCRIBED]
    if again:
        session.execute(update(subscriptions).where(
            subscriptions.c.subscriber_id == row.id, subscriptions.c.list_id.in_(again),
            subscriptions.c.status == UNSUBSCRIBED).values(status=PENDING, source=source, requested=now,
                                                          unsubscribed=None))
    record_consent(app, session, row.id, to_request, REQUESTED, FORM, source, consent_text, ip, now)
    return SignupResult("updated" if confirmed_any else "subscribed", subscriber, True, to_request)


def confirm(app, session, subscriber, ip: str) -> int:
    """Confirm every pending subscription of `subscriber`; apply fields kept aside. Returns how many."""
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    now = utcnow()
    waiting = [list_id for list_id, status in statuses_of(app, session, subscriber.id).items() if status == PENDING]
    confirmed = session.execute(update(subscriptions).where(
        subscriptions.c.subscriber_id == subscriber.id, subscriptions.c.status == PENDING).values(
        status=CONFIRMED, confirmed=now, confirm_ip=ip[:64])).rowcount
    record_consent(app, session, subscriber.id, waiting, CONFIRMED, LINK, "confirmation link",
                   "Followed the link in the confirmation mail and pressed its button", ip, now)
    changes = {"modified": now}
    if subscriber.pending_fields is not None:
        changes.update(fields=subscriber.pending_fields, pending_fields=None)
        confirmed = confirmed or 1
    session.execute(update(subscribers).where(subscribers.c.id == subscriber.id).values(**changes))
    if confirmed:  # the person asked again, with proof of the inbox: an earlier erasure no longer applies
        suppressions = table(app, SUPPRESSIONS)
        session.execute(delete(suppressions).where(suppressions.c.email_hash == email_hash(app, subscriber.email_key)))
    return confirmed


def unsubscribe(app, session, subscriber_id: int, list_ids: list[int] | None) -> int:
    """End the pending and confirmed subscriptions (of `list_ids`, or all). Returns how many ended."""
    subscriptions = table(app, SUBSCRIPTIONS)
    condition = [subscriptions.c.subscriber_id == subscriber_id, subscriptions.c.status != UNSUBSCRIBED]
    if list_ids is not None:
        condition.append(subscriptions.c.list_id.in_(list_ids))
    ending = [list_id for (list_id,) in session.execute(select(subscriptions.c.list_id).where(*condition))]
    now = utcnow()
    ended = session.execute(update(subscriptions).where(*condition).values(status=UNSUBSCRIBED,
                                                                             unsubscribed=now)).rowcount
    record_consent(app, session, subscriber_id, ending, UNSUBSCRIBED, LINK, "unsubscribe link",
                   "Withdrew consent with the unsubscribe link", at=now)
    return ended


def erase(app, session, subscriber) -> None:
    """Remove the person's data; keep only the keyed hash of the address, so imports skip it."""
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    consents = table(app, CONSENTS)
    session.execute(delete(consents).where(consents.c.subscriber_id == subscriber.id))
    session.execute(delete(subscriptions).where(subscriptions.c.subscriber_id == subscriber.id))
    session.execute(delete(subscribers).where(subscribers.c.id == subscriber.id))
    insert_ignoring_conflict(session, table(app, SUPPRESSIONS),
                             {"email_hash": email_hash(app, subscriber.email_key), "created": utcnow()}, ["email_hash"])


def import_pending(app, session, email: str, email_key: str, fields: dict, list_id: int, source: str,
                   confirmed: bool = False, consent_text: str = "") -> str:
    """One imported address: `added` (pending, or confirmed with `confirmed`), `exists` (already on the
    list), `suppressed` (erased) or `unsubscribed` (left the list once: not added back)."""
    if is_suppressed(app, session, email_key):
        return "suppressed"
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    now = utcnow()
    row = find_by_email(app, session, email_key)
    if row is None:
        insert_ignoring_conflict(session, subscribers, {
            "email": email, "email_key": email_key, "fields": fields, "pending_fields": None,
            "nonce": secrets.token_hex(16), "signup_ip": "", "created": now, "modified": now}, ["email_key"])
        row = find_by_email(app, session, email_key)
    status = statuses_of(app, session, row.id).get(list_id)
    if status in (PENDING, CONFIRMED):
        return "exists"
    if status is not None:  # they unsubscribed once: an import must not quietly undo that
        return "unsubscribed"
    session.execute(insert(subscriptions).values(subscriber_id=row.id, list_id=list_id,
                                                 status=CONFIRMED if confirmed else PENDING, source=source[:300],
                                                 requested=now, confirmed=now if confirmed else None))
    record_consent(app, session, row.id, [list_id], CONFIRMED if confirmed else REQUESTED, IMPORT, source,
                   consent_text, at=now)
    return "added"


def pending_rows(app, session, list_id: int):
    """Subscribers whose subscription to the list still waits for confirmation, oldest request first."""
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    return session.execute(
        select(subscribers).join(subscriptions, subscriptions.c.subscriber_id == subscribers.c.id)
        .where(subscriptions.c.list_id == list_id, subscriptions.c.status == PENDING)
        .order_by(subscriptions.c.requested, subscribers.c.id)).all()


def confirmed_rows(app, session, list_id: int):
    """(subscription, subscriber) rows of a list's confirmed subscribers, oldest consent first."""
    return session.execute(confirmed_query(app, list_id)).all()


def confirmed_query(app, list_id: int):
    subscribers, subscriptions = table(app, SUBSCRIBERS), table(app, SUBSCRIPTIONS)
    return (
        select(subscribers.c.id, subscribers.c.email, subscribers.c.fields, subscribers.c.nonce,
               subscriptions.c.confirmed, subscriptions.c.confirm_ip, subscriptions.c.source,
               subscriptions.c.requested)
        .join(subscriptions, subscriptions.c.subscriber_id == subscribers.c.id)
        .where(subscriptions.c.list_id == list_id, subscriptions.c.status == CONFIRMED)
        .order_by(subscriptions.c.confirmed, subscribers.c.id))
