"""CPU time per request, in process, of this tree against another commit, in alternating pairs.

`python -m tests.benchmarks.cpu --base 4a07705 [--posts 1000] [--pairs 8] [-n 300] [--path P | --scenario KEY] [--auth] [--header H] [--create | --batch] [--database URL | --callgrind [--ceiling]]`

A path with `{id}` in it (`--path '/core/v2/posts/{id}'`) asks for a different seeded
published post each time, the same random sequence on both sides. `--auth` signs every GET in
as the seeded author with its application password, as the builder-globals scenario does
(`--auth --path /builder/v1/globals`); `--header 'Name: value'` adds any other header.

Wall-clock throughput on a shared machine swings with the neighbours' load; the CPU time a
process spends on one request barely does. Each side runs in a fresh process (its own tree
on sys.path, its own seeded database) that warms up and then times COUNT requests with
`time.process_time`; the sides alternate PAIRS times, so a slow minute hurts both, and the
medians are compared. The base tree is exported with `git archive` into a temporary folder.
The wall-clock time per request of the same runs is printed too (it includes the database's
round trips, and the neighbours' load).

`--callgrind` counts instructions instead (valgrind's callgrind, one run of each side with the
requests and one without): a count that the neighbours' load does not move, for a verdict on a
busy machine. It is about 50 times slower than timing. Background threads (mail, the spam
recorder) run at wall-clock pace under valgrind and so weigh far more than in a server: compare
sides with the same plugins (`--disable`).

`--scenario KEY` measures a harness scenario's request (a site page such as `core-post-page`) on the
data its `prepare` wrote through a real server into the seeded file (as profile's `--scenario`); a
cached scenario runs with the cache plugin on, so it measures hits. `--callgrind --ceiling` also counts
the harness's bare Bottle app, and states each side as a multiple of it.

`--database postgresql://user@host/db` measures on that PostgreSQL server instead of SQLite:
each side seeds a schema of its own there once (sitehost_cpu_base, sitehost_cpu_this), dropped
at the end: read scenarios reuse it, write scenarios (--create, --batch) seed it afresh for every
run (so that no run writes into the rows of the ones before). Only this process's CPU is timed,
not the server's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs inside a child process whose sys.path starts with the tree being measured.
CHILD = r"""
import json, os, shutil, sys, tempfile, time
from pathlib import Path
from tests.benchmarks.profile import call
from tests.benchmarks.run import write_config
from tests.benchmarks.seed import seed
from tests.benchmarks.scenarios import post_body, Context
DRAFT_EVERY = 33  # as tests/benchmarks/seed.py (the base tree may be older than this script)
from host.app import create_app
from host.config import load_settings

spec = json.loads(sys.argv[1])
seeded_db = Path(spec["seeded"])
url = spec.get("database_url")  # a PostgreSQL schema of this side's own, seeded on its first run
with tempfile.TemporaryDirectory(prefix="sitehost-cpu-") as folder:
    workdir = Path(folder)
    database = workdir / "site.db"
    if not Path(str(seeded_db) + ".json").exists():
        result = seed(write_config(workdir, seeded_db, cache=True, url=url), seeded_db, spec["posts"],
                      database_url=url) if url else seed(write_config(workdir, seeded_db, cache=True), seeded_db,
                                                         spec["posts"])
        scenario = None
        if spec.get("scenario"):  # its prepare writes into the seeded file, through a real server, once
            from tests.benchmarks.profile import scenario_request
            method, path, headers, body = scenario_request(workdir, seeded_db, result, spec["scenario"],
                                                           spec.get("cache", False))
            scenario = [method, path, headers, body.decode("latin-1")]
            import sqlite3  # the server's writes into the file itself, not its WAL, before the file is copied
            with sqlite3.connect(seeded_db) as probe:
                probe.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        Path(str(seeded_db) + ".json").write_text(json.dumps(
            {"category": result.busiest_category, "login": result.author_login, "password": result.author_password,
             "first_post": result.first_post, "scenario": scenario}))
    info = json.loads(Path(str(seeded_db) + ".json").read_text())
    if url is None:
        shutil.copyfile(seeded_db, database)
    # A base tree older than --database has a write_config without `url` (SQLite only there).
    cache = spec.get("cache", False)
    config = write_config(workdir, database, cache=cache, url=url) if url else write_config(workdir, database, cache=cache)
    settings = load_settings(config, env={})
    settings.disabled = [*settings.disabled, *spec.get("disable", [])]
    if spec.get("ceiling"):  # the harness's bare Bottle app, called the same way
        from tests.benchmarks.ceiling import hello_app
        app = hello_app()
        app.close = lambda: None
    else:
        app = create_app(settings)
    import base64
    auth = "Basic " + base64.b64encode(f"{info['login']}:{info['password']}".encode()).decode()
    counter = iter(range(10**9))
    import random
    rng = random.Random(11)

    def next_id():
        offset = rng.randint(1, spec["posts"])
        if offset % DRAFT_EVERY == 0:
            offset -= 1
        return info.get("first_post", 1) + offset - 1

    def once():
        if spec.get("ceiling"):
            status, body = call(app, "/ok", prefix="")
        elif info.get("scenario"):
            method, path, headers, body = info["scenario"]
            status, body = call(app, path, method, headers, body.encode("latin-1"), prefix="")
        elif spec.get("batch"):
            body = json.dumps({"requests": [{"method": "POST", "path": "/core/v2/posts",
                                             "body": post_body(f"Timed post {next(counter)}", info["category"])}
                                            for _ in range(25)]}).encode()
            status, body = call(app, "/batch/v1", "POST", {"Authorization": auth}, body)
            assert status.startswith("207") and body.count(b'"status":201') == 25, (status, body[:300])
        elif not spec["create"]:
            headers = {**spec["headers"], "Authorization": auth} if spec.get("auth") else spec["headers"]
            status, body = call(app, spec["path"].replace("{id}", str(next_id())), headers=headers)
        else:
            body = json.dumps(post_body(f"Timed post {next(counter)}", info["category"])).encode()
            status, body = call(app, "/core/v2/posts", "POST", {"Authorization": auth}, body)
        assert status.startswith("20"), (status, body[:300])

    for _ in range(spec["warm"]):
        once()
    started, wall = time.process_time(), time.perf_counter()
    for _ in range(spec["count"]):
        once()
    print(json.dumps([(time.process_time() - started) / max(spec["count"], 1) * 1000,
                      (time.perf_counter() - wall) / max(spec["count"], 1) * 1000]))
    app.close()
