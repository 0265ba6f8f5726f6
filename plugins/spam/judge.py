"""The verdict on one submission: local rules plus the classifier (plus the remote service when set).

Each rule adds evidence in log-odds; the score is the logistic of the sum, the submission is
spam above `spam_threshold`, and with strictness on, spam above `discard_threshold` is
discarded. Hard evidence (a disallowed word, a filled honeypot, text already judged spam, the
service's "discard") or several rules agreeing reach that; the classifier alone is capped
below it, so a wrong guess of the model always lands in the spam folder where a moderator can
rescue it. The sender's past verdicts (by address and IP) may only lower the score of a clean
submission or raise that of a spam one: addresses are shared, so they never decide alone.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select, union_all

from . import classifier, options, remote
from .recorder import recorder_of
from .settings import settings_of
from .tables import CHECKS, HISTORY, table

HARD = 20.0  # log-odds of certain spam
CLASSIFIER_CAP = 8.0  # the classifier alone never reaches the discard threshold
MIN_REPEATED_LENGTH = 20  # characters of text before the repeated-content rule applies
PAST_LIMIT = 20  # earlier verdicts read per key (sender address, sender IP, text)
LIMITS = {"author": 245, "email": 254, "url": 200, "ip": 100, "user_agent": 255, "content": 65_535, "guid": 64,
          "honeypot": 1000}


def digest(value: str) -> str:
    value = value.strip().lower()
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest() if value else ""


def caller_request(submission: dict[str, Any]):
    """The REST request the submission arrived with (optional `request` key), while it can still write."""
    request = submission.get("request")
    if request is None or not hasattr(request, "session") or getattr(request, "method", "GET") in ("GET", "HEAD"):
        return None
    return request


def normalise(submission: dict[str, Any]) -> dict[str, Any]:
    """The submission's known fields as bounded strings (and elapsed_seconds as a number or None)."""
    clean: dict[str, Any] = {}
    for name, limit in LIMITS.items():
        value = submission.get(name)
        clean[name] = "" if value is None else str(value)[:limit]
    clean["type"] = str(submission.get("type") or "comment")[:20]
    elapsed = submission.get("elapsed_seconds")
    try:
        clean["elapsed_seconds"] = float(elapsed) if elapsed is not None else None
    except (TypeError, ValueError):
        clean["elapsed_seconds"] = None
    clean["has_honeypot"] = "honeypot" in submission
    clean["guid"] = clean["guid"] or str(uuid.uuid4())
    return clean


@dataclass
class Past:
    """What earlier verdicts say about this sender and this text."""

    sender_spam: int = 0
    sender_ham: int = 0
    sender_confirmed_ham: int = 0
    same_text: int = 0
    same_text_spam: int = 0


NO_KEY = "-"  # bound for an empty key: digests are hex, so it matches no row


def _past_statement(app):
    """The latest PAST_LIMIT verdicts per key (sender address, sender IP, text) in ONE prepared
    statement: a UNION ALL of three indexed look-ups, each newest first and limited, so a sender
    or text seen thousands of times costs no more than one seen once (an OR of the three made
    the database gather every match before sorting, which grew with the history)."""
    checks = table(app, CHECKS)

    def build():
        parts = []
        for column, name in ((checks.c.email_hash, "email_hash"), (checks.c.ip_hash, "ip_hash"),
                             (checks.c.content_hash, "content_hash")):
            latest = (select(checks.c.id, checks.c.spam, checks.c.label, checks.c.email_hash, checks.c.ip_hash,
                             checks.c.content_hash)
                      .where(column == bindparam(name)).order_by(checks.c.id.desc()).limit(PAST_LIMIT)
                      .subquery(f"latest_by_{name}"))
            parts.append(select(latest))
        return union_all(*parts)

    return app.db.prepared("spam.past_verdicts", build)


def past_of(app, session, email_hash: str, ip_hash: str, content_hash: str) -> Past:
    """What the latest verdicts of this sender (by address and by IP) and of this text say."""
    found: dict[int, tuple] = {}
    if email_hash or ip_hash or content_hash:
        for row in session.execute(_past_statement(app), {"email_hash": email_hash or NO_KEY,
                                                          "ip_hash": ip_hash or NO_KEY,
                                                          "content_hash": content_hash or NO_KEY}):
            found[row[0]] = tuple(row[1:])
    past = Past()
    for spam, label, email, ip, text in found.values():
        judged_spam = label == "spam" or (spam and label != "ham")
        if (email_hash and email == email_hash) or (ip_hash and ip == ip_hash):
            if judged_spam:
                past.sender_spam += 1
            else:
                past.sender_ham += 1
                past.sender_confirmed_ham += label == "ham"
        if content_hash and text == content_hash:
            past.same_text += 1
            past.same_text_spam += judged_spam
    return past


def disallowed(words: list[str], submission: dict) -> bool:
    """WordPress's disallowed_keys: any word or phrase inside the text, name, email, URL, IP or agent."""
    if not words:
        return False
    haystacks = [submission[name].lower() for name in ("content", "author", "email", "url", "ip", "user_agent")]
    for word in words:
        word = word.strip().lower()
        if word and any(word in haystack for haystack in haystacks):
            return True
    return False


