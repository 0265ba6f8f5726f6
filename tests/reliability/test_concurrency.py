"""Several `sitehost serve` processes on one database take concurrent writers; nothing is lost.

3 server processes x 8 client threads for WRITE_SECONDS each create, update and delete
items of their own (probe/v1), create, update and delete core/v2 posts (all titled alike, so
their slugs race), create notes (example/v1) and send batches. Afterwards every
acknowledged write is in the database exactly as acknowledged, no request answered 5xx or
mentioned a locked database. Runs on an SQLite file and on a throwaway PostgreSQL database.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import create_engine, select, MetaData, Table

from .servers import Server, postgres_available, prepare_site, session_for, throwaway_database

SERVERS = 3
THREADS_PER_SERVER = 8
WRITE_SECONDS = float(os.environ.get("SITEHOST_CONCURRENCY_SECONDS", "5"))
TIMEOUT = 60


class Ledger:
    """What the servers acknowledged, per client thread (each thread owns its items)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items: dict[int, str] = {}  # probe item id -> last acknowledged title
        self.deleted: set[int] = set()
        self.notes: set[int] = set()
        self.posts: dict[int, str] = {}  # core post id -> last acknowledged title
        self.deleted_posts: set[int] = set()
        self.requests = 0
        self.failures: list[str] = []

    def count(self, response: requests.Response, what: str) -> bool:
        with self.lock:
            self.requests += 1
            text = response.text
            if response.status_code >= 500 or "database is locked" in text.lower():
                self.failures.append(f"{what}: {response.status_code} {text[:300]}")
                return False
        return response.status_code < 400


def writer(base: str, user, ledger: Ledger, worker: int, stop_at: float) -> None:
    session = session_for(user)
    mine: list[int] = []
    my_posts: list[int] = []
    for step in itertools.count():
        if time.monotonic() >= stop_at:
            return
        kind = step % 8
        if kind >= 5:
            post_writer(base, session, ledger, worker, step, kind, my_posts)
        elif kind == 0 or not mine:
            response = session.post(f"{base}/wp-json/probe/v1/items", json={"title": f"w{worker}-{step}"}, timeout=TIMEOUT)
            if ledger.count(response, "create item"):
                with ledger.lock:
                    ledger.items[response.json()["id"]] = response.json()["title"]
                mine.append(response.json()["id"])
        elif kind == 1:
            item = mine[-1]
            response = session.put(f"{base}/wp-json/probe/v1/items/{item}", json={"title": f"w{worker}-u{step}"},
                                   timeout=TIMEOUT)
            if ledger.count(response, "update item"):
                with ledger.lock:
                    ledger.items[item] = response.json()["title"]
        elif kind == 2 and len(mine) > 1:
            item = mine.pop(0)
            response = session.delete(f"{base}/wp-json/probe/v1/items/{item}", timeout=TIMEOUT)
            if ledger.count(response, "delete item"):
                with ledger.lock:
                    ledger.deleted.add(item)
                    ledger.items.pop(item, None)
        elif kind == 3:
            response = session.post(f"{base}/wp-json/example/v1/notes", json={"title": f"n{worker}-{step}"},
                                    timeout=TIMEOUT)
            if ledger.count(response, "create note"):
                with ledger.lock:
                    ledger.notes.add(response.json()["id"])
        else:
            requests_ = [{"method": "POST", "path": "/probe/v1/items", "body": {"title": f"w{worker}-b{step}-{n}"}}
                         for n in range(3)]
            response = session.post(f"{base}/wp-json/batch/v1", json={"requests": requests_}, timeout=TIMEOUT)
            if ledger.count(response, "batch"):
                for answer in response.json()["responses"]:
                    if answer["status"] >= 500:
                        ledger.failures.append(f"batch item: {answer}")
                    elif answer["status"] == 201:
                        with ledger.lock:
                            ledger.items[answer["body"]["id"]] = answer["body"]["title"]
                        mine.append(answer["body"]["id"])


