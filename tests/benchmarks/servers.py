"""Server processes under test: start one, wait for its banner, read its RSS, stop it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

START_TIMEOUT = 120


class ServerProcess:
    """A server started as a subprocess that prints `<something> serving on <url>` when it listens."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]):
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.output: list[str] = []

    def start(self) -> "ServerProcess":
        self.process = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            if " serving on " in line:
                self.url = line.split(" serving on ", 1)[1].split()[0].rstrip("/")
                threading.Thread(target=self._drain, daemon=True).start()
                return self
        self.stop()
        raise RuntimeError(f"{' '.join(self.argv)} did not start:\n{''.join(self.output[-30:])}")

    def _drain(self) -> None:
        for line in self.process.stdout:
            self.output.append(line)
            del self.output[:-200]

    def worker_pids(self) -> list[int]:
        """The processes that serve: the workers under a supervising parent, else the process itself."""
        pid = self.process.pid
        try:
            children = [int(part) for part in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            children = []
        return children or [pid]

    def rss_mb(self) -> float:
        """The largest resident set of any serving process, in MB (Linux /proc; 0 elsewhere)."""
        return round(max((resident_kb(pid) for pid in self.worker_pids()), default=0) / 1024, 1)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()


def resident_kb(pid: int | str = "self") -> int:
    """A process's resident set in kB (Linux /proc; 0 where it cannot be read)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def clean_environment() -> dict[str, str]:
    """The caller's environment without SITEHOST_* settings, so only the harness's config counts."""
    return {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}


def sitehost(config: Path, workers: int, threads: int) -> ServerProcess:
    # --quiet: no access log, as for the ceiling. It costs the server about 16 us a request (host.logs),
    # and here its lines would go through a pipe this harness drains on the same cores as the load.
    argv = [sys.executable, "-m", "host.cli", "--config", str(config), "serve", "--host", "127.0.0.1",
            "--port", "0", "--workers", str(workers), "--threads", str(threads), "--quiet"]
    return ServerProcess(argv, config.parent, clean_environment())


def ceiling(workdir: Path, workers: int, threads: int) -> ServerProcess:
    repository = Path(__file__).resolve().parents[2]
    env = clean_environment()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(repository), env.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-m", "tests.benchmarks.ceiling", "--port", "0", "--workers", str(workers),
            "--threads", str(threads)]
    return ServerProcess(argv, workdir, env)