def judge(app, submission: dict[str, Any]) -> dict[str, Any]:
    """The verdict {spam, reason, score, discard, guid}; the verdict is queued for the history."""
    config = settings_of(app)
    sub = normalise(submission)
    email_hash, ip_hash = digest(sub["email"]), digest(sub["ip"])
    normalised = " ".join(sub["content"].split())
    # Only a text long enough to be distinctive counts as repeated ("Thank you!" is said by many).
    content_hash = digest(normalised) if len(normalised) >= MIN_REPEATED_LENGTH else ""
    names = classifier.features(sub["content"], sub["author"], sub["url"], sub["email"])
    request = caller_request(submission)
    if request is not None:  # read in the request's own transaction: no second connection
        model, past, stored = _reads(app, request.session, email_hash, ip_hash, content_hash)
    else:
        with app.db.session() as session:
            model, past, stored = _reads(app, session, email_hash, ip_hash, content_hash)
    evidence: dict[str, float] = {}
    if disallowed(list(app.settings.site.get("disallowed_keys") or []), sub):
        evidence["disallowed_keys"] = HARD
    if sub["honeypot"].strip():
        evidence["honeypot"] = HARD
    if sub["elapsed_seconds"] is not None and sub["elapsed_seconds"] < config.min_seconds:
        evidence["too_fast"] = 4.0
    links = classifier.count_links(sub["content"])
    if links > config.max_links:
        evidence["links"] = min(5.0, 2.0 + 0.5 * (links - config.max_links - 1))
    if past.same_text_spam:
        evidence["repeated_content"] = HARD
    elif past.same_text >= 2:
        evidence["repeated_content"] = 2.0
    reputation = 1.5 * min(past.sender_spam, 3) - 1.5 * min(past.sender_confirmed_ham, 3) \
        - 0.3 * min(past.sender_ham - past.sender_confirmed_ham, 3)
    if reputation < 0:
        evidence["reputation"] = reputation
    learnt = max(-CLASSIFIER_CAP, min(CLASSIFIER_CAP, model.log_odds(names)))
    if learnt:
        evidence["classifier"] = learnt
    total = sum(evidence.values())
    # A bad reputation strengthens a spam verdict the submission earned on its own, never makes
    # one: parents share a school's or a home's address, so one spam from it must not turn the
    # next sender's clean message into spam.
    if reputation > 0 and total > math.log(config.spam_threshold / (1.0 - config.spam_threshold)):
        evidence["reputation"] = reputation
        total += reputation
    source, service_discard, events = "local", False, []
    if config.service_url and stored["key"]:
        total, source, service_discard, events = _ask_service(app, config, stored["key"], sub, total, evidence)
    score = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, total))))
    spam = score > config.spam_threshold
    strict = options.flag(stored["spam_strictness"])
    discard = bool(spam and strict and (score >= config.discard_threshold or service_discard))
    if spam:
        reason = max((name for name in evidence if evidence[name] > 0), key=lambda name: evidence[name],
                     default="service" if source == "service" else "classifier")
        if source == "service" and "service" in evidence:
            reason = "service"
    else:
        reason = "clean"
    verdict = {"spam": spam, "reason": reason, "score": round(score, 4), "discard": discard, "guid": sub["guid"]}
    _record(app, request, sub, verdict, source, email_hash, ip_hash, content_hash, events)
    return verdict


def _reads(app, session, email_hash: str, ip_hash: str, content_hash: str):
    """(model, past verdicts, options) for judging, read on `session`."""
    return (classifier.current_model(app, session), past_of(app, session, email_hash, ip_hash, content_hash),
            options.cached(app, session))


def _ask_service(app, config, key: str, sub: dict, total: float, evidence: dict) -> tuple[float, str, bool, list]:
    home = app.settings.site.get("home") or app.site_address()
    try:
        reply = remote.comment_check(config.service_url, key, home, sub, config.service_timeout)
    except remote.ServiceError as error:
        return total, "local", False, [("check-error", f"service unreachable: {str(error)[:180]}")]
    if reply.body == "true":
        evidence["service"] = 5.0
        discard = reply.headers.get("x-spam-pro-tip", "").lower() == "discard"
        return max(total, 5.0), "service", discard, []
    if reply.body == "false":
        hard = any(value >= HARD for value in evidence.values())
        return (total if hard else min(total, -2.0)), "service", False, []
    return total, "local", False, [("check-error", f"service answered {reply.body[:60]!r}")]


def _record(app, request, sub: dict, verdict: dict, source: str, email_hash: str, ip_hash: str,
            content_hash: str, events: list) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    email_domain = sub["email"].rsplit("@", 1)[1].lower()[:100] if "@" in sub["email"] else ""
    row = {"guid": verdict["guid"], "type": sub["type"], "spam": verdict["spam"], "score": verdict["score"],
           "reason": verdict["reason"], "discarded": verdict["discard"], "source": source, "email_hash": email_hash,
           "ip_hash": ip_hash, "content_hash": content_hash, "author": sub["author"], "url": sub["url"],
           "email_domain": email_domain, "content": sub["content"][:classifier.MAX_TEXT], "created": now}
    event = "discarded" if verdict["discard"] else ("check-spam" if verdict["spam"] else "check-ham")
    history = [{"guid": verdict["guid"], "event": name, "actor": "spam", "message": message, "created": now}
               for name, message in [*events, (event, f"{verdict['reason']} ({verdict['score']})")]]

    def write(session):
        checks = table(app, CHECKS)
        known = app.db.prepared("spam.check_by_guid", lambda: select(checks.c.id).where(
            checks.c.guid == bindparam("guid")))
        if session.execute(known, {"guid": row["guid"]}).first() is None:
            session.execute(app.db.prepared("spam.insert_check", checks.insert), row)
        session.execute(app.db.prepared("spam.insert_history", table(app, HISTORY).insert), history)

    if request is not None and not verdict["discard"]:
        # In the caller's own transaction: kept exactly when the item is (one commit for both).
        write(request.session)
    else:  # a discarded submission is refused and its transaction rolled back: record it apart
        recorder_of(app).put(write)
