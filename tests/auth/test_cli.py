"""`sitehost user ...`, `sitehost app-password ...` and the first administrator, against a real SQLite file."""

from __future__ import annotations

import base64

import pytest
from click.testing import CliRunner

from host.app import create_app
from host.cli import main
from host.config import load_settings


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "sitehost.toml"
    path.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    return str(path)


def run(config, *args):
    result = CliRunner().invoke(main, ["--config", config, *args], catch_exceptions=False)
    return result


def test_users_and_app_passwords_from_the_command_line(config):
    created = run(config, "user", "create", "jo", "--role", "editor", "--email", "jo@school.test", "--password", "pw1")
    assert created.exit_code == 0 and "created user 'jo'" in created.output
    assert "login password" not in created.output
    generated = run(config, "user", "create", "kim", "--email", "kim@school.test")
    assert generated.exit_code == 0 and "login password (shown once):" in generated.output
    duplicate = run(config, "user", "create", "jo", "--role", "editor", "--email", "other@school.test")
    assert duplicate.exit_code == 1 and "already exists" in duplicate.output
    assert run(config, "user", "create", "x", "--role", "king", "--email", "x@school.test").exit_code == 2
    listing = run(config, "user", "list")
    assert "jo@school.test" in listing.output and "editor" in listing.output and "subscriber" in listing.output

    made = run(config, "app-password", "create", "jo", "Deploy bot")
    assert made.exit_code == 0
    password = made.output.strip().splitlines()[-1]
    assert len(password) == 29 and password.replace(" ", "").isalnum()
    uuid = made.output.split("application password ", 1)[1].split()[0]
    listed = run(config, "app-password", "list", "jo")
    assert uuid in listed.output and "Deploy bot" in listed.output and password not in listed.output
    assert "$b2$" not in listed.output

    app = create_app(load_settings(config))
    try:
        from webtest import TestApp

        client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
        headers = {"Authorization": "Basic " + base64.b64encode(f"jo:{password}".encode()).decode()}
        assert client.get("/wp-json/core/v2/users/me", headers=headers).json["name"] == "jo"
        revoked = run(config, "app-password", "revoke", "jo", uuid)
        assert revoked.exit_code == 0
        assert client.get("/wp-json/core/v2/users/me", headers=headers, status=401).json["code"] == "incorrect_password"
    finally:
        app.close()
    assert run(config, "app-password", "revoke", "jo", uuid).exit_code == 1
    assert run(config, "app-password", "list", "nobody").exit_code == 1


def test_first_init_creates_an_administrator_once(config):
    first = run(config, "init")
    assert first.exit_code == 0 and "administrator created: login 'admin'" in first.output
    password = first.output.split("shown once): ", 2)[2].splitlines()[0]
    assert run(config, "init").output.count("administrator") == 0
    app = create_app(load_settings(config))
    try:
        from webtest import TestApp

        client = TestApp(app, extra_environ={"HTTP_HOST": "school.test"})
        headers = {"Authorization": "Basic " + base64.b64encode(f"admin:{password}".encode()).decode()}
        me = client.get("/wp-json/core/v2/users/me?context=edit", headers=headers).json
        assert me["roles"] == ["administrator"]
    finally:
        app.close()


def test_user_unlock_lifts_a_lock_out_seen_over_http(config, tmp_path):
    from webtest import TestApp

    with open(config, "a") as handle:
        handle.write('\n[auth]\nmax_failures = 2\nslow_seconds = 0\n')
    made = run(config, "user", "create", "sam", "--role", "author", "--email", "sam@school.test")
    assert made.exit_code == 0
    password = run(config, "app-password", "create", "sam", "Phone").output.strip().splitlines()[-1]
    headers = {"Authorization": "Basic " + base64.b64encode(f"sam:{password}".encode()).decode()}
    wrong = {"Authorization": "Basic " + base64.b64encode(b"sam:guess").decode()}
    app = create_app(load_settings(config))
    try:
        client = TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "203.0.113.9"})
        for _attempt in range(2):
            client.get("/wp-json/core/v2/users/me", headers=wrong, status=401)
        assert client.get("/wp-json/core/v2/users/me", headers=headers, status=429).status_int == 429
        unlocked = run(config, "user", "unlock", "sam")
        assert unlocked.exit_code == 0 and "unlocked 'sam': 4 failed sign-ins forgotten" in unlocked.output
        assert client.get("/wp-json/core/v2/users/me", headers=headers).json["name"] == "sam"
        for _attempt in range(2):
            client.get("/wp-json/core/v2/users/me", headers=wrong, status=401)
        by_address = run(config, "user", "unlock", "--address", "203.0.113.9")
        assert by_address.exit_code == 0 and "unlocked address 203.0.113.9: 6 failed sign-ins forgotten" in by_address.output
        assert client.get("/wp-json/core/v2/users/me", headers=headers).json["name"] == "sam"
    finally:
        app.close()
    assert run(config, "user", "unlock").exit_code == 2
    assert run(config, "user", "unlock", "nobody").exit_code == 1


def _typed_at_a_terminal(config, args, answers, timeout=60):
    """Run `sitehost ARGS` on a pseudo-terminal (its only one: a new session) and type each answer
    after its prompt, as a person would. Answers the exit code and everything shown."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time
    from types import SimpleNamespace

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "--config", config, *args], stdin=follower,
                               stdout=follower, stderr=follower, start_new_session=True, close_fds=True)
    os.close(follower)
    shown, pending, answered, deadline = b"", list(answers), 0, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the process closed the terminal
                    break
                if not chunk:
                    break
                shown += chunk
            if pending and shown[answered:].rstrip().endswith(b":"):  # a new prompt since the last answer
                os.write(leader, pending.pop(0).encode() + b"\n")
                answered = len(shown)
            if process.poll() is not None and not ready:
                break
        returncode = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(leader)
    return SimpleNamespace(returncode=returncode, output=shown.decode(errors="replace"))


def test_set_password_without_a_terminal_says_to_use_password_stdin(config):
    """no GetPassWarning, no "Aborted!": one Error line naming --password-stdin."""
    import subprocess
    import sys

    run(config, "user", "create", "jo", "--role", "author", "--email", "jo@school.test", "--password", "old pass 12")
    result = subprocess.run([sys.executable, "-m", "host.cli", "--config", config, "user", "set-password", "jo"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: no terminal to ask for the password: pipe it in with --password-stdin")
    assert len(result.stderr.splitlines()) == 1
    assert "Warning" not in result.stderr and "Aborted" not in result.stderr
    app, client = _client(config)
    try:  # nothing changed
        assert _sign_in(client, "jo", "old pass 12").status_int == 303
    finally:
        app.close()


def _client(config):
    from webtest import TestApp

    app = create_app(load_settings(config))
    return app, TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "192.0.2.20"})


def _sign_in(client, login, password):
    form = client.get("/authorize-application?app_name=CLI").forms[0]
    form["log"], form["pwd"] = login, password
    return form.submit(expect_errors=True)


def test_set_password_set_role_and_delete(config):
    run(config, "user", "create", "boss", "--role", "administrator", "--email", "boss@school.test", "--password", "boss pass 1")
    run(config, "user", "create", "jo", "--role", "author", "--email", "jo@school.test", "--password", "old pass 12")
    result = CliRunner().invoke(main, ["--config", config, "user", "set-password", "jo", "--password-stdin"],
                                input="new pass 345\n")
    assert result.exit_code == 0 and "new login password set for 'jo'" in result.output
    short = CliRunner().invoke(main, ["--config", config, "user", "set-password", "jo", "--password-stdin"], input="x\n")
    assert short.exit_code == 1 and "at least 8 characters" in short.output
    prompted = _typed_at_a_terminal(config, ["user", "set-password", "jo"], ["typed pass 6", "typed pass 6"])
    assert prompted.returncode == 0 and "new login password set for 'jo'" in prompted.output
    app, client = _client(config)
    try:
        assert _sign_in(client, "jo", "new pass 345").status_int == 200  # the form again: refused
        assert _sign_in(client, "jo", "typed pass 6").status_int == 303
    finally:
        app.close()

    assert run(config, "user", "set-role", "jo", "editor").output.strip() == "'jo' is now editor"
    assert run(config, "user", "set-role", "jo", "king").exit_code == 2
    assert "editor" in run(config, "user", "list").output

    app, _client_unused = _client(config)
    try:
        from tests.auth.helpers import publish_post

        jo = next(user for user in run(config, "user", "list").output.splitlines() if " jo " in user)
        publish_post(app, int(jo.split()[0]))
    finally:
        app.close()
    refused = run(config, "user", "delete", "jo", "--yes")
    assert refused.exit_code == 1 and "authored content" in refused.output and "--reassign" in refused.output
    assert " jo " in run(config, "user", "list").output  # nothing changed
    deleted = run(config, "user", "delete", "jo", "--reassign", "boss", "--yes")
    assert deleted.exit_code == 0 and "their content now belongs to 'boss'" in deleted.output
    assert " jo " not in run(config, "user", "list").output
    last = run(config, "user", "delete", "boss", "--yes")
    assert last.exit_code == 1 and "only administrator" in last.output
    assert run(config, "user", "set-role", "boss", "editor").exit_code == 1


def test_a_real_sitehost_process_hashes_login_passwords_at_full_cost(config, tmp_path):
    """Only test suites lower argon2's cost (host.testing): a `sitehost` process stores t=3, m=64 MiB, p=4."""
    import os
    import subprocess
    import sys

    from sqlalchemy import create_engine, text

    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    subprocess.run([sys.executable, "-m", "host.cli", "--config", config, "user", "create", "jo", "--email",
                    "jo@school.test", "--password", "a long enough password"], check=True, env=env,
                   capture_output=True, timeout=120)
    engine = create_engine(f"sqlite:///{tmp_path / 'site.db'}")
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT password_hash FROM users WHERE login = 'jo'")).scalar_one()
    engine.dispose()
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    from argon2 import PasswordHasher

    assert PasswordHasher().verify(stored, "a long enough password")
