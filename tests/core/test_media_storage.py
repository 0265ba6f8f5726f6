"""Media files on both storage backends (host.storage): the local folder and a real S3-compatible server.

Each test runs twice through `storage_backend`: once on the uploads folder, once on a fresh bucket
of moto's standalone server (a process on 127.0.0.1). What is stored is read back straight from the
folder or the bucket (host.testing.stored_files), not through the code under test.
"""

from __future__ import annotations

import urllib.request

import pytest

from host.testing import create_test_user, stored_files

from tests.core.helpers import API
from tests.core.test_media import png, upload

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def served_path(media: dict) -> str:
    return media["source_url"].replace("http://school.test", "")


def key_of(media: dict) -> str:
    return served_path(media).removeprefix("/uploads/")


def test_an_upload_is_stored_served_with_ranges_and_conditions_and_removed_with_its_attachment(
        make_app, storage_backend):
    app = make_app(plugins=["core"], storage=storage_backend)
    editor = create_test_user(app, "editor").headers
    media = upload(app.client, editor, data=PDF, name="Term dates.pdf", mime="application/pdf").json
    assert stored_files(app) == {key_of(media): PDF}
    assert media["media_details"]["filesize"] == len(PDF)

    served = app.client.get(served_path(media), status=200)
    assert served.body == PDF and served.headers["Content-Type"] == "application/pdf"
    assert served.headers["Content-Length"] == str(len(PDF)) and served.headers["Accept-Ranges"] == "bytes"
    assert served.headers["Content-Disposition"] == 'attachment; filename="Term-dates.pdf"'
    assert served.headers["Content-Security-Policy"] == "sandbox"
    assert "Last-Modified" in served.headers and "Cache-Control" not in served.headers

    part = app.client.get(served_path(media), headers={"Range": "bytes=2-6"}, status=206)
    assert part.body == PDF[2:7] and part.headers["Content-Range"] == f"bytes 2-6/{len(PDF)}"
    tail = app.client.get(served_path(media), headers={"Range": "bytes=-4"}, status=206)
    assert tail.body == PDF[-4:]
    app.client.get(served_path(media), headers={"Range": f"bytes={len(PDF) + 10}-"}, status=416)
    unchanged = app.client.get(served_path(media), headers={"If-None-Match": served.headers["ETag"]}, status=304)
    assert unchanged.body == b""
    app.client.get(served_path(media), headers={"If-Modified-Since": served.headers["Last-Modified"]}, status=304)
    head = app.client.head(served_path(media), status=200)
    assert head.body == b"" and head.headers["Content-Length"] == str(len(PDF))

    app.client.delete(f"{API}/media/{media['id']}?force=true", headers=editor, status=200)
    assert stored_files(app) == {}
    app.client.get(served_path(media), status=404)


def test_the_same_name_twice_never_overwrites_and_each_file_keeps_its_bytes(make_app, storage_backend):
    app = make_app(plugins=["core"], storage=storage_backend)
    author = create_test_user(app, "author").headers
    first = upload(app.client, author, data=png(3, 2)).json
    second = upload(app.client, author, data=png(5, 4)).json
    assert key_of(first).endswith("/photo.png") and key_of(second).endswith("/photo-1.png")
    assert stored_files(app) == {key_of(first): png(3, 2), key_of(second): png(5, 4)}
    assert app.client.get(served_path(second)).body == png(5, 4)
    assert second["media_details"]["width"] == 5


def test_a_private_file_is_streamed_only_to_those_who_may_read_it(make_app, storage_backend):
    app = make_app(plugins=["core"], storage={**storage_backend, "serve": "redirect"})
    owner = create_test_user(app, "author").headers
    media = upload(app.client, owner).json
    app.client.post_json(f"{API}/media/{media['id']}", {"status": "private"}, headers=owner, status=200)
    app.client.get(served_path(media), status=404)
    app.client.get(served_path(media), headers=create_test_user(app, "author").headers, status=404)
    for reader in (owner, create_test_user(app, "editor").headers):
        # never a redirect, even in redirect mode: a signed URL could be passed on
        response = app.client.get(served_path(media), headers=reader, status=200)
        assert response.body == png() and response.headers["Cache-Control"] == "private, no-store"
        assert "Location" not in response.headers


@pytest.mark.parametrize("mode", ["stream", "redirect"])
def test_a_public_file_on_s3_is_streamed_or_redirected_to_a_signed_url_as_the_setting_says(
        make_app, s3_server, mode):
    app = make_app(plugins=["core"], storage=s3_server.storage_settings(serve=mode, url_expires_seconds=60))
    editor = create_test_user(app, "editor").headers
    photo = upload(app.client, editor).json
    report = upload(app.client, editor, data=PDF, name="report.pdf", mime="application/pdf").json
    if mode == "stream":
        assert app.client.get(served_path(photo), status=200).body == png()
        return
    redirected = app.client.get(served_path(photo), status=302)
    location = redirected.headers["Location"]
    assert location.startswith(s3_server.endpoint_url + "/") and "X-Amz-Signature=" in location
    assert "X-Amz-Expires=60" in location and redirected.headers["Cache-Control"] == "no-store"
    with urllib.request.urlopen(location, timeout=10) as answer:  # the store serves it to anyone with the URL
        assert answer.read() == png() and answer.headers["Content-Type"] == "image/png"
    download = app.client.get(served_path(report), status=302).headers["Location"]
    with urllib.request.urlopen(download, timeout=10) as answer:
        assert answer.read() == PDF
        assert answer.headers["Content-Disposition"] == 'attachment; filename="report.pdf"'


def test_redirect_mode_on_the_local_folder_streams_as_before(make_app):
    app = make_app(plugins=["core"], storage={"serve": "redirect"})
    media = upload(app.client, create_test_user(app, "author").headers).json
    assert app.client.get(served_path(media), status=200).body == png()
