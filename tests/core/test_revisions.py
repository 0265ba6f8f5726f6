"""Revisions and autosaves of posts and pages."""

from __future__ import annotations

from host.testing import assert_rest_error

from tests.core.helpers import API


def test_revisions_are_written_on_update_only_when_changed(client, users, make_post):
    admin = users["administrator"].headers
    post = make_post(title="One", content="Body")
    assert client.get(f"{API}/posts/{post['id']}/revisions", headers=admin).json == []
    client.post_json(f"{API}/posts/{post['id']}", {"comment_status": "closed"}, headers=admin)  # first update: always
    client.post_json(f"{API}/posts/{post['id']}", {"comment_status": "open"}, headers=admin)  # unchanged text
    client.post_json(f"{API}/posts/{post['id']}", {"title": "Two"}, headers=admin)
    client.post_json(f"{API}/posts/{post['id']}", {"meta": {"footnotes": "note"}}, headers=admin)  # revisioned meta
    response = client.get(f"{API}/posts/{post['id']}/revisions", headers=admin)
    revisions = response.json
    assert [revision["title"]["rendered"] for revision in revisions] == ["Two", "Two", "One"]
    assert response.headers["X-WP-Total"] == "3"
    assert revisions[0]["meta"] == {"footnotes": "note"} and revisions[0]["slug"] == f"{post['id']}-revision-v1"
    assert revisions[0]["parent"] == post["id"] and revisions[0]["author"] == users["administrator"].id
    assert revisions[0]["_links"]["parent"][0]["href"].endswith(f"/posts/{post['id']}")


def test_revision_list_params_and_errors(client, users, make_post):
    admin = users["administrator"].headers
    post = make_post(title="Start")
    for title in ("Alpha", "Beta", "Gamma"):
        client.post_json(f"{API}/posts/{post['id']}", {"title": title}, headers=admin)
    url = f"{API}/posts/{post['id']}/revisions"
    assert [r["title"]["rendered"] for r in client.get(url + "?per_page=2", headers=admin).json] == ["Gamma", "Beta"]
    assert [r["title"]["rendered"] for r in client.get(url + "?per_page=1&offset=2", headers=admin).json] == ["Alpha"]
    assert [r["title"]["rendered"] for r in client.get(url + "?search=beta", headers=admin).json] == ["Beta"]
    assert [r["title"]["rendered"] for r in client.get(url + "?orderby=title&order=asc", headers=admin).json] == [
        "Alpha", "Beta", "Gamma"]
    first = client.get(url + "?order=asc&orderby=id", headers=admin).json[0]["id"]
    assert [r["id"] for r in client.get(url + f"?exclude={first}", headers=admin).json].count(first) == 0
    assert [r["id"] for r in client.get(url + f"?include={first}", headers=admin).json] == [first]
    assert_rest_error(client.get(url + "?per_page=1&page=9", headers=admin, status=400),
                      "rest_revision_invalid_page_number", 400)
    assert_rest_error(client.get(url + "?per_page=1&offset=9", headers=admin, status=400),
                      "rest_revision_invalid_offset_number", 400)
    assert_rest_error(client.get(url + "?per_page=-1", headers=admin, status=400), "rest_invalid_param", 400)


def test_revision_permissions_and_lookup_errors(client, users, make_post):
    admin = users["administrator"].headers
    post = make_post(title="Start")
    client.post_json(f"{API}/posts/{post['id']}", {"title": "Next"}, headers=admin)
    revision = client.get(f"{API}/posts/{post['id']}/revisions", headers=admin).json[0]
    url = f"{API}/posts/{post['id']}/revisions/{revision['id']}"
    assert client.get(url, headers=admin).json["id"] == revision["id"]
    assert_rest_error(client.get(url, status=401), "rest_cannot_read", 401)
    assert_rest_error(client.get(url, headers=users["contributor"].headers, status=403), "rest_cannot_read", 403)
    assert_rest_error(client.get(f"{API}/posts/99999/revisions", headers=admin, status=404),
                      "rest_post_invalid_parent", 404)
    page = make_post("pages", title="Page")
    assert_rest_error(client.get(f"{API}/posts/{page['id']}/revisions", headers=admin, status=404),
                      "rest_post_invalid_parent", 404)
    other = make_post(title="Other")
    assert_rest_error(client.get(f"{API}/posts/{other['id']}/revisions/{revision['id']}", headers=admin, status=404),
                      "rest_revision_parent_id_mismatch", 404)
    assert_rest_error(client.get(f"{API}/posts/{post['id']}/revisions/{post['id']}", headers=admin, status=404),
                      "rest_post_invalid_id", 404)
    assert_rest_error(client.delete(url + "?force=true", headers=admin, status=403), "rest_cannot_delete", 403)
    assert_rest_error(client.post_json(f"{API}/posts/{post['id']}/revisions", {}, headers=admin, status=404),
                      "rest_no_route", 404)


