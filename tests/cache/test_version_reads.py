"""Hits stay exact when the shared version is read cheaply (PRAGMA data_version on SQLite files).

Each server thread keeps its own note of the last version it read; these tests ask from two
threads of one app while a second app (another process's stand-in) writes.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from webtest import TestApp

from host.app import create_app
from host.config import Settings
from host.testing import client_as, create_test_user

from .helpers import NOTES

REST = "/wp-json"


def second_app(first, tmp_path):
    second = create_app(Settings(
        database_url=first.settings.database_url, only_plugins=["example", "cache"],
        plugins=first.settings.plugins, uploads_dir=str(tmp_path / "uploads-second")))
    second.client = TestApp(second, extra_environ={"HTTP_HOST": "school.test"})
    return second


def titles(response):
    return [note["title"] for note in response.json]


def test_every_thread_sees_each_write_of_another_app_at_once(cache_app, tmp_path):
    first = cache_app()
    second = second_app(first, tmp_path)
    try:
        editor = client_as(second, create_test_user(first, "editor"))
        with ThreadPoolExecutor(max_workers=1) as pool:
            def here():
                return first.client.get(REST + NOTES)

            def other_thread():
                return pool.submit(here).result()

            expected = []
            for askers in ((other_thread, here), (here, other_thread)):  # each thread once asks first
                for ask in askers:
                    ask()
                    assert ask().headers["X-Cache"] == "hit"
                title = f"Written elsewhere {len(expected)}"
                editor.post_json(REST + NOTES, {"title": title, "status": "publish"}, status=201)
                expected.insert(0, title)
                for ask in askers:
                    assert titles_soon(ask, expected, first) == expected
    finally:
        second.close()


def titles_soon(ask, expected, app):
    """SQLite files: the very next read is fresh. PostgreSQL: the other app hears the write by NOTIFY,
    which its listener thread takes in within a moment (bounded here at a second)."""
    deadline = time.monotonic() + (1.0 if app.db.engine.dialect.name == "postgresql" else 0)
    while True:
        found = titles(ask())
        if found == expected or time.monotonic() >= deadline:
            return found
        time.sleep(0.005)


def test_commits_that_leave_the_version_alone_keep_the_hits(cache_app, tmp_path):
    first = cache_app()
    second = second_app(first, tmp_path)
    try:
        first.client.get(REST + NOTES)
        assert first.client.get(REST + NOTES).headers["X-Cache"] == "hit"
        create_test_user(first, "editor")
        create_test_user(second, "author")
        assert first.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    finally:
        second.close()
