"""`sitehost serve --workers N`: real worker processes behind one port, supervised by the parent."""

import json
import os
import signal
import socket
import subprocess
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from host.testing import start_sitehost

from tests.helpers import install_entry_point_plugin

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT") or not Path("/proc/self/task").exists(),
                                reason="workers share a port through SO_REUSEPORT (Linux)")

PROBE_PLUGIN = '''
"""Answers with the id of the process that served the request."""
import os
from host import Namespace, PluginInfo, Route, hookimpl

PLUGIN = PluginInfo(name="probe", version="1.0")

@hookimpl
def register_namespaces():
    return [Namespace("probe/v1")]

@hookimpl
def register_routes():
    return [Route("probe/v1", "/pid", "GET", lambda request: {"pid": os.getpid()})]
'''


@pytest.fixture
def probe_site(tmp_path):
    """A config and environment whose site has the probe plugin (and no other entry-point plugin)."""
    source = tmp_path / "probe_source"
    source.mkdir()
    (source / "sitehost_probe.py").write_text(textwrap.dedent(PROBE_PLUGIN))
    install_entry_point_plugin(source, "sitehost-probe", "1.0", "probe", "sitehost_probe")
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")]),
           "SITEHOST_DISABLE": "core"}
    return config, env


def start(config: Path, env: dict, workers: int):
    return start_sitehost(config, "--threads", "2", "--workers", str(workers), env=env)


def children(pid: int) -> set[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(part) for part in text.split()}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped) does not count as alive
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def served_pid(rest: str) -> int:
    """One request on a fresh connection: the pid of the worker that answered."""
    with urllib.request.urlopen(rest + "/probe/v1/pid", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "application/json; charset=UTF-8"
        return json.loads(response.read())["pid"]


def pids_answering(rest: str, requests: int = 60) -> set[int]:
    return {served_pid(rest) for _ in range(requests)}


def wait_for(condition, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_two_workers_both_answer_on_one_port(probe_site):
    process, rest = start(*probe_site, workers=2)
    try:
        workers = children(process.pid)
        assert len(workers) == 2
        assert process.pid not in workers
        assert pids_answering(rest) == workers  # new connections reach both processes
        with urllib.request.urlopen(rest + "/", timeout=10) as response:
            assert "probe/v1" in json.loads(response.read())["namespaces"]
    finally:
        stop(process)


def test_a_killed_worker_is_restarted_and_serves(probe_site):
    process, rest = start(*probe_site, workers=2)
    try:
        first = children(process.pid)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        replacement = wait_for(lambda: (children(process.pid) - first) or None)
        assert len(replacement) == 1
        assert victim not in children(process.pid)
        now = children(process.pid)
        assert len(now) == 2
        assert wait_for(lambda: pids_answering(rest, 30) == now)
        assert process.poll() is None
    finally:
        stop(process)


def test_sigint_stops_the_parent_and_every_worker(probe_site):
    process, rest = start(*probe_site, workers=2)
    workers = children(process.pid)
    assert served_pid(rest) in workers
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=20) == 0
    assert not any(alive(pid) for pid in workers)
    with pytest.raises(OSError):
        urllib.request.urlopen(rest + "/", timeout=5)


def test_sigterm_stops_them_too_and_a_single_worker_serves_in_process(probe_site):
    process, rest = start(*probe_site, workers=2)
    workers = children(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0
    assert not any(alive(pid) for pid in workers)

    single, rest = start(*probe_site, workers=1)
    try:
        assert children(single.pid) == set()
        assert served_pid(rest) == single.pid
    finally:
        stop(single)


def allowed_cpus(pid: int) -> set[int]:
    return os.sched_getaffinity(pid)


def test_each_worker_is_pinned_to_its_own_cpu_unless_told_not_to(probe_site):
    available = sorted(os.sched_getaffinity(0))
    process, rest = start(*probe_site, workers=2)
    try:
        workers = sorted(children(process.pid))
        assert len(workers) == 2
        pinned = [allowed_cpus(pid) for pid in workers]
        assert all(len(cpus) == 1 for cpus in pinned)  # every thread of a worker shares one CPU
        assert set().union(*pinned) == set(available[:2])  # and the workers spread over the CPUs
        assert allowed_cpus(process.pid) == set(available)  # the supervising parent is left alone
        assert pids_answering(rest, 20) == set(workers)
    finally:
        stop(process)

    single, rest = start_sitehost(probe_site[0], "--workers", "1", "--no-pin-cpus", env=probe_site[1])
    try:
        assert allowed_cpus(single.pid) == set(available)
        assert served_pid(rest) == single.pid
    finally:
        stop(single)
