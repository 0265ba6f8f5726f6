"""Shapes and arguments of the newsletter/v1 administration routes (lists, forms, subscribers).

POST newsletter/v1/form declares no arguments, as the interface lists it: its fields are the
form's own (`_newsletter_*` and merge fields in upper case), read by signup.py.
"""

from __future__ import annotations

from marshmallow import Schema, validate
from marshmallow import fields as mf

from host.args import ContextArgs, PagedArgs, enum_field, force_field

from .messages import DEFAULT_MESSAGES, MAX_MESSAGE_LENGTH
from .store import STATUSES

TAG_PATTERN = r"^[A-Z][A-Z0-9_]{0,29}$"
FIELD_TYPES = ("text", "email", "number", "date", "phone", "hidden")
MAX_FIELDS = 30
MAX_FORM_LISTS = 50
ACTIONS = ("subscribe", "unsubscribe")


def _meta(description: str, context=("view", "edit"), **extra) -> dict:
    return {"description": description, "context": list(context), **extra}


class ListSchema(Schema):
    """A mailing list (e.g. "Whole school", "Year 7 parents"); also the create and update args."""

    id = mf.Integer(dump_only=True, metadata=_meta("Unique identifier for the list."))
    name = mf.String(required=True, validate=validate.Length(min=1, max=200),
                         metadata=_meta("Name of the list, unique on the site."))
    description = mf.String(validate=validate.Length(max=2000), metadata=_meta("What the list is for."))
    created = mf.String(dump_only=True, metadata=_meta("When the list was made (GMT).", format="date-time"))
    subscribers = mf.Dict(dump_only=True, metadata=_meta("How many subscribers the list has per status."))


class MergeFieldSchema(Schema):
    tag = mf.String(required=True, validate=validate.Regexp(TAG_PATTERN),
                        metadata={"description": "Field name in upper case (EMAIL, FNAME, LNAME, ...)."})
    label = mf.String(validate=validate.Length(max=200), metadata={"description": "Label shown on the form."})
    type = mf.String(validate=validate.OneOf(list(FIELD_TYPES)), metadata={"description": "Kind of input."})
    required = mf.Boolean(metadata={"description": "Whether the form refuses a sign-up without it."})


# One text per message key; keys left out keep their current (or default) text.
MessagesSchema = Schema.from_dict({
    key: mf.String(validate=validate.Length(min=1, max=MAX_MESSAGE_LENGTH),
                       metadata={"description": f"Text of the `{key}` message."})
    for key in DEFAULT_MESSAGES}, name="NewsletterMessages")


class FormSchema(Schema):
    """A sign-up (or unsubscribe) form; also the create and update args."""

    id = mf.Integer(dump_only=True, metadata=_meta("Unique identifier for the form (`_newsletter_form_id`)."))
    title = mf.String(required=True, validate=validate.Length(min=1, max=200), metadata=_meta("Title of the form."))
    action = mf.String(load_default="subscribe", validate=validate.OneOf(list(ACTIONS)),
                           metadata=_meta("subscribe, or unsubscribe for a form that takes people off its lists."))
    lists = mf.List(mf.Integer(), validate=validate.Length(max=MAX_FORM_LISTS), load_default=list,
                        metadata=_meta("Ids of the lists the form signs up to.", default=[]))
    list_choice = mf.Boolean(load_default=False, metadata=_meta(
        "Whether visitors pick among the form's lists with `_newsletter_lists[]`."))
    fields = mf.List(mf.Nested(MergeFieldSchema), validate=validate.Length(max=MAX_FIELDS), metadata=_meta(
        "Merge fields of the form; EMAIL is always there and always required."))
    messages = mf.Nested(MessagesSchema, metadata=_meta("Text of each message key (our defaults where unset)."))
    message_types = mf.Dict(dump_only=True, metadata=_meta("Type of each message key: success, notice or error."))
    created = mf.String(dump_only=True, metadata=_meta("When the form was made (GMT).", format="date-time"))
    modified = mf.String(dump_only=True, metadata=_meta("When the form last changed (GMT).", format="date-time"))


class SubscriberSchema(Schema):
    """A subscriber as administrators see it (read-only: people change it through forms and links)."""

    id = mf.Integer(dump_only=True, metadata=_meta("Unique identifier for the subscriber."))
    email = mf.String(dump_only=True, metadata=_meta("Email address.", format="email"))
    fields = mf.Dict(dump_only=True, metadata=_meta("Merge fields in force."))
    pending_fields = mf.Dict(dump_only=True, allow_none=True,
                                 metadata=_meta("Merge fields sent with a sign-up that is not confirmed yet."))
    created = mf.String(dump_only=True, metadata=_meta("First sign-up (GMT).", format="date-time"))
    subscriptions = mf.List(mf.Dict(), dump_only=True, metadata=_meta(
        "One entry per list: list, status, source, requested, confirmed (the consent time), unsubscribed."))


class ListCollectionArgs(PagedArgs):
    search = mf.String(validate=validate.Length(max=200), metadata={"description": "Limit to lists whose name contains this."})


class FormCollectionArgs(PagedArgs):
    """page and per_page."""


class SubscriberCollectionArgs(PagedArgs):
    list = mf.Integer(validate=validate.Range(min=1), metadata={"description": "Limit to subscribers of this list."})
    status = enum_field(tuple(STATUSES), "Limit to subscriptions in this status (with `list`: on that list).")
    search = mf.String(validate=validate.Length(max=320), metadata={
        "description": "Limit to subscribers whose email address contains this."})


ITEM_ID = mf.Integer(metadata={"description": "Unique identifier for the item."})


class ItemArgs(ContextArgs):
    """id and context."""

    id = ITEM_ID


class DeleteArgs(Schema):
    id = ITEM_ID
    force = force_field("Required to be true, as these items cannot be trashed.")
