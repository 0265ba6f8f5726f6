"""What `sitehost` writes to its log: where it goes, how much, and the access log of `serve`.

`sitehost --log-level LEVEL --log-file PATH` sends every log record to one place (stderr by
default). `serve` adds one access line per request (off with `--quiet`), as text or as JSON
lines, and at start-up one line per plugin with its state.

Everything in an access line that a client chose (method, path, query, forwarded address) is
made printable, cut to a bounded length, and query values that look like secrets are hidden,
so a request can neither forge log lines nor leave a password in the log.
"""

from __future__ import annotations

import datetime
import json
import logging
import sys
import time
from typing import Any, Callable, Iterable

from .health import HEALTH_PATH

ACCESS_LOGGER = "sitehost.access"
LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
ACCESS_FORMATS = ("text", "json")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

MAX_METHOD = 16
MAX_TARGET = 1000
MAX_CLIENT = 64
# Query keys whose values never reach the log (a protected post's `password`, tokens of any kind).
SECRET_KEY_PARTS = ("password", "pass", "secret", "token", "key", "nonce")
_SAFE = frozenset(range(0x21, 0x7F))  # printable ASCII without the space


class _Formatter(logging.Formatter):
    """Access lines as they are (each carries its own time); other records with time, level and logger."""

    def format(self, record: logging.LogRecord) -> str:
        if record.name == ACCESS_LOGGER:
            return record.getMessage()
        return super().format(record)


def configure_logging(level: str = "info", log_file: str | None = None) -> Callable[[], None]:
    """Send every record at `level` or above (access lines always) to `log_file`, or to stderr.

    Returns the function that undoes it (the CLI calls it when its command ends, so that a
    process running several commands, a test for one, keeps no handler of an earlier one).
    Handlers installed by others are left alone.
    """
    root = logging.getLogger()
    access = logging.getLogger(ACCESS_LOGGER)
    previous_levels = root.level, access.level
    handler = logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(LOG_LEVELS[level])
    access.setLevel(logging.INFO)  # the access log is switched by `serve --quiet`, not by the level

    def undo() -> None:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(previous_levels[0])
        access.setLevel(previous_levels[1])

    return undo


def plugin_state_lines(records) -> list[str]:
    """One line per plugin: name, version, source and state (with the reason when not enabled)."""
    lines = []
    for record in records:
        head = f"plugin {record.name} {record.version} ({record.source}): "
        if record.state == "enabled":
            namespaces = f", serving {', '.join(record.namespaces)}" if record.namespaces else ""
            lines.append(head + "enabled" + namespaces)
        elif record.state == "disabled":
            lines.append(head + "disabled in the settings")
        else:
            lines.append(head + f"failed: {record.error}")
    return lines


# --- the access log --------------------------------------------------------------------------------

def printable(text: str, limit: int) -> str:
    """`text` with every byte outside printable ASCII percent-encoded, cut to `limit` characters."""
    out = []
    length = 0
    for byte in text.encode("utf-8", "surrogateescape"):
        piece = chr(byte) if byte in _SAFE else f"%{byte:02X}"
        out.append(piece)
        length += len(piece)
        if length > limit:
            return "".join(out)[:limit] + "..."
    return "".join(out)


def _hide_secrets(query: str) -> str:
    parts = []
    for part in query.split("&"):
        name, equals, _value = part.partition("=")
        if equals and any(secret in name.lower() for secret in SECRET_KEY_PARTS):
            part = f"{name}=***"
        parts.append(part)
    return "&".join(parts)


def request_target(environ: dict) -> str:
    """The path and query as the client sent them (waitress's REQUEST_URI), secrets hidden."""
    raw = environ.get("REQUEST_URI")
    if raw is None:
        from urllib.parse import quote

        raw = quote(environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""), safe="/")
        if environ.get("QUERY_STRING"):
            raw += "?" + environ["QUERY_STRING"]
    path, question, query = raw[:MAX_TARGET * 4].partition("?")
    return printable(path + question + _hide_secrets(query), MAX_TARGET)


class AccessLog:
    """WSGI middleware: one access line per request, written when its answer has been sent.

    The user id is the one the request signed in as (`sitehost.user_id` in the environ, set
    by the REST server and by `App.page_user`), 0 for anonymous.
    """

    def __init__(self, app, access_format: str = "text", client_address: Callable[[dict], str] | None = None):
        if access_format not in ACCESS_FORMATS:
            raise ValueError(f"access log format {access_format!r}: allowed: {', '.join(ACCESS_FORMATS)}")
        self.app = app
        self.format = access_format
        self.client_address = client_address or (lambda environ: environ.get("REMOTE_ADDR", ""))
        self.log = logging.getLogger(ACCESS_LOGGER)

    def close(self) -> None:
        close = getattr(self.app, "close", None)
        if close is not None:
            close()

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        answer = {"status": 0, "length": 0}

        def recording_start_response(status, headers, exc_info=None):
            answer["status"] = int(status[:3]) if status[:3].isdigit() else 0
            for name, value in headers:
                if name.lower() == "content-length" and value.isdigit():
                    answer["length"] = int(value)
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, recording_start_response)
        except BaseException:
            self.write(environ, 500, 0, started)
            raise
        file_wrapper = environ.get("wsgi.file_wrapper")
        if isinstance(file_wrapper, type) and isinstance(body, file_wrapper):
            # A file the server sends by itself (an upload): wrapping it would lose that; log it now.
            self.write(environ, answer["status"], 0 if environ.get("REQUEST_METHOD") == "HEAD" else answer["length"],
                       started)
            return body
        return _LoggedBody(body, lambda sent: self.write(environ, answer["status"], sent, started))

    def write(self, environ: dict, status: int, sent: int, started: float) -> None:
        # A balancer probes /-/health every few seconds per node: a good answer is logged at debug only.
        level = logging.DEBUG if status == 200 and environ.get("PATH_INFO") == HEALTH_PATH else logging.INFO
        if not self.log.isEnabledFor(level):
            return
        fields = {
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"),
            "client": printable(self.client_address(environ) or "-", MAX_CLIENT),
            "method": printable(environ.get("REQUEST_METHOD", "-"), MAX_METHOD),
            "path": request_target(environ),
            "status": status,
            "bytes": sent,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            "user": int(environ.get("sitehost.user_id") or 0),
        }
        if self.format == "json":
            self.log.log(level, json.dumps(fields, separators=(",", ":")))
        else:
            self.log.log(level, "%(time)s %(client)s %(method)s %(path)s %(status)d %(bytes)d %(duration_ms).1fms "
                          "user=%(user)d", fields)


class _LoggedBody:
    """The answer's body, counted as the server sends it; the line is written when the server closes it."""

    def __init__(self, body: Iterable[bytes], done: Callable[[int], Any]):
        self.body = body
        self.done = done
        self.sent = 0

    def __iter__(self):
        for chunk in self.body:
            self.sent += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done(self.sent)
