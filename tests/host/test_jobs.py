"""app.jobs (host.jobs): background work leased in the database, run once per site across processes and nodes.

The served tests start real `sitehost serve` processes, each in its own folder (as separate machines),
on the database under test (PostgreSQL with SITEHOST_TEST_DATABASE_URL, else one SQLite file), with the
probe plugin of tests/host/jobprobe installed as a package. Its jobs write one row per step to
`jobprobe_runs`; the tests count those rows. Leases and polls are short (`[jobs]`), so a lost node's
job is taken over in seconds.
"""

from __future__ import annotations

import datetime
import importlib
import os
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from click.testing import CliRunner

from host.cli import main
from host.mail import Message
from host.testing import start_sitehost, stop_sitehost
from plugins import BUILTIN

from tests.helpers import install_entry_point_plugin, wait_until

PROBE_SOURCE = Path(__file__).parent / "jobprobe"
FAST = {"poll_seconds": 0.1, "lease_seconds": 2.0}


@pytest.fixture
def probe(monkeypatch):
    monkeypatch.syspath_prepend(str(PROBE_SOURCE))
    importlib.invalidate_caches()
    return importlib.import_module("sitehost_jobprobe")


@pytest.fixture
def control(make_app, probe):
    """The site the nodes share, as a test reads and queues it (it never runs a worker itself)."""
    return make_app(plugins=[probe], jobs=FAST)


def runs(app, phase: str | None = None, job: str | None = None) -> list:
    table = app.db.metadata.tables["jobprobe_runs"]
    query = select(table).order_by(table.c.id)
    if phase:
        query = query.where(table.c.phase == phase)
    if job:
        query = query.where(table.c.job == job)
    with app.db.session() as session:
        return list(session.execute(query))


class Nodes:
    """`sitehost serve` processes, each in its own folder, on the control site's database."""

    def __init__(self, tmp_path: Path, database_url: str, jobs: dict, mail: dict | None = None):
        self.tmp_path = tmp_path
        self.database_url = database_url
        self.jobs = jobs
        self.mail = mail or {}
        self.processes: dict[str, object] = {}
        site_packages = tmp_path / "site-packages"
        install_entry_point_plugin(site_packages, "sitehost-jobprobe", "1.0", "jobprobe", "sitehost_jobprobe")
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
        self.env["PYTHONPATH"] = os.pathsep.join([str(PROBE_SOURCE), str(site_packages),
                                                  os.environ.get("PYTHONPATH", "")])
        self.env["SITEHOST_DISABLE"] = ",".join(BUILTIN)  # the host and the probe: quick to start

    def start(self, name: str, workers: int = 1):
        folder = self.tmp_path / name
        folder.mkdir(exist_ok=True)
        lines = [f'database_url = "{self.database_url}"', "[jobs]"]
        lines += [f"{key} = {value}" for key, value in self.jobs.items()]
        lines += ["[mail]", f'eml_dir = "{folder / "mail"}"']
        lines += [f"{key} = {value!r}".replace("'", '"') for key, value in self.mail.items()]
        (folder / "sitehost.toml").write_text("\n".join(lines) + "\n")
        process, _url = start_sitehost(folder / "sitehost.toml", "--quiet", "--workers", str(workers),
                                       "--threads", "2", env=self.env)
        self.processes[name] = process
        return process

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop_all(self) -> str:
        output = []
        for process in self.processes.values():
            stop_sitehost(process)
            output.append(process.stdout.read())
        self.processes.clear()
        return "\n".join(output)


@pytest.fixture
def nodes(tmp_path, control):
    started = Nodes(tmp_path, control.settings.database_url, FAST)
    yield started
    output = started.stop_all()
    assert "Traceback" not in output, output


# --- in one process ----------------------------------------------------------------------

