"""axe-core (npm, pinned in tests/site/axe/package-lock.json; `.ci/run` installs it with `npm ci`) run
inside a playwright page: the WCAG 2.1 A and AA rules, violations returned for the test to judge."""

from __future__ import annotations

from pathlib import Path

import pytest

AXE_SOURCE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page, impacts=("serious", "critical")) -> list[dict]:
    """The violations of the page's current document whose impact is in `impacts`, each {"id", "impact",
    "help", "targets"}. axe is evaluated through the browser's DevTools channel, which the page's CSP
    (`script-src 'self'`) does not govern, so the page under test stays exactly as served."""
    if not AXE_SOURCE.exists():
        pytest.skip("!!! ACCESSIBILITY TEST SKIPPED: run `npm ci --prefix tests/site/axe` (axe-core) !!!")
    page.evaluate(AXE_SOURCE.read_text(encoding="utf-8"))
    results = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG_TAGS)
    assert results["passes"], "axe checked no rule: the page did not load"
    return [{"id": found["id"], "impact": found["impact"], "help": found["help"],
             "targets": [node["target"] for node in found["nodes"]]}
            for found in results["violations"] if found["impact"] in impacts]
