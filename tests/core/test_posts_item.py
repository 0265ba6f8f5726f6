"""Single post/page reads: contexts, rendering, passwords, visibility, links and _embed."""

from __future__ import annotations

from host.testing import assert_rest_error

from tests.core.helpers import API


def test_view_fields_rendering_and_alternate_link(client, make_post):
    post = make_post(title="It's \"fun\" & games", content="First line\nsecond\n\nNext paragraph")
    response = client.get(f"{API}/posts/{post['id']}")
    body = response.json
    assert body["title"] == {"rendered": "It&#8217;s &#8220;fun&#8221; &#038; games"}
    assert body["content"]["rendered"] == "<p>First line<br />\nsecond</p>\n<p>Next paragraph</p>\n"
    assert body["excerpt"]["rendered"] == "<p>First line second Next paragraph</p>\n"
    assert "password" not in body and "generated_slug" not in body
    assert list(body)[:6] == ["id", "date", "date_gmt", "guid", "modified", "modified_gmt"]
    assert response.headers["Link"] == f'<http://school.test/?p={post["id"]}>; rel="alternate"; type=text/html'


def test_automatic_excerpt_and_excerpt_length(client, make_post):
    words = " ".join(f"word{index}" for index in range(60))
    post = make_post(title="Long", content=words)
    excerpt = client.get(f"{API}/posts/{post['id']}").json["excerpt"]["rendered"]
    assert excerpt == "<p>" + " ".join(f"word{index}" for index in range(55)) + " [&hellip;]</p>\n"
    short = client.get(f"{API}/posts/{post['id']}?excerpt_length=3").json["excerpt"]["rendered"]
    assert short == "<p>word0 word1 word2 [&hellip;]</p>\n"


def test_password_protected_post(client, make_post, users):
    post = make_post(title="Staff only", content="Secret plans", password="letmein")
    body = client.get(f"{API}/posts/{post['id']}").json
    assert body["content"] == {"rendered": "", "protected": True}
    assert body["excerpt"]["rendered"] == "" and body["title"]["rendered"] == "Staff only"
    unlocked = client.get(f"{API}/posts/{post['id']}?password=letmein").json
    assert unlocked["content"]["rendered"] == "<p>Secret plans</p>\n" and unlocked["content"]["protected"] is True
    assert "post-password-protected" in unlocked["class_list"]
    assert_rest_error(client.get(f"{API}/posts/{post['id']}?password=wrong", status=403),
                      "rest_post_incorrect_password", 403)
    edit = client.get(f"{API}/posts/{post['id']}?context=edit", headers=users["editor"].headers).json
    assert edit["content"]["rendered"] == "<p>Secret plans</p>\n" and edit["password"] == "letmein"
    listed = client.get(f"{API}/posts").json[0]
    assert listed["content"]["rendered"] == "" and "post-password-required" in listed["class_list"]


def test_visibility_of_non_public_items(client, make_post, users):
    draft = make_post(title="Draft", status="draft", role="author")
    private = make_post(title="Private", status="private")
    future = make_post(title="Later", status="future", date="2099-01-01T00:00:00")
    for item in (draft, private, future):
        assert_rest_error(client.get(f"{API}/posts/{item['id']}", status=401), "rest_forbidden", 401)
        assert_rest_error(client.get(f"{API}/posts/{item['id']}", headers=users["subscriber"].headers, status=403),
                          "rest_forbidden", 403)
    assert client.get(f"{API}/posts").json == []
    assert client.get(f"{API}/posts/{draft['id']}", headers=users["author"].headers).json["status"] == "draft"
    assert_rest_error(client.get(f"{API}/posts/{private['id']}", headers=users["author"].headers, status=403),
                      "rest_forbidden", 403)
    assert client.get(f"{API}/posts/{private['id']}", headers=users["editor"].headers).status_int == 200


