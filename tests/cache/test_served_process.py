"""A real `sitehost serve`: invalidation reaches each of its workers; the service is known by its address."""

from __future__ import annotations

import os

from webtest import TestApp

from host.app import create_app
from host.config import Settings
from host.testing import client_as, create_test_user
from host.testing import stop_sitehost
from tests.helpers import FakeRemote
from tests.host.test_serve import fetch, start_server

from .helpers import NOTES


def test_a_write_in_this_process_invalidates_the_served_processs_cache(tmp_path, example_plugin):
    database = tmp_path / "site.db"
    config = tmp_path / "sitehost.toml"
    # Only the example plugin's notes and the cache matter here; the content plugin stays out of it.
    config.write_text(f'database_url = "sqlite:///{database}"\n[plugins]\ndisabled = ["core"]\n'
                      f'[plugins.cache]\npaths = ["{NOTES}"]\n')
    pythonpath = os.pathsep.join([str(example_plugin["site_packages"]), str(example_plugin["source"]),
                                  os.environ.get("PYTHONPATH", "")])
    process, rest = start_server(config, env={"PYTHONPATH": pythonpath})
    local = None
    try:
        local = create_app(Settings(database_url=f"sqlite:///{database}", only_plugins=["example", "cache"],
                                    uploads_dir=str(tmp_path / "uploads")))
        local.client = TestApp(local, extra_environ={"HTTP_HOST": "school.test"})
        editor = create_test_user(local, "editor")
        status, headers, before = fetch(rest + NOTES)
        assert (status, headers["X-Cache"]) == (200, "miss")
        # `serve` may run several worker processes, each with its own memory: ask until one hits.
        answers = [fetch(rest + NOTES) for _ in range(12)]
        assert any(headers["X-Cache"] == "hit" for _status, headers, _body in answers)
        assert all(body == before for _status, _headers, body in answers)
        client_as(local, editor).post_json("/wp-json" + NOTES, {"title": "Written elsewhere", "status": "publish"},
                                           status=201)
        status, headers, after = fetch(rest + NOTES)
        assert (status, headers["X-Cache"]) == (200, "miss")
        assert after[0]["title"] == "Written elsewhere"
        assert len(after) == len(before) + 1
        for _ in range(12):  # whichever worker answers, nobody serves the old list any more
            assert fetch(rest + NOTES)[2] == after
    finally:
        if local is not None:
            local.close()
        stop_sitehost(process)


def test_a_served_site_lets_in_the_service_by_the_address_it_connects_from(tmp_path):
    """Over a real socket the caller is the peer (127.0.0.1); with trust_proxy, the proxy's last hop."""
    remote = FakeRemote()
    config = tmp_path / "sitehost.toml"
    list_url = remote.serve("/ips", ["127.0.0.1", "203.0.113.9"], content_type="application/json")
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\ntrust_proxy = true\n'
                      f'[plugins.cache]\nservice_ips_url = "{list_url}"\nallow_private_targets = true\n')
    process, rest = start_server(config)
    try:
        status, _headers, body = fetch(rest + "/cache/v3/cdn_status", data=b"qc_activated=linked", method="POST")
        assert (status, body) == (200, {"qc_activated": "linked", "_res": "ok"})
        status, _headers, body = fetch(rest + "/cache/v3/cdn_status", data=b"", method="POST")
        assert (status, body) == (200, {"_res": "err", "_msg": "lack_of_params"})
        forwarded = {"X-Forwarded-For": "127.0.0.1, 198.51.100.1"}  # the proxy saw 198.51.100.1
        status, _headers, body = fetch(rest + "/cache/v3/ping", data=b"", headers=forwarded, method="POST")
        assert (status, body["code"]) == (401, "rest_forbidden")
        status, _headers, body = fetch(rest + "/cache/v3/ping", data=b"", method="POST",
                                       headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.9"})
        assert (status, body["_res"]) == (200, "ok")
        assert remote.hits["/ips"] == 1
    finally:
        stop_sitehost(process)
        remote.stop()
