"""Shapes and arguments of the library routes.

The ISBN check digit and "not due in the past" are rules a JSON Schema cannot say: they are
marshmallow validators, and the host runs them after the JSON-Schema check, before the handler.
"""

import datetime

from marshmallow import Schema, ValidationError, fields, validate, validates

from host.args import ContextArgs, Paged, PagedArgs

LOAN_STATUSES = ["open", "closed"]


def isbn13(value: str) -> None:
    """13 digits whose weighted sum (1, 3, 1, 3 ...) is a multiple of 10."""
    if len(value) != 13 or not value.isdigit():
        raise ValidationError("An ISBN-13 is 13 digits.")
    total = sum(int(digit) * (3 if index % 2 else 1) for index, digit in enumerate(value))
    if total % 10:
        raise ValidationError("The ISBN-13 check digit is wrong.")


class BookSchema(Schema):
    """A book; also the arguments of the create route."""

    id = fields.Integer(dump_only=True, metadata={"description": "Unique identifier.", "context": ["view", "edit"]})
    isbn = fields.String(required=True, validate=isbn13,
                         metadata={"description": "ISBN-13, digits only.", "context": ["view", "edit"]})
    title = fields.String(required=True, validate=validate.Length(min=1, max=200),
                          metadata={"description": "Title of the book.", "context": ["view", "edit"]})


class BookListArgs(PagedArgs):
    """context, page and per_page (1 to 100, default 10)."""


class LoanArgs(Schema):
    """Lend a book to a user until `due`."""

    book = fields.Integer(required=True, validate=validate.Range(min=1), metadata={"description": "The book's id."})
    borrower = fields.Integer(required=True, validate=validate.Range(min=1),
                              metadata={"description": "The borrowing user's id."})
    due = fields.Date(required=True, metadata={"description": "Day the book is due back, YYYY-MM-DD."})

    @validates("due")
    def not_in_the_past(self, value: datetime.date, **_kwargs) -> None:
        if value < datetime.date.today():
            raise ValidationError("The due day is in the past.")


class LoanListArgs(Paged.with_bounds(default=20, maximum=50)):
    """page, per_page (1 to 50, default 20) and filters."""

    status = fields.String(validate=validate.OneOf(LOAN_STATUSES), metadata={"description": "Only loans in this state."})
    borrower = fields.Integer(validate=validate.Range(min=1), metadata={"description": "Only this user's loans."})


class LoanReadArgs(ContextArgs):
    id = fields.Integer(metadata={"description": "Unique identifier of the loan."})
