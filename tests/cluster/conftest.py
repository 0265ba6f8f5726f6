"""The cluster of tests/cluster/: one PostgreSQL schema, three nodes, nginx, an SMTP sink, for a whole module."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest

from host.testing import ReceivedMail, create_test_user

from .harness import BALANCER_ADDRESS, MAIL, SIGN_IN_LIMITS, Balancer, Node, nginx_binary

ON_POSTGRES = os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql")
WITNESS_SOURCE = Path(__file__).parent / "witness"
SCHEDULED_AHEAD = datetime.timedelta(seconds=62)  # core publishes at once what is due within 60 s


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/cluster/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.cluster)
            if not ON_POSTGRES:
                item.add_marker(pytest.mark.skip(reason="cluster tests need PostgreSQL (SITEHOST_TEST_DATABASE_URL): "
                                                        "several nodes never share an SQLite file"))
            elif nginx_binary() is None:
                item.add_marker(pytest.mark.skip(reason="nginx is not installed (.ci/run installs Debian's nginx)"))


@pytest.fixture(scope="module")
def sink():
    """An aiosmtpd SMTP server on 127.0.0.1 for the whole module (host.testing's smtp_server is per test)."""
    from aiosmtpd.controller import Controller

    from .harness import free_port

    received = ReceivedMail("127.0.0.1", free_port())

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            received.add(envelope)
            return "250 Message accepted for delivery"

    controller = Controller(Handler(), hostname="127.0.0.1", port=received.port)
    controller.start()
    yield received
    controller.stop()


class Cluster:
    def __init__(self, app, nodes, balancer, sink, admin, storage):
        self.app = app  # an in-process App on the same database: seeding and reading what the nodes wrote
        self.nodes = nodes
        self.balancer = balancer
        self.sink = sink
        self.admin = admin
        self.storage = storage  # the nodes' [storage] table: S3 on moto's server, or None (each node's disk)
        self.scheduled_post = 0  # a post scheduled a minute ahead when the cluster started

    def logs(self) -> str:
        return "\n".join(f"--- node {index} ---\n{node.log()[-4000:]}" for index, node in enumerate(self.nodes))


def node_config(url: str, site_url: str, sink: ReceivedMail, storage: dict | None) -> str:
    lines = [f"database_url = {json.dumps(url)}", 'uploads_dir = "uploads"',
             f"trusted_proxies = [{json.dumps(BALANCER_ADDRESS)}]",
             "", "[site]", f"url = {json.dumps(site_url)}",
             # The workload's clients all reach nginx from 127.0.0.1: the per-address limits of comments
             # and forms (a flood guard, not what is tested here) would refuse most of it.
             "comment_flood = 0",
             "", "[mail]", 'smtp_host = "127.0.0.1"', f"smtp_port = {sink.port}", 'eml_dir = "mail"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in MAIL.items()]
    lines += ["", "[auth]"] + [f"{key} = {json.dumps(value)}" for key, value in SIGN_IN_LIMITS.items()]
    lines += ["", "[plugins.forms]", "submissions_per_minute = 0"]
    # Scheduled backups: due at once on a new site, then hourly; three nodes starting (and one restarting)
    # must make exactly one.
    lines += ["", "[plugins.backup]", 'schedule = "every 1 hours"']
    if storage:
        lines += ["", "[storage]"] + [f"{key} = {json.dumps(value)}" for key, value in storage.items()]
    return "\n".join(lines) + "\n"


def object_storage(request) -> dict | None:
    """A `[storage]` table on a new bucket of moto's S3 server (host.testing's s3_server), where the
    host has an S3 backend; None before it has (uploads then stay on each node's disk)."""
    try:
        server = request.getfixturevalue("s3_server")
    except pytest.FixtureLookupError:
        return None
    return server.storage_settings()


def witness_path(root) -> str:
    """PYTHONPATH entries that install tests/cluster/witness as the entry-point plugin `witness`."""
    from tests.helpers import install_entry_point_plugin

    site = root / "witness-site"
    install_entry_point_plugin(site, "sitehost-witness", "1.0", "witness", "sitehost_witness")
    return os.pathsep.join([str(site), str(WITNESS_SOURCE)])


@pytest.fixture(scope="module")
def cluster(request, make_module_app, sink, tmp_path_factory):
    from concurrent.futures import ThreadPoolExecutor

    storage = object_storage(request)
    app = make_module_app(mail={"smtp_host": "127.0.0.1", "smtp_port": sink.port, **MAIL},
                          extra={"auth": SIGN_IN_LIMITS, "trusted_proxies": [BALANCER_ADDRESS]},
                          **({"storage": storage} if storage else {}))
    admin = create_test_user(app, "administrator")
    due = datetime.datetime.now(datetime.timezone.utc) + SCHEDULED_AHEAD
    scheduled_post = app.client.post_json("/wp-json/core/v2/posts", {
        "title": "Term dates", "status": "future", "date_gmt": due.strftime("%Y-%m-%dT%H:%M:%S")},
        headers=admin.headers, status=201).json
    assert scheduled_post["status"] == "future"
    url = app.db.url.render_as_string(hide_password=False)
    root = tmp_path_factory.mktemp("cluster")
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [witness_path(root), env.get("PYTHONPATH", "")]))
    # The balancer's port is known before the nodes start: it is the site's address.
    nodes = [Node(root / f"node{number}", "", env) for number in range(3)]
    balancer = Balancer(root / "nginx", nodes)
    for node in nodes:
        node.config.write_text(node_config(url, balancer.url, sink, storage))
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(Node.start, nodes))
    balancer.start()
    cluster = Cluster(app, nodes, balancer, sink, admin, storage)
    cluster.scheduled_post = scheduled_post["id"]
    try:
        yield cluster
    finally:
        balancer.stop()
        for node in nodes:
            node.stop()
