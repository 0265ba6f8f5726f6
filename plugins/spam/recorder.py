"""Writes of the spam filter made outside a request's own transaction.

A verdict is normally written in the submitting request's transaction (the caller passes its
`request`). What cannot be (a discarded submission, whose request is rolled back; a call of
the hook outside any request) is buffered here and written in one transaction per drain: the
caller may hold the database's write lock when it asks for a verdict, so these writes wait in
this process's memory until it let go.

Learning from a person's decision (which arrives after the request committed) and reporting it to
a remote service are host jobs (`spam.learn`, `spam.report`, host.jobs): durable, and run once on
whichever node takes them.

A REST request that buffered or queued something drains both itself in `request_finished`, after
its own transaction ended: when its answer leaves, its records are on file. Routes that read the
history drain first (`flush`). A buffered write made outside a REST request is drained by this
process's own thread within a second: the buffer is this process's memory, so the loop that empties
it runs in every process (a site-wide job could not reach it). Never drain while the calling thread
holds a write transaction.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Callable

from host.stash import StashKey

LOG = logging.getLogger("sitehost.spam")
FALLBACK_SECONDS = 1.0
LEARN_JOB, REPORT_JOB = "spam.learn", "spam.report"


class Recorder:
    def __init__(self, app):
        self.app = app
        self.pending: collections.deque[Callable] = collections.deque()
        self.write_lock = threading.Lock()
        self.start_lock = threading.Lock()
        self.local = threading.local()
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def put(self, write: Callable) -> None:
        """Queue `write(session)` to run in a write transaction."""
        if self.stopping.is_set():
            return
        self.local.pending = True
        self.pending.append(write)
        self._start()

    def jobs_queued(self) -> None:
        """This thread queued spam jobs: its REST request runs them at its end (`flush_own`)."""
        self.local.pending = True

    def flush(self) -> None:
        """Write everything buffered so far, and run the due learning jobs, now, in this thread."""
        with self.write_lock:
            writes = []
            while self.pending:
                writes.append(self.pending.popleft())
            if writes:
                self._write(writes)
        self.app.jobs.run_due(names=[LEARN_JOB, REPORT_JOB])

    def flush_own(self) -> None:
        """At the end of a REST request: write what it (and anyone before it) buffered or queued."""
        if getattr(self.local, "pending", False):
            self.local.pending = False
            self.flush()

    def close(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=10)
            self.thread = None
        with self.write_lock:  # the jobs stay queued for the next process; only the buffer is this one's
            writes = list(self.pending)
            self.pending.clear()
            if writes:
                self._write(writes)

    def _start(self) -> None:
        if self.thread is not None:
            return
        with self.start_lock:
            if self.thread is None:
                # Not an app.jobs job: the buffer is this process's memory (a job of another process could
                # not reach it), and enqueuing a job writes to the database, which the caller may be holding.
                self.thread = threading.Thread(target=self._run, name="spam-recorder", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while not self.stopping.wait(FALLBACK_SECONDS):
            if self.pending:
                self.flush()

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
