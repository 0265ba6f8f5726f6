"""Driving wrk: one Lua script per scenario (requests, checks, a JSON summary line), parsed results.

Every scenario runs through a generated script so the numbers come from wrk's own
`done(summary, latency, requests)` callback as exact integers (microseconds), not from
its human-readable table.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

CONNECTIONS = 16
WRK_THREADS = 1  # one wrk thread drives 16 connections easily and leaves the cores to the servers
MARKER = "BENCH-JSON "

INSTALL_HINT = """wrk is not installed. The harness installs nothing; get wrk with
    sudo apt-get install -y wrk        (Debian, Ubuntu)
    brew install wrk                    (macOS)
or build it from https://github.com/wg/wrk, then run the benchmark again."""

# Shared by every script: per-thread ids and seeds, item failures counted by `response`,
# and one JSON line from `done` that the harness parses.
LUA_PRELUDE = r"""
local threads = {}
local next_id = 0
function setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
  thread:set("bad_items", 0)
  table.insert(threads, thread)
end
counter = 0
bad_items = 0
function init(args)
  math.randomseed(os.time() * 1000 + (thread_id or 1))
end
"""

LUA_DONE = r"""
function done(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + (thread:get("bad_items") or 0) end
  local e = summary.errors
  io.write(string.format(
    'BENCH-JSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"status":%d,"timeout":%d,"bad_items":%d,"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"max":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, bad,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
"""


@dataclass
class WrkResult:
    requests: int
    seconds: float
    requests_per_second: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    errors: int  # socket errors + non-2xx/3xx answers + failed batch items
    error_detail: dict

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def wrk_path() -> str | None:
    return shutil.which("wrk")


def run(url: str, lua_body: str, duration: int, connections: int = CONNECTIONS, timeout: int = 10) -> WrkResult:
    """Run wrk against `url` with the scenario's Lua (a `request` and/or `response` function)."""
    script = LUA_PRELUDE + lua_body + LUA_DONE
    with tempfile.NamedTemporaryFile("w", suffix=".lua", prefix="sitehost-bench-", delete=False) as handle:
        handle.write(script)
        script_path = Path(handle.name)
    try:
        completed = subprocess.run(
            [wrk_path() or "wrk", f"-t{WRK_THREADS}", f"-c{connections}", f"-d{duration}s", f"--timeout={timeout}s",
             "--latency", "-s", str(script_path), url],
            capture_output=True, text=True, timeout=duration + timeout + 30)
    finally:
        script_path.unlink(missing_ok=True)
    for line in completed.stdout.splitlines():
        if line.startswith(MARKER):
            return _result(json.loads(line[len(MARKER):]))
    raise RuntimeError(f"wrk gave no summary (exit {completed.returncode}):\n{completed.stdout}\n{completed.stderr}")


def _result(raw: dict) -> WrkResult:
    seconds = raw["duration_us"] / 1e6
    detail = {key: raw[key] for key in ("connect", "read", "write", "status", "timeout", "bad_items") if raw[key]}
    return WrkResult(
        requests=raw["requests"], seconds=round(seconds, 3),
        requests_per_second=round(raw["requests"] / seconds, 1) if seconds else 0.0,
        p50_ms=raw["p50"] / 1000, p90_ms=raw["p90"] / 1000, p99_ms=raw["p99"] / 1000,
        mean_ms=round(raw["mean"] / 1000, 3), max_ms=raw["max"] / 1000,
        errors=sum(detail.values()), error_detail=detail,
    )


def lua_string(value: str) -> str:
    """A Lua string literal for `value` (long-bracket form, safe for JSON and quotes)."""
    level = 0
    while ("]" + "=" * level + "]") in value:
        level += 1
    return "[" + "=" * level + "[" + value + "]" + "=" * level + "]"
