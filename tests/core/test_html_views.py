"""HTML views of published posts and pages at their plain permalinks."""

API = "/wp-json/core/v2"


def test_published_post_has_an_html_view_with_rest_alternate_links(client, make_post):
    post = make_post(title="Sports day", content="Races on the field.")
    response = client.get(f"/?p={post['id']}")
    assert response.status_int == 200
    assert response.content_type == "text/html"
    assert "<h1>Sports day</h1>" in response.text
    assert "<p>Races on the field.</p>" in response.text
    rest_url = f"http://school.test{API}/posts/{post['id']}"
    assert f'<link rel="alternate" title="JSON" type="application/json" href="{rest_url}">' in response.text
    links = response.headers.getall("Link")
    assert f'<{rest_url}>; rel="alternate"; title="JSON"; type="application/json"' in ", ".join(links)
    assert 'rel="https://api.w.org/"' in ", ".join(links)
    assert post["link"] == f"http://school.test/?p={post['id']}"


def test_page_view_at_page_id(client, make_post):
    page = make_post(base="pages", title="Admissions", content="Apply by March.")
    response = client.get(f"/?page_id={page['id']}")
    assert "<h1>Admissions</h1>" in response.text


def test_unpublished_or_unknown_items_have_no_view(client, make_post):
    draft = make_post(title="Secret plans", status="draft")
    private = make_post(title="Staff only", status="private")
    for url in (f"/?p={draft['id']}", f"/?p={private['id']}", "/?p=99999", "/?p=abc", f"/?page_id={draft['id']}"):
        response = client.get(url, status=404)
        assert "Secret plans" not in response.text and "Staff only" not in response.text


def test_password_protected_view_hides_the_content(client, make_post):
    post = make_post(title="Exam answers", content="The answer is 42.", password="sesame")
    response = client.get(f"/?p={post['id']}")
    assert "This content is password protected." in response.text
    assert "The answer is" not in response.text  # (the date shown may hold any digits)


def test_front_page_without_a_permalink_query(client):
    response = client.get("/")
    assert response.status_int == 200
    assert "Riverside School" in response.text
