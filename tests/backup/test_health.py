"""The backup plugin's site-health test: none, fresh, a day old, a week old."""

from __future__ import annotations

import os
import time

from host.testing import role_users

TEST = "/wp-json/site-health/v1/tests/last-backup"


def test_last_backup_ages(make_app, tmp_path):
    folder = tmp_path / "archives"
    app = make_app(plugins=["core", "site_health", "backup"],
                   config={"backup": {"directory": str(folder), "schedule": "daily 02:30"}})
    admin = role_users(app)["administrator"].headers
    body = app.client.get(TEST, headers=admin).json
    assert (body["status"], body["label"]) == ("recommended", "This site has no backup")
    assert "daily at 02:30" in body["description"] and "sitehost backup create" in body["actions"]

    created = app.client.post_json("/wp-json/backup/v1/backups", {}, headers=admin, status=201).json
    assert created["status"] == "done"
    body = app.client.get(TEST, headers=admin).json
    assert (body["status"], body["label"]) == ("good", "A recent backup exists")
    assert created["archive"] in body["description"]

    archive = folder / created["archive"]
    for days, status in ((2, "recommended"), (8, "critical")):  # a week old with a daily schedule: it is failing
        when = time.time() - days * 86400
        os.utime(archive, (when, when))
        assert app.client.get(TEST, headers=admin).json["status"] == status
    assert app.client.get(TEST, headers=role_users(app)["editor"].headers, status=403).json["code"] == "rest_forbidden"
