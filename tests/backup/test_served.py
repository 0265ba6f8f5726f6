"""A real `sitehost serve` (two workers) backed up while four writer threads keep posting.

The schedule runs inside the served processes (hook serve_started), once for the site although
two workers check it; then a backup is asked for over REST, followed and downloaded (streamed)
while the writers carry on. Every post acknowledged before the backup was asked for is in it,
the archive verifies, and a site restored from it has the same checksums.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import urllib.error
import urllib.request

from host.testing import create_test_user, start_sitehost, stop_sitehost
from plugins.backup.archive import verify_archive
from plugins.backup.service import backup_site, restore_site

from tests.helpers import wait_until

from .helpers import engine_under_test, new_database, open_site, raw_rows, site_settings

WRITERS = 4


def call(url, headers, data=None, method=None, timeout=30):
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for(condition, timeout=60.0):
    return wait_until(condition, timeout)


def test_hook_serve_started(tmp_path):
    """serve_started starts the schedule in each served process; a backup under writes keeps every
    acknowledged post."""
    with new_database(tmp_path, engine_under_test()) as url, new_database(tmp_path / "r", engine_under_test()) as copy:
        (tmp_path / "r").mkdir(exist_ok=True)
        uploads, backups = tmp_path / "uploads", tmp_path / "backups"
        settings = site_settings(url, uploads, backups)
        settings.plugins["backup"].update(schedule="every 24 hours", keep=5)
        setup = open_site(settings)
        setup.install_site(demo=True)
        admin = create_test_user(setup, "administrator", login="bursar")
        setup.close()
        uploads.mkdir(exist_ok=True)
        (uploads / "prospectus.pdf").write_bytes(b"%PDF prospectus " * 4096)
        config = tmp_path / "sitehost.toml"
        config.write_text(f'database_url = "{url}"\nuploads_dir = "{uploads}"\n\n[plugins.backup]\n'
                          f'directory = "{backups}"\nschedule = "every 24 hours"\nkeep = 5\n')
        env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
        process, rest = start_sitehost(config, "--workers", "2", "--threads", "4", "--quiet", env=env)
        token = base64.b64encode(f"bursar:{admin.app_password}".encode()).decode()
        headers = {"Authorization": f"Basic {token}", "Content-Type": "application/json"}
        acknowledged: list[tuple[float, int, str]] = []
        failures: list[str] = []
        stop = threading.Event()

        def writer(number: int) -> None:
            count = 0
            while not stop.is_set():
                title = f"writer {number} post {count}"
                status, body = call(rest + "/core/v2/posts", headers,
                                    json.dumps({"title": title, "status": "publish"}).encode(), "POST")
                if status == 201:
                    acknowledged.append((time.monotonic(), body["id"], title))
                else:
                    failures.append(f"{status} {body}")
                count += 1

        threads = [threading.Thread(target=writer, args=(number,)) for number in range(WRITERS)]
        try:
            # the schedule is due at once (no backup yet); two workers check it, one runs it
            def scheduled():
                status, jobs = call(rest + "/backup/v1/jobs", headers)
                done = [job for job in jobs if job["status"] == "done"] if status == 200 else []
                return done if done else None

            jobs = wait_for(scheduled)
            for thread in threads:
                thread.start()
            wait_for(lambda: len(acknowledged) >= 20)
            asked_at = time.monotonic()
            status, job = call(rest + "/backup/v1/backups", headers, b"", "POST")
            assert status in (201, 202), job  # 201: done within the route's wait

            def finished():
                answer = call(rest + f"/backup/v1/jobs/{job['id']}", headers)[1]
                return answer if answer["status"] != "running" else None

            done = wait_for(finished)
            assert done["status"] == "done", done
            wait_for(lambda: len([a for a in acknowledged if a[0] > asked_at]) >= 8)  # writes went on meanwhile
            download = urllib.request.Request(rest + f"/backup/v1/backups/{done['archive']}/download", headers=headers)
            archive = tmp_path / done["archive"]
            with urllib.request.urlopen(download, timeout=60) as response, open(archive, "wb") as sink:
                assert response.headers["Content-Type"] == "application/x-tar"
                while chunk := response.read(65536):
                    sink.write(chunk)
        finally:
            stop.set()
            for thread in threads:
                if thread.is_alive():
                    thread.join(30)
            status, all_jobs = call(rest + "/backup/v1/jobs?per_page=100", headers)
            stop_sitehost(process)
        output = process.stdout.read()
        assert "Traceback" not in output, output
        assert failures == [], failures[:3]
        assert [job["trigger"] for job in all_jobs].count("schedule") == 1  # once per site, not per worker
        assert jobs[0]["trigger"] == "schedule"

        manifest = verify_archive(archive).manifest
        before = {(post_id, title) for moment, post_id, title in acknowledged if moment < asked_at}
        restore_site(settings, archive, copy, tmp_path / "restored-uploads")
        restored = {(row[0], row[4]) for row in raw_rows(copy, "posts")}
        assert before and before <= restored  # every acknowledged write from before the snapshot
        after = {(post_id, title) for moment, post_id, title in acknowledged if moment > asked_at}
        assert len(after) >= 8
        assert (tmp_path / "restored-uploads" / "prospectus.pdf").read_bytes() == b"%PDF prospectus " * 4096
        site = open_site(site_settings(copy, tmp_path / "restored-uploads", tmp_path / "again"))
        try:
            again, _removed = backup_site(site)
            some_id, some_title = sorted(before)[0]
            shown = site.client.get(f"/wp-json/core/v2/posts/{some_id}").json
            assert shown["title"]["rendered"] == some_title
        finally:
            site.close()
        # the same data, except the host jobs the serving process ran during its backup (not the target's)
        assert {table["name"]: table["sha256"] for table in again.manifest["tables"] if table["name"] != "jobs"} == \
            {table["name"]: table["sha256"] for table in manifest["tables"] if table["name"] != "jobs"}
        restored_jobs = raw_rows(copy, "jobs")
        assert restored_jobs and all(row[4] != "running" for row in restored_jobs)  # nobody runs them here
