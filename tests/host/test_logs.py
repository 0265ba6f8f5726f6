"""What a real `sitehost serve` writes to its log: plugin states, the URL, one access line per request."""

import base64
import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from host.testing import start_sitehost, stop_sitehost

from tests.core.test_media import png
from tests.helpers import install_entry_point_plugin

ACCESS_LINE = re.compile(r"^(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (?P<client>\S+) (?P<method>\S+) "
                         r"(?P<path>\S+) (?P<status>\d{3}) (?P<bytes>\d+) (?P<ms>\d+\.\d)ms user=(?P<user>\d+)$")
JSON_FIELDS = {"time", "client", "method", "path", "status", "bytes", "duration_ms", "user"}


@pytest.fixture
def site(tmp_path):
    """A site made by `sitehost init`, with oembed disabled and a plugin that fails to import; its admin password."""
    broken = tmp_path / "broken"
    (broken / "sitehost_lunchbox").mkdir(parents=True)
    (broken / "sitehost_lunchbox" / "__init__.py").write_text("import frobnicate  # not installed\n")
    install_entry_point_plugin(broken, "sitehost-lunchbox", "0.3", "lunchbox", "sitehost_lunchbox")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\ntrust_proxy = true\n'
                      '[plugins]\ndisabled = ["oembed"]\n')
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(broken), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    created = subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "init"], env=env,
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert created.returncode == 0, created.stderr
    password = created.stdout.split("application password (HTTP Basic for the REST API; shown once): ")[1].split()
    token = base64.b64encode(f"admin:{' '.join(password[:6])}".encode()).decode()
    return {"config": config, "env": env, "folder": tmp_path, "admin": {"Authorization": f"Basic {token}"}}


