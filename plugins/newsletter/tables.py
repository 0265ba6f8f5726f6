"""The newsletter plugin's tables: lists, sign-up forms, subscribers and their subscriptions,
erasure suppressions, rate-limit events, mailings and the mails they queued, consent evidence, and the
signing key as sites made before the
host's site secrets kept it.

A subscriber is one row per email address (`email_key`, unique), so concurrent sign-ups of one
address can never make two; each list it belongs to is a `newsletter_subscriptions` row whose
status is `pending` until the confirmation link is followed, then `confirmed` (with the consent
time and source kept as evidence), or `unsubscribed`.
"""

from __future__ import annotations

from sqlalchemy import (JSON, Column, DateTime, ForeignKey, Index, Integer, MetaData, String, Table, Text,
                        UniqueConstraint)

LISTS = "newsletter_lists"
FORMS = "newsletter_forms"
SUBSCRIBERS = "newsletter_subscribers"
SUBSCRIPTIONS = "newsletter_subscriptions"
SUPPRESSIONS = "newsletter_suppressions"
MAILINGS = "newsletter_mailings"
MAILING_MAILS = "newsletter_mailing_mails"
CONSENTS = "newsletter_consents"
KEYS = "newsletter_keys"


def define_tables(metadata: MetaData) -> None:
    Table(
        LISTS, metadata,
        Column("id", Integer, primary_key=True),
        Column("name", String(200), nullable=False),
        Column("description", Text, nullable=False, default=""),
        Column("created", DateTime, nullable=False),
        UniqueConstraint("name", name="uq_newsletter_lists_name"),
    )
    Table(
        FORMS, metadata,
        Column("id", Integer, primary_key=True),
        Column("title", String(200), nullable=False),
        Column("action", String(20), nullable=False),  # subscribe or unsubscribe
        Column("lists", JSON, nullable=False),  # list ids
        Column("list_choice", Integer, nullable=False, default=0),  # 1: visitors pick among `lists`
        Column("fields", JSON, nullable=False),  # [{tag, label, type, required}]
        Column("messages", JSON, nullable=False),  # {key: text} for every message key
        Column("created", DateTime, nullable=False),
        Column("modified", DateTime, nullable=False),
    )
    Table(
        SUBSCRIBERS, metadata,
        Column("id", Integer, primary_key=True),
        Column("email", String(320), nullable=False),  # as normalized by email-validator
        Column("email_key", String(320), nullable=False),  # lower case: one subscriber per address
        Column("fields", JSON, nullable=False),  # merge fields in force
        Column("pending_fields", JSON, nullable=True),  # sent with a sign-up, applied on confirmation
        Column("nonce", String(32), nullable=False),  # part of every token: erasure voids old links
        Column("signup_ip", String(64), nullable=False, default=""),
        Column("created", DateTime, nullable=False),
        Column("modified", DateTime, nullable=False),
        UniqueConstraint("email_key", name="uq_newsletter_subscribers_email"),
    )
    Table(
        SUBSCRIPTIONS, metadata,
        Column("id", Integer, primary_key=True),
        Column("subscriber_id", Integer, ForeignKey(f"{SUBSCRIBERS}.id", ondelete="CASCADE"), nullable=False),
        Column("list_id", Integer, ForeignKey(f"{LISTS}.id", ondelete="CASCADE"), nullable=False),
        Column("status", String(20), nullable=False),  # pending, confirmed, unsubscribed
        Column("source", String(300), nullable=False, default=""),  # where consent was asked: form or import
        Column("requested", DateTime, nullable=False),
        Column("confirmed", DateTime, nullable=True),  # the consent time
        Column("confirm_ip", String(64), nullable=False, default=""),
        Column("unsubscribed", DateTime, nullable=True),
        UniqueConstraint("subscriber_id", "list_id", name="uq_newsletter_subscriptions_pair"),
        Index("ix_newsletter_subscriptions_list", "list_id", "status"),
    )
    Table(
        SUPPRESSIONS, metadata,
        Column("id", Integer, primary_key=True),
        Column("email_hash", String(64), nullable=False),  # keyed SHA-256 of the erased address
        Column("created", DateTime, nullable=False),
        UniqueConstraint("email_hash", name="uq_newsletter_suppressions_hash"),
    )
    Table(
        MAILINGS, metadata,
        Column("id", Integer, primary_key=True),
        Column("list_id", Integer, ForeignKey(f"{LISTS}.id", ondelete="SET NULL"), nullable=True),
        Column("subject", String(300), nullable=False),
        Column("recipients", Integer, nullable=False),
        Column("created", DateTime, nullable=False),
    )
    # The outbox rows a mailing queued (host mail service ids): its sending progress is read from them.
    Table(
        MAILING_MAILS, metadata,
        Column("mailing_id", Integer, ForeignKey(f"{MAILINGS}.id", ondelete="CASCADE"), primary_key=True),
        Column("outbox_id", Integer, primary_key=True),
    )
    # Consent evidence, one row per event: asked (form), confirmed (the mail's link), imported (by whom,
    # with the statement the operator gave), unsubscribed. Personal data: erased with the subscriber.
    Table(
        CONSENTS, metadata,
        Column("id", Integer, primary_key=True),
        Column("subscriber_id", Integer, ForeignKey(f"{SUBSCRIBERS}.id", ondelete="CASCADE"), nullable=False),
        Column("list_id", Integer, ForeignKey(f"{LISTS}.id", ondelete="SET NULL"), nullable=True),
        Column("list_name", String(200), nullable=False, default=""),  # kept when the list is deleted
        Column("event", String(20), nullable=False),  # requested, confirmed, unsubscribed
        Column("method", String(20), nullable=False),  # form, link, import, admin
        Column("source", String(300), nullable=False, default=""),  # which form, which import and by whom
        Column("text", Text, nullable=False, default=""),  # what the person agreed to
        Column("ip_hash", String(64), nullable=False, default=""),  # keyed SHA-256 of the address, "" if none
        Column("at", DateTime, nullable=False),
        Index("ix_newsletter_consents_subscriber", "subscriber_id", "id"),
    )
    # Where versions before the host's site secrets (app.site_secret) kept the signing key: read once,
    # when the host store has none yet, so a site's old links keep working (tokens.signer).
    Table(
        KEYS, metadata,
        Column("name", String(40), primary_key=True),
        Column("value", String(200), nullable=False),
    )


def table(app, name: str) -> Table:
    """This app's table `name` (each app has its own MetaData)."""
    return app.db.metadata.tables[name]
