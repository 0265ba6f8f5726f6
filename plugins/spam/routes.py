"""spam/v1: the service key, the two settings, statistics, the alert, and the webhook (reference §8).

Administrators (manage_options) manage the key, the settings and read the statistics; the
alert and the webhook are called by the remote service and are authorised by the stored key
alone (compared in constant time; an administrator without it is refused too).
"""

from __future__ import annotations

import datetime
import hmac
import json

from sqlalchemy import func, select, update

from host import RestError, Route, forbidden

from . import learning, options, remote
from .recorder import recorder_of
from .schemas import AlertArgs, KeyArgs, SettingsArgs, StatsArgs, StatsSchema
from .settings import settings_of
from .tables import CHECKS, table

NAMESPACE = "spam/v1"
KEY_LENGTH = 12
PERIODS = {"60-days": datetime.timedelta(days=60), "6-months": datetime.timedelta(days=183), "all": None}
WEBHOOK_LIMIT = 100  # comments one webhook call may carry


# --- permissions -----------------------------------------------------------------------------


def key_matches(request):
    """The caller sends the site's stored key (`key`, any case); compared in constant time."""
    sent = request.raw_param("key")
    with request.app.db.session() as session:
        stored = options.read(request.app, session, "key")
    if not (isinstance(sent, str) and stored
            and hmac.compare_digest(sent.strip().lower().encode(), stored.lower().encode())):
        raise forbidden(request.user, "rest_forbidden", "Sorry, you are not allowed to do that.")
    return True


# --- key -------------------------------------------------------------------------------------

def home_url(request) -> str:
    """The site's home as spam services know it: `[site] home`, else the site's address (never a Host header)."""
    return request.app.settings.site.get("home") or request.app.site_address(request.session)


def get_key(request):
    return options.read(request.app, request.session, "key")


def _well_formed(key: str) -> bool:
    return len(key) == KEY_LENGTH and key.isascii() and key.isalnum()


def set_key(request):
    key = str(request.params["key"]).strip()
    if not _well_formed(key):
        raise RestError("invalid_key", f"The key must be {KEY_LENGTH} letters and digits.", 400)
    config = settings_of(request.app)
    if config.service_url:
        try:
            reply = remote.verify_key(config.service_url, key, home_url(request), config.service_timeout)
        except remote.ServiceError:
            raise RestError("invalid_key", "The spam service could not be reached to verify the key.", 400) from None
        _store_alert(request, reply)
        if reply.body != "valid":
            raise RestError("invalid_key", "The spam service did not accept the key.", 400)
    options.write(request.app, request.session, "key", key.lower())
    return key.lower()


def delete_key(request):
    options.write(request.app, request.session, "key", "")
    return True


# --- settings --------------------------------------------------------------------------------

SETTING_NAMES = ("spam_strictness", "spam_show_user_comments_approved")


def _settings(request) -> dict:
    stored = options.read_all(request.app, request.session)
    return {name: options.flag(stored[name]) for name in SETTING_NAMES}


def get_settings(request):
    return _settings(request)


def update_settings(request):
    for name in SETTING_NAMES:
        if request.has_param(name) and request.params.get(name) is not None:
            options.write(request.app, request.session, name, "1" if request.params[name] else "0")
    return _settings(request)


# --- stats -----------------------------------------------------------------------------------

def compute_stats(request, interval: str) -> dict:
    """The period's figures from the verdict history (every type: comments, forms, sign-ups)."""
    recorder_of(request.app).flush()
    checks = table(request.app, CHECKS)
    query = select(checks.c.spam, checks.c.reversed, func.count()).group_by(checks.c.spam, checks.c.reversed)
    since = PERIODS[interval]
    if since is not None:
        query = query.where(checks.c.created >= datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
                            - since)
    spam = ham = missed = false_positives = 0
    for is_spam, reversed_, count in request.session.execute(query):
        if is_spam:
            spam += count
        else:
            ham += count
        missed += count if reversed_ == "missed_spam" else 0
        false_positives += count if reversed_ == "false_positive" else 0
    total = spam + ham
    accuracy = round(100.0 * (total - missed - false_positives) / total, 2) if total else None
    seconds = settings_of(request.app).seconds_saved_per_spam * max(0, spam - false_positives)
    return {"spam": spam, "ham": ham, "missed_spam": missed, "false_positives": false_positives,
            "accuracy": accuracy, "time_saved": seconds}


def get_stats(request):
    """The local figures; with a remote service, its own get-stats answer too, under `service`."""
    interval = request.params.get("interval") or "all"
    figures = compute_stats(request, interval)
    config = settings_of(request.app)
    key = options.read(request.app, request.session, "key") if config.service_url else ""
    if key:
        try:
            figures["service"] = remote.get_stats(config.service_url, key, home_url(request), interval,
                                                  config.service_timeout)
        except remote.ServiceError:
            pass  # the local figures stand alone
    return {interval: figures}


# --- alert -----------------------------------------------------------------------------------

def _alert(request) -> dict:
    stored = options.read_all(request.app, request.session)
    return {"code": stored["alert_code"] or False, "message": stored["alert_msg"] or False}


def _store_alert(request, reply) -> None:
    alert = reply.alert
    if alert:
        options.write(request.app, request.session, "alert_code", alert[0][:100])
        options.write(request.app, request.session, "alert_msg", alert[1][:500])


def get_alert(request):
    return _alert(request)


def _clear_alert(request) -> None:
    options.write(request.app, request.session, "alert_code", "")
    options.write(request.app, request.session, "alert_msg", "")


