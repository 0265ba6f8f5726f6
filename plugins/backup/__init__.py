"""backup/v1: whole-site backups (every plugin's tables and the uploads, in one verifiable archive),
restores into SQLite or PostgreSQL, a schedule with retention, and the version probe.

Hook implementations only; the parts live beside this file: catalog.py (every table, disabled
plugins' too), snapshot.py (a consistent read), codec.py (engine-independent JSON lines),
archive.py (the archive and its verification), create.py, restore.py, jobs.py (background
backups and the schedule as host jobs), routes.py, commands.py (the CLI), settings.py, tables.py.
"""

from __future__ import annotations

from host import AdminPage, Namespace, PluginInfo, hookimpl

from . import health, settings, tables
from .commands import register

PLUGIN = PluginInfo(name="backup", version="1.0.0", settings=settings.BackupConfigSchema,
                    description="Backups, restores and moves between databases")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_capabilities():
    from . import routes

    return {routes.BASIC_CAPABILITY: ["administrator"]}


@hookimpl
def register_health_tests():
    return health.HEALTH_TESTS


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_admin_pages(app):
    from .admin import ACTIONS, backups_page
    from .routes import BASIC_CAPABILITY

    return [AdminPage("Backups", "backups", backups_page, capability=BASIC_CAPABILITY, actions=ACTIONS)]


@hookimpl
def register_commands(cli):
    register(cli)


@hookimpl
def startup(app):
    from .shelf import backups_area

    backups_area(app)  # opened now, so `sitehost storage copy` knows it


@hookimpl
def register_jobs(app):
    from . import jobs

    return jobs.declared_jobs()


@hookimpl
def serve_started(app):
    from . import jobs

    jobs.describe_schedule(app)
