"""What WordPress keeps, an import keeps: a draft's empty slug, trashed items (in the trash, restorable),
and text as an administrator wrote it (`A & B > C`, raw); an import run by someone without
unfiltered_html is filtered as their REST writes are. Read back over core/v2 (WebTest)."""

from __future__ import annotations

from host.testing import create_test_user
from plugins.wordpress_migrate.run import import_file
from tests.helpers import import_wordpress, write_wxr, wxr_item

API = "/wp-json/core/v2"
TITLE = "Fees & bursaries > 2025"
CONTENT = '<p>Tom & Jerry > Spike</p><script>track()</script><p onclick="steal()">Apply now.</p>'


def without_slug(item: str, post_id: int) -> str:
    return item.replace(f"<wp:post_name><![CDATA[item-{post_id}]]></wp:post_name>",
                        "<wp:post_name><![CDATA[]]></wp:post_name>")


def wxr(tmp_path):
    return write_wxr(
        tmp_path / "fidelity.xml",
        wxr_item(701, "post", TITLE, content=CONTENT),
        without_slug(wxr_item(702, "post", "A draft & a plan", status="draft"), 702),
        without_slug(wxr_item(703, "page", "Pending page", status="pending"), 703),
        wxr_item(704, "post", "Old notice", status="trash",
                 meta=[("_wp_trash_meta_status", "publish"), ("_wp_trash_meta_time", "1733000000")]).replace(
            "item-704", "item-704__trashed"),
        wxr_item(705, "page", "Old page", status="trash", meta=[("_wp_trash_meta_status", "private")]))


def read(app, headers, path, **query):
    response = app.client.get(f"{API}/{path}", dict(query, context="edit"), headers=headers)
    assert response.status_int == 200, response.text
    return response.json


def test_an_administrators_import_keeps_text_empty_slugs_and_the_trash(make_app, tmp_path):
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    result, report = import_wordpress(app, tmp_path, wxr(tmp_path))
    assert result.exit_code == 0, result.output
    assert "trash" not in report and "_wp_trash_meta" not in report  # nothing of them is listed as not imported
    post = read(app, admin.headers, "posts/701")
    assert (post["title"]["raw"], post["content"]["raw"]) == (TITLE, CONTENT)
    draft, pending = read(app, admin.headers, "posts/702"), read(app, admin.headers, "pages/703")
    assert (draft["status"], draft["slug"], draft["generated_slug"]) == ("draft", "", "a-draft-a-plan")
    assert (pending["status"], pending["slug"], pending["generated_slug"]) == ("pending", "", "pending-page")
    trashed, trashed_page = read(app, admin.headers, "posts/704"), read(app, admin.headers, "pages/705")
    assert (trashed["status"], trashed["slug"]) == ("trash", "item-704__trashed")
    assert trashed_page["status"] == "trash"
    assert {item["id"] for item in read(app, admin.headers, "posts", status="trash")} == {704}
    # nobody else sees them; a restore brings the post back (as a draft, as WordPress restores) with its slug
    assert app.client.get(f"{API}/posts/704", expect_errors=True).status_int == 401
    restored = app.client.post_json(f"{API}/posts/704", {"status": "draft"}, headers=admin.headers).json
    assert (restored["status"], restored["slug"]) == ("draft", "item-704")
    # publishing the draft gives it its slug then, as WordPress does
    published = app.client.post_json(f"{API}/posts/702", {"status": "publish"}, headers=admin.headers).json
    assert published["slug"] == "a-draft-a-plan"


def test_a_second_run_leaves_trashed_items_in_the_trash(make_app, tmp_path):
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    file = wxr(tmp_path)
    assert import_wordpress(app, tmp_path, file)[0].exit_code == 0
    again, _report = import_wordpress(app, tmp_path, file)
    assert "0 created, 0 updated, 6 unchanged" in again.output, again.output  # five items and the author
    assert read(app, admin.headers, "posts/704")["status"] == "trash"


def test_an_import_by_someone_without_unfiltered_html_is_filtered(make_app, tmp_path):
    """As their own REST writes are (the admin page and the ability import as the user who started them)."""
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    author = create_test_user(app, "author", login="writer", email="writer@school.test")
    import_file(app, wxr(tmp_path), importing_user_id=author.id)
    content = read(app, admin.headers, "posts/701")["content"]["raw"]
    assert "<script" not in content and "onclick" not in content and "Apply now." in content
    assert "Tom &amp; Jerry &gt; Spike" in content
