"""A real `sitehost serve`: the loopback tests reach it, and `sitehost doctor` reports on it."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.request

import pytest

from host.auth import users as user_service
from host.testing import start_sitehost, stop_sitehost


def _run_doctor(config, *args):
    return subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "doctor", *args],
                          capture_output=True, text=True, timeout=120, cwd=str(config.parent),
                          env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served-health")
    config = folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{folder / "site.db"}"\nuploads_dir = "{folder / "uploads"}"\n')
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", "--quiet", env={**os.environ})
    yield config, rest
    stop_sitehost(process)


def _admin_headers(config) -> dict[str, str]:
    from host.app import create_app
    from host.config import load_settings

    app = create_app(load_settings(config))
    try:
        with app.db.session(write=True) as session, session.begin():
            user = user_service.create_user(app, session, "doctor-admin", "doctor@school.invalid", role="administrator")
            password, _record = user_service.create_application_password(app, session, user.id, "health test")
    finally:
        app.close()
    return {"Authorization": "Basic " + base64.b64encode(f"doctor-admin:{password}".encode()).decode()}


def test_the_served_site_reaches_itself_and_receives_the_authorization_header(served):
    config, rest = served
    headers = _admin_headers(config)
    for name, label in (("loopback-requests", "The site can reach itself"),
                        ("authorization-header", "The Authorization header reaches sitehost")):
        request = urllib.request.Request(f"{rest}/site-health/v1/tests/{name}", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            body = json.loads(response.read())
        assert (body["status"], body["label"]) == ("good", label)


def test_doctor_on_a_healthy_site_exits_zero_with_a_line_per_test(served):
    config, rest = served
    result = _run_doctor(config, "--url", rest.rsplit("/wp-json", 1)[0])
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("sitehost doctor: 9 tests of the site at http://127.0.0.1:")
    for name in ("database", "uploads", "plugins", "loopback-requests", "authorization-header", "https-status",
                 "response-cache"):
        assert any(line.startswith("ok") and f"  {name} " in line for line in lines), (name, result.stdout)
    # a new site writes mail to files and has no backup yet: worth a warning, not a failure
    for name in ("mail-outbox", "last-backup"):
        assert any(line.startswith("warn") and f"  {name} " in line for line in lines), (name, result.stdout)
    assert not any(line.startswith("FAIL") for line in lines)
    assert lines[-1] == "result: recommended"


def test_doctor_names_unwritable_uploads_and_a_plugin_that_failed(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\nuploads_dir = "{blocker / "uploads"}"\n'
                      '[plugins]\ndisabled = ["core"]\n')
    init = subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "init"], capture_output=True,
                          text=True, timeout=120, cwd=str(tmp_path))
    assert init.returncode == 0, init.stderr
    result = _run_doctor(config, "--url", "http://127.0.0.1:9", "--only", "uploads", "--only", "plugins")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "FAIL  uploads" in out and "The uploads folder is not writable" in out and str(blocker / "uploads") in out
    assert "FAIL  plugins" in out and "oembed: requires core, which is disabled" in out
    assert out.splitlines()[-1] == "result: critical"


def test_doctor_in_an_empty_folder_says_there_is_no_site(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "none.db"}"\n')
    result = _run_doctor(config)
    assert result.returncode == 1 and "Error:" in result.stderr
    assert not (tmp_path / "none.db").exists()


def test_doctor_help_lists_every_test_name_without_opening_a_site(tmp_path):
    """the names `--only` takes are in `doctor --help`; help never touches the database."""
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "none.db"}"\n[plugins]\ndisabled = ["backup"]\n')
    result = _run_doctor(config, "--help")
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split("\nTests:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    assert names == ["mail-outbox", "response-cache", "database", "uploads", "plugins", "loopback-requests",
                     "authorization-header", "https-status"]  # last-backup belongs to the disabled backup plugin
    assert "  database  " in result.stdout and "Database (Performance)" in result.stdout
    assert not (tmp_path / "none.db").exists()
