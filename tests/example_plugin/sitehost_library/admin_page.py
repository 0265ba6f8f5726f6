"""The library's admin page: the open loans, each with a button that marks the book returned."""

import datetime

from sqlalchemy import select, update

from host import AdminPage
from host.admin import AdminRequest

from .tables import books, loans


def library_page(page: AdminRequest):
    """POST `return` closes the loan named by the form's `loan`."""
    app = page.app
    book_table, loan_table = books(app), loans(app)
    with app.db.session() as session:
        if page.method == "POST":
            closed = session.execute(update(loan_table).where(
                loan_table.c.id == _number(page.form.get("loan")), loan_table.c.status == "open")
                .values(status="closed", closed_on=datetime.date.today())).rowcount
            session.commit()
            page.notice("Book returned." if closed else "That loan is not open.", "success" if closed else "error")
        rows = session.execute(
            select(loan_table.c.id, loan_table.c.borrower, loan_table.c.due, book_table.c.title)
            .join(book_table, book_table.c.id == loan_table.c.book)
            .where(loan_table.c.status == "open").order_by(loan_table.c.due, loan_table.c.id)).all()
    return page.render("library_loans.html", loans=rows, today=datetime.date.today())


def _number(text) -> int:
    return int(text) if isinstance(text, str) and text.isdigit() and len(text) < 19 else 0


ADMIN_PAGES = [AdminPage("Library", "library", library_page, capability="lend_books", actions=("return",))]
