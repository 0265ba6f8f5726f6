"""The optional remote spam service, spoken only when `[plugins.spam] service_url` is set.

The reference protocol: form-encoded POSTs to `<service_url>/1.1/<call>` with the site's key
(`api_key`) and home URL (`blog`). `verify-key` answers `valid` or `invalid`;
`comment-check` answers `true` (spam) or `false`, and may add the header
`X-Spam-Pro-Tip: discard` for the worst spam; `submit-spam` and `submit-ham` report a
moderator's correction; `get-stats` answers a JSON object. Replies may carry an alert in
`X-Spam-Alert-Code` / `X-Spam-Alert-Msg`. Every call has a timeout, and a failed call never
fails the request that made it: the local verdict stands.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

LOG = logging.getLogger("sitehost.spam")
CALLS = ("verify-key", "comment-check", "submit-spam", "submit-ham", "get-stats")
MAX_REPLY = 1024 * 1024


class ServiceError(Exception):
    """The service could not be reached or answered something unusable."""


@dataclass
class Reply:
    body: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def alert(self) -> tuple[str, str] | None:
        code = self.headers.get("x-spam-alert-code")
        return (code, self.headers.get("x-spam-alert-msg", "")) if code else None


def call(service_url: str, name: str, fields: dict[str, str], timeout: float) -> Reply:
    if name not in CALLS:
        raise ValueError(name)
    data = urllib.parse.urlencode({key: value for key, value in fields.items() if value is not None}).encode()
    request = urllib.request.Request(f"{service_url}/1.1/{name}", data=data, method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8", "User-Agent": "sitehost-spam/1"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (configured URL)
            body = response.read(MAX_REPLY).decode("utf-8", "replace")
            return Reply(body.strip(), {key.lower(): value for key, value in response.headers.items()})
    except (urllib.error.URLError, OSError, ValueError) as error:
        LOG.warning("spam service %s failed: %s", name, error)
        raise ServiceError(str(error)) from error


def verify_key(service_url: str, key: str, home: str, timeout: float) -> Reply:
    return call(service_url, "verify-key", {"key": key, "api_key": key, "blog": home}, timeout)


def comment_check(service_url: str, key: str, home: str, submission: dict, timeout: float) -> Reply:
    return call(service_url, "comment-check", submission_fields(key, home, submission), timeout)


def submit(service_url: str, key: str, home: str, submission: dict, spam: bool, timeout: float) -> Reply:
    return call(service_url, "submit-spam" if spam else "submit-ham", submission_fields(key, home, submission),
                timeout)


def get_stats(service_url: str, key: str, home: str, interval: str, timeout: float) -> dict:
    reply = call(service_url, "get-stats", {"api_key": key, "blog": home, "from": interval, "format": "json"},
                 timeout)
    try:
        parsed = json.loads(reply.body or "{}")
    except ValueError as error:
        raise ServiceError("get-stats did not answer JSON") from error
    return parsed if isinstance(parsed, dict) else {}


def submission_fields(key: str, home: str, submission: dict) -> dict[str, str]:
    kind = {"comment": "comment", "form": "contact-form", "signup": "signup"}.get(submission.get("type", ""), "")
    return {"api_key": key, "blog": home, "user_ip": submission.get("ip", ""),
            "user_agent": submission.get("user_agent", ""), "comment_type": kind,
            "comment_author": submission.get("author", ""), "comment_author_email": submission.get("email", ""),
            "comment_author_url": submission.get("url", ""), "comment_content": submission.get("content", ""),
            "guid": submission.get("guid", "")}
