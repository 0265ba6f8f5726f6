"""Background jobs, a host service (`app.jobs`): declared by plugins, leased in the database, run once per site.

    from host.jobs import Job

    @hookimpl
    def register_jobs(app):
        return [Job("library.remind", send_reminders, every=3600), Job("library.import", import_catalogue)]

    app.jobs.enqueue("library.import", {"url": url}, session=request.session)

host.jobs.service explains the leases. An essential part of the host (never disabled): this module
holds its hook implementations; `sitehost jobs list|run` are its commands (host.jobs.cli).
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from .cli import jobs_group

__all__ = ["Job", "JobContext", "JobInterrupted", "JobService", "StartedJob", "JOBS_SERVICE", "QUEUED", "RUNNING",
           "DONE", "FAILED"]

# Loaded when first used (PEP 562), so that `sitehost --help` does not import SQLAlchemy through this module.
_LAZY = set(__all__)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import service

    value = getattr(service, name)
    globals()[name] = value
    return value


@hookimpl
def register_tables(metadata):
    from .service import define_job_tables

    define_job_tables(metadata)


@hookimpl
def startup(app):
    """A wrong `[jobs]` table stops the start with a ConfigError naming every bad key."""
    from .service import JOBS_SERVICE, JobService, load_job_settings

    settings = load_job_settings(app.settings.extra.get("jobs"), app.settings.environment.get("jobs"))
    app.stash[JOBS_SERVICE] = JobService(app, settings, app.db.metadata.tables["jobs"])


@hookimpl
def register_jobs(app):
    from .service import Job, prune_finished

    return [Job("host.jobs.prune", prune_finished, every=3600)]


@hookimpl
def serve_started(app):
    """Each serving process (the single one, or each worker) runs a worker; the leases let one run each job."""
    app.jobs.start_worker()


@hookimpl(tryfirst=True)
def shutdown(app):
    """Stop the worker before the plugins' own shutdown hooks release what their jobs use."""
    from .service import JOBS_SERVICE

    service = app.stash.get(JOBS_SERVICE)
    if service is not None:
        service.stop()


@hookimpl
def register_commands(cli):
    cli.add_command(jobs_group)
