"""Storage (host.storage): a media upload and a media read on each backend, in process.

`storage-read-local` is the hot path that must not get slower than before storage had backends:
the CPU time of one GET /uploads/YYYY/MM/photo.png (the attachment lookup, the permission check,
the file sent by bottle.static_file), median of 300 after a warm-up, best of three rounds. It runs
on older trees too (no `[storage]` table is set), so `--scenarios storage-read-local` compares
commits. The S3 lines run against moto's standalone server (a process on 127.0.0.1), and are wall
time: the store's share of the work is in another process, where this one's CPU time would not see it.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from . import Measure

READS = 300
UPLOADS = 100
DATA = b"\x89PNG\r\n\x1a\n" + bytes(13) + bytes(range(256)) * 80  # 20 KB, a PNG by its first bytes


def _site(folder: Path, storage: dict | None):
    from host.app import create_app
    from host.config import Settings
    from host.testing import create_test_user

    folder.mkdir(exist_ok=True)
    settings = Settings(database_url=f"sqlite:///{folder}/site.db", uploads_dir=str(folder / "uploads"))
    settings.only_plugins = ["core"]
    if storage is not None:
        settings.storage = storage
    app = create_app(settings)
    app.install_site(demo=False)
    author = create_test_user(app, "author")
    return app, {"Authorization": author.headers["Authorization"]}


def _upload(app, headers, number: int) -> str:
    import json

    from tests.benchmarks.profile import call

    status, answer = call(app, "/core/v2/media", "POST", {**headers, "Content-Type": "image/png",
                                                          "Content-Disposition": f'attachment; filename="p{number}.png"'},
                          DATA)
    if not status.startswith("201"):
        raise RuntimeError(f"upload answered {status}: {answer[:200]!r}")
    return "/uploads/" + json.loads(answer)["source_url"].split("/uploads/", 1)[1]


def _median_ms(run, count: int, clock) -> float:
    rounds = []
    for _round in range(3):
        timings = []
        for number in range(count):
            started = clock()
            run(number)
            timings.append(clock() - started)
        rounds.append(statistics.median(timings))
    return min(rounds) * 1000


def _read(workdir: Path, storage: dict | None, clock) -> float:
    from tests.benchmarks.profile import call

    app, headers = _site(workdir / f"read-{'s3' if storage else 'local'}", storage)
    try:
        path = _upload(app, headers, 0)

        def read(_number):
            status, body = call(app, path, prefix="")
            if not status.startswith("200") or len(body) != len(DATA):
                raise RuntimeError(f"GET {path} answered {status}")
        for number in range(30):  # warm-up: prepared statements, imports, connections
            read(number)
        return _median_ms(read, READS, clock)
    finally:
        app.close()


def _uploads(workdir: Path, storage: dict | None) -> float:
    app, headers = _site(workdir / f"upload-{'s3' if storage else 'local'}", storage)
    try:
        for number in range(10):
            _upload(app, headers, 10_000 + number)
        counter = iter(range(1_000_000))
        return _median_ms(lambda _number: _upload(app, headers, next(counter)), UPLOADS, time.perf_counter)
    finally:
        app.close()


def _on_s3(workdir: Path, measure) -> float:
    from host.testing import running_s3_server

    with running_s3_server(workdir) as server:
        return measure(server.storage_settings())


def read_local(workdir: Path) -> float:
    return _read(workdir, None, time.process_time)


def upload_local(workdir: Path) -> float:
    return _uploads(workdir, None)


def read_s3(workdir: Path) -> float:
    return _on_s3(workdir, lambda storage: _read(workdir, storage, time.perf_counter))


def upload_s3(workdir: Path) -> float:
    return _on_s3(workdir, lambda storage: _uploads(workdir, storage))


MEASURES = [
    Measure("storage-read-local", "GET /uploads file, local folder, CPU per request, median (SQLite)", 2.0,
            read_local, "a local media read costs no more than before storage had backends"),
    Measure("storage-upload-local", "POST media 20 KB, local folder, wall per request, median (SQLite)", 15.0,
            upload_local, "uploads through the storage interface"),
    Measure("storage-read-s3", "GET /uploads file streamed from S3 (moto), wall per request, median (SQLite)",
            30.0, read_s3, "serve = \"stream\" from an S3-compatible store on loopback"),
    Measure("storage-upload-s3", "POST media 20 KB into S3 (moto), wall per request, median (SQLite)", 60.0,
            upload_s3, "an upload written to an S3-compatible store on loopback"),
]