def call(url, data=None, headers=None, method=None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def access_lines(text: str) -> list[dict]:
    return [match.groupdict() for match in map(ACCESS_LINE.match, text.splitlines()) if match]


def test_serve_logs_plugin_states_the_url_and_one_line_per_request_to_the_log_file(site):
    log_file = site["folder"] / "sitehost.log"
    process, rest = start_sitehost(site["config"], "--workers", "1", env=site["env"],
                                   global_args=("--log-file", str(log_file)))
    try:
        assert call(rest + "/core/v2/posts?per_page=2&password=hunter2")[0] == 200
        assert call(rest + "/core/v2/users/me", headers=site["admin"])[0] == 200
        assert call(rest + "/nothing/here")[0] == 404
        status, body = call(rest + "/core/v2/media", data=png(), method="POST", headers={
            **site["admin"], "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="a.png"'})
        assert status == 201
        source = json.loads(body)["source_url"]
        assert call(source) == (200, png())
        assert call(rest + "/", headers={"X-Forwarded-For": "198.51.100.7, 203.0.113.9 forged"})[0] == 200
        health = rest.rsplit("/wp-json", 1)[0] + "/-/health"
        assert [call(health) for _probe in range(3)] == [(200, b"ok\n")] * 3  # a balancer's probes
    finally:
        stop_sitehost(process)
    output = process.stdout.read()
    text = log_file.read_text()
    lines = text.splitlines()

    assert any(line.endswith(" INFO sitehost: plugin core 0.1.0 (builtin): enabled, serving core/v2") for line in lines)
    assert any(line.endswith(" INFO sitehost: plugin oembed 0.1.0 (builtin): disabled in the settings") for line in lines)
    assert any(line.endswith(" INFO sitehost: plugin lunchbox 0.3 (package): failed: import failed: "
                             "ModuleNotFoundError: No module named 'frobnicate'") for line in lines)
    assert any(f"sitehost serving on {rest}/ " in line for line in lines)
    admin_area = rest.rsplit("/wp-json", 1)[0] + "/admin/"
    assert f"admin area: {admin_area} (sign in as the administrator); Ctrl+C stops the server" in output

    access = access_lines(text)
    assert len(access) == 6, text  # one per request, nothing else matches; good health probes only at debug
    # Each line is written once its answer is sent, so two quick requests may log in either order.
    by_path = {line["path"].split("/")[1] if line["path"].startswith("/uploads/") else line["path"]: line
               for line in access}
    listing, me, missing, upload, served, root = (by_path[path] for path in (
        "/wp-json/core/v2/posts?per_page=2&password=***", "/wp-json/core/v2/users/me", "/wp-json/nothing/here",
        "/wp-json/core/v2/media", "uploads", "/wp-json/"))
    assert (listing["method"], listing["path"], listing["status"], listing["user"]) == (
        "GET", "/wp-json/core/v2/posts?per_page=2&password=***", "200", "0")
    assert "hunter2" not in text
    assert int(listing["bytes"]) > 0 and listing["client"] == "127.0.0.1"
    assert (me["path"], me["status"], me["user"]) == ("/wp-json/core/v2/users/me", "200", "1")
    assert (missing["path"], missing["status"], missing["user"]) == ("/wp-json/nothing/here", "404", "0")
    assert (upload["method"], upload["status"], upload["user"]) == ("POST", "201", "1")
    assert (served["status"], int(served["bytes"])) == ("200", len(png()))
    assert root["client"] == "203.0.113.9%20forged"  # trust_proxy: the proxy's entry, made printable
    assert "INFO sitehost" not in output  # the log went to the file, not to the terminal
    assert ACCESS_LINE.search(output) is None


def test_json_access_lines_go_to_stderr_without_a_log_file(site):
    process, rest = start_sitehost(site["config"], "--workers", "1", "--access-log-format", "json",
                                   env=site["env"])
    try:
        assert call(rest + "/core/v2/posts", headers=site["admin"])[0] == 200
        with socket.create_connection(rest.split("//")[1].split("/")[0].rsplit(":", 1), timeout=30) as raw:
            raw.sendall(b"GET /wp-json/a\x1b[31mred\x07?q=\x1b[2J HTTP/1.0\r\n\r\n")  # terminal escapes
            while raw.recv(65536):
                pass
        assert call(rest + "/" + "x" * 5000)[0] == 404
    finally:
        stop_sitehost(process)
    records = [json.loads(line) for line in process.stdout.read().splitlines() if line.startswith("{")]
    assert len(records) == 3
    assert all(set(record) == JSON_FIELDS for record in records)
    posts, odd, long = sorted(records, key=lambda record: ("core" not in record["path"], len(record["path"])))
    assert (posts["method"], posts["path"], posts["status"], posts["user"]) == ("GET", "/wp-json/core/v2/posts", 200, 1)
    assert isinstance(posts["duration_ms"], float) and posts["bytes"] > 0
    assert posts["time"].endswith("Z")
    assert (odd["path"], odd["status"]) == ("/wp-json/a%1B[31mred%07?q=%1B[2J", 404)
    assert long["path"] == ("/wp-json/" + "x" * 5000)[:1000] + "..."  # bounded


def test_quiet_drops_the_access_log_and_the_level_drops_records_below_it(site):
    quiet_log = site["folder"] / "quiet.log"
    process, rest = start_sitehost(site["config"], "--workers", "1", "--quiet", env=site["env"],
                                   global_args=("--log-file", str(quiet_log)))
    try:
        assert call(rest + "/")[0] == 200
    finally:
        stop_sitehost(process)
    quiet = quiet_log.read_text()
    assert access_lines(quiet) == []
    assert "plugin core 0.1.0 (builtin): enabled" in quiet

    warning_log = site["folder"] / "warning.log"
    process, rest = start_sitehost(site["config"], "--workers", "2", env=site["env"],
                                   global_args=("--log-file", str(warning_log), "--log-level", "warning"))
    try:
        for _ in range(4):
            assert call(rest + "/")[0] == 200
    finally:
        stop_sitehost(process)
    text = warning_log.read_text()
    assert " INFO " not in text  # no plugin lines, no worker start-up lines
    assert len(access_lines(text)) == 4  # the access log is switched by --quiet only; every worker writes it
