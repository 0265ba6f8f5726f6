"""The spam filter (spam/v1): judges comments, form entries and newsletter sign-ups through `check_spam`.

Local by default: the site's disallowed words, link count, honeypot and timing fields,
repeated text and sender reputation, plus a naive Bayes classifier kept in the database that
learns from every moderator decision. A remote service is spoken only when
`[plugins.spam] service_url` is set. Hook implementations only; the parts live beside this file.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl

from . import classifier, settings, tables
from .cli import spam_group
from .recorder import LEARN_JOB, RECORDER, REPORT_JOB

# requires core: the webhook's late verdicts move comments through the comments service (app.comments)
PLUGIN = PluginInfo(name="spam", version="0.1.0", requires=("core",), settings=settings.SpamConfigSchema,
                    description="Spam filter for comments, forms and sign-ups")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description="Spam filter: key, settings, statistics and service callbacks")]


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_commands(cli):
    cli.add_command(spam_group)


@hookimpl
def startup(app):
    classifier.ensure_model_row(app)


@hookimpl
def register_jobs():
    from host.jobs import Job

    from .learning import learn_job, report_job

    return [Job(LEARN_JOB, learn_job), Job(REPORT_JOB, report_job)]


@hookimpl
def shutdown(app):
    recorder = app.stash.get(RECORDER)
    if recorder is not None:
        recorder.close()


@hookimpl
def check_spam(app, submission):
    from .judge import judge

    return judge(app, submission)


@hookimpl
def request_finished(app):
    recorder = app.stash.get(RECORDER)
    if recorder is not None:
        recorder.flush_own()


@hookimpl
def content_saved(app, event):
    if event.type == "comment":
        from .learning import comment_saved

        comment_saved(app, event)


@hookimpl
def demo_content(app, session):
    from .demo import write_demo_history

    write_demo_history(app, session)
