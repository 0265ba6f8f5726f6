"""Real `sitehost serve` processes for the reliability tests, and throwaway databases for them.

The servers load the example and probe plugins through real `sitehost` entry points (a
`.dist-info` folder on PYTHONPATH), listen on a free loopback port and log to a file.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import requests

TESTS = Path(__file__).resolve().parent.parent
PLUGIN_SOURCES = [TESTS / "example_plugin", TESTS / "reliability" / "probe"]
ENTRY_POINTS = {"sitehost-example": ("example", "sitehost_example"), "sitehost-probe": ("probe", "sitehost_probe")}
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
START_TIMEOUT = 60


def install_plugins(folder: Path) -> list[str]:
    """Entry-point metadata for the example and probe plugins; returns the PYTHONPATH entries."""
    folder.mkdir(parents=True, exist_ok=True)
    for distribution, (name, module) in ENTRY_POINTS.items():
        dist_info = folder / f"{distribution.replace('-', '_')}-1.0.0.dist-info"
        dist_info.mkdir(exist_ok=True)
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0.0\n")
        (dist_info / "entry_points.txt").write_text(f"[sitehost]\n{name} = {module}\n")
    return [str(folder), *map(str, PLUGIN_SOURCES)]


@contextmanager
def plugins_importable(folder: Path):
    """The same plugins visible in this process (to prepare a database before the servers start)."""
    import importlib

    paths = install_plugins(folder)
    sys.path[:0] = paths
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for path in paths:
            sys.path.remove(path)
        for module in ("sitehost_example", "sitehost_probe"):
            sys.modules.pop(module, None)


def postgres_server_url() -> str:
    url = os.environ.get("SITEHOST_TEST_DATABASE_URL", "")
    return url if url.startswith("postgresql") else os.environ.get("SITEHOST_POSTGRES_URL", DEFAULT_POSTGRES)


@contextmanager
def throwaway_database(kind: str, folder: Path):
    """An empty database URL: an SQLite file in `folder`, or a new PostgreSQL database dropped afterwards."""
    if kind == "sqlite":
        yield f"sqlite:///{folder}/site.db"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    server = make_url(postgres_server_url())
    admin = create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"sitehost_ci_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def postgres_available() -> str | None:
    """None when a PostgreSQL server answers, else the reason it does not."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    try:
        engine = create_engine(make_url(postgres_server_url()).set(database="postgres"))
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        engine.dispose()
        return None
    except Exception as error:  # any failure to connect means: not available
        return f"PostgreSQL not reachable at {postgres_server_url()}: {type(error).__name__}"


class Server:
    """One `sitehost serve` process (a single worker) on a free loopback port."""

    def __init__(self, folder: Path, database_url: str, threads: int = 4, config: str = ""):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.database_url = database_url
        self.threads = threads
        (folder / "sitehost.toml").write_text(config)
        self.log_path = folder / "server.log"
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> "Server":
        env = dict(os.environ)
        env.pop("SITEHOST_TEST_DATABASE_URL", None)
        env.update(SITEHOST_DATABASE_URL=self.database_url, SITEHOST_CONFIG=str(self.folder / "sitehost.toml"),
                   SITEHOST_UPLOADS_DIR=str(self.folder / "uploads"),
                   PYTHONPATH=os.pathsep.join(install_plugins(self.folder.parent / "plugin-metadata")
                                              + [str(TESTS.parent)] + env.get("PYTHONPATH", "").split(os.pathsep)))
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", "0",
             "--threads", str(self.threads), "--workers", "1"],
            cwd=self.folder, env=env, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(self.process.stdout, lines, log), daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            if line.startswith("sitehost serving on "):
                self.url = line.split()[3].split("/wp-json")[0]
                return self
        self.stop()
        raise RuntimeError(f"sitehost serve did not start; log:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)

    def kill(self) -> None:
        """kill -9: no clean shutdown, no flushing, exactly like a power cut to the process."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=15)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _pump(stream, lines: queue.Queue, log) -> None:
    for raw in iter(stream.readline, b""):
        log.write(raw)
        log.flush()
        lines.put(raw.decode(errors="replace").strip())


def prepare_site(database_url: str, folder: Path, roles=("administrator",)) -> dict:
    """Create the tables and users of each role (with application passwords) before any server starts."""
    from host.app import create_app
    from host.config import Settings
    from host.testing import create_test_user

    with plugins_importable(folder / "plugin-metadata"):
        app = create_app(Settings(database_url=database_url, uploads_dir=str(folder / "uploads")))
        try:
            missing = [name for name in ("example", "probe") if not (app.plugin(name) and app.plugin(name).loaded)]
            assert not missing, f"plugins not loaded: {missing}"
            return {role: create_test_user(app, role) for role in roles}
        finally:
            app.close()


def session_for(user=None) -> requests.Session:
    session = requests.Session()
    if user is not None:
        session.headers["Authorization"] = user.authorization
    return session