def test_hook_register_jobs(control):
    """Declared jobs are listed; a queued job runs once; a key makes a job one at a time; bad calls refused."""
    declared = control.jobs.declared
    assert {"jobprobe.count", "jobprobe.slow", "jobprobe.tick", "host.mail.deliver", "host.jobs.prune"} <= set(declared)
    assert declared["jobprobe.tick"].every == 2.0 and declared["jobprobe.count"].every is None
    first = control.jobs.enqueue("jobprobe.count", {"n": 1}, key="only-one")
    assert first is not None
    assert control.jobs.enqueue("jobprobe.count", {"n": 2}, key="only-one") is None  # still queued
    assert control.jobs.run_due() >= 2  # the count job and the periodic ones that were due
    assert [row.job_id for row in runs(control, "end")] == [first]
    assert control.jobs.get(first)["state"] == "done" and control.jobs.get(first)["key"] is None
    assert control.jobs.enqueue("jobprobe.count", {"n": 3}, key="only-one") is not None  # free again
    with pytest.raises(ValueError, match="no job named 'jobprobe.unknown'"):
        control.jobs.enqueue("jobprobe.unknown")
    with pytest.raises(ValueError, match="periodic"):
        control.jobs.enqueue("jobprobe.tick")
    with pytest.raises(ValueError, match="larger than"):
        control.jobs.enqueue("jobprobe.count", {"text": "x" * 70_000})


def test_a_job_queued_in_a_rolled_back_transaction_never_runs(control):
    with pytest.raises(RuntimeError):
        with control.db.session(write=True) as session, session.begin():
            control.jobs.enqueue("jobprobe.count", {}, session=session)
            raise RuntimeError("the caller's write failed")
    control.jobs.run_due()
    assert runs(control, "end", "jobprobe.count") == []


def test_a_job_queued_for_later_waits_for_its_time(control):
    later = control.jobs.enqueue("jobprobe.count", {}, run_at=datetime.datetime.now(datetime.timezone.utc)
                                 + datetime.timedelta(hours=1))
    control.jobs.run_due()
    assert control.jobs.get(later)["state"] == "queued" and runs(control, "end") == []
    assert control.jobs.cancel(later) and control.jobs.get(later) is None


def test_a_failing_job_is_retried_then_marked_failed(make_app, probe):
    app = make_app(plugins=[probe], jobs={"poll_seconds": 1, "lease_seconds": 2, "max_attempts": 2})  # retry in 2 s
    job_id = app.jobs.enqueue("jobprobe.fail")
    app.jobs.run_due()
    assert app.jobs.get(job_id)["state"] == "queued" and app.jobs.get(job_id)["attempts"] == 1
    wait_until(lambda: app.jobs.run_due() and app.jobs.get(job_id)["state"] == "failed", timeout=10)
    failed = app.jobs.get(job_id)
    assert failed["attempts"] == 2 and failed["last_error"] == "RuntimeError: the probe fails on purpose"
    assert len(runs(app, "start", "jobprobe.fail")) == 2


@pytest.mark.parametrize("table, fragment", [({"lease_seconds": 0}, "lease_seconds"),
                                              ({"concurrency": "four"}, "concurrency"),
                                              ({"speed": 1}, "speed")])
def test_a_bad_jobs_setting_stops_the_start_naming_it(make_app, table, fragment):
    from host.config import ConfigError

    with pytest.raises(ConfigError, match=fragment):
        make_app(plugins=[], jobs=table)


