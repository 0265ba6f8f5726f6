"""Old links answered 301 by a real `sitehost serve` (followed over real HTTP), everything else unchanged;
and an import killed with SIGKILL half-way that a second run completes without duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from host.testing import create_test_user, start_sitehost, stop_sitehost

from .generate import write_wxr
from .helpers import SITE_FILE, UPLOADS, count_rows, run_import, write_config


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, method: str = "GET", headers: dict | None = None):
    """(status, headers, body) of a request that does not follow redirects."""
    opener = urllib.request.build_opener(NoRedirects)
    try:
        with opener.open(urllib.request.Request(url, method=method, headers=headers or {}), timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.fixture(scope="module")
def served(make_module_app, tmp_path_factory):
    app = make_module_app(plugins=["core", "wordpress_migrate"], site={"timezone_string": "Europe/London"})
    admin = create_test_user(app, "administrator")
    # ids 1 to 21 are this site's own: the export's post 20 and 21 get new ids
    own = [app.client.post_json("/wp-json/core/v2/posts", {"title": f"Our news {number}", "status": "publish"},
                                headers=admin.headers).json["id"] for number in range(21)]
    folder = tmp_path_factory.mktemp("wxr-served")
    config = write_config(app, folder)
    assert run_import(config, str(SITE_FILE), "--uploads", str(UPLOADS)).exit_code == 0
    process, rest_url = start_sitehost(config, "--quiet")
    base = rest_url.removesuffix("/wp-json")
    yield app, admin, own, base
    stop_sitehost(process)


def moved_to(base: str, path: str) -> str:
    status, headers, _body = fetch(base + path)
    assert status == 301, (path, status)
    location = headers["Location"]
    assert location.startswith("http://school.test/")  # the site's recorded address
    return location.removeprefix("http://school.test")


def new_id_of(base: str, search: str) -> int:
    status, _headers, body = fetch(base + "/wp-json/core/v2/posts?search=" + urllib.parse.quote(search))
    assert status == 200
    return json.loads(body)[0]["id"]


def test_old_permalinks_redirect_to_the_new_items(served):
    app, admin, own, base = served
    welcome = new_id_of(base, "spring term")
    assert welcome not in own
    assert moved_to(base, "/2025/01/welcome-back/") == f"/?p={welcome}"
    assert moved_to(base, "/2025/01/welcome-back") == f"/?p={welcome}"
    status, _headers, body = fetch(base + f"/?p={welcome}")
    assert status == 200 and b"Welcome back to the spring term" in body
    assert moved_to(base, "/about/our-staff/teaching-team/").startswith("/?page_id=")
    # old page 12's id is this site's: the page has a new one, and its old path leads there
    admissions = moved_to(base, "/admissions/")
    assert admissions.startswith("/?page_id=") and admissions != "/?page_id=12"
    status, _headers, body = fetch(base + admissions)
    assert status == 200 and b"Applications for Reception close" in body


def test_attachment_urls_redirect_to_the_files(served):
    _app, _admin, _own, base = served
    target = moved_to(base, "/wp-content/uploads/2025/01/logo.png")
    assert target == "/uploads/2025/01/logo.png"
    status, headers, body = fetch(base + target)
    assert status == 200 and body == (UPLOADS / "2025/01/logo.png").read_bytes()
    assert moved_to(base, "/wp-content/uploads/2024/09/prospectus.pdf") == "/uploads/2024/09/prospectus.pdf"


def test_old_plain_links_of_mapped_ids_redirect_only_where_this_site_has_no_such_item(served):
    app, admin, own, base = served
    # /?p=20 is this site's own post 20: it is shown, not redirected
    status, _headers, body = fetch(base + "/?p=20")
    assert status == 200 and b"Our news 19" in body
    # once that post is deleted, the old link /?p=20 leads to the imported post
    assert fetch(base + "/wp-json/core/v2/posts/20?force=true", "DELETE", admin.headers)[0] == 200
    assert moved_to(base, "/?p=20") == f"/?p={new_id_of(base, 'spring term')}"


def test_everything_else_is_unchanged(served):
    _app, _admin, _own, base = served
    status, _headers, body = fetch(base + "/no-such-page/")
    assert status == 404 and b"Page not found" in body
    assert fetch(base + "/?p=999999")[0] == 404
    # links of items nobody may read are not redirected (a private post, a draft): no id is given away
    assert fetch(base + "/2019/03/nothing/")[0] == 404
    status, _headers, _body = fetch(base + "/?p=25")  # a draft that kept its id
    assert status == 404
    assert fetch(base + "/wp-json/core/v2/no-such-route")[0] == 404


@pytest.mark.parametrize("posts", [1500])
def test_an_import_killed_half_way_completes_without_duplicates_when_run_again(make_app, tmp_path, posts):
    app = make_app(plugins=["core", "wordpress_migrate"])
    config = write_config(app, tmp_path)
    export = write_wxr(tmp_path / "big.xml", posts=posts, comments_per_post=2)
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "--config", str(config), "import", "wordpress",
                                str(export)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while count_rows(app, "wordpress_id_map") < 400 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, process.stdout.read().decode()  # still importing: kill it half-way
    process.send_signal(signal.SIGKILL)
    process.wait()
    half = count_rows(app, "posts", type="post")
    assert 0 < half < posts
    # whole batches only: every post written has its row in the id map, and its comments
    assert count_rows(app, "wordpress_id_map", kind="post") == half
    assert count_rows(app, "comments") == 2 * half
    again = run_import(config, str(export))
    assert again.exit_code == 0, again.output
    # what the killed run wrote (its posts, comments, and the authors and terms of its first batch) is unchanged
    assert again.output.startswith(f"WordPress import: {3 * (posts - half)} created, 0 updated, ")
    assert count_rows(app, "posts", type="post") == posts
    assert count_rows(app, "comments") == 2 * posts
    assert count_rows(app, "wordpress_id_map", kind="post") == posts
