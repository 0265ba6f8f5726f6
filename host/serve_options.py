"""The defaults of `sitehost serve --threads/--workers`, apart from host.serving so that the command
line (its --help included) shows them without importing waitress."""

from __future__ import annotations

import os
import socket

# Threads per worker. Under the GIL more threads add little (tests/benchmarks, 10,000 posts,
# workers pinned): at 2 workers, 1/2/4 threads gave 1,523/1,463/1,626 list req/s and
# 4,455/5,860/6,372 cache hits; at 1 worker a second thread halved the mixed read/write load
# (583 -> 288 req/s: two writers of one process wait on SQLite's busy timeout). 2 keeps a
# worker answering while one request is slow (an _embed, a write waiting for the lock), and
# at one worker per core (the default) it gave the best mixed load (818 vs 782 and 368).
DEFAULT_THREADS = 2


def default_workers() -> int:
    """One worker per available core, at most 8; 1 where SO_REUSEPORT is missing.

    On the 2-core benchmark machine 2 workers answered 1.6-1.8x the requests of one.
    """
    if not hasattr(socket, "SO_REUSEPORT"):
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))
