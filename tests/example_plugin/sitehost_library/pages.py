"""The library's public pages: a book's page, its ISBN address and the catalogue as CSV.

Each handler gets the page's host.PageRequest and returns its answer: the HTML body, a
host.PageAnswer (another content type), `redirect(...)` or `not_found()`.
"""

import csv
import io

from sqlalchemy import select

from host import HtmlView, Page, PageAnswer, PageRequest, not_found, redirect, theme

from .tables import books, loans

MAX_ISBN = 13


def book_page(app, request: PageRequest, book_id: int):
    """GET /library/books/<id>/: the book's title, ISBN and whether it is on the shelf."""
    book_table, loan_table = books(app), loans(app)
    with app.db.session() as session:
        book = session.execute(select(book_table).where(book_table.c.id == book_id)).first()
        due = None if book is None else session.execute(
            select(loan_table.c.due).where(loan_table.c.book == book.id, loan_table.c.status == "open")).scalar()
    if book is None:
        return not_found()
    body = theme.render(app, __package__, "library_book.html", {"book": book, "due": due})
    return app.render_view(HtmlView(book.title, body))


def isbn_page(app, request: PageRequest, isbn: str):
    """GET /library/isbn/<isbn>: the book's own page, where a barcode scanner's link arrives (301)."""
    book_table = books(app)
    book_id = None
    if isbn.isdigit() and len(isbn) == MAX_ISBN:
        with app.db.session() as session:
            book_id = session.execute(select(book_table.c.id).where(book_table.c.isbn == isbn)).scalar()
    if book_id is None:
        return not_found()
    return redirect(f"{request.site_url}/library/books/{book_id}/", 301)


def catalogue_csv(app, request: PageRequest):
    """GET /library/catalogue.csv: every book (ISBN, title), for a spreadsheet."""
    book_table = books(app)
    with app.db.session() as session:
        rows = session.execute(select(book_table.c.isbn, book_table.c.title).order_by(book_table.c.title)).all()
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("isbn", "title"))
    writer.writerows(rows)
    return PageAnswer(text.getvalue(), content_type="text/csv; charset=utf-8",
                      headers={"Content-Disposition": 'attachment; filename="catalogue.csv"'})


PAGES = [Page("/library/books/<book_id:int>/", ("GET", "HEAD"), book_page, name="library-book"),
         Page("/library/isbn/<isbn>", ("GET", "HEAD"), isbn_page, name="library-isbn"),
         Page("/library/catalogue.csv", ("GET", "HEAD"), catalogue_csv, name="library-catalogue")]
