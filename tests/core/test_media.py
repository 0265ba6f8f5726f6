"""Media: upload (raw body and multipart), type checks by content, size limit, list, update, delete."""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib
from pathlib import Path

from host.testing import assert_rest_error

from tests.core.helpers import API


def png(width=3, height=2) -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def upload(client, headers, data=None, name="photo.png", mime="image/png", status=201, **extra):
    data = png() if data is None else data
    headers = dict(headers, **{"Content-Type": mime, "Content-Disposition": f'attachment; filename="{name}"'}, **extra)
    return client.post(f"{API}/media", data, headers=headers, status=status)


def test_raw_upload_creates_an_attachment_and_serves_the_file(app, client, users):
    response = upload(client, users["author"].headers)
    body = response.json
    assert response.headers["Location"].endswith(f"/media/{body['id']}")
    assert response.headers["X-WP-Upload-Attachment-ID"] == str(body["id"])
    assert body["status"] == "inherit" and body["title"]["raw"] == "photo" and body["media_type"] == "image"
    assert body["mime_type"] == "image/png" and body["media_details"]["width"] == 3
    assert body["media_details"]["height"] == 2 and body["post"] is None and body["alt_text"] == ""
    assert body["source_url"].startswith("http://school.test/uploads/") and body["source_url"].endswith("/photo.png")
    served = client.get(body["source_url"].replace("http://school.test", ""), status=200)
    assert served.body == png()
    second = upload(client, users["author"].headers).json
    assert second["source_url"].endswith("/photo-1.png") and second["slug"] == "photo-2"
    listed = client.get(f"{API}/media").json
    assert {item["id"] for item in listed} == {body["id"], second["id"]}


def test_multipart_upload_with_fields(client, users, make_post):
    post = make_post(title="Gallery")
    response = client.post(f"{API}/media", {"title": "Sports day", "alt_text": "Children racing", "post": post["id"]},
                           upload_files=[("file", "race.png", png(), "image/png")],
                           headers=users["editor"].headers, status=201)
    body = response.json
    assert body["title"]["raw"] == "Sports day" and body["alt_text"] == "Children racing"
    assert body["post"] == post["id"] and body["_links"]["wp:attached-to"][0]["id"] == post["id"]
    attached = client.get(f"{API}/media?parent={post['id']}").json
    assert [item["id"] for item in attached] == [body["id"]]
    assert client.get(f"{API}/media?parent=0").json == []


