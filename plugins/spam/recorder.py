"""Writes of the spam filter that happen outside any request's transaction, in submission order.

`check_spam` runs while the submitting request holds (or is about to take) the database's
write lock, and an event hook runs after it: so verdicts, history entries and training are
queued here and written by one thread per app, in batches, in their own transactions. The
order is kept, so a comment's "created" event always finds its verdict written. `flush()`
waits until everything queued so far is written (routes that read the history call it first).
A REST request that queued something waits for it in `request_finished` (after its own
transaction ended, so the lock is free): when its answer leaves, its verdict is on record.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Callable

from host.stash import StashKey

LOG = logging.getLogger("sitehost.spam")
BATCH = 200


class Recorder:
    def __init__(self, app):
        self.app = app
        self.queue: queue.Queue = queue.Queue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.closed = False
        self.local = threading.local()

    def put(self, write: Callable) -> None:
        """Queue `write(session)` to run in a write transaction."""
        if self.closed:
            return
        self._start()
        self.local.pending = True
        self.queue.put(write)

    def flush_own(self) -> None:
        """Wait for what this thread queued (the end of a REST request that judged something)."""
        if getattr(self.local, "pending", False):
            self.local.pending = False
            self.flush()

    def flush(self, timeout: float = 10.0) -> None:
        if self.thread is None:
            return
        done = threading.Event()
        self.queue.put(done)
        done.wait(timeout)

    def close(self) -> None:
        self.closed = True
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join(timeout=10)
            self.thread = None

    def _start(self) -> None:
        if self.thread is not None:
            return
        with self.lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="spam-recorder", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            first = self.queue.get()
            batch = [first]
            while len(batch) < BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            writes = [item for item in batch if callable(item) and not isinstance(item, threading.Event)]
            if writes:
                self._write(writes)
            for item in batch:
                if isinstance(item, threading.Event):
                    item.set()
            if any(item is None for item in batch):
                return

    def _write(self, writes: list[Callable]) -> None:
        try:
            with self.app.db.session(write=True) as session, session.begin():
                for write in writes:
                    write(session)
        except Exception:  # one bad write must not lose the others: retry them one by one
            if len(writes) == 1:
                LOG.exception("spam filter: a write failed")
                return
            for write in writes:
                self._write([write])


RECORDER = StashKey[Recorder]("spam.recorder")


def recorder_of(app) -> Recorder:
    return app.stash.setdefault_by(RECORDER, lambda: Recorder(app))
