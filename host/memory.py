"""What a serving process holds resident: glibc's malloc told to give back what the site freed.

A worker's Python objects under 512 bytes live in CPython's own arenas; everything larger (a
request body, a page of rows, an encoded answer, SQLite's page cache) comes from the C
library's malloc. glibc keeps what is freed for the next allocation, and returns memory to
the system only from the top of a heap. Freed blocks below a block still in use stay resident
for the life of the process. Two things made that visible at 100,000 posts:

- Each thread that meets another in malloc gets an arena of its own, up to eight per core, and
  every arena keeps its own free memory. A waitress worker has its serving threads, the job
  runner and the plugins' listeners. `limit_arenas` caps them at ARENAS (set before the
  process starts threads: the cap counts arenas created after it). Under the GIL two serving
  threads seldom allocate at the same moment, so sharing costs them nothing measurable.
- An administrator's import (1,000 courses over REST) left 35 MB resident in a worker that held
  8 MB more than before it: 27 MB of freed blocks that `malloc_trim` gave back at once.

So a serving process runs a `HeapTrimmer`: once a second, if the process has worked since the
last look, `malloc_trim(0)` returns the free pages of every arena. On a heap of about 150 MB
with nothing to return it takes one to three milliseconds. An idle worker is not woken.

Elsewhere than glibc (musl has no `malloc_trim`, macOS neither function) both are no-ops.
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time

log = logging.getLogger("sitehost.memory")

ARENAS = 2  # malloc arenas per process: the main thread's and one the others share when they meet
TRIM_EVERY_SECONDS = 1.0
# CPU the process spent since the last trim (all its threads) that makes the next one worth doing:
# a worker that answered a health probe or two has freed nothing worth a walk over its heap.
TRIM_AFTER_CPU_SECONDS = 0.05
_M_ARENA_MAX = -8  # glibc's malloc.h


def _glibc():
    """The C library's malloc controls (mallopt, malloc_trim), or None where they are not glibc's."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    mallopt, malloc_trim = getattr(libc, "mallopt", None), getattr(libc, "malloc_trim", None)
    if mallopt is None or malloc_trim is None:
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    malloc_trim.argtypes, malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    return libc


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap the malloc arenas this process (and the workers it forks) creates; False where not glibc."""
    libc = _glibc()
    return libc is not None and libc.mallopt(_M_ARENA_MAX, arenas) == 1


class HeapTrimmer:
    """A daemon thread that trims the C heap once every `every` seconds while the process works.

    "Works": the process's CPU time (all threads) grew by at least `after_cpu` seconds since the
    last trim. `trims` counts the trims done.
    """

    def __init__(self, every: float = TRIM_EVERY_SECONDS, after_cpu: float = TRIM_AFTER_CPU_SECONDS):
        self.every = every
        self.after_cpu = after_cpu
        self.trims = 0
        self._libc = _glibc()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def available(self) -> bool:
        return self._libc is not None

    def start(self) -> "HeapTrimmer":
        if self._libc is not None and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sitehost-heap-trim", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        worked_until = time.process_time()
        while not self._stop.wait(self.every):
            if time.process_time() - worked_until < self.after_cpu:
                continue
            try:
                self._libc.malloc_trim(0)  # ctypes lets go of the GIL: the serving threads go on meanwhile
            except Exception:  # noqa: BLE001 - a trim that fails costs memory, never the worker
                log.exception("malloc_trim failed; the worker stops trimming")
                return
            self.trims += 1
            worked_until = time.process_time()
