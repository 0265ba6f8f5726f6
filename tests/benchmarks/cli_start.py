"""The `cli-start` budget line: a `sitehost` command starts in under 0.5 s.

    python -m tests.benchmarks.cli_start          # each command's best time, and the budget line
    python -m tests.benchmarks --scenarios cli-start

Times `sitehost --help` and `sitehost doctor --help` as fresh processes (the interpreter's
start, the imports, the plugins' commands and the help), best of RUNS wall times each, in a
folder with no site (help opens no database). The line's figure is the slower command's best.
`sitehost user list` is shown too (it builds the whole site, so it has no budget here).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .plugins import Measure

RUNS = 5
BUDGETED = (("--help",), ("doctor", "--help"))
SHOWN = (("user", "list"),)


def best_seconds(arguments: tuple[str, ...], folder: Path, runs: int = RUNS) -> float:
    """The best wall time of `sitehost ARGUMENTS` over `runs` fresh processes."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "host.cli", *arguments], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=120)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"sitehost {' '.join(arguments)} failed: {done.stderr}")
    return min(times)


def _slowest_start(workdir: Path) -> float:
    """Milliseconds: the slower of the budgeted commands' best times."""
    folder = Path(tempfile.mkdtemp(prefix="cli-start-", dir=workdir))
    return max(best_seconds(arguments, folder) for arguments in BUDGETED) * 1000


MEASURES = [Measure("cli-start", "`sitehost --help` and `sitehost doctor --help`, best of 5 wall", 500.0,
                    _slowest_start, "a command starts in under 0.5 s")]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="cli-start-") as scratch:
        folder = Path(scratch)
        budgeted = {arguments: best_seconds(arguments, folder) for arguments in BUDGETED}
        for arguments, seconds in budgeted.items():
            print(f"sitehost {' '.join(arguments):<16} best {seconds:.3f} s")
        subprocess.run([sys.executable, "-m", "host.cli", "init"], cwd=folder, capture_output=True, timeout=300,
                       env={key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")})
        for arguments in SHOWN:
            print(f"sitehost {' '.join(arguments):<16} best {best_seconds(arguments, folder):.3f} s (no budget)")
        slowest = max(budgeted.values())
    met = slowest <= MEASURES[0].limit_ms / 1000
    print(f"budget: cli-start {slowest:.3f} s <= {MEASURES[0].limit_ms / 1000:.1f} s: {'met' if met else 'NOT MET'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
