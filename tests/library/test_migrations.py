"""The library's 0.2.0 revision (migrations/0001_loan_renewals.py), written from docs/plugin-guide.md
section 3: a site of release 0.1.0 gets `renewals` at its next start, or from `sitehost migrate`,
and keeps every book and loan."""

from __future__ import annotations

from click.testing import CliRunner
from sqlalchemy import inspect

from host.cli import main
from host.testing import client_as, downgrade_tables

BOOKS = "/wp-json/library/v1/books"
LOANS = "/wp-json/library/v1/loans"


def _site_of_release_0_1_0(make_app, make_user):
    """A site with a book on loan, its tables taken back to before the first revision (release 0.1.0)."""
    app = make_app(plugins=["core", "library"])
    librarian = make_user(app, "editor")
    pupil = make_user(app, "subscriber")
    writer = client_as(app, librarian)
    book = writer.post_json(BOOKS, {"isbn": "9780306406157", "title": "The Hobbit"}, status=201).json
    loan = writer.post_json(LOANS, {"book": book["id"], "borrower": pupil.id, "due": "2030-12-31"}, status=201).json
    assert loan["renewals"] == 0
    downgrade_tables(app, "library")
    assert "renewals" not in _columns(app, "library_loans")
    assert "library_loans.renewals" in app.client.get("/-/health", status=503).text
    app.close()
    return app, librarian, book, loan


def _columns(app, table: str) -> set[str]:
    return {column["name"] for column in inspect(app.db.engine).get_columns(table)}


def test_the_next_start_adds_renewals_and_keeps_the_loans(library_plugin, make_app, make_user):
    old, librarian, book, loan = _site_of_release_0_1_0(make_app, make_user)
    upgraded = make_app(plugins=["core", "library"], database_url=old.settings.database_url)  # the next start
    assert upgraded.client.get("/-/health").text == "ok\n"
    assert "renewals" in _columns(upgraded, "library_loans")
    reader = client_as(upgraded, librarian)
    kept = reader.get(f"{LOANS}/{loan['id']}", status=200).json
    assert {key: kept[key] for key in ("id", "book", "borrower", "due", "status", "renewals")} == {
        "id": loan["id"], "book": book["id"], "borrower": loan["borrower"], "due": "2030-12-31", "status": "open",
        "renewals": 0}
    listed = reader.get(BOOKS, status=200)
    assert listed.headers["X-WP-Total"] == "1" and listed.json[0]["title"] == "The Hobbit"


def test_sitehost_migrate_adds_renewals_and_keeps_the_loans(library_plugin, make_app, make_user, tmp_path,
                                                            monkeypatch):
    old, librarian, _book, loan = _site_of_release_0_1_0(make_app, make_user)
    monkeypatch.setattr(main, "commands", dict(main.commands))
    monkeypatch.setattr(main, "_plugin_commands_loaded", False)
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "{old.settings.database_url}"\n')

    def migrate(*options: str) -> list[str]:
        result = CliRunner().invoke(main, ["--config", str(config), "migrate", *options], env={},
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return [line for line in result.output.splitlines() if line.startswith("library:")]

    assert migrate("--dry-run") == ["library: at base, would run 1 revision: 0001"]
    assert migrate() == ["library: base -> 0001 (1 revision: 0001)"]
    assert migrate() == ["library: at 0001 (current)"]
    started = make_app(plugins=["core", "library"], database_url=old.settings.database_url)
    assert "renewals" in _columns(started, "library_loans")
    answer = client_as(started, librarian).get(LOANS, {"status": "open"}, status=200)
    assert answer.headers["X-WP-Total"] == "1"
    assert [(item["id"], item["due"], item["renewals"]) for item in answer.json] == [(loan["id"], "2030-12-31", 0)]
