"""kill -9 in the middle of a stream of writes: on restart the SQLite file is intact and every
acknowledged write is there."""

from __future__ import annotations

import sqlite3
import threading

import requests

from .servers import Server, prepare_site, session_for, throwaway_database

WRITERS = 4
KILL_AFTER = 120  # acknowledged writes before the kill


def test_kill_9_loses_no_acknowledged_write(tmp_path):
    with throwaway_database("sqlite", tmp_path) as url:
        admin = prepare_site(url, tmp_path)["administrator"]
        server = Server(tmp_path / "server", url, threads=WRITERS).start()
        acknowledged: list[str] = []
        lock = threading.Lock()
        enough = threading.Event()

        def stream(worker: int) -> None:
            session = session_for(admin)
            for step in range(100_000):
                title = f"c{worker}-{step}"
                try:
                    response = session.post(f"{server.url}/wp-json/probe/v1/items", json={"title": title}, timeout=30)
                except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                    return  # the server is gone (before or during its answer): this write was never acknowledged
                assert response.status_code == 201, response.text
                with lock:
                    acknowledged.append(title)
                    if len(acknowledged) >= KILL_AFTER:
                        enough.set()

        threads = [threading.Thread(target=stream, args=(n,)) for n in range(WRITERS)]
        for thread in threads:
            thread.start()
        assert enough.wait(timeout=120), "the writers did not get going"
        server.kill()  # while the writers are still sending
        for thread in threads:
            thread.join(timeout=60)
        killed_at = len(acknowledged)

        database = url.removeprefix("sqlite:///")
        restarted = Server(tmp_path / "restarted", url).start()
        try:
            listing = session_for(admin).get(f"{restarted.url}/wp-json/probe/v1/items?per_page=1", timeout=30)
            assert listing.status_code == 200
            assert int(listing.headers["X-WP-Total"]) >= killed_at
        finally:
            restarted.stop()
        with sqlite3.connect(database) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            stored = {row[0] for row in connection.execute("SELECT title FROM probe_items")}
        missing = [title for title in acknowledged if title not in stored]
        assert not missing, f"{len(missing)} acknowledged writes lost after kill -9, e.g. {missing[:5]}"
        print(f"crash: killed after {killed_at} acknowledged writes; all present, integrity ok")
