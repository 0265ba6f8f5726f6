"""site-health/v1 routes: one per registered health test, directory sizes, and the header probe.

Tests and sizes are for administrators (`view_site_health_checks`, as in WordPress). The
probe is public: it only echoes the token of the probe's own `Authorization: Bearer` header,
so the Authorization-header test can tell whether the front proxy passes that header on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from marshmallow import Schema, fields

from host import HealthResult, HealthTest, Route, theme
from host.args import ContextArgs

from . import checks

NAMESPACE = "site-health/v1"
CAPABILITY = "view_site_health_checks"
BADGE_COLORS = {"good": "blue", "recommended": "orange", "critical": "red"}
log = logging.getLogger("sitehost.site_health")


class HealthResultSchema(Schema):
    test = fields.String(metadata={"description": "The test's name."})
    label = fields.String(metadata={"description": "What the test found, in one line."})
    status = fields.String(metadata={"description": "good, recommended or critical.",
                                     "enum": ["good", "recommended", "critical"]})
    badge = fields.Dict(metadata={"description": "The group the test belongs to: label and color."})
    description = fields.String(metadata={"description": "What was found, as HTML."})
    actions = fields.String(metadata={"description": "What to do about it, as HTML."})


class ProbeArgs(Schema):
    """The probe takes no parameters."""


# Route keywords of every test route: refused in the real routes' words.
VIEW_HEALTH = {"capability": CAPABILITY,
               "refusal": ("rest_forbidden", "Sorry, you are not allowed to access site health information.")}


def run_test(app, test: HealthTest, site_url: str) -> HealthResult:
    """The test's result; a test that raises is itself a critical finding, never a 500."""
    try:
        return test.run(app, site_url)
    except Exception as error:  # a plugin's broken test must not hide the others
        log.exception("health test %s failed", test.name)
        return HealthResult("critical", f"The {test.label} test failed to run",
                            f"It raised {type(error).__name__}; the server log has the details.")


def result_data(app, test: HealthTest, result: HealthResult) -> dict:
    """WordPress's shape: {test, label, status, badge: {label, color}, description, actions} (HTML)."""
    def paragraph(text: str) -> str:
        return str(theme.render(app, __package__, "site_health_text.html", {"text": text}))

    return {
        "test": test.name,
        "label": result.label,
        "status": result.status,
        "badge": {"label": test.group, "color": BADGE_COLORS[result.status]},
        "description": paragraph(result.description),
        "actions": paragraph(result.actions),
    }


def _test_handler(test: HealthTest):
    def handler(request):
        app = request.app
        return result_data(app, test, run_test(app, test, request.site_url))
    handler.__name__ = f"health_test_{test.name.replace('-', '_')}"
    return handler


def directory_sizes(request):
    app = request.app
    if app.storage.backend == "local":
        uploads, truncated = checks.directory_size(Path(app.settings.uploads_dir).resolve())
    else:
        uploads, truncated = checks.stored_size(app.storage.uploads())
    database = checks.database_size(app)
    total = uploads + (database or 0)
    sizes = {
        "uploads_size": checks.sized(uploads, "uploads"),
        "database_size": checks.sized(database, "database"),
        "total_size": checks.sized(total, "total"),
    }
    if truncated:
        sizes["uploads_size"]["debug"] += " (counted up to the walk's bound; the folder is larger)"
    sizes["raw"] = total
    return sizes


def routes(app) -> list[Route]:
    table = [
        Route(NAMESPACE, f"/tests/{test.name}", "GET", _test_handler(test), args=ContextArgs, **VIEW_HEALTH,
              schema=HealthResultSchema, title="health-test")
        for test, _owner in app.registry.health_tests.values()
    ]
    table.append(Route(NAMESPACE, "/directory-sizes", "GET", directory_sizes, args=ContextArgs,
                       **VIEW_HEALTH))
    table.append(Route(NAMESPACE, "/authorization-probe", "GET", checks.authorization_probe, args=ProbeArgs,
                       uncacheable="tells each caller whether its own Authorization header arrived"))
    return table