def post_writer(base: str, session, ledger: Ledger, worker: int, step: int, kind: int, mine: list[int]) -> None:
    """core/v2 posts: every create uses the same title, so concurrent creates race for one slug."""
    posts = f"{base}/wp-json/core/v2/posts"
    if kind == 5 or not mine:
        response = session.post(posts, json={"title": "Assembly", "status": "publish"}, timeout=TIMEOUT)
        if ledger.count(response, "create post"):
            with ledger.lock:
                ledger.posts[response.json()["id"]] = "Assembly"
            mine.append(response.json()["id"])
    elif kind == 6:
        title = f"Assembly {worker}-{step}"
        response = session.post(f"{posts}/{mine[-1]}", json={"title": title}, timeout=TIMEOUT)
        if ledger.count(response, "update post"):
            with ledger.lock:
                ledger.posts[mine[-1]] = title
    elif len(mine) > 1:
        post = mine.pop(0)
        response = session.delete(f"{posts}/{post}?force=true", timeout=TIMEOUT)
        if ledger.count(response, "delete post"):
            with ledger.lock:
                ledger.deleted_posts.add(post)
                ledger.posts.pop(post, None)


def run_writers(kind: str, folder) -> Ledger:
    with throwaway_database(kind, folder) as url:
        users = prepare_site(url, folder)
        servers = [Server(folder / f"server-{n}", url, threads=THREADS_PER_SERVER).start() for n in range(SERVERS)]
        ledger = Ledger()
        try:
            stop_at = time.monotonic() + WRITE_SECONDS
            with ThreadPoolExecutor(SERVERS * THREADS_PER_SERVER) as pool:
                futures = [pool.submit(writer, servers[n % SERVERS].url, users["administrator"], ledger, n, stop_at)
                           for n in range(SERVERS * THREADS_PER_SERVER)]
                for future in futures:
                    future.result()
        finally:
            for server in servers:
                server.stop()
        logs = "".join(server.log() for server in servers)
        assert "database is locked" not in logs
        assert "Traceback" not in logs, logs[-4000:]
        assert not ledger.failures, ledger.failures[:5]
        engine = create_engine(url)
        metadata = MetaData()
        items = Table("probe_items", metadata, autoload_with=engine)
        notes = Table("example_notes", metadata, autoload_with=engine)
        posts = Table("posts", metadata, autoload_with=engine)
        with engine.connect() as connection:
            stored = dict(connection.execute(select(items.c.id, items.c.title)).all())
            stored_notes = {row.id for row in connection.execute(select(notes.c.id))}
            stored_posts = {row.id: (row.title, row.slug) for row in connection.execute(
                select(posts.c.id, posts.c.title, posts.c.slug).where(posts.c.type == "post"))}
        engine.dispose()
        lost = [item for item, title in ledger.items.items() if stored.get(item) != title]
        resurrected = [item for item in ledger.deleted if item in stored]
        assert not lost, f"{len(lost)} acknowledged writes lost or stale, e.g. {lost[:5]}"
        assert not resurrected, f"deleted items came back: {resurrected[:5]}"
        assert ledger.notes <= stored_notes, f"notes lost: {sorted(ledger.notes - stored_notes)[:5]}"
        lost_posts = [post for post, title in ledger.posts.items() if stored_posts.get(post, (None,))[0] != title]
        assert not lost_posts, f"{len(lost_posts)} acknowledged post writes lost or stale, e.g. {lost_posts[:5]}"
        assert not ledger.deleted_posts & set(stored_posts), "deleted posts came back"
        slugs = [slug for _title, slug in stored_posts.values() if slug]
        assert len(slugs) == len(set(slugs)), "two posts got the same slug under concurrent creates"
        assert len(ledger.posts) + len(ledger.deleted_posts) > 1
        # every stored item of the writers was acknowledged (nothing half-written without an answer)
        unacknowledged = set(stored) - set(ledger.items)
        assert not unacknowledged, f"items nobody was told about: {sorted(unacknowledged)[:5]}"
        assert ledger.requests > SERVERS * THREADS_PER_SERVER
        print(f"concurrency on {kind}: {ledger.requests} write requests, {len(ledger.items)} items, "
              f"{len(ledger.deleted)} deletes, {len(ledger.notes)} notes, {len(ledger.posts)} posts "
              f"({len(ledger.deleted_posts)} deleted) acknowledged; 0 lost, slugs unique")
        return ledger


def test_concurrent_writers_on_one_sqlite_file(tmp_path):
    run_writers("sqlite", tmp_path)


def test_concurrent_writers_on_postgresql(tmp_path):
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    run_writers("postgresql", tmp_path)
