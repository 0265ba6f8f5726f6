"""The type gate: mypy, configured by [tool.mypy] in pyproject.toml, finds nothing in host/, so a value that
may be None used without a check, or a default of the wrong type, fails the suite, not a visitor's request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_nothing_in_host(tmp_path):
    # A cache of this run's own: two suites at once (SQLite and PostgreSQL) must not share one.
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "host"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout
