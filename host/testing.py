"""pytest fixtures and helpers for sitehost and for plugin authors (registered through `pytest11`).

    def test_menu(make_app, make_user):
        app = make_app(plugins=["lunch"])
        editor = make_user(app, "editor")
        response = app.client.get("/wp-json/lunch/v1/menu", headers=editor.headers, status=200)
        assert_in_root_index(app, "lunch/v1")

Fixtures: `make_app`, `make_module_app` (one site for a module's tests), `app`, `client`,
`users`, `make_user`, `smtp_server` (a real SMTP server on 127.0.0.1 that keeps what it receives),
`s3_server` (moto's S3-compatible server as a process on 127.0.0.1), `storage_backend` (runs a test
on the local folders and on S3: make_app(storage=storage_backend)),
`browser` (headless Chromium through playwright, for pages a person uses). Helpers (import them from
host.testing): `create_test_user`, `role_users`, `client_as`, `basic_auth_headers`,
`make_plugin`, `assert_rest_error`, `assert_in_root_index`, `assert_not_in_root_index`,
`assert_collection`, `stored_files`; for admin pages `admin_sign_in` (a browser-like client signed
in through the sign-in form), `admin_form` (a page's form by its action, filled in) and `admin_csrf`.

`make_app(database_url=...)` runs a test on a database of your choosing instead of a fresh one
(an SQLite file you prepared, say); other keywords set single settings as sitehost.toml would.

Every app gets a fresh database: an SQLite file in a temporary folder, or, when
SITEHOST_TEST_DATABASE_URL names a PostgreSQL server, a schema of its own. Fresh means no other
test's rows: on PostgreSQL an app built with the same arguments as an earlier, finished one starts
on that one's schema, emptied, instead of creating every table again. Users of each role come with
working application passwords. Every site
records `TEST_SITE_ADDRESS` (http://school.test, the Host its client sends) as its site address,
as `sitehost serve` records the address it listens on: guids and mailed links start with it.
"""

from __future__ import annotations

import base64
import contextlib
import os
import types
import uuid
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from host.config import Settings
from host.auth import users as user_service
from host.app import create_app
from host.migrations import downgrade
from host import PluginInfo, hookimpl

ROLES = ("administrator", "editor", "author", "contributor", "subscriber")
TEST_SITE_ADDRESS = "http://school.test"  # the site address test sites record (their clients' Host)


def pytest_configure(config):
    """Login passwords of test sites are hashed with argon2's cheapest cost (one pass over 8 KiB).

    The site's own argon2 (t=3, 64 MiB, p=4) costs 0.2 s of CPU per hash and per check, and a
    suite makes thousands of users: `users` alone hashes five passwords. Every hash and check
    still runs through argon2id; a hash carries its parameters, so hashes made by a real
    `sitehost` process (the CLI, start_sitehost) verify here and the other way round.
    """
    from argon2 import PasswordHasher

    user_service.use_password_hasher(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1,
                                                    hash_len=16, salt_len=16))


@dataclass
class TestUser:
    """A user created for a test, with an application password that works right away."""

    __test__ = False  # not a test class, despite the name

    id: int
    login: str
    email: str
    role: str
    password: str  # login password
    app_password: str  # display form, "abcd EFGH ..."

    @property
    def authorization(self) -> str:
        return basic_auth_headers(self.login, self.app_password)["Authorization"]

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": self.authorization}


def basic_auth_headers(login: str, password: str) -> dict[str, str]:
    """{"Authorization": "Basic ..."} for a login (or email) and an application password."""
    token = base64.b64encode(f"{login}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def create_test_user(app, role: str, login: str | None = None, email: str | None = None,
                     password: str = "correct horse battery staple") -> TestUser:
    """Create a user of `role` with an application password, through the host's user API."""
    login = login or f"{role}-{uuid.uuid4().hex[:6]}"
    email = email or f"{login}@school.test"
    with app.db.session(write=True) as session, session.begin():
        user = user_service.create_user(app, session, login, email, role, password)
        app_password, _record = user_service.create_application_password(app, session, user.id, "tests")
    return TestUser(user.id, login, email, role, password, app_password)


def role_users(app) -> dict[str, TestUser]:
    """One TestUser per role (administrator ... subscriber) in `app`, keyed by role."""
    return {role: create_test_user(app, role) for role in ROLES}


def client_as(app, user: TestUser):
    """A WebTest client of `app` whose every request is authenticated as `user`."""
    from webtest import TestApp

    return TestApp(app, extra_environ={"HTTP_HOST": "school.test", "HTTP_AUTHORIZATION": user.authorization})


ADMIN_TEST_ADDRESS = "192.0.2.9"  # the client address admin sign-ins come from (rate limits count it)


def admin_browser(app, address: str = ADMIN_TEST_ADDRESS):
    """A WebTest client that keeps cookies, as a person's browser does, and sends no credentials."""
    from webtest import TestApp

    return TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": address})


def admin_sign_in(app, user: TestUser, address: str = ADMIN_TEST_ADDRESS):
    """A browser-like client signed in to the admin area as `user` through the sign-in form (its session
    cookie then carries every request; each form's CSRF token is in the page, see `admin_form`)."""
    client = admin_browser(app, address)
    form = client.get("/admin/sign-in").forms[0]
    form["log"], form["pwd"] = user.login, user.password
    answer = form.submit()
    assert answer.status_int == 303, answer.text
    return client


def admin_csrf(client) -> str:
    """The signed-in session's CSRF token, read from the sign-out form every admin page carries."""
    page = client.get("/admin/profile")
    return page.html.select_one("form.sign-out input[name=csrf_token]")["value"]


def admin_form(page, action: str, **fields):
    """The form of an admin `page` that posts `action` (`_match={name: value}` picks one of several by its
    hidden values), filled with `fields`; `.submit()` it."""
    match = fields.pop("_match", {})
    for form in page.forms.values():
        if form.fields.get("action") and form["action"].value == action and all(
                name in form.fields and form[name].value == value for name, value in match.items()):
            for name, value in fields.items():
                form[name] = value
            return form
    raise AssertionError(f"no form with action {action!r}")


def make_plugin(name: str, *functions: Callable, version: str = "0", requires: tuple[str, ...] = (),
                description: str = "", credential_headers: tuple[str, ...] | None = None,
                **hooks: Callable) -> types.ModuleType:
    """A throwaway plugin module for `make_app(plugins=[module])`.

    Hooks are given by keyword (`register_namespaces=lambda: [...]`) or as functions named
    after the hook. Functions not yet marked with `@hookimpl` are marked here; mark them
    yourself to use options such as `@hookimpl(tryfirst=True)`.
    """
    module = types.ModuleType(f"sitehost_test_plugin_{name}")
    # A module's attributes are whatever is set on it: setattr says so to the type checker too.
    setattr(module, "PLUGIN", PluginInfo(name=name, version=version, requires=tuple(requires),  # noqa: B010
                                         description=description, credential_headers=credential_headers))
    for hook_name, function in [(function.__name__, function) for function in functions] + list(hooks.items()):
        if not hasattr(function, "sitehost_impl"):
            function = hookimpl(function)
        setattr(module, hook_name, function)
    return module


def downgrade_tables(app, plugin: str, revision: str = "base") -> None:
    """Take `plugin`'s tables in `app`'s database back to `revision` with its revisions' `downgrade()`s
    ("base": as a release before its first revision left them). The next app on the same database
    (`make_app(..., database_url=app.settings.database_url)`) runs the revisions again, as a site's next
    start after an upgrade does."""
    downgrade(app, plugin, revision)


def start_sitehost(config, *serve_args: str, env: dict | None = None, timeout: float = 60,
                   global_args: tuple[str, ...] = ()):
    """Start a real `sitehost --config CONFIG [GLOBAL_ARGS] serve --port 0 [SERVE_ARGS]` process.

    Returns (process, rest_url) once it prints that it listens; `env` replaces the
    environment (pass `{**os.environ, ...}` to extend it); `global_args` are options of
    `sitehost` itself (`--log-file PATH`). Stop it with `stop_sitehost`. Its output is read from the
    pipe as it comes, by a thread of this process, and `process.stdout` hands it out (`read()` once
    it stopped, `readline()` or a loop while it runs): a pipe nobody reads fills after some 64 KB of
    access-log lines, and a server writing to a full pipe blocks its requests and its own stop.
    """
    import subprocess
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "--config", str(config), *global_args, "serve", "--port", "0",
         *serve_args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(Path(config).parent))
    if process.stdout is None:  # stdout=PIPE above always gives one
        raise RuntimeError("the sitehost process has no output pipe")
    output = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        if "sitehost serving on " in line:
            process.stdout = DrainedOutput(process.stdout, output)  # type: ignore[assignment]  # reads as its pipe did
            return process, line.split("sitehost serving on ", 1)[1].split()[0].rstrip("/")
    process.kill()
    raise AssertionError("server did not start:\n" + "".join(output))


class DrainedOutput:
    """A served process's output pipe, read to its end by a thread as the process writes.

    Stands in for `process.stdout`: `read()` waits for the end (the process exited) and returns what
    was not read yet; `readline()` and iteration hand out lines as they arrive. The lines printed
    before serving began are kept too, so a test reads the whole output.
    """

    def __init__(self, pipe, earlier: list[str]):
        import threading

        self._pipe = pipe
        self._lines = list(earlier)
        self._read = 0
        self._ended = False
        self._arrived = threading.Condition()
        self._thread = threading.Thread(target=self._pump, name="sitehost-output", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for line in self._pipe:
                with self._arrived:
                    self._lines.append(line)
                    self._arrived.notify_all()
        finally:
            with self._arrived:
                self._ended = True
                self._arrived.notify_all()
            self._pipe.close()

    def readline(self) -> str:
        with self._arrived:
            self._arrived.wait_for(lambda: self._read < len(self._lines) or self._ended)
            if self._read < len(self._lines):
                self._read += 1
                return self._lines[self._read - 1]
            return ""

    def read(self) -> str:
        with self._arrived:
            self._arrived.wait_for(lambda: self._ended)
            rest = "".join(self._lines[self._read:])
            self._read = len(self._lines)
            return rest

    def __iter__(self):
        return iter(self.readline, "")

    def close(self) -> None:
        """Nothing to do: the pipe is closed by the thread at its end (Popen.__exit__ calls this)."""


def stop_sitehost(process, grace: float = 10) -> None:
    """Ask a `start_sitehost` process to stop (SIGINT, like Ctrl+C); kill it if it does not."""
    import signal
    import subprocess

    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def assert_rest_error(response, code: str, status: int) -> dict:
    """Assert the interface's error shape: {"code", "message", "data": {"status"}}; returns the body."""
    body = response.json
    assert response.status_int == status, f"expected HTTP {status}, got {response.status_int}: {body}"
    assert body["code"] == code, f"expected code {code!r}, got {body['code']!r}: {body}"
    assert isinstance(body["message"], str) and body["message"]
    assert body["data"]["status"] == status
    return body


def assert_in_root_index(app, namespace: str) -> dict:
    """Assert `namespace` is listed and served: root `namespaces`, its routes, its own index.

    Returns the namespace index document.
    """
    root = app.client.get("/wp-json/").json
    assert namespace in root["namespaces"], f"{namespace!r} not in {root['namespaces']}"
    prefix = f"/{namespace}"
    assert prefix in root["routes"], f"the root index has no route {prefix!r}"
    assert all(descriptor["namespace"] == namespace for path, descriptor in root["routes"].items()
               if path == prefix or path.startswith(prefix + "/"))
    response = app.client.get(f"/wp-json/{namespace}")
    assert response.status_int == 200
    index = response.json
    assert index["namespace"] == namespace
    assert set(index["routes"]) == {path for path in root["routes"]
                                    if path == prefix or path.startswith(prefix + "/")}
    return index


def assert_not_in_root_index(app, namespace: str) -> None:
    """Assert `namespace` is neither listed nor routed (a disabled or failed plugin)."""
    root = app.client.get("/wp-json/").json
    assert namespace not in root["namespaces"], f"{namespace!r} is still in {root['namespaces']}"
    assert not [path for path in root["routes"] if path == f"/{namespace}" or path.startswith(f"/{namespace}/")]
    assert_rest_error(app.client.get(f"/wp-json/{namespace}", expect_errors=True), "rest_no_route", 404)


def assert_collection(response, total: int, total_pages: int | None = None) -> list:
    """Assert a 200 collection page with X-WP-Total / X-WP-TotalPages; returns the items."""
    assert response.status_int == 200, f"expected HTTP 200, got {response.status_int}: {response.body[:300]!r}"
    assert isinstance(response.json, list)
    assert response.headers["X-WP-Total"] == str(total)
    if total_pages is not None:
        assert response.headers["X-WP-TotalPages"] == str(total_pages)
    return response.json


class _PostgresSchemas:
    """One schema per app on a PostgreSQL server, so tests never share tables.

    A site's tables, indexes, triggers and functions cost PostgreSQL seconds of DDL to create and
    most of a second to drop, on every app of the PostgreSQL pass (SQLite makes them cheaply). So a
    schema whose site was built with a `reuse_key` (make_app's arguments, see `_reuse_key`) is not
    dropped when its test ends. If its structure is still what that build made (a test that
    downgraded, altered or added tables leaves another one, and its schema is dropped), every table
    but the migrations' version tables is emptied and its sequences restarted, and the next site
    built with the same arguments in this process gets it: tables at their newest revision holding
    no row, which the site's start fills as it fills a new one. Nothing a test wrote reaches another.

    Reading the structure costs tens of milliseconds of catalog queries. Where event triggers count
    each schema's DDL (`_count_ddl`, a superuser's), a schema with no DDL since its site was built
    and the same migration versions still has the structure that build made, so only a changed one
    is read. A build on a reused schema is trusted to make the first build's structure once one
    such build of the same arguments was read and found to (its start runs the same statements).
    """

    def __init__(self, url: str):
        self.url = url
        self.admin = _admin_engine(url)
        self.schemas: list[str] = []
        self.reuse_keys: dict[str, str] = {}
        self.reused: set[str] = set()  # schemas taken from the spares (emptied after an earlier test)
        self.marks: dict[str, tuple[int, str]] = {}  # schema -> its DDL count and versions when its site was built

    def new_url(self, reuse_key: str | None = None) -> str:
        from sqlalchemy import text
        from sqlalchemy.engine import make_url

        spare = _SPARE_SCHEMAS.get((self.url, reuse_key)) if reuse_key else None
        if spare:
            name = spare.pop()
            self.reused.add(name)
        else:
            name = f"t_{uuid.uuid4().hex[:12]}"
            with self.admin.connect() as connection:
                connection.execute(text(f'CREATE SCHEMA "{name}"'))
        self.schemas.append(name)
        if reuse_key:
            self.reuse_keys[name] = reuse_key
        url = make_url(self.url)
        query = dict(url.query)
        query["options"] = f"-csearch_path={name}"
        return url.set(query=query).render_as_string(hide_password=False)

    def built(self, database_url: str) -> None:
        """A site was built on `database_url`: the first of its arguments records the structure it made."""
        from sqlalchemy.engine import make_url

        name = str(make_url(database_url).query.get("options", "")).removeprefix("-csearch_path=")
        key = self.reuse_keys.get(name)
        if not key:
            return
        structure = _SCHEMA_STRUCTURES.get((self.url, key))
        if structure is None:
            structure = _SCHEMA_STRUCTURES[(self.url, key)] = _schema_structure(self.admin, name)
        elif name in self.reused and (self.url, key) not in _REUSE_REPRODUCES:
            return  # the first reuse of these arguments: its structure is read when the test ends
        if _count_ddl(self.admin):
            self.marks[name] = _ddl_mark(self.admin, name, structure)

    def drop_all(self) -> None:
        """Each schema of these apps (closed by now) is emptied for the next site built alike, or dropped."""
        from sqlalchemy import text

        for name in self.schemas:
            key = self.reuse_keys.get(name)
            if key and _empty_for_reuse(self.admin, name, _SCHEMA_STRUCTURES.get((self.url, key)), self.marks.get(name)):
                if name in self.reused:
                    _REUSE_REPRODUCES.add((self.url, key))
                _SPARE_SCHEMAS.setdefault((self.url, key), []).append(name)
                continue
            with self.admin.connect() as connection:
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        self.schemas.clear()
        self.reuse_keys.clear()
        self.reused.clear()
        self.marks.clear()
        _drop_spare_schemas(keep=_MOST_SPARE_SCHEMAS)


_ADMIN_ENGINES: dict[str, Any] = {}  # server URL -> one AUTOCOMMIT engine per process (not one per test)
_SPARE_SCHEMAS: dict[tuple[str, str], list[str]] = {}  # (server URL, reuse key) -> emptied schemas, oldest first
_SCHEMA_STRUCTURES: dict[tuple[str, str], str] = {}  # (server URL, reuse key) -> what a fresh build made
_MOST_SPARE_SCHEMAS = 12  # per process: more are dropped (keys used once, tmp paths in settings, would pile up)
_REUSE_REPRODUCES: set[tuple[str, str]] = set()  # (server URL, reuse key): a build on a reused schema made its structure
_DDL_COUNTED: dict[str, bool] = {}  # server URL -> whether event triggers count each schema's DDL there
_DDL_COUNTS = "public.sitehost_test_ddl_counts"


def _admin_engine(url: str):
    from sqlalchemy import create_engine

    if url not in _ADMIN_ENGINES:
        _ADMIN_ENGINES[url] = create_engine(url, isolation_level="AUTOCOMMIT", pool_size=1)
    return _ADMIN_ENGINES[url]


def _schema_structure(admin, name: str) -> str:
    """Tables, columns, defaults, indexes, constraints, triggers, functions and migration versions of
    schema `name`, as one text in which the schema's own name is replaced (so two schemas compare)."""
    from sqlalchemy import text

    query = text("""
        SELECT 'column ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(a.attname, '') || ' '
               || coalesce(format_type(a.atttypid, a.atttypmod), '') || ' ' || coalesce(a.attnotnull::text, '')
               || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
         WHERE n.nspname = :schema
        UNION ALL
        SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i
          JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = :schema
        UNION ALL
        SELECT 'constraint ' || co.conname || ' ' || pg_get_constraintdef(co.oid) FROM pg_constraint co
          JOIN pg_namespace n ON n.oid = co.connamespace WHERE n.nspname = :schema
        UNION ALL
        SELECT 'trigger ' || pg_get_triggerdef(t.oid) FROM pg_trigger t
          JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = :schema AND NOT t.tgisinternal
        UNION ALL
        SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = :schema
    """)
    with admin.connect() as connection:
        lines = sorted(row[0] for row in connection.execute(query, {"schema": name}))
        version_tables = sorted({line.split()[1] for line in lines
                                 if line.startswith("column alembic_version_") and line.split()[2] == "r"})
        lines.extend(_version_lines(connection, name, version_tables))
    return "\n".join(lines).replace(name, "<schema>")


def _version_lines(connection, name: str, tables) -> list[str]:
    """`version TABLE [revisions]` for each migration version table of schema `name`."""
    from sqlalchemy import text

    lines = []
    for table in tables:
        revisions = connection.execute(text(f'SELECT version_num FROM "{name}"."{table}"')).scalars()
        lines.append(f"version {table} {sorted(revisions)}")
    return lines


def _count_ddl(admin) -> bool:
    """Make sure event triggers count, per schema, the DDL commands run in this database (once per
    process and server); False where they cannot (not a superuser): every structure is then read.

    They only count: a commit of DDL in schema X adds to X's row of _DDL_COUNTS. The function runs as
    its owner (SECURITY DEFINER), so any role's DDL is counted and none fails for lack of rights."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    url = admin.url.render_as_string(hide_password=False)
    if url in _DDL_COUNTED:
        return _DDL_COUNTED[url]
    counted = False
    try:
        with admin.connect() as connection:
            connection = connection.execution_options(isolation_level="READ COMMITTED")
            connection.begin()
            if connection.execute(text("SELECT current_setting('is_superuser') = 'on'")).scalar():
                # Workers of one run install them at the same moment: one at a time, the others find them.
                connection.execute(text("SELECT pg_advisory_xact_lock(hashtext('sitehost_test_ddl_counts'))"))
                connection.execute(text(f"CREATE TABLE IF NOT EXISTS {_DDL_COUNTS} "
                                        "(schema_name text PRIMARY KEY, changes bigint NOT NULL)"))
                connection.exec_driver_sql(f"""
                    CREATE OR REPLACE FUNCTION public.sitehost_test_count_ddl() RETURNS event_trigger
                    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
                    BEGIN
                        IF TG_EVENT = 'sql_drop' THEN
                            INSERT INTO {_DDL_COUNTS} AS counts (schema_name, changes)
                            SELECT DISTINCT schema_name, 1 FROM pg_event_trigger_dropped_objects()
                             WHERE schema_name IS NOT NULL
                            ON CONFLICT (schema_name) DO UPDATE SET changes = counts.changes + 1;
                        ELSE
                            INSERT INTO {_DDL_COUNTS} AS counts (schema_name, changes)
                            SELECT DISTINCT schema_name, 1 FROM pg_event_trigger_ddl_commands()
                             WHERE schema_name IS NOT NULL
                            ON CONFLICT (schema_name) DO UPDATE SET changes = counts.changes + 1;
                        END IF;
                    END $$""")
                existing = set(connection.execute(text("SELECT evtname FROM pg_event_trigger")).scalars())
                for trigger, event in (("sitehost_test_ddl_end", "ddl_command_end"), ("sitehost_test_ddl_drop", "sql_drop")):
                    if trigger not in existing:
                        connection.execute(text(f"CREATE EVENT TRIGGER {trigger} ON {event} "
                                                "EXECUTE FUNCTION public.sitehost_test_count_ddl()"))
                connection.commit()
                counted = True
    except SQLAlchemyError:
        counted = False
    _DDL_COUNTED[url] = counted
    return counted


def _ddl_mark(admin, name: str, structure: str) -> tuple[int, str]:
    """Schema `name`'s DDL count and its migration versions (the version tables `structure` names)."""
    from sqlalchemy import text

    tables = [line.split()[1] for line in structure.splitlines() if line.startswith("version ")]
    with admin.connect() as connection:
        changes = connection.execute(text(f"SELECT changes FROM {_DDL_COUNTS} WHERE schema_name = :schema"),
                                     {"schema": name}).scalar()
        return int(changes or 0), "\n".join(_version_lines(connection, name, tables))


def _empty_for_reuse(admin, name: str, structure: str | None, mark: tuple[int, str] | None = None) -> bool:
    """Empty schema `name` (every table but the version tables; sequences back at their start) when its
    structure is still `structure`; False, and nothing emptied, when it is not or the emptying fails.
    `mark`: its `_ddl_mark` when its site was built with that structure; the same mark now (no DDL since,
    the same versions) shows the structure unchanged without reading it."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        if structure is None:
            return False
        unchanged = mark is not None and _ddl_mark(admin, name, structure) == mark
        if not unchanged and _schema_structure(admin, name) != structure:
            return False
        with admin.connect() as connection:
            # One transaction (the admin engine autocommits): all emptied or nothing, and SET LOCAL holds.
            connection = connection.execution_options(isolation_level="READ COMMITTED")
            connection.begin()
            # A connection a test left open in a transaction would hold its locks forever: give up, then drop.
            connection.execute(text("SET LOCAL lock_timeout = '5s'"))
            # The site's triggers (a content version bump) name its tables without a schema.
            connection.execute(text(f'SET LOCAL search_path = "{name}"'))
            tables = connection.execute(text(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = :schema AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE 'alembic\\_version\\_%'"),
                {"schema": name}).scalars().all()
            if connection.execute(text("SELECT current_setting('is_superuser') = 'on'")).scalar():
                # A DELETE per table with triggers and foreign-key checks off: a twentieth of a second, where one
                # TRUNCATE of them all makes new files for every table and index (seconds). Sent as one
                # string, so a hundred tables cost one round trip, not a hundred.
                connection.execute(text("SET LOCAL session_replication_role = replica"))
                if tables:
                    connection.exec_driver_sql("; ".join(f'DELETE FROM "{name}"."{table}"' for table in tables))
            elif tables:
                connection.execute(text("TRUNCATE " + ", ".join(f'"{name}"."{table}"' for table in tables)))
            # As a new sequence: its next value is its start.
            connection.execute(text("SELECT setval(format('%I.%I', schemaname, sequencename), start_value, false) "
                                    "FROM pg_sequences WHERE schemaname = :schema"), {"schema": name})
            connection.commit()
        return True
    except SQLAlchemyError:
        return False


def _drop_spare_schemas(keep: int = 0) -> None:
    """Drop emptied schemas of this process beyond the `keep` newest (all of them at the session's end)."""
    from sqlalchemy import text

    spares = sorted(((url, key, name) for (url, key), names in _SPARE_SCHEMAS.items() for name in names),
                    key=lambda spare: _SPARE_ORDER.setdefault(spare[2], len(_SPARE_ORDER)))
    for url, key, name in spares[:max(len(spares) - keep, 0)]:
        _SPARE_SCHEMAS[(url, key)].remove(name)
        _SPARE_ORDER.pop(name, None)
        with _admin_engine(url).connect() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))


_SPARE_ORDER: dict[str, int] = {}  # schema name -> when it first became spare (the oldest are dropped first)


def pytest_unconfigure(config):
    """The session's end: drop the emptied schemas kept for reuse, and close the admin connections."""
    _drop_spare_schemas()
    for engine in _ADMIN_ENGINES.values():
        engine.dispose()
    _ADMIN_ENGINES.clear()


class _SqliteFiles:
    """One fresh SQLite file per app in a temporary folder (nothing to drop: the folder goes).

    Unlike PostgreSQL's schemas, a new file is not reused: its tables cost SQLite a small part of
    a site's start (a template copied instead measured no faster), so each starts from nothing.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0

    def new_url(self, reuse_key: str | None = None) -> str:
        self.count += 1
        return f"sqlite:///{self.folder}/site-{self.count}.db"

    def built(self, database_url: str) -> None:
        """Nothing to remember (see the class)."""

    def drop_all(self) -> None:
        """Nothing to drop: the temporary folder goes."""


def _site_databases(tmp_path_factory):
    """Where make_app's sites keep their data: schemas of SITEHOST_TEST_DATABASE_URL's PostgreSQL, or SQLite files."""
    server = os.environ.get("SITEHOST_TEST_DATABASE_URL", "")
    if server.startswith("postgresql"):
        return _PostgresSchemas(server)
    return _SqliteFiles(tmp_path_factory.mktemp("sitehost-db"))


def _reuse_key(plugins, disabled, config, overrides: dict[str, Any]) -> str | None:
    """make_app's arguments and sys.path as text, when they alone decide the tables a site
    makes: plugins given as modules (a test's own, whose tables may differ under one name) and a database
    of the test's own do not. sys.path counts too: a test that installs a plugin (`install_plugin`) puts
    its folder there (reading the installed entry points themselves would cost a tenth of a second)."""
    import json
    import sys

    if "database_url" in overrides or any(not isinstance(plugin, str) for plugin in plugins or ()):
        return None
    try:
        return json.dumps([plugins, list(disabled), config or {}, overrides, sys.path], sort_keys=True)
    except (TypeError, ValueError):
        return None


def _app_builder(databases, uploads_root: Path, apps: list):
    """The `build` function behind make_app and make_module_app: one fresh site per call."""
    from webtest import TestApp

    def build(plugins=None, disabled=(), config=None, **settings_overrides: Any):
        database_url = databases.new_url(_reuse_key(plugins, disabled, config, settings_overrides))
        settings = Settings(database_url=database_url, uploads_dir=str(uploads_root / f"uploads-{len(apps)}"))
        # .eml files of a site without an SMTP server stay in the test's folder, not the working directory.
        settings.mail = {"eml_dir": str(uploads_root / f"mail-{len(apps)}")}
        settings.disabled = list(disabled)
        settings.plugins = dict(config or {})
        settings.load_entry_points = True
        if plugins is not None:
            names = [plugin for plugin in plugins if isinstance(plugin, str)]
            modules = [plugin for plugin in plugins if not isinstance(plugin, str)]
            settings.only_plugins = names + [getattr(getattr(module, "PLUGIN", None), "name", "") for module in modules]
            settings.extra_plugins = modules
        for key, value in settings_overrides.items():
            if key == "site":
                settings.site.update(value)
            elif key == "mail":
                settings.mail = {**settings.mail, **value}
            elif key == "jobs":  # the `[jobs]` table: short leases and polls make lease tests take seconds
                settings.extra["jobs"] = dict(value)
            elif key == "storage":
                settings.storage = dict(value)
            else:
                setattr(settings, key, value)
        app = create_app(settings)
        apps.append(app)
        databases.built(database_url)
        for module in settings.extra_plugins:
            name = getattr(getattr(module, "PLUGIN", None), "name", "")
            record = app.plugin(name)
            if record is not None and record.source != "explicit":
                raise ValueError(f"make_app: the plugin name {name!r} is taken by the {record.source} plugin "
                                 f"{name!r}; give your test plugin another name")
        # The address the client below reaches the site at, as `sitehost serve` records the one it listens on.
        app.record_site_address(TEST_SITE_ADDRESS)
        # Only make_app's apps have a client: an attribute of the test fixture, not of App.
        setattr(app, "client", TestApp(app, extra_environ={"HTTP_HOST": "school.test"}))  # noqa: B010
        return app

    return build


@pytest.fixture
def make_app(tmp_path_factory, tmp_path):
    """Build apps with a chosen plugin set and a fresh database each time.

    make_app(plugins=None, disabled=(), config=None, **settings) -> App with `.client`
    (a WebTest TestApp). `plugins`: None for every built-in and installed plugin, or a
    list of plugin names and/or plugin modules to load alone. `config`: the
    `[plugins.NAME]` tables. Other keywords set single settings (site=..., cors_origins=...;
    mail=... and jobs=... update those tables).
    """
    databases = _site_databases(tmp_path_factory)
    apps: list = []
    yield _app_builder(databases, tmp_path, apps)
    for app in apps:
        app.close()
    databases.drop_all()


@pytest.fixture(scope="module")
def make_module_app(tmp_path_factory):
    """make_app for a whole test module: build a site once, seed it, and let every test read it.

    Installing a site costs tens of milliseconds; a module of read-only tests (lists, filters,
    permissions, shapes) should share one. Tests that write must leave what the others read
    unchanged, or use make_app.
    """
    databases = _site_databases(tmp_path_factory)
    apps: list = []
    yield _app_builder(databases, tmp_path_factory.mktemp("module-uploads"), apps)
    for app in apps:
        app.close()
    databases.drop_all()


@pytest.fixture
def app(make_app):
    """An app with every built-in and installed plugin enabled."""
    return make_app()


@pytest.fixture
def client(app):
    """A WebTest client of `app`; requests go through the real WSGI pipeline."""
    return app.client


@pytest.fixture
def users(app):
    """One TestUser per role in `app`: users["editor"].headers authenticates as the editor."""
    return role_users(app)


@pytest.fixture
def make_user(request):
    """make_user(app=None, role="subscriber", **details) -> TestUser with an application password.

    Without `app`, the user is created in the `app` fixture's site.
    """

    def build(app=None, role: str = "subscriber", **details: Any) -> TestUser:
        target = app if app is not None else request.getfixturevalue("app")
        return create_test_user(target, role, **details)

    return build


# Headers RFC 5322 (3.6) allows at most once in a message.
SINGLE_HEADERS = ("from", "sender", "reply-to", "to", "cc", "bcc", "subject", "date", "message-id")


def mail_header_problems(raw: bytes) -> list[str]:
    """What the standard library's email parser finds wrong in the header section of `raw`; [] when none.

    Looks at every header: parse defects, lines over RFC 5322's 998 characters, non-ASCII, a
    header that may appear once appearing twice (an injected line), and encoded-words in a
    URI header (List-Unsubscribe and its kin must carry `<URI>`s that a mail client can use).
    """
    import email.parser
    import email.policy
    import re

    problems: list[str] = []
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    for line in head.splitlines():
        if len(line) > 998:
            problems.append(f"a header line of {len(line)} characters: {line[:60]!r}...")
        if any(byte > 126 for byte in line):
            problems.append(f"a header line that is not ASCII: {line[:60]!r}")
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(raw)
    problems.extend(f"message defect: {defect!r}" for defect in message.defects)
    names = [name.lower() for name in message.keys()]
    for name in SINGLE_HEADERS:
        if names.count(name) > 1:
            problems.append(f"{name} appears {names.count(name)} times")
    raw_message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw, headersonly=True)
    for name, value in message.items():
        problems.extend(f"{name}: {defect!r}" for defect in getattr(value, "defects", ()))
    for name, value in raw_message.items():
        unfolded = re.sub(r"\r?\n[ \t]", " ", str(value)).strip()
        if name.lower() in ("list-help", "list-unsubscribe", "list-subscribe", "list-post", "list-owner",
                            "list-archive", "archived-at"):
            if "=?" in unfolded or not re.fullmatch(r"<[^<>\s]+>(\s*,\s*<[^<>\s]+>)*", unfolded):
                problems.append(f"{name} is not a list of <URI>s: {unfolded!r}")
    return problems


class ReceivedMail:
    """What the `smtp_server` fixture yields: where it listens and what it received."""

    def __init__(self, host: str, port: int):
        import threading

        self.host = host
        self.port = port
        self.messages: list = []  # email.message.EmailMessage, in the order received
        self.envelopes: list[tuple[str, list[str]]] = []  # (MAIL FROM, RCPT TO list) of each message
        self._received = threading.Condition()

    def add(self, envelope) -> None:
        import email
        import email.policy

        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self._received:
            self.messages.append(message)
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
            self._received.notify_all()

    def wait_for(self, count: int, timeout: float = 5) -> list:
        """Wait until at least `count` messages arrived; the messages. AssertionError after `timeout` s."""
        with self._received:
            if not self._received.wait_for(lambda: len(self.messages) >= count, timeout):
                raise AssertionError(f"expected {count} message(s) within {timeout} s, received {len(self.messages)}")
            return list(self.messages)

    def mail_settings(self, **extra: Any) -> dict[str, Any]:
        """The `[mail]` table that delivers to this server: make_app(mail=smtp_server.mail_settings())."""
        return {"smtp_host": self.host, "smtp_port": self.port, **extra}


@pytest.fixture
def smtp_server():
    """A real aiosmtpd SMTP server on 127.0.0.1 and a free port, for the length of one test.

    Yields a ReceivedMail: `.host`, `.port`, `.messages` (email.message.EmailMessage objects),
    `.wait_for(count, timeout=5)` and `.mail_settings()` (the `[mail]` table pointing at it):

        def test_notification(make_app, smtp_server):
            app = make_app(mail=smtp_server.mail_settings())
            ...
            app.mail.deliver_pending()
            assert smtp_server.wait_for(1)[0]["Subject"] == "Absence report"
    """
    from aiosmtpd.controller import Controller

    import socket

    with socket.socket() as probe:  # a free port: aiosmtpd's start-up check needs the real number
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    received = ReceivedMail("127.0.0.1", port)

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            received.add(envelope)
            return "250 Message accepted for delivery"

    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield received
    finally:
        controller.stop()


@dataclass
class S3Server:
    """A real S3-compatible server (moto's standalone server) on 127.0.0.1, for the whole session."""

    endpoint_url: str
    region: str = "us-east-1"

    def client(self):
        import boto3

        return boto3.session.Session().client("s3", endpoint_url=self.endpoint_url, region_name=self.region)

    def new_bucket(self) -> str:
        """A fresh, empty bucket (each site of a test gets its own, so nothing is shared by accident)."""
        name = f"sitehost-test-{uuid.uuid4().hex[:16]}"
        self.client().create_bucket(Bucket=name)
        return name

    def storage_settings(self, **extra: Any) -> dict[str, Any]:
        """The `[storage]` table of a site on a new bucket of this server: make_app(storage=...)."""
        return {"backend": "s3", "bucket": self.new_bucket(), "endpoint_url": self.endpoint_url,
                "region": self.region, **extra}

    def keys(self, bucket: str, prefix: str = "") -> dict[str, bytes]:
        """Every object of `bucket` under `prefix`, read back through the server: {key: bytes}."""
        client = self.client()
        found = {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for item in page.get("Contents", []):
                found[item["Key"]] = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        return found


@contextlib.contextmanager
def recorded_statements(app, keep: Callable[[str], bool] = lambda statement: True):
    """The (statement, parameters) the app's engine sends its database inside the block, those `keep` accepts:
    for tests that count a request's statements or EXPLAIN the one they care about."""
    from sqlalchemy import event

    seen: list[tuple[str, Any]] = []

    def record(_connection, _cursor, statement, parameters, _context, _executemany):
        if keep(statement):
            seen.append((statement, parameters))

    event.listen(app.db.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(app.db.engine, "before_cursor_execute", record)


@contextlib.contextmanager
def running_s3_server(log_folder: Path):
    """moto's standalone S3 server as a subprocess on a free port of 127.0.0.1, for the block: an S3Server.

    The process and this one's boto3 clients get made-up credentials (moto accepts any); the
    environment is put back afterwards. Used by the `s3_server` fixture and the storage benchmark.
    """
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    credentials = {"AWS_ACCESS_KEY_ID": "sitehost-test", "AWS_SECRET_ACCESS_KEY": "sitehost-test-secret"}
    saved = {name: os.environ.get(name) for name in credentials}
    os.environ.update(credentials)
    log = Path(log_folder) / "moto-server.log"
    with open(log, "wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=output, stderr=subprocess.STDOUT, env={**os.environ, **credentials})
    server = S3Server(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{server.endpoint_url}/moto-api/", timeout=2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("moto's S3 server did not start:\n"
                                         + log.read_text(errors="replace")) from None
                time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """moto's standalone S3 server as a subprocess on a free port of 127.0.0.1 (never an in-process stub).

    Yields an S3Server: `.endpoint_url`, `.new_bucket()`, `.storage_settings()` (the `[storage]`
    table of a site on a new bucket), `.keys(bucket)`. The process has made-up credentials in its
    environment, and so do boto3 clients of this process while it runs (moto accepts any).
    """
    with running_s3_server(tmp_path_factory.mktemp("moto")) as server:
        yield server


def stored_files(app, area: str = "uploads") -> dict[str, bytes]:
    """Every file of one storage area of `app` ({key: bytes}), read straight from its folder or bucket
    (with boto3 or the file system, not through host.storage), so a test sees what is really kept."""
    settings = app.storage.settings
    if settings.backend == "s3":
        prefix = f"{settings.prefix}{area}/"
        found = S3Server(settings.endpoint_url, settings.region or "us-east-1").keys(settings.bucket, prefix)
        return {key[len(prefix):]: data for key, data in found.items()}
    folder = next(folder for name, folder, _private, _area in app.storage.known_areas() if name == area)
    root = Path(folder).resolve()
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.fixture(params=["local", "s3"])
def storage_backend(request):
    """The `[storage]` table of each backend in turn: `{}` (local folders), then a new bucket of
    `s3_server`. make_app(storage=storage_backend) runs a test on both; the S3 server starts only
    when an S3 case runs."""
    if request.param == "local":
        return {}
    return request.getfixturevalue("s3_server").storage_settings()


def chromium_path() -> str | None:
    """The Chromium to drive: SITEHOST_CHROMIUM, else Debian's `chromium` on PATH, else None."""
    import shutil

    return os.environ.get("SITEHOST_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


# How long a web-first assertion (playwright's `expect`) waits: as long as a click or a fill may
# (playwright's action timeout), not expect's own 5 s, which a loaded CI machine can overrun.
BROWSER_WAIT_MS = 30_000


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (the system's, driven by playwright) shared by the session's tests.

    Open a page with `page = browser.new_page()` and close it when done. Without a Chromium on the
    machine the test is skipped with a loud reason (`.ci/run` installs Debian's `chromium` first,
    so CI skips only when that install failed); a Chromium that exists but fails to start is an
    error, not a skip.

    Assert with playwright's web-first assertions, which wait until they hold (up to
    BROWSER_WAIT_MS): `expect(page.get_by_role("status")).to_contain_text("User sam added")`,
    `expect(rows).to_have_count(2)`, `expect(page).to_have_url(...)`. A click that submits a form
    or follows a link returns once the navigation *starts*; `inner_text()`, `count()`,
    `all_inner_texts()`, `is_visible()` and `page.url` read whichever page is there at that
    instant, often the one being left (`inner_text()` waits for an element, but takes the old
    page's when both have one). Before a read that does not wait, or an assertion that something
    is absent, wait for the new page first: `page.wait_for_url(...)`, or the new action's notice.
    See docs/plugin-guide.md, "Browser tests".
    """
    executable = chromium_path()
    if not executable:
        pytest.skip("!!! BROWSER TEST SKIPPED: no Chromium found (install Debian's `chromium`, "
                    "or set SITEHOST_CHROMIUM) !!!")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=BROWSER_WAIT_MS)

    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
