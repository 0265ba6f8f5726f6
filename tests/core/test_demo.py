"""Demo content: a school site readable through the API right after `init --demo`."""

from __future__ import annotations

from tests.core.helpers import API


def test_demo_content_is_a_believable_school_site(make_app):
    app = make_app()
    assert app.install_site(demo=True)
    client = app.client
    posts = client.get(f"{API}/posts?per_page=100").json
    assert len(posts) == 6 and all(post["status"] == "publish" for post in posts)
    assert [post["title"]["rendered"] for post in client.get(f"{API}/posts?sticky=true").json] == [
        "Welcome back for the autumn term"]
    categories = {term["name"]: term for term in client.get(f"{API}/categories?per_page=100").json}
    assert {"News", "Events", "Sport", "Music", "Uncategorized"} <= set(categories)
    assert categories["Sport"]["parent"] == categories["Events"]["id"] and categories["News"]["count"] >= 3
    pages = {page["title"]["rendered"]: page for page in client.get(f"{API}/pages?per_page=100").json}
    assert pages["Our staff"]["parent"] == pages["About us"]["id"]
    protected = pages["Parents&#8217; area"]
    assert protected["content"] == {"rendered": "", "protected": True}
    assert client.get(f"{API}/pages/{protected['id']}?password=riverside").json["content"]["rendered"]
    users = app.auth_tables["users"]
    with app.db.session() as session:
        roles = [row.roles for row in session.execute(users.select())]
    assert "author" in roles and "administrator" in roles
    assert client.get(f"{API}/posts?status=draft", status=400).json["code"] == "rest_invalid_param"
