"""A real `sitehost serve` with a known administrator, for the browser test and the screenshot script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from host.testing import start_sitehost


def init_site(folder: Path, demo: bool = True) -> tuple[Path, str, str]:
    """sitehost.toml and a demo site in `folder`; (config, admin login, admin login password)."""
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder / "site.db"}"\nuploads_dir = "{folder / "uploads"}"\n')
    result = subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "init",
                             *(["--demo"] if demo else [])], capture_output=True, text=True, cwd=folder, timeout=120,
                            check=True)
    password = next(line.rsplit(": ", 1)[1] for line in result.stdout.splitlines() if line.startswith("login password"))
    return config, "admin", password


def serve(config: Path, workers: str = "2"):
    """(process, site URL, REST URL) of a served site."""
    process, rest = start_sitehost(config, "--workers", workers, "--threads", "2", "--quiet", env={**os.environ})
    return process, rest.rsplit("/wp-json", 1)[0], rest


def namespaces(rest: str) -> list[str]:
    with urllib.request.urlopen(rest + "/") as response:
        return json.load(response)["namespaces"]


def wait_for_namespaces(rest: str, predicate, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate(namespaces(rest)):
            return True
        time.sleep(0.2)
    return False
