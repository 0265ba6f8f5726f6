"""Outgoing mail, a host service: `app.mail.send(Message(...), session=None)` queues, a sender delivers.

    from host.mail import Attachment, Message

    outbox_id = app.mail.send(Message(to=["office@school.test"], subject="Absence report",
                                      text="Sam is ill today."), session=request.session)

`send` writes one row to the durable outbox table (inside `session`'s transaction when
given) and returns its id; it never talks to SMTP. `app.mail.deliver_pending(limit=None)`
runs one delivery pass now (tests, `sitehost mail send-test`); in `sitehost serve` the
periodic job `host.mail.deliver` (host.jobs: one process of the site at a time) runs the same
pass every `[mail] poll_seconds`, with retries and backoff (host.mail.outbox). Without
`[mail] smtp_host`, messages are written as .eml files to `[mail] eml_dir`.

An essential part of the host (never disabled): this module holds its hook implementations.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl
from ..stash import MAIL_SERVICE as MAIL_SERVICE  # kept in host.stash (host.app reads it there)
from .settings import MailSettings, load_mail_settings
from .cli import mail_group
from .health import HEALTH_TESTS

if TYPE_CHECKING:  # the stash key's type; the module itself loads on first use (_LAZY)
    from .outbox import MailService

__all__ = ["Attachment", "Message", "MailService", "MailSettings", "MAIL_SERVICE", "QUEUED", "SENDING", "SENT",
           "FAILED"]

# Loaded when first used (PEP 562), so that `sitehost --help` does not import SQLAlchemy and
# email_validator through this essential plugin: {public name: module}.
_LAZY = {"Attachment": "message", "Message": "message", "parse_address": "message", "MailService": "outbox",
         "QUEUED": "outbox", "SENDING": "outbox", "SENT": "outbox", "FAILED": "outbox"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value

log = logging.getLogger("sitehost.mail")

BATCH = 200  # messages per delivery pass of the periodic job



@hookimpl
def register_tables(metadata):
    from .outbox import define_mail_tables

    define_mail_tables(metadata)


@hookimpl
def register_health_tests():
    return HEALTH_TESTS


@hookimpl
def startup(app):
    """A wrong `[mail]` table stops the start with a ConfigError naming the setting."""
    settings = load_mail_settings(getattr(app.settings, "mail", None), app.settings.environment.get("mail"))
    from .outbox import MailService

    tables = {"mail_outbox": app.db.metadata.tables["mail_outbox"]}
    app.stash[MAIL_SERVICE] = MailService(app, settings, tables)


@hookimpl
def register_commands(cli):
    cli.add_command(mail_group)


@hookimpl
def register_jobs(app):
    """Delivery is a periodic job: the passes of every process and node of the site take turns."""
    from ..jobs import Job

    poll = app.mail.settings.poll_seconds
    # A short lease: a node that died while delivering hands the outbox over within three polls (10 s at least).
    return [Job("host.mail.deliver", deliver_outbox, every=poll, lease_seconds=max(10, 3 * poll))]


@hookimpl
def serve_started(app):
    """Say once per serving process where mail goes."""
    service = app.mail
    if service.uses_files():
        log.info("mail: no [mail] smtp_host set; outgoing mail is written as .eml files to %s",
                 service.eml_folder())
    else:
        log.info("mail: delivering through %s", service.describe_transport())


def deliver_outbox(context) -> None:
    """One delivery pass, repeated while full batches come back (a long outbox empties in one run)."""
    while context.app.mail.deliver_pending(limit=BATCH) >= BATCH:
        context.check()
