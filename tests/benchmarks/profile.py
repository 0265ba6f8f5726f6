"""Where one request's time goes: `python -m tests.benchmarks.profile [--posts N] [--path P | --scenario KEY] [-n COUNT] [--create | --batch] [--database URL] [--memory]`.

Seeds a database like the benchmark does, builds the app in this process and calls it as
a WSGI application COUNT times under cProfile (no sockets, no wrk), then prints the
functions with the most time. Use it to find what to fix after the benchmark shows a
scenario below its budget. A path with `{id}` in it (`/core/v2/posts/{id}`) takes a
different seeded published post's id on every request, spread over the whole table as the
`single` scenario's are, so a per-item cache is measured on its misses too.

`--scenario KEY` profiles a harness scenario as it is measured: a real server runs the
scenario's `prepare` and check on the seeded database (a plugin's scenario creates its data
there), and the request its Lua sends (method, path, headers, body) is then profiled in process.

A scenario measured on the cache (`cached`, `cached-gzip`, ...) is profiled with the cache plugin
enabled, so the profile shows hits. `--ceiling` profiles the harness's hello-world app the same
way (waitress's own work per request is in neither), to compare a request's calls with it.

`--database postgresql://user@host/db` seeds and profiles on that PostgreSQL server instead of
an SQLite file (in the harness's own schema, dropped afterwards). The report adds the wall and
CPU time per request outside the profiler and, on PostgreSQL, the round trips to the server
per request (statements plus BEGIN/COMMIT/ROLLBACK the driver sends).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import re
import sys
import tempfile
import time
from pathlib import Path

from .run import write_config
from .scenarios import BATCH_SIZE, Context, post_body
from .seed import DRAFT_EVERY, seed


def random_ids(first: int, posts: int, random_seed: int = 11):
    """Ids of seeded published posts, uniformly at random over the table (drafts skipped, as wrk's `single`)."""
    import random

    rng = random.Random(random_seed)
    while True:
        offset = rng.randint(1, posts)
        if offset % DRAFT_EVERY == 0:
            offset -= 1
        yield first + offset - 1


def call(app, path: str, method: str = "GET", headers: dict | None = None, body: bytes = b"",
         prefix: str = "/wp-json") -> tuple[str, bytes]:
    rest_path, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": prefix + rest_path, "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8080", "HTTP_HOST": "127.0.0.1:8080", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": "127.0.0.1",
    }
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    if body and "HTTP_CONTENT_TYPE" not in environ:
        environ["CONTENT_TYPE"] = "application/json"
    elif "HTTP_CONTENT_TYPE" in environ:
        environ["CONTENT_TYPE"] = environ.pop("HTTP_CONTENT_TYPE")
    captured = {}

    def start_response(status, _headers, _exc_info=None):
        captured["status"] = status

    chunks = app(environ, start_response)
    return captured["status"], b"".join(chunks)


_LUA_STRING = r'(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|\[(?P<level>=*)\[(?P<bracketed>.*?)\](?P=level)\])'


def _lua_value(match: re.Match) -> str:
    quoted, bracketed = match.group("quoted"), match.group("bracketed")
    return bracketed if quoted is None else re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1))), quoted)


def scenario_request(workdir: Path, database: Path, seeded, key: str, cache: bool):
    """(method, path, headers, body) of scenario `key` after its prepare ran on a real server."""
    from . import servers
    from .run import SCENARIOS

    scenario = next((item for item in SCENARIOS if item.key == key), None)
    if scenario is None:
        raise SystemExit(f"unknown scenario {key!r}: " + ", ".join(item.key for item in SCENARIOS))
    with servers.sitehost(write_config(workdir, database, cache=cache), 1, 2) as server:
        context = Context(rest=server.url, seeded=seeded, database=database, database_url=f"sqlite:///{database}")
        if scenario.prepare:
            scenario.prepare(context)
        scenario.check(context)
        lua = scenario.lua(context)
    path = re.search(r"wrk\.path = " + _LUA_STRING, lua, re.S)
    if path is None:
        raise SystemExit(f"scenario {key!r} builds its requests in Lua; profile it with --path instead")
    method = re.search(r'wrk\.method = "(\w+)"', lua)
    headers = {found.group(1): _lua_value(found)
               for found in re.finditer(r'wrk\.headers\["([^"]+)"\] = ' + _LUA_STRING, lua, re.S)}
    body = re.search(r"wrk\.body = " + _LUA_STRING, lua, re.S)
    if body is not None:
        body_bytes = _lua_value(body).encode("latin-1")
    else:  # a body spliced around a counter per request (forms): its parts joined by "1"
        parts = re.search(r"local body_parts = \{(.*?)\}\n", lua, re.S)
        body_bytes = "1".join(_lua_value(found) for found in re.finditer(_LUA_STRING, parts.group(1), re.S)
                              ).encode("latin-1") if parts else b""
    return method.group(1) if method else "GET", _lua_value(path), headers, body_bytes