"""


def run_side(tree: Path, spec: dict, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree), "SITEHOST_NO_ENTRY_POINTS": "1"}
    done = subprocess.run([*prefix, sys.executable, "-c", CHILD, json.dumps(spec)], cwd=tree, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr[-2000:]}")
    return done


def timed_side(tree: Path, spec: dict) -> list[float]:
    """[CPU ms, wall ms] per request of one run."""
    return json.loads(run_side(tree, spec).stdout.strip().splitlines()[-1])


CALLGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def instructions_per_request(tree: Path, spec: dict) -> float:
    """Instructions one request costs, counted by callgrind: the same process run with COUNT requests
    after the warm-up and with none, so that imports, the app's start and the warm-up cancel out.
    A count does not move with the machine's load, so two trees compare on a busy machine too."""
    collected = []
    for count in (0, spec["count"]):
        done = run_side(tree, {**spec, "count": count}, CALLGRIND)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if not found:
            raise SystemExit(f"{tree}: no callgrind total in {done.stderr[-2000:]}")
        collected.append(int(found.group(1)))
    return (collected[1] - collected[0]) / spec["count"]


def schema_url(server_url: str, schema: str, fresh: bool) -> str:
    """The URL of `schema` on `server_url` (created empty when `fresh`, dropped when `fresh` is None)."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    if fresh is not False:
        admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                if fresh:
                    connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        finally:
            admin.dispose()
    url = make_url(server_url)
    return url.set(query={**url.query, "options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.cpu", description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="4a07705", help="commit to compare with")
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("-n", "--count", type=int, default=300)
    parser.add_argument("--path", default="/core/v2/posts")
    parser.add_argument("--header", action="append", default=[], help="Name: value, sent with every request")
    parser.add_argument("--auth", action="store_true",
                        help="send the seeded author's application password (HTTP Basic) with every GET of --path "
                             "(builder-globals: --auth --path /builder/v1/globals)")
    parser.add_argument("--create", action="store_true", help="time POST core/v2/posts as the seeded author")
    parser.add_argument("--batch", action="store_true",
                        help="time POST batch/v1 with 25 post creates as the seeded author (per batch)")
    parser.add_argument("--database", default=None,
                        help="measure on this PostgreSQL database (postgresql://user@host/db) instead of SQLite")
    parser.add_argument("--disable", type=lambda text: [name for name in text.split(",") if name], default=[],
                        help="plugins to disable on both sides besides cache: to compare with a base that "
                             "predates them (`--disable all-but-base` disables every plugin the base lacks)")
    parser.add_argument("--scenario", help="a harness scenario's prepared data and request (as profile's --scenario; "
                                           "a cached scenario runs with the cache plugin on, so it measures hits)")
    parser.add_argument("--ceiling", action="store_true",
                        help="with --callgrind: also count the harness's bare Bottle app (tests/benchmarks/ceiling.py) "
                             "and give each side as a multiple of it")
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions per request with valgrind's callgrind instead of timing (SQLite "
                             "only; one run per side, exact whatever the machine's load, about 50 times slower)")
    options = parser.parse_args(argv)
    if options.callgrind:
        if options.database:
            parser.error("--callgrind counts this process only: SQLite (the server's work on PostgreSQL is elsewhere)")
        if not shutil.which("valgrind"):
            parser.error("--callgrind needs valgrind (apt-get install valgrind)")
    headers = dict(header.split(": ", 1) for header in options.header)
    server = None
    if options.database:
        if not options.database.startswith("postgresql"):
            parser.error("--database takes a postgresql:// URL")
        server = "postgresql+psycopg://" + options.database.split("://", 1)[1]
    urls = {name: schema_url(server, f"sitehost_cpu_{name}", fresh=True) if server else None
            for name in ("base", "this")}
    with tempfile.TemporaryDirectory(prefix="sitehost-cpu-pairs-") as folder:
        base_tree = Path(folder) / "base"
        base_tree.mkdir()
        archive = subprocess.run(["git", "archive", options.base], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
        sides = {"base": base_tree, "this": ROOT}
        if options.disable == ["all-but-base"]:
            options.disable = sorted({path.parent.name for path in (ROOT / "plugins").glob("*/__init__.py")}
                                     - {path.parent.name for path in (base_tree / "plugins").glob("*/__init__.py")})
            print(f"disabled on both sides: {', '.join(options.disable)}", file=sys.stderr)
        if options.callgrind:
            return compare_instructions(options, sides, headers, Path(folder))
        figures: dict[str, list[float]] = {"base": [], "this": []}
        walls: dict[str, list[float]] = {"base": [], "this": []}
        for pair in range(options.pairs):
            for name in (("base", "this") if pair % 2 == 0 else ("this", "base")):
                spec = _spec(options, headers, Path(folder) / f"{name}.db", urls[name])
                if server and (options.create or options.batch):  # every write run on a fresh seed
                    schema_url(server, f"sitehost_cpu_{name}", fresh=True)
                    Path(spec["seeded"] + ".json").unlink(missing_ok=True)
                cpu, wall = timed_side(sides[name], spec)
                figures[name].append(cpu)
                walls[name].append(wall)
            print(f"pair {pair + 1}: base {figures['base'][-1]:.3f} ms, this {figures['this'][-1]:.3f} ms "
                  f"(wall {walls['base'][-1]:.3f}, {walls['this'][-1]:.3f} ms)", file=sys.stderr)
        if server:
            for name in ("base", "this"):
                schema_url(server, f"sitehost_cpu_{name}", fresh=None)
    base, this = statistics.median(figures["base"]), statistics.median(figures["this"])
    what = _what(options)
    print(f"{what}: CPU per request, median of {options.pairs}: {options.base} {base:.3f} ms, "
          f"this tree {this:.3f} ms ({this / base:.2f}x); wall per request {statistics.median(walls['base']):.3f} ms "
          f"and {statistics.median(walls['this']):.3f} ms on {'PostgreSQL' if server else 'SQLite'}")
    return 0


def _spec(options, headers: dict, seeded: Path, database_url: str | None) -> dict:
    """What a child run measures (CHILD reads it): one side's seeded database and the requests to time."""
    cached = False
    if options.scenario:
        from .run import SCENARIOS

        found = next((item for item in SCENARIOS if item.key == options.scenario), None)
        if found is None:
            raise SystemExit(f"unknown scenario {options.scenario!r}")
        cached = found.cached
    return {"seeded": str(seeded), "posts": options.posts, "path": options.path, "headers": headers,
            "auth": options.auth, "create": options.create, "batch": options.batch, "count": options.count,
            "database_url": database_url, "disable": options.disable, "scenario": options.scenario, "cache": cached,
            "warm": max(2 if options.batch else 20, options.count // 10)}


def _what(options) -> str:
    return "POST batch/v1 (25 creates)" if options.batch else "POST core/v2/posts" if options.create \
        else f"scenario {options.scenario}" if options.scenario else f"GET {options.path}"


def compare_instructions(options, sides: dict[str, Path], headers: dict, folder: Path) -> int:
    figures = {}
    for name, tree in sides.items():
        spec = _spec(options, headers, folder / f"{name}.db", None)
        run_side(tree, {**spec, "count": 0, "warm": 0})  # seeds, outside callgrind
        figures[name] = instructions_per_request(tree, spec)
        print(f"{name}: {figures[name] / 1e6:.3f} M instructions per request", file=sys.stderr)
    print(f"{_what(options)}: instructions per request (callgrind, {options.count} requests after the warm-up): "
          f"{options.base} {figures['base'] / 1e6:.3f} M, this tree {figures['this'] / 1e6:.3f} M "
          f"({figures['this'] / figures['base']:.3f}x) on SQLite")
    if options.ceiling:
        spec = {**_spec(options, headers, folder / "this.db", None), "ceiling": True}
        ceiling = instructions_per_request(sides["this"], spec)
        print(f"the bare Bottle app of the ceiling: {ceiling / 1e6:.3f} M instructions per request; "
              f"{options.base} {figures['base'] / ceiling:.1f}x, this tree {figures['this'] / ceiling:.1f}x of it "
              "(waitress's own work per request is in neither)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
