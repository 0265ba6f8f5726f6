"""library/v1: books, and loans of books to users (librarians only)."""

import datetime

from sqlalchemy import func, insert, select

from host import RestError, RestResponse, Route, invalid_param
from host.auth import users

from .schemas import BookListArgs, BookSchema, LoanArgs, LoanListArgs, LoanReadArgs
from .tables import books, loans

NAMESPACE = "library/v1"
LOAN_ROUTE = r"/loans/(?P<id>\d+)"

# Route keywords of every librarian's route: a plain capability check, refused in the library's words.
LIBRARIAN = {"capability": "lend_books",
             "refusal": ("library_cannot_lend", "Sorry, you are not allowed to manage the library.")}


def book_data(request, row) -> dict:
    return {"id": row.id, "isbn": row.isbn, "title": row.title,
            "_links": {"self": [{"href": f"{request.base_url}/{NAMESPACE}/books/{row.id}"}]}}


def loan_data(request, row) -> dict:
    due: datetime.date = row.due
    return {"id": row.id, "book": row.book, "borrower": row.borrower, "due": due.isoformat(),
            "due_weekday": due.strftime("%A"), "status": row.status,
            "closed_on": row.closed_on.isoformat() if row.closed_on else None, "renewals": row.renewals,
            "_links": {"self": [{"href": f"{request.base_url}/{NAMESPACE}/loans/{row.id}"}]}}


def list_books(request):
    table, params = books(request.app), request.params
    rows = request.session.execute(select(table).order_by(table.c.title, table.c.id).limit(params["per_page"])
                                   .offset((params["page"] - 1) * params["per_page"])).all()
    total = request.session.execute(select(func.count()).select_from(table)).scalar_one()
    return RestResponse.collection(request, [book_data(request, row) for row in rows], total,
                                   params["per_page"], params["page"])


def create_book(request):
    table, params = books(request.app), request.params
    if request.session.execute(select(table.c.id).where(table.c.isbn == params["isbn"])).first():
        raise RestError("library_book_exists", "A book with that ISBN is already in the library.", 409)
    new_id = request.session.execute(insert(table).values(isbn=params["isbn"], title=params["title"])) \
        .inserted_primary_key[0]
    row = request.session.execute(select(table).where(table.c.id == new_id)).one()
    return RestResponse.created(book_data(request, row), f"{request.base_url}/{NAMESPACE}/books/{new_id}")


def create_loan(request):
    """Lend a book: `due` arrives as a datetime.date (fields.Date), already checked not to be past."""
    app, params = request.app, request.params
    book_table, loan_table = books(app), loans(app)
    problems = {}
    if request.session.execute(select(book_table.c.id).where(book_table.c.id == params["book"])).first() is None:
        problems["book"] = "No book has that id."
    if users.get_user(app, request.session, params["borrower"]) is None:
        problems["borrower"] = "No user has that id."
    if problems:
        raise invalid_param(problems)
    lent = select(loan_table.c.id).where(loan_table.c.book == params["book"], loan_table.c.status == "open")
    if request.session.execute(lent).first():
        raise RestError("library_book_on_loan", "That book is on loan.", 409)
    new_id = request.session.execute(insert(loan_table).values(
        book=params["book"], borrower=params["borrower"], due=params["due"], status="open")).inserted_primary_key[0]
    row = request.session.execute(select(loan_table).where(loan_table.c.id == new_id)).one()
    return RestResponse.created(loan_data(request, row), f"{request.base_url}/{NAMESPACE}/loans/{new_id}")


def list_loans(request):
    table, params = loans(request.app), request.params
    conditions = [table.c[name] == params[name] for name in ("status", "borrower") if name in params]
    query = select(table).where(*conditions).order_by(table.c.id)
    rows = request.session.execute(query.limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"]))
    total = request.session.execute(select(func.count()).select_from(table).where(*conditions)).scalar_one()
    return RestResponse.collection(request, [loan_data(request, row) for row in rows], total,
                                   params["per_page"], params["page"])


def get_loan(request):
    table = loans(request.app)
    row = request.session.execute(select(table).where(table.c.id == request.params["id"])).first()
    if row is None:
        raise RestError("library_loan_not_found", "No loan has that id.", 404)
    return loan_data(request, row)


def routes():
    return [
        Route(NAMESPACE, "/books", "GET", list_books, args=BookListArgs, schema=BookSchema, title="book"),
        Route(NAMESPACE, "/books", "POST", create_book, args=BookSchema, **LIBRARIAN),
        Route(NAMESPACE, "/loans", "GET", list_loans, args=LoanListArgs, **LIBRARIAN),
        Route(NAMESPACE, "/loans", "POST", create_loan, args=LoanArgs, **LIBRARIAN),
        Route(NAMESPACE, LOAN_ROUTE, "GET", get_loan, args=LoanReadArgs, **LIBRARIAN),
    ]