def test_cli_lists_jobs_and_runs_the_due_ones_once(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/site.db"\n[mail]\neml_dir = "{tmp_path}/mail"\n')
    env = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    runner = CliRunner()
    assert runner.invoke(main, ["--config", str(config), "init"], env=env).exit_code == 0
    result = runner.invoke(main, ["--config", str(config), "jobs", "run"], env=env)
    assert result.exit_code == 0, result.output
    assert "job(s) run" in result.stdout and not result.stdout.startswith("0 ")
    assert runner.invoke(main, ["--config", str(config), "jobs", "run"], env=env).stdout.startswith("0 job(s)")
    result = runner.invoke(main, ["--config", str(config), "jobs", "run", "host.mail.deliver"], env=env)
    assert result.stdout.startswith("1 job(s) run"), result.output
    result = runner.invoke(main, ["--config", str(config), "jobs", "list"], env=env)
    assert result.exit_code == 0 and "host.mail.deliver" in result.stdout and "core.publish_scheduled" in result.stdout
    result = runner.invoke(main, ["--config", str(config), "jobs", "run", "no.such"], env=env)
    assert result.exit_code == 1 and "no periodic job named 'no.such'" in result.stderr


# --- served: several nodes on one database -----------------------------------------------

def test_two_nodes_run_each_queued_job_exactly_once(nodes, control):
    nodes.start("node-a")
    nodes.start("node-b")
    queued = [control.jobs.enqueue("jobprobe.count", {"n": number}) for number in range(40)]
    wait_until(lambda: len(runs(control, "end", "jobprobe.count")) >= 40)
    time.sleep(1.0)  # ten more polls of both nodes: nothing runs twice
    done = runs(control, "end", "jobprobe.count")
    assert sorted(row.job_id for row in done) == sorted(queued)
    assert all(control.jobs.get(job_id)["state"] == "done" for job_id in queued)


def test_a_long_job_keeps_its_lease_and_runs_once(nodes, control):
    """Six seconds with a two-second lease: the running node renews it, the other never takes the job."""
    nodes.start("node-a")
    nodes.start("node-b")
    job_id = control.jobs.enqueue("jobprobe.slow", {"seconds": 6})
    wait_until(lambda: runs(control, "end", "jobprobe.slow"), timeout=40)
    assert [(row.job_id, row.phase) for row in runs(control, job="jobprobe.slow")] == [(job_id, "start"),
                                                                                     (job_id, "end")]
    assert control.jobs.get(job_id)["attempts"] == 1


def test_a_killed_node_s_job_is_run_again_by_the_other_after_its_lease_expired(nodes, control):
    nodes.start("node-a")
    nodes.start("node-b")
    job_id = control.jobs.enqueue("jobprobe.slow", {"seconds": 8})
    first = wait_until(lambda: runs(control, "start", "jobprobe.slow"))[0]
    nodes.kill(first.node)
    held = control.jobs.get(job_id)
    assert held["state"] == "running" and held["holder"]
    lease_until = held["lease_until"]  # the last renewal of the killed node: nobody renews it any more
    second = wait_until(lambda: runs(control, "start", "jobprobe.slow")[1:], timeout=30)[0]
    assert second.node != first.node
    assert second.at >= lease_until  # taken over after the lease expired, not before
    wait_until(lambda: runs(control, "end", "jobprobe.slow"), timeout=40)
    assert [(row.node, row.phase) for row in runs(control, job="jobprobe.slow")] == [
        (first.node, "start"), (second.node, "start"), (second.node, "end")]
    # The probe writes its "end" row inside the job; the runner marks the job done just after: wait for that.
    finished = wait_until(lambda: (found := control.jobs.get(job_id))["state"] == "done" and found, timeout=10)
    assert finished["attempts"] == 2


def test_periodic_jobs_run_once_per_interval_across_nodes(nodes, control):
    nodes.start("node-a")
    nodes.start("node-b")
    wait_until(lambda: len(runs(control, "tick")) >= 4, timeout=30)
    ticks = [row.at for row in runs(control, "tick")]
    gaps = [(later - earlier).total_seconds() for earlier, later in zip(ticks, ticks[1:])]
    # each run is due one interval (2 s) after the previous one started: never two in one interval
    assert all(gap > 1.5 for gap in gaps), gaps


def test_one_server_with_two_workers_runs_each_job_once(nodes, control):
    nodes.start("node-a", workers=2)
    queued = [control.jobs.enqueue("jobprobe.count", {"n": number}) for number in range(20)]
    wait_until(lambda: len(runs(control, "end", "jobprobe.count")) >= 20)
    wait_until(lambda: len(runs(control, "tick")) >= 3, timeout=30)
    time.sleep(0.5)
    assert sorted(row.job_id for row in runs(control, "end", "jobprobe.count")) == sorted(queued)
    ticks = [row.at for row in runs(control, "tick")]
    assert all((later - earlier).total_seconds() > 1.5 for earlier, later in zip(ticks, ticks[1:]))


def test_mail_is_delivered_once_by_two_nodes_and_after_one_is_killed(tmp_path, control, smtp_server):
    started = Nodes(tmp_path, control.settings.database_url, FAST,
                    mail={"smtp_host": "127.0.0.1", "smtp_port": smtp_server.port, "poll_seconds": 1})
    try:
        started.start("node-a")
        started.start("node-b")
        for number in range(10):
            control.mail.send(Message(to=["office@school.test"], subject=f"before {number}", text="x"))
        smtp_server.wait_for(10, timeout=30)
        started.kill("node-a")
        for number in range(10):
            control.mail.send(Message(to=["office@school.test"], subject=f"after {number}", text="x"))
        smtp_server.wait_for(20, timeout=30)
        time.sleep(2.5)  # more passes of the surviving node: nothing is delivered twice
        subjects = sorted(message["Subject"] for message in smtp_server.messages)
        assert subjects == sorted([f"before {n}" for n in range(10)] + [f"after {n}" for n in range(10)])
    finally:
        output = started.stop_all()
    assert "Traceback" not in output, output
