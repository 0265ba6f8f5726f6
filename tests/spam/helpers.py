"""Shared helpers of the spam filter tests."""

from __future__ import annotations

from plugins.spam.recorder import RECORDER

API = "/wp-json"
COMMENTS = f"{API}/core/v2/comments"
SPAM = f"{API}/spam/v1"
KEY = "abcdef123456"


def flush(app) -> None:
    """Wait until the filter's queued verdicts and training are written."""
    recorder = app.stash.get(RECORDER)
    if recorder is not None:
        recorder.flush()


def publish_post(app, headers, title="Sports day") -> dict:
    return app.client.post_json(f"{API}/core/v2/posts", {"title": title, "status": "publish"}, headers=headers,
                                status=201).json


def visitor_comment(app, post, content, name="Priya Shah", email="priya@example.org", address="10.0.0.1",
                    status=201, **extra):
    return app.client.post_json(COMMENTS, {"post": post["id"], "content": content, "author_name": name,
                                           "author_email": email, **extra},
                                extra_environ={"REMOTE_ADDR": address}, status=status)


def rows(app, table_name: str) -> list[dict]:
    from sqlalchemy import select

    flush(app)
    table = app.db.metadata.tables[table_name]
    with app.db.session() as session:
        return [dict(row._mapping) for row in session.execute(select(table).order_by(*table.primary_key.columns))]


def staff(app) -> dict:
    """An administrator and an editor (all these tests need; users cost a password hash each)."""
    from host.testing import create_test_user

    return {role: create_test_user(app, role) for role in ("administrator", "editor")}
