"""host.memory: a serving process gives the C heap's freed pages back to the system (glibc only).

These run the real allocator of this test process: blocks of 64 KB come from glibc's heap (below its
mmap threshold), and freeing all but every 32nd leaves the heap's pages resident until a trim.
"""

import time
from pathlib import Path

import pytest

from host.memory import HeapTrimmer, limit_arenas

BLOCK = 64 * 1024
BLOCKS = 2048  # 128 MB


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def fragment_the_heap() -> list[bytes]:
    """128 MB written in 64 KB blocks, then all freed but every 32nd: the survivors pin the pages between."""
    blocks = [b"x" * BLOCK for _ in range(BLOCKS)]  # written, so every page is resident
    return blocks[::32]


@pytest.fixture
def glibc_trimmer():
    trimmer = HeapTrimmer(every=0.05, after_cpu=0)
    if not trimmer.available:
        pytest.skip("not glibc's malloc: host.memory does nothing here")
    yield trimmer
    trimmer.stop()


def wait_for_trims(trimmer: HeapTrimmer, count: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while trimmer.trims < count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert trimmer.trims >= count


def test_a_working_process_gives_back_the_pages_it_freed(glibc_trimmer):
    kept = fragment_the_heap()
    before = resident_mb()
    glibc_trimmer.start()
    wait_for_trims(glibc_trimmer, 2)
    after = resident_mb()
    assert before - after > 60, (before, after)  # about 124 MB were freed
    assert len(kept) == BLOCKS // 32  # still held: only what was freed went back


def test_an_idle_process_is_not_trimmed(glibc_trimmer):
    idle = HeapTrimmer(every=0.05, after_cpu=60)  # a minute of CPU between trims: never, here
    idle.start()
    try:
        time.sleep(0.5)
        assert idle.trims == 0
    finally:
        idle.stop()


def test_the_arena_cap_is_accepted_where_the_trimmer_runs(glibc_trimmer):
    assert limit_arenas() is True
