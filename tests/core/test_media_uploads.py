"""/uploads serves files so that they never run as pages of the site, and hides what is not public."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import event

from host.testing import basic_auth_headers

from tests.core.helpers import API
from tests.core.test_media import png, upload

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
HTML = b"<!DOCTYPE html><html><body><script>fetch('/authorize-application')</script></body></html>"


def served_path(media: dict) -> str:
    return media["source_url"].replace("http://school.test", "")


def fetch(client, path: str, user=None, status=200, **headers):
    if user is not None:
        headers.update(user.headers)
    return client.get(path, headers=headers, status=status)


def assert_not_served(client, path: str, user=None, **headers) -> None:
    """The same 404 page as for a file that does not exist, whoever asks and with whatever credentials."""
    response = fetch(client, path, user, status=404, **headers)
    missing = client.get("/uploads/2001/01/never-uploaded.png", status=404)
    assert response.content_type == "text/html"
    assert response.body == missing.body
    assert "Content-Disposition" not in response.headers


@pytest.mark.parametrize("name, data, mime, served_type, inline", [
    ("photo.png", png(), "image/png", "image/png", True),
    ("notes.txt", b"Bring a packed lunch.\n", "text/plain", "text/plain; charset=UTF-8", True),
    ("report.pdf", PDF, "application/pdf", "application/pdf", False),
    ("page.html", HTML, "text/html", "text/html; charset=UTF-8", False),
    ("steal.js", b"fetch('/authorize-application')", "application/javascript",
     "application/javascript; charset=UTF-8", False),
    ("marks.csv", b"name,mark\nAda,10\n", "text/csv", "text/csv; charset=UTF-8", False),
])
def test_uploads_are_sandboxed_and_only_safe_types_open_inline(client, users, name, data, mime, served_type, inline):
    media = upload(client, users["administrator"].headers, data=data, name=name, mime=mime).json
    response = fetch(client, served_path(media))
    assert response.body == data
    assert response.headers["Content-Type"] == served_type
    assert response.headers["Content-Security-Policy"] == "sandbox"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    if inline:
        assert "Content-Disposition" not in response.headers
    else:
        assert response.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert "Cache-Control" not in response.headers  # public: any cache may keep it
    head = client.head(served_path(media), status=200)
    assert head.headers["Content-Security-Policy"] == "sandbox"


def test_a_private_attachment_is_served_only_to_those_who_may_read_it(client, users, make_user, app):
    owner = make_user(role="author")
    media = upload(client, owner.headers, status=201).json
    client.post_json(f"{API}/media/{media['id']}", {"status": "private"}, headers=owner.headers, status=200)
    path = served_path(media)
    assert_not_served(client, path)
    assert_not_served(client, path, users["author"])  # another author: no read_private_posts
    assert_not_served(client, path, users["subscriber"])
    for reader in (owner, users["editor"], users["administrator"]):
        response = fetch(client, path, reader)
        assert response.body == png()
        assert response.headers["Cache-Control"] == "private, no-store"
        assert response.headers["Content-Security-Policy"] == "sandbox"


def test_wrong_credentials_get_the_same_404_as_anonymous(client, users):
    media = upload(client, users["editor"].headers, status=201).json
    client.post_json(f"{API}/media/{media['id']}", {"status": "private"}, headers=users["editor"].headers, status=200)
    assert_not_served(client, served_path(media), **basic_auth_headers(users["editor"].login, "wrong password"))
    assert_not_served(client, served_path(media), **basic_auth_headers("nobody-here", "wrong password"))


def test_attachments_of_a_draft_are_hidden_until_it_is_published(client, users, make_user, make_post):
    writer = make_user(role="contributor")
    draft = make_post(title="Trip plans", status="draft")
    media = upload(client, users["administrator"].headers, status=201).json
    client.post_json(f"{API}/media/{media['id']}", {"post": draft["id"]}, headers=users["administrator"].headers,
                     status=200)
    path = served_path(media)
    assert_not_served(client, path)
    assert_not_served(client, path, writer)  # may not read someone else's draft
    assert fetch(client, path, users["editor"]).headers["Cache-Control"] == "private, no-store"
    client.post_json(f"{API}/posts/{draft['id']}", {"status": "publish"}, headers=users["administrator"].headers,
                     status=200)
    public = fetch(client, path)
    assert public.body == png()
    assert "Cache-Control" not in public.headers


def test_a_scheduled_parent_hides_its_media_until_its_time(client, users, make_post):
    scheduled = make_post(title="Next year", status="future", date="2999-01-01T09:00:00")
    media = upload(client, users["administrator"].headers, status=201).json
    client.post_json(f"{API}/media/{media['id']}", {"post": scheduled["id"]}, headers=users["administrator"].headers,
                     status=200)
    assert_not_served(client, served_path(media))
    past = make_post(title="Already out", status="future", date="2000-01-01T09:00:00")
    assert past["status"] == "publish"  # WordPress publishes a past date at once
    client.post_json(f"{API}/media/{media['id']}", {"post": past["id"]}, headers=users["administrator"].headers,
                     status=200)
    assert fetch(client, served_path(media)).body == png()


def test_other_spellings_of_a_hidden_path_do_not_get_around_the_check(client, users, app):
    media = upload(client, users["editor"].headers, status=201).json
    client.post_json(f"{API}/media/{media['id']}", {"status": "private"}, headers=users["editor"].headers, status=200)
    year, month, name = media["media_details"]["file"].split("/")
    for variant in (f"/uploads/{year}//{month}/{name}", f"/uploads/{year}/./{month}/{name}",
                    f"/uploads/{year}/{month}/../{month}/{name}", f"/uploads//{year}/{month}/{name}"):
        assert_not_served(client, variant)
        assert fetch(client, variant, users["editor"]).body == png()


def test_files_that_belong_to_no_attachment_are_not_served(client, app, users):
    folder = Path(app.settings.uploads_dir) / "2024" / "05"
    folder.mkdir(parents=True)
    (folder / "left-over.png").write_bytes(png())
    (Path(app.settings.uploads_dir).parent / "secret.txt").write_text("outside the uploads folder")
    assert_not_served(client, "/uploads/2024/05/left-over.png", users["administrator"])
    assert_not_served(client, "/uploads/../secret.txt")
    assert_not_served(client, "/uploads/%2e%2e/secret.txt")


def test_a_deleted_attachment_is_no_longer_served(client, users):
    media = upload(client, users["editor"].headers, status=201).json
    assert fetch(client, served_path(media)).body == png()
    client.delete(f"{API}/media/{media['id']}?force=true", headers=users["editor"].headers, status=200)
    assert_not_served(client, served_path(media))


def test_serving_a_file_reads_one_indexed_row(app, client, users):
    media = upload(client, users["editor"].headers, status=201).json
    statements = []

    def record(_conn, _cursor, statement, parameters, _context, _executemany):
        statements.append((statement, parameters))

    event.listen(app.db.engine, "before_cursor_execute", record)
    try:
        assert fetch(client, served_path(media)).body == png()
    finally:
        event.remove(app.db.engine, "before_cursor_execute", record)
    assert len(statements) == 1, statements
    if app.db.engine.dialect.name == "sqlite":
        statement, parameters = statements[0]
        with app.db.engine.connect() as connection:
            plan = " ".join(str(row) for row in connection.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, parameters).fetchall())
        assert "ix_posts_file" in plan, plan
        assert "SCAN posts" not in plan, plan
