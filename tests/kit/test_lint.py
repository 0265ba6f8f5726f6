"""The lint gate: ruff's rules of [tool.ruff.lint] in pyproject.toml hold for the whole tree (host, plugins,
tests), so an undefined name or a closure over a loop variable fails the suite, not a visitor's request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed!" in result.stdout
