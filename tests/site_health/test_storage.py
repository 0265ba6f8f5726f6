"""site-health/v1 with the uploads in an S3-compatible store (moto's standalone server on 127.0.0.1)."""

from __future__ import annotations

from host.testing import create_test_user

NS = "/wp-json/site-health/v1"


def test_the_uploads_test_and_sizes_read_the_object_store(make_app, s3_server):
    app = make_app(plugins=["core", "site_health"], storage=s3_server.storage_settings())
    admin = create_test_user(app, "administrator").headers
    body = app.client.get(f"{NS}/tests/uploads", headers=admin, status=200).json
    assert body["status"] == "good" and body["label"] == "The object store accepts uploads"
    assert app.storage.settings.bucket in body["description"]
    assert not list(app.storage.uploads().list())  # the probe went again
    app.client.post("/wp-json/core/v2/media", b"Bring a packed lunch.\n", headers={
        **admin, "Content-Type": "text/plain", "Content-Disposition": 'attachment; filename="lunch.txt"'}, status=201)
    sizes = app.client.get(f"{NS}/directory-sizes", headers=admin, status=200).json
    assert sizes["uploads_size"]["raw"] == len(b"Bring a packed lunch.\n")
    assert sizes["total_size"]["raw"] == sizes["uploads_size"]["raw"] + sizes["database_size"]["raw"]


def test_a_bucket_that_does_not_exist_is_critical_and_says_what_to_check(make_app, s3_server):
    storage = {**s3_server.storage_settings(), "bucket": "no-such-bucket-here"}
    app = make_app(plugins=["core", "site_health"], storage=storage)
    admin = create_test_user(app, "administrator").headers
    body = app.client.get(f"{NS}/tests/uploads", headers=admin, status=200).json
    assert body["status"] == "critical" and body["label"] == "The object store refuses uploads"
    assert "no-such-bucket-here" in body["description"] and "NoSuchBucket" in body["description"]
    assert "credentials" in body["actions"]
    # an upload is refused with a 500 that shows none of it
    refused = app.client.post("/wp-json/core/v2/media", b"x", headers={
        **admin, "Content-Type": "text/plain", "Content-Disposition": 'attachment; filename="a.txt"'}, status=500)
    assert "no-such-bucket" not in refused.text and "NoSuchBucket" not in refused.text