def test_upload_errors(client, users, make_app):
    author = users["author"].headers
    assert_rest_error(upload(client, users["contributor"].headers, status=403), "rest_cannot_create", 403)
    assert_rest_error(upload(client, {}, status=401), "rest_cannot_create", 401)
    assert_rest_error(client.post(f"{API}/media", b"", headers=author, status=400), "rest_upload_no_data", 400)
    assert_rest_error(client.post(f"{API}/media", png(), headers=dict(author, **{"Content-Type": "image/png"}),
                                  status=400), "rest_upload_no_content_disposition", 400)
    assert_rest_error(client.post(f"{API}/media", png(), headers=dict(author, **{
        "Content-Type": "image/png", "Content-Disposition": "photo.png"}), status=400),
        "rest_upload_invalid_disposition", 400)
    assert_rest_error(upload(client, author, name="photo.jpg", mime="image/jpeg", status=415),
                      "rest_upload_sideload_error", 415)  # a PNG named .jpg
    assert_rest_error(upload(client, author, data=b"<svg/>", name="x.svg", mime="image/svg+xml", status=415),
                      "rest_upload_sideload_error", 415)
    assert_rest_error(upload(client, author, data=b"MZ\x90", name="x.exe", mime="application/octet-stream",
                             status=415), "rest_upload_sideload_error", 415)
    assert_rest_error(client.post(f"{API}/media", {}, upload_files=[("file", "x.html", b"<script></script>",
                                                                      "text/html")], headers=author, status=415),
                      "rest_upload_unknown_error", 415)
    assert_rest_error(upload(client, author, **{"Content-MD5": "0" * 32}, status=412), "rest_upload_hash_mismatch", 412)
    good_md5 = base64.b64encode(hashlib.md5(png()).digest()).decode()
    assert upload(client, author, **{"Content-MD5": good_md5}).status_int == 201
    attachment = client.get(f"{API}/media").json[0]["id"]
    body = assert_rest_error(client.post(f"{API}/media?post={attachment}", png(), headers=dict(author, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="a.png"'}), status=400),
        "rest_invalid_param", 400)
    assert body["message"] == "Invalid parent type."
    small = make_app(plugins=["core"], config={"core": {"max_upload_bytes": 50}})
    from host.testing import create_test_user
    admin = create_test_user(small, "administrator").headers
    assert_rest_error(upload(small.client, admin, status=413), "rest_upload_file_too_big", 413)


def test_media_filters_and_status(client, users):
    admin = users["administrator"].headers
    image = upload(client, admin).json
    pdf = upload(client, admin, data=b"%PDF-1.4 test", name="letter.pdf", mime="application/pdf").json
    private = client.post(f"{API}/media?status=private", png(), headers=dict(admin, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="p.png"'})).json
    assert pdf["media_type"] == "file" and private["status"] == "private"
    ids = lambda response: {item["id"] for item in response.json}
    assert ids(client.get(f"{API}/media?media_type=image")) == {image["id"]}
    assert ids(client.get(f"{API}/media?mime_type=application/pdf")) == {pdf["id"]}
    assert ids(client.get(f"{API}/media?media_type=image&mime_type=application/pdf")) == {image["id"], pdf["id"]}
    assert ids(client.get(f"{API}/media?mime_type=made/up")) == {image["id"], pdf["id"]}
    assert ids(client.get(f"{API}/media?status=private", headers=admin)) == {private["id"]}
    assert ids(client.get(f"{API}/media?search=letter")) == {pdf["id"]}
    assert_rest_error(client.get(f"{API}/media?status=publish", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/media?media_type=font", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/media?status=private", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/media/{private['id']}", status=401), "rest_forbidden", 401)


def test_media_of_a_draft_is_hidden_from_anonymous(client, users, make_post):
    draft = make_post(title="Secret draft", status="draft")
    media = client.post(f"{API}/media?post={draft['id']}", png(), headers=dict(users["administrator"].headers, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="d.png"'})).json
    assert client.get(f"{API}/media").json == []
    assert_rest_error(client.get(f"{API}/media/{media['id']}", status=401), "rest_forbidden", 401)


def test_update_featured_image_and_delete_removes_the_file(app, client, users, make_post):
    admin = users["administrator"].headers
    media = upload(client, admin).json
    updated = client.post_json(f"{API}/media/{media['id']}", {"caption": "Race", "alt_text": "<b>Kids</b>",
                                                              "description": "Long text"}, headers=admin).json
    assert updated["caption"]["raw"] == "Race" and updated["alt_text"] == "Kids"
    assert updated["description"]["rendered"].startswith('<p class="attachment">')
    assert_rest_error(client.post_json(f"{API}/media/{media['id']}", {"featured_media": media["id"]}, headers=admin,
                                       status=400), "rest_no_featured_media", 400)
    post = make_post(title="Featured", featured_media=media["id"])
    assert post["featured_media"] == media["id"] and "has-post-thumbnail" in post["class_list"]
    assert post["_links"]["wp:featuredmedia"][0]["href"].endswith(f"/media/{media['id']}")
    assert_rest_error(client.delete(f"{API}/media/{media['id']}", headers=admin, status=501),
                      "rest_trash_not_supported", 501)
    path = Path(app.settings.uploads_dir) / media["media_details"]["file"]
    assert path.is_file()
    deleted = client.delete(f"{API}/media/{media['id']}?force=true", headers=admin).json
    assert deleted["deleted"] is True and not path.exists()
    assert client.get(f"{API}/posts/{post['id']}").json["featured_media"] == 0


def test_update_cannot_attach_media_to_a_post_the_caller_cannot_edit(client, users, make_post):
    """Upload checks the parent; update must too, or an author attaches to an admin's draft."""
    author = users["author"].headers
    admins_draft = make_post(title="Admin's draft", status="draft")
    own = make_post(title="Mine", status="draft", role="author")
    media = upload(client, author).json
    assert_rest_error(client.post_json(f"{API}/media/{media['id']}", {"post": admins_draft["id"]}, headers=author,
                                       status=403), "rest_cannot_edit", 403)
    assert client.get(f"{API}/media/{media['id']}?context=edit", headers=author).json["post"] is None
    assert client.post_json(f"{API}/media/{media['id']}", {"post": own["id"]}, headers=author).json["post"] == own["id"]
    assert client.post_json(f"{API}/media/{media['id']}", {"post": admins_draft["id"]},
                            headers=users["administrator"].headers).json["post"] == admins_draft["id"]
