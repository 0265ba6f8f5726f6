"""Dashboard: the site, its version, the enabled plugins and the health tests' results."""

from __future__ import annotations

import importlib.metadata
import shutil
from pathlib import Path

from sqlalchemy import text

from .framework import AdminRequest, escape, table
from ..text import strip_tags

HEALTH_NAMESPACE = "site-health/v1"


def sitehost_version() -> str:
    try:
        return importlib.metadata.version("sitehost")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def dashboard(page: AdminRequest) -> str:
    app = page.app
    enabled = [record for record in app.plugin_records if record.loaded]
    facts = (
        "<section aria-labelledby=\"site-heading\"><h2 id=\"site-heading\">Site</h2><dl class=\"facts\">"
        f"<dt>Name</dt><dd>{escape(app.settings.site.get('name', ''))}</dd>"
        f"<dt>Address</dt><dd><a href=\"{escape(page.site_url)}/\">{escape(page.site_url)}/</a></dd>"
        f"<dt>REST API</dt><dd><code>{escape(app.rest_base_url(page.environ))}/</code></dd>"
        f"<dt>sitehost version</dt><dd>{escape(sitehost_version())}</dd>"
        f"<dt>Database</dt><dd>{escape(app.db.engine.dialect.name)}</dd></dl></section>"
    )
    plugins = ("<section aria-labelledby=\"plugins-heading\"><h2 id=\"plugins-heading\">Enabled plugins "
               f"({len(enabled)})</h2><ul class=\"plain\">"
               + "".join(f"<li>{escape(record.name)} <span class=\"muted\">{escape(record.version)}</span></li>"
                         for record in enabled)
               + "</ul><p><a href=\"/admin/plugins\">Manage plugins</a></p></section>")
    return facts + plugins + health_section(page)


def health_section(page: AdminRequest) -> str:
    """The site-health/v1 tests run as the signed-in user, or the host's own checks without that plugin."""
    rows = []
    if page.has_namespace(HEALTH_NAMESPACE):
        for name in page.app.registry.health_tests:
            answer = page.rest("GET", f"/{HEALTH_NAMESPACE}/tests/{name}")
            if answer.ok and isinstance(answer.data, dict):
                rows.append((answer.data.get("status", ""), answer.data.get("label", name),
                             answer.data.get("description", "")))
            else:
                rows.append(("critical", name, f"The test answered HTTP {answer.status}."))
        note = ""
    else:
        rows = basic_checks(page)
        note = "<p class=\"muted\">The site health plugin is disabled: only the basic checks run.</p>"
    order = {"critical": 0, "recommended": 1, "good": 2}
    rows.sort(key=lambda row: order.get(row[0], 0))
    cells = [[f"<span class=\"status status-{escape(status)}\">{escape(status)}</span>", escape(label),
              _plain(description)] for status, label, description in rows]
    counts = {status: sum(1 for row in rows if row[0] == status) for status in order}
    summary = ", ".join(f"{count} {status}" for status, count in counts.items() if count)
    return ("<section aria-labelledby=\"health-heading\"><h2 id=\"health-heading\">Health</h2>"
            f"{note}<p>{escape(summary)}</p>"
            + table(["Result", "Test", "Details"], cells) + "</section>")


def _plain(markup: str) -> str:
    """Health descriptions arrive as HTML paragraphs; show their text only."""
    return escape(" ".join(strip_tags(str(markup)).split()))


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
