"""The library plugin, written from docs/plugin-guide.md alone, proves the argument path end to end:
its own validators run, a Date argument is checked and typed, a capability guards its routes, and
`user_deleted` closes a deleted borrower's loans whichever way the account goes."""

from __future__ import annotations

import datetime

from click.testing import CliRunner

from host.cli import main
from host.testing import admin_form, admin_sign_in, assert_collection, assert_rest_error, client_as

BOOKS = "/wp-json/library/v1/books"
LOANS = "/wp-json/library/v1/loans"
GOOD_ISBN = "9780306406157"
WRONG_CHECK_DIGIT = "9780306406158"


def _librarian(app, make_user):
    return client_as(app, make_user(app, "editor"))


def _book(librarian, isbn=GOOD_ISBN, title="The Hobbit") -> dict:
    return librarian.post_json(BOOKS, {"isbn": isbn, "title": title}, status=201).json


def _loan(librarian, book: int, borrower: int, due="2030-12-31") -> dict:
    return librarian.post_json(LOANS, {"book": book, "borrower": borrower, "due": due}, status=201).json


def test_plugin_is_loaded_through_its_entry_point(library_app):
    """The package's distribution version and its namespace show the entry point did the loading."""
    record = library_app.plugin("library")
    assert (record.state, record.source, record.version) == ("enabled", "package", "0.2.0")
    assert "library/v1" in library_app.client.get("/wp-json/").json["namespaces"]