def test_autosave_of_own_draft_edits_the_draft(client, users):
    author = users["author"].headers
    draft = client.post_json(f"{API}/posts", {"title": "Draft"}, headers=author).json
    response = client.post_json(f"{API}/posts/{draft['id']}/autosaves", {"title": "Draft v2", "content": "More"},
                                headers=author, status=200)
    assert response.json["id"] == draft["id"] and response.json["parent"] == 0
    assert "_links" not in response.json  # WordPress links a revision to its parent only: here there is none
    post = client.get(f"{API}/posts/{draft['id']}?context=edit", headers=author).json
    assert post["title"]["raw"] == "Draft v2" and post["_links"]["version-history"][0]["count"] == 0


def test_autosave_of_a_published_post_is_one_revision_per_user(client, users, make_post):
    admin, editor = users["administrator"].headers, users["editor"].headers
    post = make_post(title="Live", content="Live body")
    first = client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "Live (edit)", "content": "New body"},
                             headers=admin, status=200).json
    assert first["slug"] == f"{post['id']}-autosave-v1" and first["parent"] == post["id"] and "preview_link" in first
    assert first["_links"]["parent"] == [{"href": f"http://school.test{API}/posts/{post['id']}"}]
    again = client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "Live (edit 2)", "content": "New"},
                             headers=admin).json
    assert again["id"] == first["id"] and again["title"]["raw"] == "Live (edit 2)"
    client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "Editor's", "content": "x"}, headers=editor)
    listed = client.get(f"{API}/posts/{post['id']}/autosaves", headers=admin).json
    assert len(listed) == 2 and "X-WP-Total" not in client.get(f"{API}/posts/{post['id']}/autosaves",
                                                               headers=admin).headers
    editors = next(item for item in listed if item["author"] == users["editor"].id)
    assert client.get(f"{API}/posts/{post['id']}/autosaves/{editors['id']}", headers=admin).json["title"][
        "rendered"] == "Editor&#8217;s"
    assert client.get(f"{API}/posts/{post['id']}/autosaves/{first['id']}?context=edit", headers=admin).json[
        "title"]["raw"] == "Live (edit 2)"
    # An id that is not an autosave of this post is not found, rather than answered with another autosave.
    for other in (999999, post["id"]):
        assert_rest_error(client.get(f"{API}/posts/{post['id']}/autosaves/{other}", headers=admin, status=404),
                          "rest_post_no_autosave", 404)
    assert client.get(f"{API}/posts/{post['id']}", headers=admin).json["title"]["rendered"] == "Live"
    revisions = client.get(f"{API}/posts/{post['id']}/revisions", headers=admin).json
    assert len(revisions) == 2  # autosaves appear among revisions


def test_autosave_errors(client, users, make_post):
    admin = users["administrator"].headers
    post = make_post(title="Live")
    assert_rest_error(client.post_json(f"{API}/posts/99999/autosaves", {"title": "x"}, headers=admin, status=404),
                      "rest_post_invalid_id", 404)
    assert_rest_error(client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "x"},
                                       headers=users["author"].headers, status=403), "rest_cannot_edit", 403)
    assert_rest_error(client.post_json(f"{API}/posts/{post['id']}/autosaves", {"comment_status": "garbage"},
                                       headers=admin, status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/posts/{post['id']}/autosaves/1", headers=admin, status=404),
                      "rest_post_no_autosave", 404)
    assert_rest_error(client.get(f"{API}/posts/{post['id']}/autosaves", status=401), "rest_cannot_read", 401)


def test_page_revisions_and_force_delete_removes_them(client, users, make_post, app):
    admin = users["administrator"].headers
    page = make_post("pages", title="About")
    client.post_json(f"{API}/pages/{page['id']}", {"title": "About us"}, headers=admin)
    assert len(client.get(f"{API}/pages/{page['id']}/revisions", headers=admin).json) == 1
    client.delete(f"{API}/pages/{page['id']}?force=true", headers=admin)
    posts = app.db.metadata.tables["posts"]
    with app.db.session() as session:
        assert session.execute(posts.select().where(posts.c.type == "revision")).first() is None


def test_permanent_deletes_answer_previous_without_links(client, users, make_post):
    """WordPress answers `previous` with the prepared item's data only: no `_links` to a gone item."""
    admin = users["administrator"].headers
    post = make_post()
    comment = client.post_json(f"{API}/comments", {"post": post["id"], "content": "Hi"}, headers=admin).json
    assert "_links" in comment
    gone_comment = client.delete(f"{API}/comments/{comment['id']}?force=true", headers=admin).json
    category = client.post_json(f"{API}/categories", {"name": "Short-lived"}, headers=admin).json
    gone_term = client.delete(f"{API}/categories/{category['id']}?force=true", headers=admin).json
    user = client.post_json(f"{API}/users", {"username": "brief", "email": "brief@school.test", "password": "pw-123456"},
                            headers=admin).json
    gone_user = client.delete(f"{API}/users/{user['id']}?force=true&reassign=false", headers=admin).json
    gone_post = client.delete(f"{API}/posts/{post['id']}?force=true", headers=admin).json
    for answer, item_id in ((gone_comment, comment["id"]), (gone_term, category["id"]), (gone_user, user["id"]),
                            (gone_post, post["id"])):
        assert answer["deleted"] is True and answer["previous"]["id"] == item_id
        assert "_links" not in answer["previous"], answer
