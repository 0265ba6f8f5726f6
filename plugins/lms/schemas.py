"""Arguments of the lms/v1 routes, and the query parameters the handlers read themselves.

The interface declares the read routes' arguments as the original registered them: `id`,
`course_id` and `topic_id`, optional and without a type (the original only checked
`is_numeric`), and nothing for `courses` and the webhook. The original's handlers also read
`order`, `orderby`, `paged`, `categories`, `tags`, `offset` and `limit` without declaring
them; the discovery documents stay as the interface lists them, and the handlers check those
values with the schemas below (CourseListQuery, RatingQuery), answering 400
rest_invalid_param like the pipeline does.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

from host import invalid_param
from host.args import JsonSchemaField, Paged, per_page_field

from .apikeys import PERMISSIONS

MAX_TERM_NAMES = 20


def untyped(description: str) -> fields.Field:
    """An optional argument without a declared type, as the original registers it."""
    return JsonSchemaField({}, metadata={"description": description})


class IdArgs(Schema):
    id = untyped("Unique identifier (a number).")


class CourseIdArgs(Schema):
    course_id = untyped("The course whose topics are listed (a number).")


class TopicIdArgs(Schema):
    topic_id = untyped("The topic whose lessons or quizzes are listed (a number).")


class NoArgs(Schema):
    """No declared arguments (the interface lists none)."""


def _term_names(value: str) -> None:
    names = [name for name in value.split(",") if name.strip()]
    if len(names) > MAX_TERM_NAMES:
        raise ValidationError(f"At most {MAX_TERM_NAMES} term names.")
    if any(len(name.strip()) > 200 for name in names):
        raise ValidationError("A term name is at most 200 characters.")


class CourseListQuery(Schema):
    """What lms/v1/courses reads from the query string."""

    class Meta:
        unknown = EXCLUDE

    order = fields.String(load_default="ASC", validate=validate.OneOf(["ASC", "DESC", "asc", "desc"]))
    orderby = fields.String(load_default="title", validate=validate.OneOf(["title", "price"]))
    paged = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100000))
    categories = fields.String(load_default="", validate=[validate.Length(max=4200), _term_names])
    tags = fields.String(load_default="", validate=[validate.Length(max=4200), _term_names])


class RatingQuery(Schema):
    """What lms/v1/course-rating/{id} reads from the query string: a window of the reviews."""

    class Meta:
        unknown = EXCLUDE

    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1000000))
    limit = fields.Integer(load_default=10, validate=validate.Range(min=1, max=100))


_INSTANCES: dict[type, Schema] = {}  # one loader per schema class (stateless, shared by every app)


def read_query(request, schema: type[Schema]) -> dict:
    """The handler-read parameters, checked; 400 rest_invalid_param naming each bad one."""
    instance = _INSTANCES.get(schema)
    if instance is None:
        instance = _INSTANCES.setdefault(schema, schema())
    raw = {}
    for name in instance.fields:
        value = request.raw_param(name)
        if value is None:
            continue
        if isinstance(value, (dict, list)):
            raw[name] = value  # marshmallow refuses it with a type message
        else:
            raw[name] = str(value) if not isinstance(value, (int, float)) or isinstance(value, bool) else value
        if raw[name] == "":
            raw.pop(name)  # an empty value means the default, as PHP's empty() treated it
    try:
        return instance.load(raw)
    except ValidationError as error:
        raise invalid_param({name: " ".join(map(str, messages)) if isinstance(messages, list) else str(messages)
                             for name, messages in error.messages.items()}) from None


# --- administration routes (declared normally: they are this server's own) ----------------------

class ApiKeyCreateArgs(Schema):
    user = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "The user the key signs in as (default: the caller)."})
    permission = fields.String(required=True, validate=validate.OneOf(list(PERMISSIONS)), metadata={
        "description": "What the key may do: read, write, read_write, delete or all."})
    description = fields.String(load_default="", validate=validate.Length(max=500), metadata={
        "description": "What the key is for (the app that uses it)."})


class ApiKeyArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier of the key."})


class ApiKeyListArgs(Schema):
    user = fields.Integer(validate=validate.Range(min=1), metadata={"description": "Only the keys of this user."})


class CatalogueArgs(Schema):
    courses = fields.List(fields.Dict(), required=True, validate=validate.Length(max=10000), metadata={
        "description": "The courses, as in a `sitehost lms import` file (README, Learning catalogue)."})


class EnrolmentListArgs(Paged):
    course = fields.Integer(validate=validate.Range(min=1), metadata={"description": "Only this course's enrolments."})
    user = fields.Integer(validate=validate.Range(min=1), metadata={"description": "Only this user's enrolments."})
    status = fields.String(validate=validate.OneOf(["completed", "cancelled"]), metadata={
        "description": "Only enrolments in this state (cancelled: refunded)."})


PAYMENT_OUTCOMES = ["enrolled", "refunded", "ignored", "unmatched", "refused", "pending"]


class PaymentEventListArgs(Paged):
    outcome = fields.String(validate=validate.OneOf(PAYMENT_OUTCOMES), metadata={
        "description": "Only events with this outcome (refused: the amount or currency was not the course's price)."})
    course = fields.Integer(validate=validate.Range(min=1, max=2**63 - 1), metadata={
        "description": "Only this course's events."})


class PendingEnrolmentListArgs(Schema):
    status = fields.String(validate=validate.OneOf(["pending", "granted", "refunded"]), metadata={
        "description": "Only payments in this state (pending: waiting for the address to register)."})
    course = fields.Integer(validate=validate.Range(min=1, max=2**31 - 1), metadata={
        "description": "Only this course's payments."})
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100000), metadata={
        "description": "Current page of the collection."})
    per_page = per_page_field()


class PendingEnrolmentAssignArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier of the pending enrolment."})
    user = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1), metadata={
        "description": "The existing user to enrol with this payment."})
