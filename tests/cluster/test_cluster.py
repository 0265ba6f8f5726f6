"""Three nodes behind nginx on one PostgreSQL database: coherence, sign-in limits, the plugin
set, and a mixed workload while one node is SIGKILLed and restarted.

PostgreSQL and nginx only (tests/cluster/conftest.py skips otherwise, saying why); everything on
loopback; every wait is bounded.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import func, select

from host.testing import basic_auth_headers, create_test_user

from .harness import BALANCER_ADDRESS, FIGURES_PROPERTY, SIGN_IN_LIMITS, TIMEOUT, session

REST = "/wp-json"
RUN: dict = {}  # what the workload test saw, for the tests after it
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def wait_until(condition, timeout: float, step: float = 0.05):
    """Poll `condition()` until it is truthy (its value) or `timeout` s pass (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def test_every_node_is_healthy_and_the_balancer_spreads_requests(cluster):
    client = session()
    for node in cluster.nodes:
        answer = client.get(node.url + "/-/health", timeout=TIMEOUT)
        assert (answer.status_code, answer.text, answer.headers["Cache-Control"]) == (200, "ok\n", "no-store")
    through = client.get(cluster.balancer.url + "/-/health", timeout=TIMEOUT)
    assert (through.status_code, through.text) == (200, "ok\n")
    root = client.get(cluster.balancer.url + REST + "/", timeout=TIMEOUT).json()
    assert root["url"] == cluster.balancer.url  # the site address every node was given


def test_a_write_through_one_node_is_seen_at_once_through_the_others_cached_or_not(cluster):
    a, b, c = cluster.nodes
    client = session()
    listing = f"{REST}/core/v2/posts?per_page=5&orderby=id&order=desc"
    for node in (b, c):  # the anonymous list is in each node's response cache before the write
        # (a write elsewhere, such as the scheduled post going live, empties the caches: ask again)
        assert wait_until(lambda node=node: client.get(node.url + listing, timeout=TIMEOUT).headers.get("X-Cache")
                          == "hit",
                          timeout=10)
    created = client.post(a.url + REST + "/core/v2/posts", json={"title": "Sports day moved", "status": "publish"},
                          headers=cluster.admin.headers, timeout=TIMEOUT)
    assert created.status_code == 201, created.text
    number = created.json()["id"]
    for node in (b, c):
        cached = client.get(node.url + listing, timeout=TIMEOUT)
        assert cached.status_code == 200 and cached.json()[0]["id"] == number
        single = client.get(f"{node.url}{REST}/core/v2/posts/{number}", timeout=TIMEOUT)
        assert single.json()["title"]["rendered"] == "Sports day moved"
        uncached = client.get(f"{node.url}{REST}/core/v2/posts/{number}?context=edit", headers=cluster.admin.headers,
                              timeout=TIMEOUT)
        assert uncached.json()["title"]["raw"] == "Sports day moved"
    changed = client.post(f"{b.url}{REST}/core/v2/posts/{number}", json={"title": "Sports day: Friday"},
                          headers=cluster.admin.headers, timeout=TIMEOUT)
    assert changed.status_code == 200
    for node in (a, c):
        assert client.get(node.url + listing, timeout=TIMEOUT).json()[0]["title"]["rendered"] == "Sports day: Friday"


def test_sign_in_failures_spread_over_three_nodes_lock_as_on_one(cluster):
    victim = create_test_user(cluster.app, "editor")
    wrong = basic_auth_headers(victim.login, "not the password")
    me = REST + "/core/v2/users/me"
    # As the balancer forwards one client, each failure reaches the next node.
    balancer_side = session(BALANCER_ADDRESS)
    forwarded = {"X-Forwarded-For": "203.0.113.60"}
    limit = SIGN_IN_LIMITS["max_failures"]
    for attempt in range(limit):
        node = cluster.nodes[attempt % 3]
        answer = balancer_side.get(node.url + me, headers={**wrong, **forwarded}, timeout=TIMEOUT)
        assert answer.status_code == 401, answer.text
    for node in cluster.nodes:  # locked everywhere, the right password included
        refused = balancer_side.get(node.url + me, headers={**victim.headers, **forwarded}, timeout=TIMEOUT)
        assert (refused.status_code, refused.json()["code"]) == (429, "too_many_sign_in_attempts")
    # Through nginx itself: a client at 127.0.0.3 fails on whichever nodes round robin picks, and is
    # locked out as on one node; the account's owner at 127.0.0.4 still gets in.
    other = create_test_user(cluster.app, "author")
    attacker, owner = session("127.0.0.3"), session("127.0.0.4")
    statuses = [attacker.get(cluster.balancer.url + me, headers=basic_auth_headers(other.login, "guess"),
                             timeout=TIMEOUT).status_code for _attempt in range(limit)]
    assert statuses == [401] * limit
    for _node in cluster.nodes:
        assert attacker.get(cluster.balancer.url + me, headers=other.headers, timeout=TIMEOUT).status_code == 429
        assert owner.get(cluster.balancer.url + me, headers=other.headers, timeout=TIMEOUT).json()["id"] == other.id


def admin_client(node, user):
    """A browser signed in to `node`'s admin area with the login password."""
    client = session()
    page = client.get(node.url + "/admin/sign-in", timeout=TIMEOUT)
    form = BeautifulSoup(page.text, "html.parser").find("form")
    fields = {field["name"]: field.get("value", "") for field in form.find_all("input") if field.get("name")}
    fields.update(log=user.login, pwd=user.password)
    answer = client.post(node.url + "/admin/sign-in", data=fields, allow_redirects=False, timeout=TIMEOUT)
    assert answer.status_code == 303, answer.text
    return client


def plugin_form(client, node, action: str, plugin: str) -> dict:
    page = BeautifulSoup(client.get(node.url + "/admin/plugins", timeout=TIMEOUT).text, "html.parser")
    for form in page.find_all("form"):
        fields = {field["name"]: field.get("value", "") for field in form.find_all(["input", "button"])
                  if field.get("name")}
        if fields.get("action") == action and fields.get("plugin") == plugin:
            return fields
    raise AssertionError(f"no {action} form for {plugin}")


def namespaces(node) -> list[str]:
    return session().get(node.url + REST + "/", timeout=TIMEOUT).json()["namespaces"]


def answers_oembed(node) -> int:
    return session().get(node.url + REST + "/oembed/1.0", timeout=TIMEOUT).status_code


def test_a_plugin_disabled_through_one_node_leaves_every_node_within_two_seconds(cluster):
    a = cluster.nodes[0]
    admin = admin_client(a, cluster.admin)
    assert all("oembed/1.0" in namespaces(node) for node in cluster.nodes)
    answer = admin.post(a.url + "/admin/plugins", data=plugin_form(admin, a, "disable", "oembed"), timeout=TIMEOUT)
    assert answer.status_code == 200 and "oembed</strong> disabled" in answer.text
    # Each node in turn until its namespace answers rest_no_route; the two seconds count from the answer.
    gone = wait_until(lambda: all(answers_oembed(node) == 404 for node in cluster.nodes), timeout=2)
    left = {index: answers_oembed(node) for index, node in enumerate(cluster.nodes)}
    assert all("oembed/1.0" not in namespaces(node) for node in cluster.nodes)
    answer = admin.post(a.url + "/admin/plugins", data=plugin_form(admin, a, "enable", "oembed"), timeout=TIMEOUT)
    assert answer.status_code == 200
    back = wait_until(lambda: all("oembed/1.0" in namespaces(node) for node in cluster.nodes), timeout=60)
    assert gone, f"still serving oembed two seconds after it was disabled: {left}"
    assert back


# --- the mixed workload -----------------------------------------------------------------------------

class Workload:
    """Requests through the balancer from several threads; what was acknowledged, by kind."""

    def __init__(self, cluster, form_id: int, newsletter_form: int, post_id: int):
        self.cluster = cluster
        self.base = cluster.balancer.url
        self.form_id = form_id
        self.newsletter_form = newsletter_form
        self.post_id = post_id
        self.lock = threading.Lock()
        self.requests = 0
        self.failed: list[str] = []  # answers that were not a success (a killed node's requests in flight)
        self.acknowledged: dict[str, list] = {"posts": [], "comments": [], "forms": [], "signups": [], "media": []}

    def count(self, kind: str | None = None, value=None, failure: str | None = None) -> None:
        with self.lock:
            self.requests += 1
            if kind is not None:
                self.acknowledged[kind].append(value)
            if failure is not None:
                self.failed.append(failure)

    def run_one(self, client, index: int) -> None:
        kind = ("read", "post", "comment", "form", "signup", "read", "upload")[index % 7]
        tag = uuid.uuid4().hex[:10]
        try:
            if kind == "read":
                answer = client.get(f"{self.base}{REST}/core/v2/posts?per_page=3&page={1 + index % 3}", timeout=TIMEOUT)
                self.count(failure=None if answer.status_code == 200 else f"read {answer.status_code}")
            elif kind == "post":
                answer = client.post(f"{self.base}{REST}/core/v2/posts", json={"title": f"News {tag}",
                                                                               "status": "publish"},
                                     headers=self.cluster.admin.headers, timeout=TIMEOUT)
                ok = answer.status_code == 201
                self.count("posts" if ok else None, answer.json()["id"] if ok else None,
                           None if ok else f"post {answer.status_code}")
            elif kind == "comment":
                answer = client.post(f"{self.base}{REST}/core/v2/comments", json={
                    "post": self.post_id, "author_name": "Parent", "author_email": f"{tag}@example.org",
                    "content": f"Thank you {tag}"}, timeout=TIMEOUT)
                ok = answer.status_code == 201
                self.count("comments" if ok else None, answer.json()["id"] if ok else None,
                           None if ok else f"comment {answer.status_code}")
            elif kind == "form":
                answer = client.post(f"{self.base}{REST}/forms/v1/contact-forms/{self.form_id}/feedback", files={
                    "_forms": (None, str(self.form_id)), "_forms_version": (None, "1.0.0"),
                    "_forms_locale": (None, "en_US"), "_forms_unit_tag": (None, f"forms-f{self.form_id}-p0-o1"),
                    "_forms_container_post": (None, "0"), "your-name": (None, f"Sam {tag}"),
                    "your-email": (None, f"{tag}@example.org"), "your-message": (None, "Bus on Friday?")},
                    headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"}, timeout=TIMEOUT)
                ok = answer.status_code == 200 and answer.json().get("status") == "mail_sent"
                self.count("forms" if ok else None, tag, None if ok else f"form {answer.status_code}")
            elif kind == "signup":
                answer = client.post(f"{self.base}{REST}/newsletter/v1/form", data={
                    "_newsletter_form_id": self.newsletter_form, "_newsletter_honeypot": "",
                    "_newsletter_timestamp": str(int(time.time()) - 10), "EMAIL": f"{tag}@example.org"},
                    timeout=TIMEOUT)
                ok = answer.status_code == 200 and answer.json() is True
                self.count("signups" if ok else None, f"{tag}@example.org",
                           None if ok else f"signup {answer.status_code}")
            else:
                answer = client.post(f"{self.base}{REST}/core/v2/media", data=PNG, headers={
                    **self.cluster.admin.headers, "Content-Type": "image/png",
                    "Content-Disposition": f'attachment; filename="photo-{tag}.png"'}, timeout=TIMEOUT)
                ok = answer.status_code == 201
                self.count("media" if ok else None, answer.json()["source_url"] if ok else None,
                           None if ok else f"upload {answer.status_code}")
        except (ValueError, OSError) as error:  # a connection cut while a node died: not acknowledged
            self.count(failure=f"{kind} {type(error).__name__}")


def outbox_rows(app) -> dict[str, int]:
    table = app.db.metadata.tables["mail_outbox"]
    with app.db.session() as session_:
        return dict(session_.execute(select(table.c.status, func.count()).group_by(table.c.status)).all())


def ids_present(app, table_name: str, ids: list[int]) -> set[int]:
    table = app.db.metadata.tables[table_name]
    with app.db.session() as session_:
        return set(session_.execute(select(table.c.id).where(table.c.id.in_(ids))).scalars())


def test_a_mixed_workload_survives_a_node_killed_and_restarted(cluster, record_property):
    from tests.forms.helpers import SIMPLE_FORM

    app, admin = cluster.app, cluster.admin
    editor = app.client  # in-process, same database: the site's content is made before the workload
    form = editor.post_json(REST + "/forms/v1/contact-forms", {
        "title": "Enquiry", "form": SIMPLE_FORM,
        "mail": {"recipient": "office@school.test", "sender": "Riverside <noreply@school.test>",
                 "subject": "Enquiry from [your-name]", "body": "From: [your-name] <[your-email]>\n\n[your-message]"}},
        headers=admin.headers).json["id"]
    school = editor.post_json(REST + "/newsletter/v1/lists", {"name": "Cluster families"}, headers=admin.headers,
                              status=201).json["id"]
    newsletter_form = editor.post_json(REST + "/newsletter/v1/forms", {"title": "Family", "lists": [school]},
                                       headers=admin.headers, status=201).json["id"]
    post = editor.post_json(REST + "/core/v2/posts", {"title": "Open day", "status": "publish"},
                            headers=admin.headers, status=201).json["id"]

    mails_before = len(cluster.sink.messages)
    outbox_before = sum(outbox_rows(app).values())

    workload = Workload(cluster, form, newsletter_form, post)
    victim = cluster.nodes[1]
    per_thread, threads = 28, 4
    restarted = threading.Event()

    def worker(number: int) -> None:
        client = session()
        index = number
        while index < per_thread * threads * 3:  # a bound: the run ends once the victim is back
            workload.run_one(client, index)
            index += threads
            if index >= per_thread * threads and restarted.is_set():
                return

    def chaos() -> None:
        wait_until(lambda: workload.requests >= per_thread * threads // 3, timeout=120)
        victim.kill()
        wait_until(lambda: workload.requests >= per_thread * threads * 2 // 3, timeout=120)
        victim.start()
        restarted.set()

    with ThreadPoolExecutor(threads + 1) as pool:
        chaos_run = pool.submit(chaos)
        runs = [pool.submit(worker, number) for number in range(threads)]
        for run in runs:
            run.result(timeout=300)
        chaos_run.result(timeout=300)

    acknowledged = workload.acknowledged
    # Every acknowledged write is there.
    found_posts = ids_present(app, "posts", acknowledged["posts"])
    found_comments = ids_present(app, "comments", acknowledged["comments"])
    subscribers = app.db.metadata.tables["newsletter_subscribers"]
    with app.db.session() as session_:
        found_signups = set(session_.execute(select(subscribers.c.email).where(
            subscribers.c.email.in_(acknowledged["signups"]))).scalars())
    # Every queued mail is delivered exactly once (rows of the outbox: acknowledged ones and any a killed
    # node committed before it could answer).
    def all_sent():
        rows = outbox_rows(app)
        return set(rows) <= {"sent", "failed"} and \
            len(cluster.sink.messages) - mails_before >= sum(rows.values()) - outbox_before

    delivered = wait_until(all_sent, timeout=90, step=0.5)
    rows = outbox_rows(app)
    queued = sum(rows.values()) - outbox_before
    received = cluster.sink.messages[mails_before:]
    message_ids = [message["Message-ID"] for message in received]
    writes = sum(len(values) for values in acknowledged.values())
    found = len(found_posts) + len(found_comments) + len(found_signups) + len(acknowledged["forms"])
    # The uploads, read through every node.
    readable = {(url, node.port): session().get(url.replace(cluster.balancer.url, node.url), timeout=TIMEOUT).content
                == PNG for url in acknowledged["media"] for node in cluster.nodes}
    figures = (f"cluster workload: {workload.requests} requests through nginx, {len(workload.failed)} not acknowledged "
          f"({', '.join(sorted(set(workload.failed))) or 'none'}); writes acknowledged {writes}, found "
          f"{found + len(acknowledged['media'])}; uploads {len(acknowledged['media'])}, readable through every node "
          f"{sum(readable.values())}/{len(readable)}; mails queued {queued}, received {len(received)}, "
          f"distinct {len(set(message_ids))}")
    print("\n" + figures)
    record_property(FIGURES_PROPERTY, figures)  # tests/conftest.py prints it in the run's summary, xdist or not

    assert found_posts == set(acknowledged["posts"]) and found_comments == set(acknowledged["comments"])
    assert found_signups == set(acknowledged["signups"])
    assert acknowledged["posts"] and acknowledged["comments"] and acknowledged["forms"] and acknowledged["signups"]
    assert delivered, f"mail not all delivered: outbox {rows}, received {len(received)}\n{cluster.logs()}"
    assert len(received) == queued == len(set(message_ids))
    assert queued >= len(acknowledged["forms"]) + len(acknowledged["signups"])
    assert rows.get("failed", 0) == 0
    subjects = [message["Subject"] for message in received]
    for tag in acknowledged["forms"]:
        assert subjects.count(f"Enquiry from Sam {tag}") == 1
    assert victim.process.poll() is None  # the restarted node serves again
    assert session().get(victim.url + "/-/health", timeout=TIMEOUT).status_code == 200
    RUN.update(readable=readable)


def backup_rows(app) -> list[tuple[str, str]]:
    jobs = app.db.metadata.tables["backup_jobs"]
    with app.db.session() as session_:
        return session_.execute(select(jobs.c.trigger, jobs.c.status).where(jobs.c.trigger == "schedule")).all()


def test_the_scheduled_backup_ran_once_across_the_nodes(cluster):
    """Due at once on the new site; three nodes started together and one restarted: one backup."""
    done = wait_until(lambda: [row for row in backup_rows(cluster.app) if row[1] != "running"], timeout=90, step=0.5)
    assert done, cluster.logs()
    assert backup_rows(cluster.app) == [("schedule", "done")]


def test_the_post_scheduled_during_the_run_went_live_once(cluster):
    """Scheduled a minute ahead when the cluster started (the shortest schedule: a date less than 60 s
    ahead publishes at once, as WordPress does), so its time comes during the workload."""
    number = cluster.scheduled_post
    posts = cluster.app.db.metadata.tables["posts"]

    def stored_status():
        with cluster.app.db.session() as session_:
            return session_.execute(select(posts.c.status).where(posts.c.id == number)).scalar()

    def live_everywhere():
        return all(session().get(f"{node.url}{REST}/core/v2/posts/{number}", timeout=TIMEOUT).status_code == 200
                   for node in cluster.nodes)

    assert wait_until(live_everywhere, timeout=60, step=0.5)  # anonymous readers see it on every node
    if not hasattr(type(cluster.app), "jobs"):
        pytest.skip("no background job turns a due post's stored status to publish before app.jobs (branch jobs)")
    assert wait_until(lambda: stored_status() == "publish", timeout=60, step=0.5), cluster.logs()
    with cluster.app.db.engine.connect() as connection:
        events = connection.exec_driver_sql(
            "SELECT status, created FROM witness_saved WHERE item = %(item)s AND type = 'post'",
            {"item": number}).all()
        everything = connection.exec_driver_sql("SELECT item, type, status, created FROM witness_saved").all()
    assert sorted(events) == [("publish", False)], ([row for row in everything if row[0] == number],
                                                    [line for node in cluster.nodes for line in node.log().splitlines()
                                                     if "WARNING" in line or "ERROR" in line or "Error" in line
                                                     or "File " in line])


def test_every_upload_is_readable_through_every_node(cluster):
    if "readable" not in RUN:
        pytest.skip("the workload test did not run")
    if cluster.storage is None:
        pytest.skip("uploads are on each node's own disk until host.storage's S3 backend (branch storage) is here")
    readable = RUN["readable"]
    assert readable and all(readable.values()), [key for key, ok in readable.items() if not ok]