def refresh_alert(request):
    """Clear the alert and ask the service again (its reply may set a new one)."""
    _clear_alert(request)
    config = settings_of(request.app)
    key = options.read(request.app, request.session, "key")
    if config.service_url and key:
        try:
            _store_alert(request, remote.verify_key(config.service_url, key, home_url(request), config.service_timeout))
        except remote.ServiceError:
            pass
    return _alert(request)


def delete_alert(request):
    _clear_alert(request)
    return _alert(request)


# --- webhook ---------------------------------------------------------------------------------

def _body(request) -> dict:
    if isinstance(request.json, dict):
        return request.json
    if request.body:
        try:
            parsed = json.loads(request.body)
        except ValueError:
            raise RestError("malformed_request", "The body is not JSON.", 400) from None
        return parsed if isinstance(parsed, dict) else {}
    return {}


def webhook(request):
    app = request.app
    recorder_of(app).flush()  # the verdicts it names must be written before it looks
    body = _body(request)
    endpoint = request.raw_param("endpoint") or body.get("endpoint")
    results: dict[str, dict] = {}
    if endpoint != "comment-check":
        return {"comments": results or []}
    comments = body.get("comments")
    if not isinstance(comments, list):
        raise RestError("malformed_request", "comments must be an array.", 400)
    if len(comments) > WEBHOOK_LIMIT:
        raise RestError("malformed_request", f"At most {WEBHOOK_LIMIT} comments per call.", 400)
    service = app.comments
    for entry in comments:
        if not isinstance(entry, dict) or not entry.get("guid") or not isinstance(entry.get("guid"), str):
            continue
        guid = entry["guid"][:64]
        results[guid] = _deferred_verdict(request, service, guid, entry)
    return {"comments": results or []}


def _narrowed(found: list[dict], entry: dict) -> list[dict]:
    for field, key in (("post", "comment_post_ID"), ("parent", "comment_parent"), ("author_email", "comment_author_email")):
        if entry.get(key) not in (None, ""):
            wanted = str(entry[key]).strip().lower()
            found = [comment for comment in found if str(comment[field]).lower() == wanted]
    return found


def _deferred_verdict(request, service, guid: str, entry: dict) -> dict:
    app, session = request.app, request.session
    found = _narrowed(service.find_by_guid(request, guid), entry)
    if not found:
        return {"status": "error", "message": "Could not find matching comment."}
    if len(found) > 1:
        return {"status": "error", "message": "Multiple comments matched request."}
    comment = found[0]
    result = str(entry.get("result", "")).lower()
    by_filter = learning.last_change_by_filter(app, session, guid)
    if result == "true" and comment["status"] != "spam":
        if by_filter:
            service.set_status(request, comment["id"], "spam", learning.FILTER)
            _mark_verdict(app, session, guid, True)
            learning.history_entry(app, session, guid, "webhook-spam", learning.FILTER)
        else:
            learning.history_entry(app, session, guid, "webhook-spam-noaction", learning.FILTER)
    elif result == "false":
        if comment["status"] == "spam" and by_filter:
            # Back to the moderation queue rather than straight to the public: a person approves it.
            service.set_status(request, comment["id"], "hold", learning.FILTER)
            _mark_verdict(app, session, guid, False)
            learning.history_entry(app, session, guid, "webhook-ham", learning.FILTER)
        else:
            learning.history_entry(app, session, guid, "webhook-ham-noaction", learning.FILTER)
    return {"status": "success"}


def _mark_verdict(app, session, guid: str, spam: bool) -> None:
    checks = table(app, CHECKS)
    session.execute(update(checks).where(checks.c.guid == guid).values(spam=spam, source="service",
                                                                      reason="service" if spam else "clean"))


# --- the route table -------------------------------------------------------------------------

def routes() -> list[Route]:
    admin = {"capability": "manage_options"}
    return [
        Route(NAMESPACE, "/key", "GET", get_key, **admin),
        Route(NAMESPACE, "/key", ("POST", "PUT", "PATCH"), set_key, args=KeyArgs, **admin),
        Route(NAMESPACE, "/key", "DELETE", delete_key, **admin),
        Route(NAMESPACE, "/settings", "GET", get_settings, schema=SettingsArgs, title="spam-settings", **admin),
        Route(NAMESPACE, "/settings", ("POST", "PUT", "PATCH"), update_settings, args=SettingsArgs, partial_args=True,
              schema=SettingsArgs, title="spam-settings", **admin),
        Route(NAMESPACE, "/stats", "GET", get_stats, args=StatsArgs, schema=StatsSchema, title="spam-stats", **admin),
        # The reference registered this with a one-character pattern, so /stats/60-days never matched (§8.3);
        # here the whole interval matches, and an unknown one is a 400 naming the allowed values.
        Route(NAMESPACE, r"/stats/(?P<interval>[\w-]+)", "GET", get_stats, args=StatsArgs, schema=StatsSchema,
              title="spam-stats", **admin),
        Route(NAMESPACE, "/alert", "GET", get_alert, args=AlertArgs, permission=key_matches,
              uncacheable="for the holder of the site's key only, which travels in the query"),
        Route(NAMESPACE, "/alert", ("POST", "PUT", "PATCH"), refresh_alert, args=AlertArgs, permission=key_matches),
        Route(NAMESPACE, "/alert", "DELETE", delete_alert, args=AlertArgs, permission=key_matches),
        Route(NAMESPACE, "/webhook", "POST", webhook, permission=key_matches),
    ]
