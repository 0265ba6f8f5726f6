"""The library's tables: books, and loans of a book to a user until a due date."""

from sqlalchemy import Column, Date, Integer, String, Table

BOOKS = "library_books"
LOANS = "library_loans"


def define_tables(metadata):
    Table(BOOKS, metadata,
          Column("id", Integer, primary_key=True),
          Column("isbn", String(13), nullable=False, unique=True),
          Column("title", String(200), nullable=False))
    Table(LOANS, metadata,
          Column("id", Integer, primary_key=True),
          Column("book", Integer, nullable=False, index=True),
          Column("borrower", Integer, nullable=True, index=True),  # None once the account is deleted
          Column("due", Date, nullable=False),
          Column("status", String(10), nullable=False, index=True),  # open or closed
          Column("closed_on", Date, nullable=True),
          # Added in 0.2.0 by migrations/0001_loan_renewals.py: the table always describes the newest revision.
          Column("renewals", Integer, nullable=False, server_default="0"))


def books(app):
    """This app's books table."""
    return app.db.metadata.tables[BOOKS]


def loans(app):
    """This app's loans table."""
    return app.db.metadata.tables[LOANS]