class RoundTrips:
    """Counts what the driver sends PostgreSQL: each statement, and each BEGIN, COMMIT and ROLLBACK
    (psycopg sends BEGIN with a transaction's first statement, as a round trip of its own)."""

    def __init__(self, engine):
        from sqlalchemy import event

        self.engine, self.event = engine, event
        self.kinds: dict[str, int] = {}
        self.listeners = [("before_cursor_execute", self._statement), ("begin", self._begin),
                          ("commit", self._commit), ("rollback", self._rollback)]
        for name, listener in self.listeners:
            event.listen(engine, name, listener)
        event.listen(engine.pool, "reset", self._reset)
        event.listen(engine.pool, "checkout", self._checkout)

    @property
    def count(self) -> int:
        return sum(self.kinds.values())

    def _add(self, kind: str) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def _statement(self, _connection, _cursor, statement, *_rest):
        self._add(statement.split(None, 1)[0].upper())

    def _begin(self, connection):
        # In autocommit the driver sends no BEGIN (SQLAlchemy's "begin" event still fires).
        if not connection.connection.driver_connection.autocommit:
            self._add("BEGIN")

    def _commit(self, connection):
        if connection.connection.driver_connection.info.transaction_status != 0:  # 0: idle, nothing to commit
            self._add("COMMIT")

    def _rollback(self, connection):
        if connection.connection.driver_connection.info.transaction_status != 0:
            self._add("ROLLBACK")

    def _reset(self, dbapi_connection, _record, *_rest):
        if dbapi_connection.info.transaction_status != 0:
            self._add("reset ROLLBACK")

    def _checkout(self, *_args):
        if getattr(self.engine.pool, "_pre_ping", False):  # the pool's SELECT 1, sent without cursor events
            self._add("pre-ping")

    def stop(self) -> None:
        for name, listener in self.listeners:
            self.event.remove(self.engine, name, listener)
        self.event.remove(self.engine.pool, "reset", self._reset)
        self.event.remove(self.engine.pool, "checkout", self._checkout)

    def describe(self, requests: int) -> str:
        return ", ".join(f"{kind} {count / requests:.1f}" for kind, count in sorted(self.kinds.items()))


def profile_ceiling(options) -> int:
    """The hello-world Bottle app of the ceiling, called in process like a sitehost request."""
    from .ceiling import hello_app

    app = hello_app()
    status, body = call(app, "/ok", prefix="")
    print(f"ceiling /ok: {status}, {len(body):,} bytes", file=sys.stderr)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(options.count):
        call(app, "/ok", prefix="")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(options.count):
        call(app, "/ok", prefix="")
    profiler.disable()
    print(f"without the profiler: {wall / options.count * 1000:.3f} ms wall, {cpu / options.count * 1000:.3f} ms CPU "
          "per request")
    stats = pstats.Stats(profiler)
    stats.sort_stats(options.sort).print_stats(options.limit)
    return 0


