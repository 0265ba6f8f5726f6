"""sitehost's own health tests: database, uploads, plugins, loopback, Authorization header, HTTPS.

Each is a function (app, site_url) -> HealthResult, registered through the same hook any
plugin uses. They read, never write, except the uploads test, which writes and removes one
small file (the only honest way to know a folder is writable).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit


from host import HealthResult, HealthTest, schema_report
from host.storage import StorageError

from .settings import config_of


PROBE_PATH = "/site-health/v1/authorization-probe"
PROBE_SCHEME = "Bearer"  # never a sign-in attempt: the probe must not count against the sign-in limits
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


# --- database -----------------------------------------------------------------------------------

def database_test(app, _site_url: str) -> HealthResult:
    from sqlalchemy.exc import SQLAlchemyError

    engine = app.db.engine
    try:
        with engine.connect() as connection:
            schema = schema_report(app, connection)  # the same check as the balancers' /-/health
            details = _sqlite_details(connection) if engine.dialect.name == "sqlite" else _postgres_details(connection)
    except SQLAlchemyError as error:
        return HealthResult("critical", "The database cannot be reached",
                            f"Connecting to the {engine.dialect.name} database failed: {type(error).__name__}.",
                            "Check database_url in sitehost.toml (or SITEHOST_DATABASE_URL) and that the server runs.")
    if not schema.current:
        return HealthResult("critical", "The database schema is not up to date",
                            f"The database lacks what enabled plugins expect: {schema.reason()}.",
                            "Restart sitehost: a starting node makes its table changes (docs/deploy/upgrades.md).")
    problems, facts = details
    if problems:
        return HealthResult(problems[0][0], problems[0][1], " ".join(facts), problems[0][2])
    return HealthResult("good", "The database is reachable and its schema is up to date", " ".join(facts))


def _sqlite_details(connection) -> tuple[list[tuple[str, str, str]], list[str]]:
    problems, facts = [], []
    check = connection.exec_driver_sql("PRAGMA quick_check").scalar()
    journal = str(connection.exec_driver_sql("PRAGMA journal_mode").scalar()).lower()
    facts.append(f"SQLite {connection.exec_driver_sql('select sqlite_version()').scalar()}, "
                 f"integrity check: {check}, journal mode: {journal}.")
    if check != "ok":
        problems.append(("critical", "The SQLite database is damaged",
                         "Stop the site, restore the last backup, and keep the damaged file for inspection."))
    elif journal != "wal":
        problems.append(("recommended", "SQLite is not in WAL mode",
                         "Readers wait for writers without write-ahead logging; restart sitehost, which turns it on."))
    return problems, facts


def _postgres_details(connection) -> tuple[list[tuple[str, str, str]], list[str]]:
    number = int(connection.exec_driver_sql("SHOW server_version_num").scalar())
    version = connection.exec_driver_sql("SHOW server_version").scalar()
    facts = [f"PostgreSQL {version}."]
    if number < 130000:
        return [("recommended", "PostgreSQL is older than 13",
                 "PostgreSQL 12 and older no longer receive security fixes; upgrade the server.")], facts
    return [], facts


# --- uploads ------------------------------------------------------------------------------------

def uploads_test(app, _site_url: str) -> HealthResult:
    if app.storage.backend != "local":
        return _object_store_test(app)
    folder = Path(app.settings.uploads_dir).resolve()
    config = config_of(app)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".health-", delete=True) as probe:
            probe.write(b"sitehost")
            probe.flush()
    except OSError as error:
        return HealthResult("critical", "The uploads folder is not writable",
                            f"Writing to {folder} failed: {error.strerror or error}. Media uploads will fail.",
                            f"Make {folder} writable by the user that runs sitehost, or set uploads_dir.")
    free = shutil.disk_usage(folder).free
    described = f"{folder} is writable; {_human(free)} free on its disk."
    if free < config.critical_free_bytes:
        return HealthResult("critical", "The uploads disk is almost full", described,
                            "Free disk space or move uploads_dir to a larger disk.")
    if free < config.low_free_bytes:
        return HealthResult("recommended", "The uploads disk is getting full", described,
                            "Free disk space soon: uploads and the database share little room.")
    return HealthResult("good", "The uploads folder is writable", described)


def _object_store_test(app) -> HealthResult:
    """With `[storage] backend = "s3"`: write and remove one small object among the uploads."""
    where = app.storage.describe()
    area = app.storage.uploads()
    probe = f".health-{secrets.token_hex(8)}"
    try:
        area.put(probe, b"sitehost")
        area.delete(probe)
    except StorageError as error:
        return HealthResult("critical", "The object store refuses uploads",
                            f"Writing to {where} failed: {error}. Media uploads will fail.",
                            "Check the bucket, endpoint_url and region of [storage], and the credentials in "
                            "sitehost's environment (docs/storage.md).")
    return HealthResult("good", "The object store accepts uploads", f"{where} accepted a write and a delete.")


def stored_size(area, deadline_entries: int = 200_000) -> tuple[int, bool]:
    """directory_size for an area of the object store: bytes listed, and whether the listing was cut short."""
    total = 0
    for seen, found in enumerate(area.list(), start=1):
        if seen > deadline_entries:
            return total, True
        total += found.size
    return total, False


# --- plugins ------------------------------------------------------------------------------------

def plugins_test(app, _site_url: str) -> HealthResult:
    failed = [record for record in app.plugin_records if record.state == "failed"]
    if failed:
        names = "; ".join(f"{record.name}: {(record.error or 'unknown reason').rstrip('.')}" for record in failed)
        return HealthResult("critical", f"{len(failed)} plugin{'s' if len(failed) > 1 else ''} failed to load",
                            f"These plugins are enabled but not running, so their routes answer 404: {names}.",
                            "Fix the reason given (often a setting in [plugins.NAME]), or disable the plugin with "
                            "`sitehost plugins disable NAME`, then restart.")
    enabled = sum(1 for record in app.plugin_records if record.state == "enabled")
    return HealthResult("good", "Every enabled plugin is running", f"{enabled} plugins are enabled and loaded.")


# --- requests to the site itself -------------------------------------------------------------

def _get(url: str, timeout: float, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "sitehost-health", **(headers or {})})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the site itself, never a proxy
    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, response.read(64 * 1024)
    except urllib.error.HTTPError as error:
        return error.code, error.read(64 * 1024)


def loopback_test(app, site_url: str) -> HealthResult:
    url = site_url + app.settings.rest_prefix + "/"
    try:
        status, _body = _get(url, config_of(app).loopback_timeout_seconds)
    except (OSError, ValueError) as error:
        return HealthResult("critical", "The site could not reach itself",
                            f"A request to {url} failed: {getattr(error, 'reason', error)}. Scheduled work and the "
                            "health tests that call the site need this.",
                            "Check that sitehost serve runs at that address, and that [site] url is the address "
                            "the server can reach itself at.")
    if status != 200:
        return HealthResult("critical", "The site could not reach itself",
                            f"A request to {url} answered HTTP {status}.", "Check the front proxy's configuration.")
    return HealthResult("good", "The site can reach itself", f"A request to {url} answered HTTP 200.")


def authorization_header_test(app, site_url: str) -> HealthResult:
    token = secrets.token_urlsafe(12)
    url = site_url + app.settings.rest_prefix + PROBE_PATH
    try:
        status, body = _get(url, config_of(app).loopback_timeout_seconds, {"Authorization": f"{PROBE_SCHEME} {token}"})
        received = json.loads(body.decode("utf-8")).get("received") if status == 200 else None
    except (OSError, ValueError, AttributeError) as error:
        return HealthResult("recommended", "The Authorization header could not be tested",
                            f"A request to {url} failed: {getattr(error, 'reason', error)}.",
                            "Fix the loopback request first (see its test).")
    if received is None:
        return HealthResult("recommended", "The Authorization header could not be tested",
                            f"{url} answered HTTP {status}.", "Fix the loopback request first (see its test).")
    if received != token:
        return HealthResult("critical", "The Authorization header does not reach sitehost",
                            "A request through the site's address arrived without its Authorization header, so "
                            "application passwords cannot sign anyone in: every client is anonymous.",
                            "nginx: add `proxy_set_header Authorization $http_authorization;` to the location. "
                            "Apache with mod_wsgi: `WSGIPassAuthorization On`; with mod_proxy: make sure no "
                            "`RequestHeader unset Authorization` applies.")
    return HealthResult("good", "The Authorization header reaches sitehost",
                        "Application passwords sent by clients arrive intact.")


def https_test(app, site_url: str) -> HealthResult:
    parts = urlsplit(site_url)
    if parts.scheme == "https":
        return HealthResult("good", "The site is served over HTTPS", f"{site_url} uses HTTPS.")
    if (parts.hostname or "") in LOCAL_HOSTS:
        return HealthResult("good", "The site is served locally over HTTP",
                            f"{site_url} is this machine: nothing travels over a network.")
    return HealthResult("recommended", "The site is not served over HTTPS",
                        f"{site_url} uses plain HTTP: application passwords and sign-ins cross the network readable "
                        "by anyone on the way.",
                        "Put sitehost behind a proxy with a TLS certificate, list its address in trusted_proxies and set "
                        "[site] url to the https:// address.")


def authorization_probe(request):
    """Echo the token of an `Authorization: Bearer` header (the probe's own), so the test can compare it."""
    header = request.header("authorization") or ""
    scheme, _space, token = header.partition(" ")
    return {"received": token[:64] if scheme == PROBE_SCHEME else None}


# --- directory sizes -------------------------------------------------------------------------

def directory_size(folder: Path, deadline_entries: int = 200_000) -> tuple[int, bool]:
    """Bytes under `folder` (symlinks not followed) and whether the walk stopped at its entry bound."""
    total, seen = 0, 0
    for root, _dirs, files in os.walk(folder, followlinks=False):
        for name in files:
            seen += 1
            if seen > deadline_entries:
                return total, True
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total, False


def database_size(app) -> int | None:
    from sqlalchemy.exc import SQLAlchemyError

    engine = app.db.engine
    try:
        if engine.dialect.name == "sqlite":
            path = engine.url.database
            if not path or path == ":memory:":
                return None
            return sum(Path(path + suffix).stat().st_size for suffix in ("", "-wal", "-shm")
                       if Path(path + suffix).exists())
        with engine.connect() as connection:
            return int(connection.exec_driver_sql("select pg_database_size(current_database())").scalar())
    except (OSError, SQLAlchemyError):
        return None


def _human(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"


def sized(size: int | None, what: str) -> dict:
    if size is None:
        return {"size": "", "debug": "not available", "raw": 0}
    return {"size": _human(size), "debug": f"{_human(size)} ({size} bytes)", "raw": size}


HEALTH_TESTS = [
    HealthTest("database", "Database", "Performance", database_test),
    HealthTest("uploads", "Uploads folder", "Performance", uploads_test),
    HealthTest("plugins", "Plugins", "Security", plugins_test),
    HealthTest("loopback-requests", "Loopback request", "Performance", loopback_test),
    HealthTest("authorization-header", "Authorization header", "Security", authorization_header_test),
    HealthTest("https-status", "HTTPS", "Security", https_test),
]
