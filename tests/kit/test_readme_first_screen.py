"""A newcomer who reads only the README's first screen can serve, sign in to the admin area, find the
REST API, find their mail, and stop and restart the server; and a skipped browser test says why in the
summary of a plain `pytest` run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

ROOT = Path(__file__).resolve().parents[2]
FIRST_SCREEN_LINES = 45


def test_the_first_screen_of_the_readme_answers_a_newcomers_questions():
    first_screen = "\n".join(ROOT.joinpath("README.md").read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES])
    assert "pip install -e . && sitehost serve\npip install -e '.[test]' && pytest" in first_screen
    for needed in ("administrator created: login 'admin'", "login password", "application password",
                   "sitehost serving on http://127.0.0.1:8080/wp-json/", "http://127.0.0.1:8080/admin/",
                   "`.eml`", "./mail/", "smtp_host", "Ctrl+C", "Restart", "set-password", "Chromium",
                   "docs/settings.md", "docs/benchmarks.md"):
        assert needed in first_screen, needed
    assert "<!-- settings-reference:start -->" not in ROOT.joinpath("README.md").read_text(encoding="utf-8")


def test_a_skipped_browser_test_prints_its_reason_in_the_summary(tmp_path):
    test_file = tmp_path / "test_needs_browser.py"
    test_file.write_text("def test_page(browser):\n    pass\n")
    path_without_chromium = os.pathsep.join(folder for folder in os.environ.get("PATH", "").split(os.pathsep)
                                           if not Path(folder, "chromium").exists())
    environment = {key: value for key, value in os.environ.items() if key != "SITEHOST_CHROMIUM"}
    environment["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), path_without_chromium])
    result = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                             str(tmp_path), "-n", "0", "-p", "no:cacheprovider", str(test_file)],
                            capture_output=True, text=True, env=environment, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.split("short test summary info", 1)[-1]
    assert "SKIPPED" in summary and "no Chromium found" in summary, result.stdout