def main(argv: list[str] | None = None) -> int:
    from host.app import create_app
    from host.config import load_settings

    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=10000)
    parser.add_argument("--path", default="/core/v2/posts",
                        help="REST path and query, e.g. /core/v2/posts?_embed; {id}: a random seeded post each time")
    parser.add_argument("-n", "--count", type=int, default=200)
    parser.add_argument("--cache", action="store_true", help="keep the cache plugin enabled")
    parser.add_argument("--create", action="store_true",
                        help="POST a new post to --path (default core/v2/posts) as the seeded author each time")
    parser.add_argument("--scenario", help="a harness scenario's prepared data and request (see the module docstring)")
    parser.add_argument("--batch", action="store_true",
                        help=f"POST batch/v1 with {BATCH_SIZE} post creates (the `batch` scenario) as the author each time")
    parser.add_argument("--ceiling", action="store_true",
                        help="profile the harness's hello-world app (tests/benchmarks/ceiling.py) the same way, "
                             "to compare a request's function calls with the ceiling's")
    parser.add_argument("--memory", action="store_true",
                        help="instead of timing: the process's RSS before and after COUNT requests, and where the "
                             "memory still held after them was allocated (tracemalloc)")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (tottime, cumulative)")
    parser.add_argument("--limit", type=int, default=35)
    parser.add_argument("--callers", help="also print the callers of functions matching this pattern")
    parser.add_argument("--database", default=None,
                        help="profile on this PostgreSQL database (postgresql://user@host/db) instead of SQLite")
    options = parser.parse_args(argv)
    if options.database and options.scenario:
        parser.error("--scenario runs on SQLite only")
    if options.scenario:
        from .run import SCENARIOS

        # A cached scenario measures hits: profiling it with the cache plugin disabled would show misses.
        options.cache = options.cache or any(item.cached for item in SCENARIOS if item.key == options.scenario)
    if options.ceiling:
        return profile_ceiling(options)
    url = None
    if options.database:
        if not options.database.startswith("postgresql"):
            parser.error("--database takes a postgresql:// URL")
        from .run import postgres_schema

        options.database = "postgresql+psycopg://" + options.database.split("://", 1)[1]
        url = postgres_schema(options.database, fresh=True)

    with tempfile.TemporaryDirectory(prefix="sitehost-profile-") as folder:
        workdir = Path(folder)
        database = workdir / "site.db"
        seeded = seed(write_config(workdir, database, cache=True, url=url), database, options.posts, database_url=url)
        request = scenario_request(workdir, database, seeded, options.scenario, options.cache) \
            if options.scenario else None
        app = create_app(load_settings(write_config(workdir, database, cache=options.cache, url=url), env={}))
        context = Context(rest="http://127.0.0.1:8080/wp-json", seeded=seeded)
        counter = iter(range(10**9))
        ids = random_ids(seeded.first_post, seeded.posts)

        def once():
            if request is not None:
                method, path, headers, body = request
                return call(app, path, method, headers, body, prefix="")
            if options.batch:
                body = json.dumps({"requests": [
                    {"method": "POST", "path": "/core/v2/posts",
                     "body": post_body(f"Profiled batch post {next(counter)}", seeded.busiest_category)}
                    for _ in range(BATCH_SIZE)]}).encode()
                return call(app, "/batch/v1", "POST", {"Authorization": context.authorization}, body)
            if not options.create:
                return call(app, options.path.replace("{id}", str(next(ids))))
            body = json.dumps(post_body(f"Profiled post {next(counter)}", seeded.busiest_category)).encode()
            return call(app, options.path, "POST", {"Authorization": context.authorization}, body)

        try:
            first_rss = _rss_mb()
            status, body = once()
            if options.batch and body.count(b'"status":201') != BATCH_SIZE:
                raise SystemExit(f"batch/v1: not every item was created: {body[:500]!r}")
            print(f"{'/batch/v1' if options.batch else request[1] if request else options.path}: {status}, {len(body):,} bytes", file=sys.stderr)
            if options.memory:
                return report_memory(once, options.count, options.limit, first_rss)
            timed = options.count
            trips = RoundTrips(app.db.engine) if url else None
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(timed):
                once()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if trips is not None:
                trips.stop()
            profiler = cProfile.Profile()
            started = time.perf_counter()
            profiler.enable()
            for _ in range(options.count):
                once()
            profiler.disable()
            elapsed = time.perf_counter() - started
        finally:
            app.close()
            if url:
                from .run import drop_postgres_schema

                drop_postgres_schema(options.database)
    print(f"without the profiler: {wall / timed * 1000:.2f} ms wall, {cpu / timed * 1000:.2f} ms CPU per request"
          + (f", {trips.count / timed:.1f} round trips to PostgreSQL per request ({trips.describe(timed)})"
             if trips is not None else ""))
    print(f"{options.count} requests in {elapsed:.2f} s under the profiler "
          f"({options.count / elapsed:,.0f} req/s, {elapsed / options.count * 1000:.2f} ms each)")
    stats = pstats.Stats(profiler)
    stats.sort_stats(options.sort).print_stats(options.limit)
    if options.callers:
        stats.print_callers(options.callers)
    return 0


def _rss_mb() -> float:
    from .servers import resident_kb

    return resident_kb() / 1024


def report_memory(once, count: int, limit: int, first_rss: float) -> int:
    """RSS before and after `count` requests (after the first), and the allocation sites of what
    the requests left held: the RSS budget line's profile (what a worker keeps, not what it churns)."""
    import gc
    import tracemalloc

    gc.collect()
    before = _rss_mb()
    tracemalloc.start(12)
    start = tracemalloc.take_snapshot()
    for _ in range(count):
        once()
    gc.collect()
    end = tracemalloc.take_snapshot()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = _rss_mb()
    print(f"RSS {first_rss:.1f} MB with the app built, {before:.1f} MB after the first request, {after:.1f} MB "
          f"after {count} more "
          f"(traced peak during them {peak / 2**20:.1f} MB)")
    growth = end.compare_to(start, "traceback")
    print(f"held after the requests, by where it was allocated (top {limit}):")
    for stat in growth[:limit]:
        if stat.size_diff <= 0:
            break
        frames = [f"{frame.filename.replace(str(Path.cwd()) + '/', '')}:{frame.lineno}" for frame in stat.traceback]
        print(f"  {stat.size_diff / 1024:9.1f} KiB in {stat.count_diff:+} blocks  " + " <- ".join(reversed(frames[-4:])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
