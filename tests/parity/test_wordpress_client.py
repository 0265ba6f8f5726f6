"""Existing WordPress REST clients, unmodified, work against sitehost (issues 15 and 40).

node-wpapi (npm `wpapi`) and `@wordpress/api-fetch`, pinned in wordpress_client/package-lock.json
and installed by `.ci/run` (`npm ci`), drive one real `sitehost serve` process:

- wpapi finds the REST root through the `Link: <...>; rel="https://api.w.org/"` header, builds
  its route handlers from the root index, pages through posts with X-WP-Total, X-WP-TotalPages
  and the `next` links, creates, updates and force-deletes a post with an application password
  over HTTP Basic, and reads the calendar's `events.ics` feed through the handler it built from
  the discovered route (a literal dot in a route must not make it throw `Invalid path component`).
- api-fetch, set up as the block editor sets it up (root-URL and nonce middlewares), pages
  through posts with `_fields` by hand and with its fetch-all middleware (per_page=-1 follows
  the `Link: rel="next"` headers), and creates a post with an application password.

The only change from a WordPress site is the namespace name (`core/v2`). Without Node.js and npm
the test skips, loudly; `.ci/run` warns about it too.
"""

from __future__ import annotations

import datetime
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from tests.reliability.servers import Server, prepare_site, throwaway_database

CLIENT = Path(__file__).parent / "wordpress_client"
TITLES = ["Sports day", "Winter concert", "Open evening", "Science fair", "Book week"]
EVENT = "Parents' evening"
# api-fetch's nonce middleware sends this as X-WP-Nonce, as wpApiSettings.nonce on a WordPress page.
# sitehost authenticates REST calls by application password only, so a nonce never signs anyone in.
NONCE = "0123456789"


def _node_and_npm() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not (node and npm):
        pytest.skip("!!! SKIPPED: the WordPress JavaScript client tests need Node.js and npm "
                    "(Debian: apt-get install nodejs npm); .ci/run installs the clients with `npm ci`")
    return node, npm


def _installed_clients(npm: str) -> Path:
    """The pinned clients: installed by .ci/run; installed here the same way on a developer's checkout."""
    if not (CLIENT / "node_modules" / "wpapi").is_dir() or not (CLIENT / "node_modules" / "@wordpress/api-fetch").is_dir():
        installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, capture_output=True, text=True,
                                   timeout=300)
        assert installed.returncode == 0, installed.stderr[-2000:]
    return CLIENT


def _run(node: str, script: str, *args: str) -> dict:
    result = subprocess.run([node, script, *args], cwd=CLIENT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{script}: {result.stderr[-3000:]}"
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One real server with five posts and one upcoming event, and its administrator."""
    folder = tmp_path_factory.mktemp("wordpress-clients")
    with throwaway_database("sqlite", folder) as url:
        admin = prepare_site(url, folder)["administrator"]
        server = Server(folder / "server", url).start()
        try:
            auth = {"Authorization": admin.authorization}
            for title in TITLES:
                requests.post(f"{server.url}/wp-json/core/v2/posts", json={"title": title, "status": "publish"},
                              headers=auth, timeout=30).raise_for_status()
            start = (datetime.datetime.now() + datetime.timedelta(days=7)).replace(hour=18, minute=0, second=0)
            requests.post(f"{server.url}/wp-json/cal/events/v1/events", headers=auth, timeout=30, json={
                "title": EVENT, "status": "publish", "start_date": start.strftime("%Y-%m-%d %H:%M:%S"),
                "end_date": (start + datetime.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S")}).raise_for_status()
            yield server, admin
        finally:
            server.stop()


def _published(server) -> list[str]:
    posts = requests.get(f"{server.url}/wp-json/core/v2/posts?per_page=100", timeout=30).json()
    return [post["title"]["rendered"] for post in posts]  # the demo posts `serve` writes, and ours


def test_node_wpapi_discovers_the_site_pages_through_posts_writes_them_and_reads_the_feed(served):
    node, npm = _node_and_npm()
    _installed_clients(npm)
    server, admin = served
    before = _published(server)
    report = _run(node, "client.js", server.url, admin.login, admin.app_password)

    assert set(TITLES) <= set(before)
    assert report["paging"] == {"total": len(before), "totalPages": -(-len(before) // 2)}
    assert report["pages"] == report["paging"]["totalPages"]
    assert report["titles"] == before  # every page, in order, nothing twice
    assert report["updatedTitle"] == "Changed by wpapi" and report["fetchedTitle"] == "Changed by wpapi"
    assert report["deleted"] is True and report["gone"] == "rest_post_invalid_id"
    assert _published(server) == before
    assert report["feedUrl"] == f"{server.url}/wp-json/cal/events/v1/events.ics"
    assert report["feedStatus"] == 200 and report["feedType"].startswith("text/calendar")
    assert report["feed"].startswith("BEGIN:VCALENDAR") and f"SUMMARY:{EVENT}" in report["feed"].replace("\\'", "'")


def test_wordpress_api_fetch_pages_through_fields_and_writes_with_an_application_password(served):
    node, npm = _node_and_npm()
    _installed_clients(npm)
    server, admin = served
    before = _published(server)
    report = _run(node, "apifetch.js", f"{server.url}/wp-json/", admin.login, admin.app_password, NONCE)

    assert report["total"] == len(before) and report["totalPages"] == -(-len(before) // 2)
    assert [post["title"] for page in report["pages"] for post in page] == before
    assert all(post["keys"] == ["id", "title"] for page in report["pages"] for post in page)
    assert report["everything"] == before and report["everythingKeys"] == ["id", "title"]
    assert report["createdTitle"] == "Made by api-fetch"
    assert report["read"] == {"keys": ["id", "title"], "title": "Made by api-fetch"}
    assert report["refused"] == "rest_cannot_create"
    assert _published(server) == ["Made by api-fetch", *before]