def test_a_wrong_isbn_check_digit_is_refused_naming_isbn(library_app, make_user):
    """The check digit is a marshmallow validator JSON Schema cannot express: it runs before the handler."""
    librarian = _librarian(library_app, make_user)
    refused = librarian.post_json(BOOKS, {"isbn": WRONG_CHECK_DIGIT, "title": "The Hobbit"}, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert body["message"] == "Invalid parameter(s): isbn"
    assert body["data"]["params"] == {"isbn": "The ISBN-13 check digit is wrong."}
    assert body["data"]["details"]["isbn"] == {"code": "rest_invalid_param",
                                               "message": "The ISBN-13 check digit is wrong.", "data": None}
    assert_collection(library_app.client.get(BOOKS), total=0)  # nothing was written
    assert _book(librarian)["isbn"] == GOOD_ISBN


def test_due_written_day_first_is_refused(library_app, make_user):
    """`due` is a fields.Date: its advertised `format: date` is enforced, so 31/12/2030 never reaches the handler."""
    librarian = _librarian(library_app, make_user)
    book, pupil = _book(librarian), make_user(library_app, "subscriber")
    refused = librarian.post_json(LOANS, {"book": book["id"], "borrower": pupil.id, "due": "31/12/2030"}, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert list(body["data"]["params"]) == ["due"]
    assert body["data"]["details"]["due"]["code"] == "rest_invalid_date"
    impossible = librarian.post_json(LOANS, {"book": book["id"], "borrower": pupil.id, "due": "2030-02-30"}, status=400)
    assert list(assert_rest_error(impossible, "rest_invalid_param", 400)["data"]["params"]) == ["due"]
    past = librarian.post_json(LOANS, {"book": book["id"], "borrower": pupil.id, "due": "2001-01-01"}, status=400)
    assert assert_rest_error(past, "rest_invalid_param", 400)["data"]["params"] == {"due": "The due day is in the past."}
    assert_collection(librarian.get(LOANS), total=0)


def test_a_good_due_day_reaches_the_handler_as_a_date(library_app, make_user):
    """The handler formats `due` with date methods (a weekday): a string would have been a 500."""
    librarian = _librarian(library_app, make_user)
    book, pupil = _book(librarian), make_user(library_app, "subscriber")
    loan = _loan(librarian, book["id"], pupil.id, "2030-12-31")
    assert (loan["due"], loan["due_weekday"], loan["status"]) == ("2030-12-31", "Tuesday", "open")
    assert librarian.get(f"{LOANS}/{loan['id']}").json["due"] == "2030-12-31"


def test_handler_checks_name_every_bad_argument_at_once(library_app, make_user):
    """The handler's own checks answer through invalid_param: one 400 naming book and borrower."""
    librarian = _librarian(library_app, make_user)
    refused = librarian.post_json(LOANS, {"book": 999, "borrower": 998, "due": "2030-12-31"}, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert body["message"] == "Invalid parameter(s): book, borrower"
    assert body["data"]["params"] == {"book": "No book has that id.", "borrower": "No user has that id."}


def test_only_librarians_lend_and_paging_has_the_routes_bounds(library_app, make_user):
    """`capability=` refuses in the plugin's words (401 anonymous, 403 signed in); per_page is 1 to 50 here."""
    book = {"isbn": GOOD_ISBN, "title": "The Hobbit"}
    assert_rest_error(library_app.client.post_json(BOOKS, book, status=401), "library_cannot_lend", 401)
    pupil = client_as(library_app, make_user(library_app, "subscriber"))
    assert_rest_error(pupil.post_json(BOOKS, book, status=403), "library_cannot_lend", 403)
    assert_rest_error(pupil.get(LOANS, status=403), "library_cannot_lend", 403)
    librarian = _librarian(library_app, make_user)
    assert_rest_error(librarian.get(LOANS, {"per_page": 51}, status=400), "rest_invalid_param", 400)
    per_page = library_app.client.get("/wp-json/library/v1").json["routes"]["/library/v1/loans"]["endpoints"][0]["args"]["per_page"]
    assert (per_page["default"], per_page["minimum"], per_page["maximum"]) == (20, 1, 50)


def test_deleting_a_borrower_through_rest_closes_their_loans(library_app, make_user):
    """DELETE core/v2/users/<id>?reassign=...&force=true: the open loan is closed, the other borrower's is not."""
    librarian = _librarian(library_app, make_user)
    admin = make_user(library_app, "administrator")
    leaving, staying = make_user(library_app, "subscriber"), make_user(library_app, "subscriber")
    first = _loan(librarian, _book(librarian)["id"], leaving.id)
    second = _loan(librarian, _book(librarian, "9780141439600", "A Tale of Two Cities")["id"], staying.id)
    library_app.client.delete(f"/wp-json/core/v2/users/{leaving.id}?reassign={admin.id}&force=true",
                              headers=admin.headers, status=200)
    closed = librarian.get(f"{LOANS}/{first['id']}").json
    assert (closed["status"], closed["borrower"], closed["closed_on"]) == ("closed", None,
                                                                          datetime.date.today().isoformat())
    assert librarian.get(f"{LOANS}/{second['id']}").json["status"] == "open"
    assert_collection(librarian.get(LOANS, {"status": "open"}), total=1)


def test_deleting_a_borrower_on_the_admin_users_page_closes_their_loans(library_app, make_user):
    """The admin Users page deletes through host.auth.users too, so the hook runs there as well."""
    librarian = _librarian(library_app, make_user)
    admin = make_user(library_app, "administrator")
    leaving = make_user(library_app, "subscriber")
    loan = _loan(librarian, _book(librarian)["id"], leaving.id)
    page = admin_sign_in(library_app, admin).get(f"/admin/users/{leaving.id}")
    assert f"User {leaving.login} deleted" in admin_form(page, "delete", reassign=str(admin.id)).submit().text
    assert librarian.get(f"{LOANS}/{loan['id']}").json["status"] == "closed"


def test_library_admin_page_serves_librarians_and_refuses_others(library_app, make_user):
    """Admins see the open loans and take a book back; an author is refused with 403."""
    librarian = _librarian(library_app, make_user)
    loan = _loan(librarian, _book(librarian, title="Matilda <3")["id"], make_user(library_app, "subscriber").id)
    browser = admin_sign_in(library_app, make_user(library_app, "administrator"))
    page = browser.get("/admin/library")
    assert "Matilda &lt;3" in page.text and "2030-12-31" in page.text  # escaped by the template
    returned = admin_form(page, "return", _match={"loan": str(loan["id"])}).submit()
    assert "Book returned." in returned.text and "No book is on loan." in returned.text
    assert librarian.get(f"{LOANS}/{loan['id']}").json["status"] == "closed"
    author = admin_sign_in(library_app, make_user(library_app, "author"))
    assert author.get("/admin/library", status=403).status_int == 403


def test_overdue_command_lists_late_loans(library_app, make_user, tmp_path, monkeypatch):
    """`sitehost library overdue --on DAY` reads the site the config names, through open_site."""
    # `sitehost` adds plugin commands once per process: let it add this test's, and forget them afterwards.
    monkeypatch.setattr(main, "commands", dict(main.commands))
    monkeypatch.setattr(main, "_plugin_commands_loaded", False)
    librarian = _librarian(library_app, make_user)
    pupil = make_user(library_app, "subscriber")
    loan = _loan(librarian, _book(librarian)["id"], pupil.id, "2030-12-31")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "{library_app.settings.database_url}"\n')

    def overdue(day: str):
        result = CliRunner().invoke(main, ["--config", str(config), "library", "overdue", "--on", day], env={},
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    assert overdue("2030-12-31").splitlines() == ["0 overdue on 2030-12-31"]
    assert overdue("2031-01-01").splitlines() == [
        f"loan {loan['id']}: 'The Hobbit' to user {pupil.id}, due 2030-12-31", "1 overdue on 2031-01-01"]


def test_a_books_public_page_answers_through_the_host(library_app, make_user):
    """A third-party page returns its body, a PageAnswer, redirect() or not_found(): what a visitor gets."""
    librarian = _librarian(library_app, make_user)
    book = _book(librarian, title="Tom's <Midnight> Garden")
    visitor = library_app.client
    page = visitor.get(f"/library/books/{book['id']}/")
    assert page.status_int == 200 and page.content_type == "text/html"
    assert "<h1>Tom&#39;s &lt;Midnight&gt; Garden</h1>" in page.text and "On the shelf." in page.text
    assert page.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'
    _loan(librarian, book["id"], make_user(library_app, "subscriber").id, due="2031-01-15")
    assert "On loan until 2031-01-15." in visitor.get(f"/library/books/{book['id']}/").text
    missing = visitor.get(f"/library/books/{book['id'] + 1}/", status=404)
    assert "Page not found" in missing.text and "Midnight" not in missing.text

    moved = visitor.get(f"/library/isbn/{GOOD_ISBN}", status=301)
    assert moved.headers["Location"] == f"http://school.test/library/books/{book['id']}/"
    visitor.get(f"/library/isbn/{WRONG_CHECK_DIGIT}", status=404)
    visitor.get("/library/isbn/not-a-number", status=404)

    catalogue = visitor.get("/library/catalogue.csv")
    assert catalogue.status_int == 200 and catalogue.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert catalogue.headers["Content-Disposition"] == 'attachment; filename="catalogue.csv"'
    assert catalogue.text == f"isbn,title\n{GOOD_ISBN},Tom's <Midnight> Garden\n"
