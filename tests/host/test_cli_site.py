"""Commands that only read never create a site, and `serve` makes sure of its port first."""

import os
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

from host.cli import main

READ_ONLY_COMMANDS = [["plugins", "list"], ["plugins", "list", "--json"], ["routes"], ["routes", "--namespace", "x"],
                      ["openapi"], ["user", "list"], ["app-password", "list", "admin"],
                      # Plugins' commands open the site through host.commands.open_site, which never creates one.
                      ["mail", "outbox"], ["mail", "send-test", "office@school.test"], ["lms", "api-key", "list"],
                      ["newsletter", "export", "Whole school"], ["backup", "list"], ["backup", "create"],
                      ["spam", "train"], ["doctor"]]


def clean_env() -> dict:
    return {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}


def invoke(*args, env=None):
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, list(args), env={**unset, **(env or {})})


@pytest.mark.parametrize("command", READ_ONLY_COMMANDS, ids=" ".join)
def test_a_read_only_command_in_an_empty_folder_says_there_is_no_site_and_leaves_nothing(
        tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    result = invoke(*command)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: no site here: sitehost.db does not exist (`sitehost init` or `sitehost serve` " \
                            "creates it)\n"
    assert list(tmp_path.iterdir()) == []


def test_a_configured_database_that_is_missing_creates_no_folder_either(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/data/site.db"\n')
    result = invoke("--config", str(config), "routes")
    assert (result.exit_code, result.stderr) == (1, f"Error: no site here: {tmp_path}/data/site.db does not exist "
                                                    "(`sitehost init` or `sitehost serve` creates it)\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sitehost.toml"]


def test_a_file_that_is_not_a_database_is_left_alone(tmp_path):
    (tmp_path / "notes.db").write_text("not a database")
    result = invoke("routes", env={"SITEHOST_DATABASE_URL": f"sqlite:///{tmp_path}/notes.db"})
    assert (result.exit_code, result.stderr) == (1, f"Error: no site here: {tmp_path}/notes.db is not an SQLite "
                                                    "database\n")
    assert (tmp_path / "notes.db").read_text() == "not a database"


def test_after_init_the_read_only_commands_read_the_site(tmp_path):
    url = f"sqlite:///{tmp_path}/site.db"
    created = invoke("init", env={"SITEHOST_DATABASE_URL": url})
    assert created.exit_code == 0, created.output
    routes = invoke("routes", "--namespace", "core/v2", env={"SITEHOST_DATABASE_URL": url})
    assert routes.exit_code == 0, routes.output
    assert any(line.split()[-1] == "/core/v2/posts" for line in routes.stdout.splitlines())
    listing = invoke("plugins", "list", env={"SITEHOST_DATABASE_URL": url})
    assert listing.exit_code == 0
    assert listing.stdout.splitlines()[0].split() == ["name", "version", "enabled", "source", "state", "namespaces"]


@pytest.mark.skipif(not os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql"),
                    reason="needs a PostgreSQL server (SITEHOST_TEST_DATABASE_URL)")
def test_a_postgresql_database_without_the_tables_is_no_site_and_gets_none():
    from sqlalchemy import create_engine, inspect

    from host.testing import _PostgresSchemas

    schemas = _PostgresSchemas(os.environ["SITEHOST_TEST_DATABASE_URL"])
    try:
        url = schemas.new_url()
        result = invoke("plugins", "list", env={"SITEHOST_DATABASE_URL": url})
        assert result.exit_code == 1
        assert result.stderr.startswith("Error: no site here: ")
        assert result.stderr.endswith(" has no sitehost tables (`sitehost init` creates them)\n")
        engine = create_engine(url)
        try:
            with engine.connect() as connection:
                assert inspect(connection).get_table_names() == []
        finally:
            engine.dispose()
    finally:
        schemas.drop_all()


def serve_on(port: int, folder, *args):
    return subprocess.run([sys.executable, "-m", "host.cli", "serve", "--port", str(port), *args],
                          cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_on_a_busy_port_stops_with_one_error_line_before_creating_anything(tmp_path, workers):
    if workers != "1" and not hasattr(socket, "SO_REUSEPORT"):
        pytest.skip("workers share a port through SO_REUSEPORT")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = serve_on(port, tmp_path, "--workers", workers)
    assert result.returncode == 1
    assert result.stderr == f"Error: cannot serve on 127.0.0.1:{port}: Address already in use\n"
    assert result.stdout == ""  # no administrator, no demo content
    assert list(tmp_path.iterdir()) == []


def test_serve_on_an_unknown_host_stops_with_one_error_line(tmp_path):
    result = serve_on(0, tmp_path, "--host", "no-such-host.invalid", "--workers", "1")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: cannot serve on no-such-host.invalid:0: ")
    assert len(result.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="workers share a port through SO_REUSEPORT")
def test_serve_on_a_port_another_sitehost_serves_stops_whatever_the_worker_counts(tmp_path):
    """Two sitehosts with SO_REUSEPORT sockets used to share a port, the kernel splitting visitors between sites."""
    from host.testing import start_sitehost, stop_sitehost

    first_folder, second_folder = tmp_path / "first", tmp_path / "second"
    first_folder.mkdir()
    second_folder.mkdir()
    config = first_folder / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{first_folder / "site.db"}"\n')
    process, rest = start_sitehost(config, "--workers", "2", "--quiet", env=clean_env())
    try:
        port = int(rest.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        for workers in ("2", "1", "3"):
            result = serve_on(port, second_folder, "--workers", workers)
            assert result.returncode == 1, (workers, result.stdout, result.stderr)
            assert result.stderr == f"Error: cannot serve on 127.0.0.1:{port}: Address already in use\n"
            assert result.stdout == ""
            assert list(second_folder.iterdir()) == []
        assert process.poll() is None  # the first site goes on serving
    finally:
        stop_sitehost(process)
