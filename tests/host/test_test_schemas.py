"""The PostgreSQL pass's reused schemas (host.testing._PostgresSchemas): a schema goes to the next site
built alike only emptied and with the structure its build made; one a test changed is dropped.

PostgreSQL only: on SQLite every site gets a new file.
"""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import text

from host.app import create_app
from host.config import Settings
from host.testing import _REUSE_REPRODUCES, _PostgresSchemas, _count_ddl

SERVER = os.environ.get("SITEHOST_TEST_DATABASE_URL", "")

pytestmark = pytest.mark.skipif(not SERVER.startswith("postgresql"),
                                reason="schemas are PostgreSQL's; SQLite sites each get a new file")


def build(schemas, key, folder):
    """A core-only site on a schema for `key`: (app, schema name)."""
    url = schemas.new_url(key)
    settings = Settings(database_url=url, uploads_dir=str(folder / uuid.uuid4().hex))
    settings.only_plugins = ["core"]
    app = create_app(settings)
    schemas.built(url)
    return app, schemas.schemas[-1]


def exists(schemas, name) -> bool:
    with schemas.admin.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM pg_namespace WHERE nspname = :name"),
                                  {"name": name}).scalar() == 1


def test_a_schema_is_reused_only_while_its_structure_is_what_its_build_made(tmp_path):
    schemas = _PostgresSchemas(SERVER)
    key = f"test-{uuid.uuid4().hex}"  # of this test alone: no other test's site takes these schemas
    try:
        app, first = build(schemas, key, tmp_path)
        with app.db.engine.begin() as connection:
            connection.exec_driver_sql("INSERT INTO site_settings (key, value) VALUES ('title', '\"Written\"')")
        app.close()
        schemas.drop_all()
        assert exists(schemas, first)

        # Emptied for the next site built alike; the first reuse of the arguments has its structure read.
        app, second = build(schemas, key, tmp_path)
        assert second == first and second not in schemas.marks
        with app.db.engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM site_settings").scalar() == 0
        app.close()
        schemas.drop_all()
        assert (SERVER, key) in _REUSE_REPRODUCES

        # From then on a build's DDL count and versions stand for its structure, where they are counted.
        app, third = build(schemas, key, tmp_path)
        assert third == first
        assert (third in schemas.marks) == _count_ddl(schemas.admin)
        with app.db.engine.begin() as connection:  # a test that alters a table
            connection.exec_driver_sql("ALTER TABLE site_settings ADD COLUMN stray integer")
        app.close()
        schemas.drop_all()
        assert not exists(schemas, third)

        # A migration version changed without DDL (a stamp) counts too.
        app, fourth = build(schemas, key, tmp_path)
        assert fourth != first
        with app.db.engine.begin() as connection:
            table = connection.exec_driver_sql(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND left(tablename, 16) = 'alembic_version_' ORDER BY tablename LIMIT 1").scalar()
            connection.exec_driver_sql(f'UPDATE "{table}" SET version_num = \'stamped\'')
        app.close()
        schemas.drop_all()
        assert not exists(schemas, fourth)

        # Untouched after its build: emptied and kept.
        app, fifth = build(schemas, key, tmp_path)
        app.close()
        schemas.drop_all()
        assert exists(schemas, fifth)
    finally:
        schemas.drop_all()
