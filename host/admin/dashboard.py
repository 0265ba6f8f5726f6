"""Dashboard: the site, its version, the enabled plugins and the health tests' results (templates/dashboard.html)."""

from __future__ import annotations

import importlib.metadata
import shutil
from pathlib import Path

from markupsafe import Markup
from sqlalchemy import text

from .framework import AdminRequest
from ..text import strip_tags

HEALTH_NAMESPACE = "site-health/v1"


def sitehost_version() -> str:
    try:
        return importlib.metadata.version("sitehost")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def dashboard(page: AdminRequest) -> Markup:
    app = page.app
    return page.render("dashboard.html", site_name=app.settings.site.get("name", ""),
                       rest_url=app.rest_base_url(page.environ), version=sitehost_version(),
                       database=app.db.engine.dialect.name,
                       enabled=[record for record in app.plugin_records if record.loaded], **health_results(page))


def health_results(page: AdminRequest) -> dict:
    """The site-health/v1 tests run as the signed-in user, or the host's own checks without that plugin:
    `results` (status, label, plain-text details) worst first, their `summary`, and `basic_only`."""
    rows = []
    basic_only = not page.has_namespace(HEALTH_NAMESPACE)
    if not basic_only:
        for name in page.app.registry.health_tests:
            answer = page.rest("GET", f"/{HEALTH_NAMESPACE}/tests/{name}")
            if answer.ok and isinstance(answer.data, dict):
                rows.append((answer.data.get("status", ""), answer.data.get("label", name),
                             answer.data.get("description", "")))
            else:
                rows.append(("critical", name, f"The test answered HTTP {answer.status}."))
    else:
        rows = basic_checks(page)
    order = {"critical": 0, "recommended": 1, "good": 2}
    rows.sort(key=lambda row: order.get(row[0], 0))
    counts = {status: sum(1 for row in rows if row[0] == status) for status in order}
    return {"results": [(status, label, _plain(description)) for status, label, description in rows],
            "summary": ", ".join(f"{count} {status}" for status, count in counts.items() if count),
            "basic_only": basic_only}


def _plain(markup: str) -> str:
    """Health descriptions arrive as HTML paragraphs; show their text only (the template escapes it)."""
    return " ".join(strip_tags(str(markup)).split())


def basic_checks(page: AdminRequest) -> list[tuple[str, str, str]]:
    """Database, uploads folder and plugin load errors: what the host knows without site health."""
    app = page.app
    rows = []
    try:
        with app.db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        rows.append(("good", "The database answers", app.db.engine.dialect.name))
    except Exception as error:  # the page must still show
        rows.append(("critical", "The database does not answer", type(error).__name__))
    uploads = Path(app.settings.uploads_dir)
    if app.storage.backend != "local":
        rows.append(("good", "The uploads are kept in the object store", app.storage.describe()))
    elif uploads.is_dir():
        free = shutil.disk_usage(uploads).free
        rows.append(("good", "The uploads folder exists", f"{free // 2**20:,} MB free"))
    else:
        rows.append(("recommended", "The uploads folder does not exist yet", str(uploads)))
    for record in app.plugin_records:
        if record.enabled and not record.loaded:
            rows.append(("critical", f"Plugin {record.name} did not load", record.error))
    return rows
