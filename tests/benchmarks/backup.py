"""Benchmark of backups: back up and restore 100,000 posts with 100 MB of uploads.

    python -m tests.benchmarks.backup [--posts 100000] [--uploads-mb 100] [--postgres URL]

Seeds an SQLite site (tests/benchmarks/seed.py) and an uploads folder of incompressible files,
then times, in the same run on the same machine:
- the baseline: `sqlite3 site.db ".backup copy.db"` plus `tar -cf uploads.tar uploads`;
- `sitehost backup create`, `sitehost backup verify`, and `sitehost backup restore` into a
  fresh SQLite file (and into PostgreSQL when --postgres or SITEHOST_TEST_DATABASE_URL names one),
each as its own process, with its peak RSS (from wait4). Budget: backup peak RSS
at most 200 MB, and a backup in under 3 times the baseline.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from .seed import seed

RSS_BUDGET_MB = 200
TIME_BUDGET_RATIO = 3.0


def run(command: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, str, float]:
    """(wall seconds, peak RSS in MB, output, CPU seconds) of one process.

    The peak RSS is the process's own VmHWM, read from /proc while it runs (wait4's ru_maxrss
    would count the memory of this benchmark, which the child inherits until its exec).
    """
    import threading

    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak = [0.0]

    def watch():
        status = Path(f"/proc/{process.pid}/status")
        while process.returncode is None:
            try:
                for line in status.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak[0] = max(peak[0], int(line.split()[1]) / 1024)
            except (OSError, ValueError):
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    output = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    watcher.join(1)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{output.decode(errors='replace')}")
    return seconds, peak[0], output.decode(errors="replace"), usage.ru_utime + usage.ru_stime


def make_uploads(root: Path, megabytes: int) -> int:
    size, count = 512 * 1024, 0
    for number in range(megabytes * 2):
        folder = root / f"{2020 + number % 5}" / f"{number % 12 + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"photo-{number}.jpg").write_bytes(os.urandom(size))
        count += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--uploads-mb", type=int, default=100)
    parser.add_argument("--postgres", default=os.environ.get("SITEHOST_TEST_DATABASE_URL", ""))
    parser.add_argument("--keep", action="store_true", help="Keep the working folder.")
    parser.add_argument("--skip-restore", action="store_true", help="Measure backup and verify only.")
    parser.add_argument("--reuse", type=Path, default=None,
                        help="A folder kept by --keep: measure again without seeding (same posts and uploads).")
    options = parser.parse_args(argv)
    work = options.reuse or Path(tempfile.mkdtemp(prefix="sitehost-backup-bench-"))
    database, uploads = work / "site.db", work / "uploads"
    config = work / "sitehost.toml"
    if options.reuse is None:
        config.write_text(f'database_url = "sqlite:///{database}"\nuploads_dir = "{uploads}"\n\n'
                          f'[plugins.backup]\ndirectory = "{work / "backups"}"\n')
        print(f"seeding {options.posts:,} posts and {options.uploads_mb} MB of uploads in {work} ...", flush=True)
        seeded = seed(config, database, options.posts)
        files = make_uploads(uploads, options.uploads_mb)
        print(f"seeded in {seeded.seconds:.1f} s, {files} upload files", flush=True)
    else:
        options.keep = True
        for leftover in ("copy.db", "uploads.tar", "bench.tar", "restored.db", "restored.db-wal", "restored.db-shm"):
            (work / leftover).unlink(missing_ok=True)
        import shutil

        for folder in ("restored-uploads", "pg-uploads"):
            shutil.rmtree(work / folder, ignore_errors=True)
    database_mb = database.stat().st_size / 1e6
    print(f"database {database_mb:.0f} MB, uploads {sum(f.stat().st_size for f in uploads.rglob('*') if f.is_file()) / 1e6:.0f} MB",
          flush=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    cli = [sys.executable, "-m", "host.cli", "--config", str(config), "backup"]
    rows = []

    base_db, base_db_rss, _, base_db_cpu = run(["sqlite3", str(database), f".backup '{work / 'copy.db'}'"], work)
    base_tar, base_tar_rss, _, base_tar_cpu = run(["tar", "-cf", str(work / "uploads.tar"), "-C", str(work),
                                                   "uploads"], work)
    baseline = base_db + base_tar
    rows.append(("baseline: sqlite3 .backup", base_db, base_db_rss, base_db_cpu))
    rows.append(("baseline: tar of the uploads", base_tar, base_tar_rss, base_tar_cpu))
    archive = work / "bench.tar"
    backup_seconds, backup_rss, _, backup_cpu = run(cli + ["create", "--to", str(archive)], work, env)
    rows.append(("sitehost backup create", backup_seconds, backup_rss, backup_cpu))
    seconds, rss, _, cpu = run(cli + ["verify", str(archive)], work, env)
    rows.append(("sitehost backup verify", seconds, rss, cpu))
    if not options.skip_restore:
        seconds, rss, _, cpu = run(cli + ["restore", str(archive), "--into", f"sqlite:///{work / 'restored.db'}",
                                          "--uploads", str(work / "restored-uploads")], work, env)
        rows.append(("sitehost backup restore -> SQLite", seconds, rss, cpu))
    if options.postgres.startswith("postgresql") and not options.skip_restore:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        admin = create_engine(options.postgres, isolation_level="AUTOCOMMIT")
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(options.postgres)
        target = url.set(query={**url.query, "options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False)
        try:
            seconds, rss, _, cpu = run(cli + ["restore", str(archive), "--into", target,
                                              "--uploads", str(work / "pg-uploads")], work, env)
            rows.append(("sitehost backup restore -> PostgreSQL", seconds, rss, cpu))
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()
    print()
    print(f"| step ({options.posts:,} posts, {options.uploads_mb} MB uploads) | wall s | CPU s | peak RSS MB |")
    print("|---|---:|---:|---:|")
    for label, seconds, rss, cpu in rows:
        print(f"| {label} | {seconds:.1f} | {cpu:.1f} | {rss:.0f} |")
    print(f"\narchive {archive.stat().st_size / 1e6:.0f} MB; baseline {baseline:.1f} s")
    ratio = backup_seconds / baseline
    rss_ok, time_ok = backup_rss <= RSS_BUDGET_MB, ratio < TIME_BUDGET_RATIO
    print(f"budget: backup peak RSS {backup_rss:.0f} MB <= {RSS_BUDGET_MB} MB: {'met' if rss_ok else 'NOT MET'}")
    print(f"budget: backup {backup_seconds:.1f} s = {ratio:.2f} x baseline < {TIME_BUDGET_RATIO:.0f} x: "
          f"{'met' if time_ok else 'NOT MET'}")
    cpu_ratio = backup_cpu / max(base_db_cpu + base_tar_cpu, 0.001)
    print(f"(CPU time, less sensitive to a busy machine: backup {backup_cpu:.1f} s = {cpu_ratio:.2f} x baseline)")
    restores = [rss for label, _s, rss, _c in rows if "restore" in label]
    if restores:
        print(f"restore peak RSS {max(restores):.0f} MB")
    if not options.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")
    return 0 if rss_ok and time_ok else 1


if __name__ == "__main__":
    sys.exit(main())
