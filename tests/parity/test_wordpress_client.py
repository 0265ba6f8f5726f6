"""An existing WordPress REST client, unmodified, works against sitehost (issue 15).

node-wpapi (npm `wpapi`, pinned in wordpress_client/package-lock.json) is pointed at the site's
root URL: it finds the REST root through the `Link: <...>; rel="https://api.w.org/"` header,
builds its route handlers from the root index, pages through posts with the X-WP-Total and
X-WP-TotalPages headers and the `next` links, and creates, updates and force-deletes a post
with an application password over HTTP Basic. The only change from a WordPress site is the
namespace name (`core/v2`). The server is a real `sitehost serve` process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import requests

from tests.reliability.servers import Server, prepare_site, throwaway_database

CLIENT = Path(__file__).parent / "wordpress_client"
TITLES = ["Sports day", "Winter concert", "Open evening", "Science fair", "Book week"]


def test_node_wpapi_discovers_the_site_pages_through_posts_and_writes_them(tmp_path):
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "this test needs Node.js and npm (Debian: apt-get install nodejs npm)"
    work = tmp_path / "client"
    shutil.copytree(CLIENT, work, ignore=shutil.ignore_patterns("node_modules"))
    installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, capture_output=True, text=True,
                               timeout=300)
    assert installed.returncode == 0, installed.stderr[-2000:]

    with throwaway_database("sqlite", tmp_path) as url:
        admin = prepare_site(url, tmp_path)["administrator"]
        server = Server(tmp_path / "server", url).start()
        try:
            for title in TITLES:
                requests.post(f"{server.url}/wp-json/core/v2/posts", json={"title": title, "status": "publish"},
                              headers={"Authorization": admin.authorization}, timeout=30).raise_for_status()
            before = requests.get(f"{server.url}/wp-json/core/v2/posts?per_page=100", timeout=30).json()
            result = subprocess.run([node, "client.js", server.url, admin.login, admin.app_password], cwd=work,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, result.stderr[-3000:] + server.log()[-2000:]
            report = json.loads(result.stdout)
            remaining = requests.get(f"{server.url}/wp-json/core/v2/posts", timeout=30)
        finally:
            server.stop()

    published = [post["title"]["rendered"] for post in before]  # the demo posts `serve` writes, and ours
    assert set(TITLES) <= set(published)
    assert report["paging"] == {"total": len(published), "totalPages": -(-len(published) // 2)}
    assert report["pages"] == report["paging"]["totalPages"]
    assert report["titles"] == published  # every page, in order, nothing twice
    assert report["updatedTitle"] == "Changed by wpapi" and report["fetchedTitle"] == "Changed by wpapi"
    assert report["deleted"] is True and report["gone"] == "rest_post_invalid_id"
    assert [post["title"]["rendered"] for post in remaining.json()] == published[:10]
