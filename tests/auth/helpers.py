"""Helpers of the auth tests: a stand-in content plugin, a content row, Basic auth headers, no-hash checks."""

from __future__ import annotations

import base64
import datetime
import sys
import types

from sqlalchemy import Boolean, Column, Integer, String, Table, insert

from host import PluginInfo, hookimpl

HASH_MARKERS = ("$b2$", "$argon2", "password_hash")


def content_stand_in() -> types.ModuleType:
    """A plugin that adds a minimal `posts` table when the core plugin does not define one yet."""
    module = types.ModuleType("auth_test_content")
    module.PLUGIN = PluginInfo(name="auth_test_content")

    @hookimpl
    def register_tables(metadata):
        if "posts" not in metadata.tables:
            Table("posts", metadata, Column("id", Integer, primary_key=True), Column("author", Integer),
                  Column("status", String(20), nullable=False), Column("type", String(20), nullable=False))

    module.register_tables = register_tables
    sys.modules[module.__name__] = module
    return module


def publish_post(app, author_id: int, status: str = "publish") -> None:
    """Insert a content row by `author_id`, filling whatever other required columns the table has."""
    posts = app.db.metadata.tables["posts"]
    now = datetime.datetime(2024, 5, 1, 9, 0, 0)
    values = {"author": author_id, "status": status, "type": "post"}
    for column in posts.columns:
        if column.name in values or column.primary_key or column.nullable or column.default is not None:
            continue
        python_type = column.type.python_type if not isinstance(column.type, Boolean) else bool
        values[column.name] = now if python_type is datetime.datetime else python_type()
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(posts).values(**values))


def basic(login: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def assert_no_hash(response) -> None:
    """No route or page ever returns a password hash."""
    text = response.body.decode("utf-8", "replace")
    for marker in HASH_MARKERS:
        assert marker not in text, f"{marker!r} found in {response.request.path}"
