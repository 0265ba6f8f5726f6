"""The response cache over HTTP: hits and misses, keys, bounds, invalidation across processes."""

from __future__ import annotations

import time

import pytest
from webtest import TestApp

from host.app import create_app
from host.config import Settings
from host.testing import (
    assert_in_root_index, assert_not_in_root_index, assert_rest_error, client_as, create_test_user,
)

from .helpers import NOTES

REST = "/wp-json"


def create_note(app, editor, title):
    return client_as(app, editor).post_json(REST + NOTES, {"title": title, "status": "publish"}, status=201).json


def titles(response):
    return [note["title"] for note in response.json]


def test_root_index_is_a_miss_then_an_identical_hit(cache_app):
    app = cache_app()
    first = app.client.get(REST + "/")
    second = app.client.get(REST + "/")
    assert first.headers["X-Cache"] == "miss"
    assert second.headers["X-Cache"] == "hit"
    assert second.body == first.body
    assert second.headers["Content-Type"] == first.headers["Content-Type"]
    assert second.headers["Link"] == first.headers["Link"]
    assert app.client.get(REST + "/cache/v1").headers["X-Cache"] == "miss"
    assert app.client.get(REST + "/cache/v1").headers["X-Cache"] == "hit"


def test_the_key_is_the_full_request(cache_app):
    app = cache_app()
    app.client.get(REST + NOTES + "?order=asc&per_page=5")
    assert app.client.get(REST + NOTES + "?per_page=5&order=asc").headers["X-Cache"] == "hit"
    assert app.client.get(REST + NOTES + "?per_page=5&order=asc&_envelope=1").headers["X-Cache"] == "miss"
    assert app.client.get(REST + NOTES + "?per_page=5&order=asc&_envelope=1").json["status"] == 200
    other_host = app.client.get(REST + NOTES + "?order=asc&per_page=5", headers={"Host": "other.test"})
    assert other_host.headers["X-Cache"] == "miss"
    assert app.client.get(REST + NOTES + "?order=asc&per_page=5&_=1").headers["X-Cache"] == "miss"


def test_signed_in_requests_and_cookies_are_never_cached(cache_app):
    app = cache_app()
    editor = create_test_user(app, "editor")
    app.client.get(REST + NOTES)
    signed_in = app.client.get(REST + NOTES, headers=editor.headers)
    assert "X-Cache" not in signed_in.headers
    assert "no-store" in signed_in.headers["Cache-Control"]
    with_cookie = app.client.get(REST + NOTES, headers={"Cookie": "sitehost_session=whatever"})
    assert "X-Cache" not in with_cookie.headers


def test_only_successful_responses_of_cached_paths_are_stored(cache_app):
    app = cache_app()
    for _ in range(2):
        missing = app.client.get(REST + NOTES + "/999", status=404)
        assert missing.headers["X-Cache"] == "miss"
        assert_rest_error(missing, "example_note_not_found", 404)
    for _ in range(2):
        assert "X-Cache" not in app.client.get(REST + "/example/v1/echo?needed=x").headers
    for query in ("?password=secret", "?context=edit"):  # for whoever holds the password, or edits: never kept
        for _ in range(2):
            assert app.client.get(REST + NOTES + query, expect_errors=True).headers.get("X-Cache") is None, query


def test_a_cached_list_changes_right_after_a_create_and_a_trash(cache_app):
    app = cache_app()
    editor = create_test_user(app, "editor")
    assert app.client.get(REST + NOTES).json == []
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    note = create_note(app, editor, "Sports day moved")
    after_create = app.client.get(REST + NOTES)
    assert after_create.headers["X-Cache"] == "miss"
    assert titles(after_create) == ["Sports day moved"]
    item = app.client.get(REST + NOTES + f"/{note['id']}")
    assert app.client.get(REST + NOTES + f"/{note['id']}").headers["X-Cache"] == "hit"
    assert item.json["status"] == "publish"
    client_as(app, editor).delete(REST + NOTES + f"/{note['id']}", status=200)
    trashed = app.client.get(REST + NOTES + f"/{note['id']}")
    assert trashed.headers["X-Cache"] == "miss"
    assert trashed.json["status"] == "trash"


def test_a_second_process_on_the_same_database_sees_the_invalidation(cache_app, tmp_path):
    first = cache_app()
    second = create_app(Settings(
        database_url=first.settings.database_url, only_plugins=["example", "cache"],
        plugins=first.settings.plugins, uploads_dir=str(tmp_path / "uploads-second")))
    try:
        second.client = TestApp(second, extra_environ={"HTTP_HOST": "school.test"})
        editor = create_test_user(first, "editor")
        create_note(first, editor, "Before")
        for app in (first, second):
            app.client.get(REST + NOTES)
            assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"
        create_note(second, editor, "Written by the second process")
        # SQLite: the very next read is fresh. PostgreSQL: the first process hears the write by
        # NOTIFY, which its listener takes in within a moment (bounded here at a second).
        deadline = time.monotonic() + (1.0 if first.db.engine.dialect.name == "postgresql" else 0)
        seen_by_first = first.client.get(REST + NOTES)
        while seen_by_first.headers["X-Cache"] == "hit" and time.monotonic() < deadline:
            time.sleep(0.005)
            seen_by_first = first.client.get(REST + NOTES)
        assert seen_by_first.headers["X-Cache"] == "miss"
        assert titles(seen_by_first) == ["Written by the second process", "Before"]
        assert first.client.get(REST + NOTES).headers["X-Cache"] == "hit"
    finally:
        second.close()


def test_entries_are_bounded_least_recently_used_first(cache_app):
    app = cache_app(max_entries=2)
    app.client.get(REST + NOTES + "?page=1")
    app.client.get(REST + NOTES + "?page=2")
    assert app.client.get(REST + NOTES + "?page=1").headers["X-Cache"] == "hit"  # page=2 is now oldest
    app.client.get(REST + NOTES + "?page=3")
    assert app.client.get(REST + NOTES + "?page=2").headers["X-Cache"] == "miss"
    assert app.client.get(REST + NOTES + "?page=3").headers["X-Cache"] == "hit"


def test_responses_larger_than_the_byte_budget_are_not_kept(cache_app):
    app = cache_app(max_bytes=1024)
    root = app.client.get(REST + "/")
    assert len(root.body) > 1024
    assert app.client.get(REST + "/").headers["X-Cache"] == "miss"
    app.client.get(REST + NOTES)
    assert app.client.get(REST + NOTES).headers["X-Cache"] == "hit"


def test_the_off_switch(cache_app):
    app = cache_app(enabled=False)
    for _ in range(2):
        assert "X-Cache" not in app.client.get(REST + "/").headers


def test_an_invalid_configuration_stops_the_start_naming_the_key(cache_app):
    """The table is checked against PluginInfo.settings before anything starts."""
    from host.config import ConfigError

    with pytest.raises(ConfigError, match=r"^\[plugins.cache\]: max_entries = 0 is not valid; Must be greater"):
        cache_app(max_entries=0)


def test_enabling_or_disabling_the_plugin_changes_the_root_index(make_app, example_plugin):
    enabled = make_app(plugins=["example", "cache"])
    for namespace in ("cache/v1", "cache/v3"):
        index = assert_in_root_index(enabled, namespace)
    assert "/cache/v3/ping" in index["routes"]
    disabled = make_app(plugins=["example", "cache"], disabled=["cache"])
    for namespace in ("cache/v1", "cache/v3"):
        assert_not_in_root_index(disabled, namespace)
    assert "X-Cache" not in disabled.client.get(REST + "/").headers