def test_future_posts_become_public_when_their_time_comes(app, client, make_post):
    future = make_post(title="Soon", status="future", date="2099-01-01T00:00:00")
    assert future["status"] == "future"
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():
        import datetime
        past = datetime.datetime(2020, 1, 1)
        session.execute(posts.update().where(posts.c.id == future["id"]).values(date=past, date_gmt=past))
    assert client.get(f"{API}/posts/{future['id']}").json["status"] == "publish"
    assert [item["id"] for item in client.get(f"{API}/posts").json] == [future["id"]]


def test_unknown_and_wrong_type_ids(client, make_post, users):
    page = make_post("pages", title="A page")
    assert_rest_error(client.get(f"{API}/posts/{page['id']}", status=404), "rest_post_invalid_id", 404)
    assert_rest_error(client.get(f"{API}/posts/99999", status=404), "rest_post_invalid_id", 404)
    assert_rest_error(client.get(f"{API}/posts/0", status=404), "rest_post_invalid_id", 404)
    post = make_post(title="Mine")
    assert_rest_error(client.get(f"{API}/posts/{post['id']}?context=edit", headers=users["contributor"].headers,
                                 status=403), "rest_forbidden_context", 403)


def test_links_of_a_post_and_a_page(client, make_post, users):
    parent = make_post("pages", title="Parent")
    child = make_post("pages", title="Child", parent=parent["id"])
    links = client.get(f"{API}/pages/{child['id']}").json["_links"]
    base = "http://school.test/wp-json/core/v2"
    assert links["self"][0]["href"] == f"{base}/pages/{child['id']}"
    assert links["collection"] == [{"href": f"{base}/pages"}]
    assert links["about"] == [{"href": f"{base}/types/page"}]
    assert links["up"] == [{"embeddable": True, "href": f"{base}/pages/{parent['id']}"}]
    assert links["wp:attachment"] == [{"href": f"{base}/media?parent={child['id']}"}]
    assert "wp:term" not in links and "curies" in links
    post = make_post(title="Post")
    client.post_json(f"{API}/posts/{post['id']}", {"title": "Post edited"}, headers=users["administrator"].headers)
    links = client.get(f"{API}/posts/{post['id']}").json["_links"]
    assert links["version-history"][0]["count"] == 1
    revision_id = links["predecessor-version"][0]["id"]
    assert links["predecessor-version"][0]["href"] == f"{base}/posts/{post['id']}/revisions/{revision_id}"
    assert [link["taxonomy"] for link in links["wp:term"]] == ["category", "post_tag"]
    assert links["replies"][0]["href"] == f"{base}/comments?post={post['id']}"
    assert "wp:action-publish" not in links
    assert_rest_error(client.get(f"{API}/posts/{post['id']}?context=edit", headers=users["author"].headers,
                                 status=403), "rest_forbidden_context", 403)  # someone else's post
    own = make_post(title="Author's own", role="author")
    author_links = client.get(f"{API}/posts/{own['id']}?context=edit", headers=users["author"].headers).json["_links"]
    assert "wp:action-publish" in author_links and "wp:action-sticky" not in author_links


def test_embed_terms_and_up(client, make_post):
    parent = make_post("pages", title="Parent")
    child = make_post("pages", title="Child", parent=parent["id"])
    embedded = client.get(f"{API}/pages/{child['id']}?_embed=up").json["_embedded"]
    assert embedded["up"][0]["id"] == parent["id"] and "content" not in embedded["up"][0]
    post = make_post(title="Filed")
    terms = client.get(f"{API}/posts/{post['id']}?_embed=wp:term").json["_embedded"]["wp:term"]
    assert terms[0][0]["slug"] == "uncategorized" and terms[1] == []


def test_embed_never_reveals_a_draft_parent(client, make_post):
    parent = make_post("pages", title="Hidden parent", status="draft")
    child = make_post("pages", title="Child", parent=parent["id"])
    embedded = client.get(f"{API}/pages/{child['id']}?_embed=up").json["_embedded"]["up"][0]
    assert embedded["code"] == "rest_forbidden" and "Hidden parent" not in str(embedded)


def test_fields_filtering(client, make_post):
    post = make_post(title="Fields")
    body = client.get(f"{API}/posts/{post['id']}?_fields=id,title.rendered").json
    assert body == {"id": post["id"], "title": {"rendered": "Fields"}}
