"""`/-/health`: the probe a load balancer sends every few seconds to each node.

It lives in the host, not in the site_health plugin: a balancer must be able to probe a node
whatever plugins the site has disabled, and without signing in. One catalogue query answers
both questions a balancer has: does the database answer, and does it hold every table and
column this node's code (and its enabled plugins) expects. A database newer than the code is
fine (rolling upgrades only add; see docs/deploy/upgrades.md); an older one is not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger("sitehost.health")

HEALTH_PATH = "/-/health"

# (table, column) of every ordinary table in the database's current schema, in one statement.
_POSTGRES_COLUMNS = (
    "SELECT c.relname, a.attname FROM pg_catalog.pg_attribute a "
    "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
    "WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema()) "
    "AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped")
_SQLITE_COLUMNS = (
    "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'")


@dataclass(frozen=True)
class SchemaReport:
    """What the database lacks of what this node expects; empty lists: current."""

    missing_tables: list[str]
    missing_columns: list[str]  # "table.column", of tables that exist

    @property
    def current(self) -> bool:
        return not self.missing_tables and not self.missing_columns

    def reason(self) -> str:
        """One line for an operator (names of tables and columns only: nothing secret)."""
        parts = []
        if self.missing_tables:
            parts.append(f"missing tables: {', '.join(self.missing_tables[:5])}"
                         + (f" and {len(self.missing_tables) - 5} more" if len(self.missing_tables) > 5 else ""))
        if self.missing_columns:
            parts.append(f"missing columns: {', '.join(self.missing_columns[:5])}"
                         + (f" and {len(self.missing_columns) - 5} more" if len(self.missing_columns) > 5 else ""))
        return "; ".join(parts)


def schema_report(app, connection) -> SchemaReport:
    """Compare the tables and columns of the enabled plugins (app.db.metadata) with the database's."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        rows = connection.exec_driver_sql(_POSTGRES_COLUMNS).all()
    elif dialect == "sqlite":
        rows = connection.exec_driver_sql(_SQLITE_COLUMNS).all()
    else:  # any other database: SQLAlchemy's inspector, table by table
        from sqlalchemy import inspect

        inspector = inspect(connection)
        rows = [(table, column["name"]) for table in inspector.get_table_names()
                for column in inspector.get_columns(table)]
    present: dict[str, set[str]] = {}
    for table, column in rows:
        present.setdefault(table, set()).add(column)
    missing_tables: list[str] = []
    missing_columns: list[str] = []
    for name, table in sorted(app.db.metadata.tables.items()):
        columns = present.get(name)
        if columns is None:
            missing_tables.append(name)
            continue
        missing_columns.extend(f"{name}.{column.name}" for column in table.columns if column.name not in columns)
    return SchemaReport(missing_tables, missing_columns)


def probe(app) -> tuple[bool, str]:
    """(healthy, one-line reason) of this node: the database answers and its schema is current."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with app.db.engine.connect() as connection:
            report = schema_report(app, connection)
    except SQLAlchemyError as error:
        # The driver's message may hold the database's address: the log gets it, the probe does not.
        log.warning("health probe: the database did not answer: %s", error)
        return False, f"database unreachable ({type(error).__name__})"
    if not report.current:
        return False, f"schema behind this node's code: {report.reason()}"
    return True, "ok"
