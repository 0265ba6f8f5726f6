"""host.storage: the `[storage]` settings checked at start, and two served nodes sharing one S3 store.

The S3 cases run against moto's standalone server (a process on 127.0.0.1, host.testing's `s3_server`).
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner

from host.cli import main
from host.config import ConfigError, load_settings
from host.testing import create_test_user, start_sitehost, stop_sitehost, stored_files

from tests.backup.helpers import engine_under_test, new_database, open_site

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00" + bytes(64)


@pytest.mark.parametrize("table, fragment", [
    ({"backend": "ftp"}, "[storage]: backend = 'ftp' is not valid; allowed: local or s3"),
    ({"backend": "s3"}, "backend = \"s3\" needs a bucket"),
    ({"backend": "s3", "bucket": "Not_A_Bucket"}, "bucket = 'Not_A_Bucket' is not valid; allowed: an S3 bucket name"),
    ({"endpoint_url": "minio:9000"}, "endpoint_url = 'minio:9000' is not valid"),
    ({"prefix": "/school/"}, "prefix = '/school/' is not valid"),
    ({"serve": "proxy"}, "serve = 'proxy' is not valid; allowed: stream or redirect"),
    ({"url_expires_seconds": 5}, "url_expires_seconds = 5 is not valid"),
    ({"bukket": "x"}, "unknown setting 'bukket'"),
    ({"secret_access_key": "abc"}, "secret_access_key must not be written in sitehost.toml"),
])
def test_a_bad_storage_setting_stops_the_start_naming_it(make_app, table, fragment):
    with pytest.raises(ConfigError) as stopped:
        make_app(plugins=["core"], storage=table)
    assert fragment in str(stopped.value)


def test_a_bad_storage_setting_is_named_by_the_command_line_and_by_its_environment_variable(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(tomli_w.dumps({"database_url": f"sqlite:///{tmp_path}/site.db", "storage": {"backend": "s3"}}))
    result = CliRunner().invoke(main, ["--config", str(config), "init"], env={"SITEHOST_STORAGE__BUCKET": None})
    assert result.exit_code == 1 and "needs a bucket" in result.stderr
    settings = load_settings(config, env={"SITEHOST_STORAGE__SERVE": "teleport", "SITEHOST_STORAGE__BUCKET": "school"})
    with pytest.raises(ConfigError) as stopped:
        open_site(settings)
    assert "SITEHOST_STORAGE__SERVE: serve = 'teleport' is not valid" in str(stopped.value)


def test_a_file_uploaded_through_one_node_is_served_by_another_on_the_same_store(tmp_path, s3_server):
    """Two `sitehost serve` processes in separate folders (as two machines) on one database and one
    bucket: an upload through A is read through B, and deleted through B it is gone for A."""
    storage = s3_server.storage_settings(prefix="riverside/")
    with new_database(tmp_path, engine_under_test()) as url:
        configs = []
        for node in ("a", "b"):
            folder = tmp_path / node
            folder.mkdir()
            configs.append(folder / "sitehost.toml")
            configs[-1].write_text(tomli_w.dumps({"database_url": url, "uploads_dir": str(folder / "uploads"),
                                                  "storage": storage, "plugins": {"disabled": ["spam"]}}))
        setup = open_site(load_settings(configs[0], env={}))
        editor = create_test_user(setup, "editor").headers
        setup.close()
        env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
        nodes = [start_sitehost(config, "--quiet", env=env) for config in configs]
        try:
            (_a, rest_a), (_b, rest_b) = nodes
            request = urllib.request.Request(rest_a + "/core/v2/media", data=PNG, method="POST", headers={
                **editor, "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="hall.png"'})
            with urllib.request.urlopen(request, timeout=30) as answer:
                assert answer.status == 201
                media = __import__("json").loads(answer.read())
            path = "/uploads/" + media["source_url"].split("/uploads/", 1)[1]
            site_b = rest_b.removesuffix("/wp-json")
            with urllib.request.urlopen(site_b + path, timeout=30) as served:
                assert served.status == 200 and served.read() == PNG
                assert served.headers["Content-Type"] == "image/png"
            key = "riverside/uploads/" + path.removeprefix("/uploads/")
            # the upload, and the demo picture the first start installed, are in the bucket, on neither disk
            demo = [name for name in s3_server.keys(storage["bucket"]) if name.endswith("open-day-classroom.png")]
            assert sorted(s3_server.keys(storage["bucket"])) == sorted([key, *demo]) and len(demo) == 1
            assert not [item for item in Path(tmp_path).rglob("*.png")]
            delete = urllib.request.Request(f"{rest_b}/core/v2/media/{media['id']}?force=true", method="DELETE",
                                            headers=editor)
            with urllib.request.urlopen(delete, timeout=30) as answer:
                assert answer.status == 200
            with pytest.raises(urllib.error.HTTPError) as gone:
                urllib.request.urlopen(rest_a.removesuffix("/wp-json") + path, timeout=30)
            assert gone.value.code == 404 and list(s3_server.keys(storage["bucket"])) == demo
        finally:
            for process, _rest in nodes:
                stop_sitehost(process)


def test_stored_files_reads_the_local_folder_and_the_bucket_alike(make_app, storage_backend):
    app = make_app(plugins=["core"], storage=storage_backend)
    app.storage.uploads().put("2026/01/a.txt", b"first")
    app.storage.uploads().put("2026/01/a.txt", b"second")  # a plain put replaces
    assert stored_files(app) == {"2026/01/a.txt": b"second"}
    assert [(item.key, item.size) for item in app.storage.uploads().list("2026/")] == [("2026/01/a.txt", 6)]
    assert b"".join(app.storage.uploads().get("2026/01/a.txt", 1, 3)) == b"eco"
    with pytest.raises(ValueError):
        app.storage.uploads().put("../escape.txt", b"x")
    with pytest.raises(FileNotFoundError):
        app.storage.uploads().open("2026/01/missing.txt")
    app.storage.uploads().delete("2026/01/a.txt")
    assert stored_files(app) == {} and app.storage.uploads().stat("2026/01/a.txt") is None
