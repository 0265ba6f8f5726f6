"""Learning from moderators: every status change a person makes to a judged comment is a label.

Marking a comment spam (or restoring it from spam, or approving a held one) labels its
verdict record, counts a reversed verdict as missed spam or a false positive for the stats,
trains the classifier (undoing an earlier opposite training of the same text), reports the
correction to the remote service when one is set, and writes the history. `retrain` rebuilds
the model from every labelled record (`sitehost spam train`).
"""

from __future__ import annotations

import datetime
import logging

from sqlalchemy import select, update

from . import classifier, options, remote
from .recorder import LEARN_JOB, REPORT_JOB, recorder_of
from .settings import settings_of
from .tables import CHECKS, HISTORY, table

LOG = logging.getLogger("sitehost.spam")
FILTER = "spam"  # the actor name of the filter's own status changes


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def record_features(row) -> list[str]:
    email = f"x@{row.email_domain}" if row.email_domain else ""
    return classifier.features(row.content, row.author, row.url, email)


def label_record(app, session, guid: str, label: str, actor: str, event: str) -> None:
    """Label the verdict `guid` as spam or ham, train on it, and write the history entry."""
    checks = table(app, CHECKS)
    row = session.execute(select(checks).where(checks.c.guid == guid)).first()
    if row is None:
        return
    reversed_ = ""
    if label == "spam" and not row.spam:
        reversed_ = "missed_spam"
    elif label == "ham" and row.spam:
        reversed_ = "false_positive"
    examples = []
    if row.trained != label:
        names = record_features(row)
        if row.trained:
            examples.append((names, row.trained, -1))
        examples.append((names, label, +1))
    classifier.learn(app, session, examples)
    session.execute(update(checks).where(checks.c.id == row.id).values(label=label, reversed=reversed_, trained=label))
    session.execute(table(app, HISTORY).insert().values(guid=guid, event=event, actor=actor, message="",
                                                        created=now()))


def history_entry(app, session, guid: str, event: str, actor: str, message: str = "") -> None:
    session.execute(table(app, HISTORY).insert().values(guid=guid, event=event, actor=actor, message=message[:255],
                                                        created=now()))


def comment_saved(app, event) -> None:
    """content_saved for a comment: learn from a person's status change (a new comment already
    carries its verdict's guid)."""
    item = event.item
    guid = item.get("spam_guid") or ""
    if not guid or event.created:
        return
    recorder = recorder_of(app)
    previous, status, actor = item.get("previous_status", ""), event.status, item.get("changed_by")
    if previous == status:
        return
    if actor == FILTER:  # the filter's own move (webhook) is already in the history
        return
    person = str(actor or "")
    if status == "spam":
        label, report = "spam", "report-spam"
    elif previous == "spam" and status in ("hold", "approved"):
        label, report = "ham", "report-ham"
    elif previous == "hold" and status == "approved":
        label, report = "ham", "status-changed-approved"
    else:
        label, report = "", f"status-changed-{status}"

    app.jobs.enqueue(LEARN_JOB, {"guid": guid, "label": label, "person": person, "report": report})
    if label and report.startswith("report-") and settings_of(app).service_url:
        app.jobs.enqueue(REPORT_JOB, {"submission": _service_submission(item), "spam": label == "spam"})
    recorder.jobs_queued()


def learn_job(context) -> None:
    """Host job spam.learn: a person's decision on a comment trains the filter (once, on any node)."""
    app, payload = context.app, context.payload
    with app.db.session(write=True) as session, session.begin():
        if payload["label"]:
            label_record(app, session, payload["guid"], payload["label"], payload["person"], payload["report"])
        else:
            history_entry(app, session, payload["guid"], payload["report"], payload["person"])


def report_job(context) -> None:
    """Host job spam.report: tell the remote service (when one is set) about a missed spam or a false alarm."""
    _report_to_service(context.app, context.payload["submission"], context.payload["spam"])


def _service_submission(item) -> dict:
    return {"type": "comment", "author": item.get("author_name", ""), "email": item.get("author_email", ""),
            "url": item.get("author_url", ""), "content": item.get("content", ""), "ip": item.get("author_ip", ""),
            "user_agent": item.get("author_user_agent", ""), "guid": item.get("spam_guid", "")}


def _report_to_service(app, submission: dict, spam: bool) -> None:
    config = settings_of(app)
    if not config.service_url:
        return
    with app.db.session() as session:
        key = options.read(app, session, "key")
    if not key:
        return
    home = app.settings.site.get("home") or app.settings.site.get("url") or ""
    try:
        remote.submit(config.service_url, key, home, submission, spam, config.service_timeout)
    except remote.ServiceError:
        pass  # logged by remote; the local model has learnt anyway


def last_change_by_filter(app, session, guid: str) -> bool:
    """Whether the filter made the last status decision on this item (not a person)."""
    history = table(app, HISTORY)
    rows = session.execute(select(history.c.event, history.c.actor).where(history.c.guid == guid)
                           .order_by(history.c.id.desc()).limit(50)).all()
    for event, actor in rows:
        if event.startswith(("report-", "status-changed-")):
            return False
        if event in ("check-spam", "check-ham", "webhook-spam", "webhook-ham", "discarded"):
            return actor == FILTER
    return False


def retrain(app, session, reset_first: bool = True) -> dict[str, int]:
    """Rebuild the model from every labelled verdict; answers how many documents of each class."""
    checks = table(app, CHECKS)
    if reset_first:
        classifier.reset(app, session)
        session.execute(update(checks).values(trained=""))
    rows = session.execute(select(checks).where(checks.c.label.in_(("spam", "ham"))).order_by(checks.c.id)).all()
    examples = [(record_features(row), row.label, +1) for row in rows if row.trained != row.label]
    classifier.learn(app, session, examples)
    for label in ("spam", "ham"):
        session.execute(update(checks).where(checks.c.label == label).values(trained=label))
    return {"spam": sum(1 for row in rows if row.label == "spam"), "ham": sum(1 for row in rows if row.label == "ham")}
