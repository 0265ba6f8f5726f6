"""A real `sitehost serve` process on a free loopback port, spoken to over a socket."""

import json
import os
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from host.testing import start_sitehost, stop_sitehost


def start_server(config: Path, env: dict | None = None, extra_args=(), global_args=()):
    """Start `sitehost serve --port 0` and return (process, base_url) once it listens."""
    return start_sitehost(config, "--threads", "2", *extra_args, env={**os.environ, **(env or {})},
                          global_args=global_args)


@pytest.fixture
def served_site(tmp_path, example_plugin):
    config = tmp_path / "sitehost.toml"
    database = tmp_path / "site.db"
    config.write_text(f'database_url = "sqlite:///{database}"\n[site]\nname = "Served School"\n')
    pythonpath = os.pathsep.join([str(example_plugin["site_packages"]), str(example_plugin["source"]),
                                  os.environ.get("PYTHONPATH", "")])
    log = tmp_path / "serve.log"
    process, base_url = start_server(config, env={"PYTHONPATH": pythonpath}, global_args=("--log-file", str(log)))
    yield {"process": process, "rest": base_url, "database": database, "log": log}
    stop_sitehost(process)


def fetch(url, data=None, headers=None, method=None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


def test_serve_answers_over_a_real_socket_and_creates_the_database(served_site):
    status, headers, body = fetch(served_site["rest"] + "/")
    assert status == 200
    assert headers["Content-Type"] == "application/json; charset=UTF-8"
    assert body["name"] == "Served School"
    assert "example/v1" in body["namespaces"]
    assert served_site["database"].exists()
    with sqlite3.connect(served_site["database"]) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"example_notes", "users", "site_state"} <= tables


def test_the_first_start_records_the_listen_address_as_the_site_address_and_says_how_to_set_it(served_site):
    site_address = served_site["rest"].rsplit("/wp-json", 1)[0]  # http://127.0.0.1:PORT
    fetch(served_site["rest"] + "/", headers={"Host": "attacker.example"})
    with sqlite3.connect(served_site["database"]) as connection:
        recorded = dict(connection.execute("SELECT key, value FROM site_state WHERE key LIKE 'site_address%'"))
    assert recorded == {"site_address": site_address}
    warning = next(line for line in served_site["log"].read_text().splitlines() if "[site] url is empty" in line)
    assert site_address in warning and "sitehost.toml" in warning and "Settings" in warning


def test_serve_routes_errors_and_json_over_the_socket(served_site):
    status, _headers, body = fetch(served_site["rest"] + "/example/v1/notes?per_page=500")
    assert status == 400
    assert body["code"] == "rest_invalid_param"
    assert "per_page" in body["data"]["params"]
    status, _headers, body = fetch(served_site["rest"] + "/example/v1/echo", data=b"{oops",
                                   headers={"Content-Type": "application/json"}, method="POST")
    assert (status, body["code"]) == (400, "rest_invalid_json")
    status, _headers, body = fetch(served_site["rest"] + "/nothing/here")
    assert (status, body["code"]) == (404, "rest_no_route")


def test_serve_without_a_plugin_drops_its_namespace(tmp_path, example_plugin):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/other.db"\n')
    pythonpath = os.pathsep.join([str(example_plugin["site_packages"]), str(example_plugin["source"])])
    process, base_url = start_server(config, env={"PYTHONPATH": pythonpath, "SITEHOST_DISABLE": "example"})
    try:
        status, _headers, body = fetch(base_url + "/")
        assert "example/v1" not in body["namespaces"]
        status, _headers, body = fetch(base_url + "/example/v1/notes")
        assert (status, body["code"]) == (404, "rest_no_route")
    finally:
        stop_sitehost(process)


def test_a_busy_server_does_not_log_every_queued_request(tmp_path):
    """waitress writes "Task queue depth is N" per request queued behind busy threads; serve quiets it."""
    from concurrent.futures import ThreadPoolExecutor

    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    process, rest = start_sitehost(config, "--threads", "1", "--workers", "1", env={**os.environ})
    try:
        def fetch(_number):
            with urllib.request.urlopen(rest + "/core/v2/posts?per_page=50", timeout=30) as response:
                return response.status

        with ThreadPoolExecutor(max_workers=12) as pool:
            assert set(pool.map(fetch, range(120))) == {200}
    finally:
        stop_sitehost(process)
    output = process.stdout.read()
    assert "Traceback" not in output
    assert "Task queue depth" not in output


def test_sigint_stops_a_single_worker_started_with_sigint_ignored(tmp_path):
    """A shell starts a script's background commands with SIGINT ignored, and Python keeps it so; the
    served site still stops on it at once (closing its site), as the worker pool's parent does."""
    import signal
    import subprocess
    import sys

    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    command = [sys.executable, "-m", "host.cli", "--config", str(config), "serve", "--port", "0", "--workers", "1"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "sitehost serving on " in line:
                break
        else:
            pytest.fail("the server did not start")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0, process.stdout.read()  # ignored, it would run on until killed below
        assert "Traceback" not in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
