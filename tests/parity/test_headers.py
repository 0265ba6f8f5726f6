"""Allow and Link on every REST answer; CORS as WordPress sends it."""

from __future__ import annotations

import pytest
from webtest import TestApp

from host.testing import assert_rest_error

API = "/wp-json/core/v2"
DISCOVERY = '<http://school.test/wp-json/>; rel="https://api.w.org/"'
ORIGIN = "https://planner.example"


def _links(response) -> list[str]:
    return [part.strip() for part in response.headers["Link"].split(", <")]


# --- Link on every REST answer -----------------------------------------------------------------

@pytest.mark.parametrize("method, path, headers, status", [
    ("GET", "/wp-json/", {}, 200),
    ("GET", f"{API}/posts", {}, 200),
    ("GET", f"{API}/nowhere", {}, 404),
    ("GET", f"{API}/posts?per_page=1000", {}, 400),
    ("POST", f"{API}/posts", {}, 401),
    ("GET", f"{API}/posts", {"Authorization": "Basic bm9ib2R5Om5vcGU="}, 401),  # failed sign-in, before routing
    ("GET", f"/wp-json/core/v2/posts?{'a=1&' * 9000}", {}, 414),
    ("GET", "/?rest_route[]=x", {}, 400),
    ("OPTIONS", f"{API}/posts", {}, 200),
    ("GET", "/wp-json/oembed/1.0/embed?url=http://elsewhere.test/", {}, 404),
])
def test_every_rest_answer_carries_the_discovery_link(client, method, path, headers, status):
    response = client.request(path, method=method, headers={"Host": "school.test", **headers}, expect_errors=True)
    assert response.status_int == status
    assert DISCOVERY in response.headers["Link"]
    assert response.headers["Content-Type"].startswith("application/json")


def test_own_links_replace_the_discovery_link(client, make_post):
    """As WordPress's second `Link` header replaces its first: lists carry prev/next only, items alternate."""
    for _ in range(3):
        make_post()
    page = client.get(f"{API}/posts?per_page=1&page=2")
    rels = page.headers["Link"]
    assert 'rel="prev"' in rels and 'rel="next"' in rels and "api.w.org" not in rels
    post = make_post()
    single = client.get(f"{API}/posts/{post['id']}")
    assert single.headers["Link"] == f'<http://school.test/?p={post["id"]}>; rel="alternate"; type=text/html'
    cached = client.get(f"{API}/posts/{post['id']}")  # the response cache keeps the same header
    assert cached.headers["Link"] == single.headers["Link"]
    wrapped = client.get(f"{API}/posts/{post['id']}?_envelope")  # the envelope answers with the discovery link
    assert wrapped.headers["Link"] == DISCOVERY and "alternate" in wrapped.json["headers"]["Link"]


# --- Allow --------------------------------------------------------------------------------------

def test_allow_follows_the_caller_on_success_and_on_denials(client, users, make_post):
    post = make_post()
    path = f"{API}/posts/{post['id']}"
    assert client.get(path).headers["Allow"] == "GET"
    assert client.get(path, headers=users["administrator"].headers).headers["Allow"] == \
        "GET, POST, PUT, PATCH, DELETE"
    denied = client.delete(path, status=401)  # 401 for a matched route carries Allow too
    assert_rest_error(denied, "rest_cannot_delete", 401)
    assert denied.headers["Allow"] == "GET"
    forbidden = client.post_json(path, {"title": "x"}, headers=users["subscriber"].headers, status=403)
    assert forbidden.headers["Allow"] == "GET"


def test_allow_is_computed_after_the_handler(client, users):
    admin = users["administrator"].headers
    created = client.post_json(f"{API}/posts", {"title": "Fresh", "status": "draft"}, headers=admin, status=201)
    assert created.headers["Allow"] == "GET, POST"  # the collection's methods for the creator
    item = f"{API}/posts/{created.json['id']}"
    trashed = client.delete(item, headers=admin)
    assert trashed.json["status"] == "trash" and trashed.headers["Allow"] == "GET, POST, PUT, PATCH, DELETE"
    deleted = client.delete(item + "?force=true", headers=admin)
    assert deleted.json["deleted"] is True
    assert "Allow" not in deleted.headers  # the item is gone: nothing may be done to it any more
    category = client.post_json(f"{API}/categories", {"name": "Gone"}, headers=admin).json
    gone = client.delete(f"{API}/categories/{category['id']}?force=true", headers=admin)
    assert gone.json["deleted"] is True and "Allow" not in gone.headers


def test_unknown_routes_have_no_allow(client):
    assert "Allow" not in client.get(f"{API}/nowhere", status=404).headers


# --- CORS ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("origin", [ORIGIN, "http://localhost:3000", "null"])
def test_any_origin_is_echoed_with_credentials(client, origin):
    response = client.get(f"{API}/posts", headers={"Origin": origin})
    assert response.headers["Access-Control-Allow-Origin"] == origin
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert response.headers["Access-Control-Allow-Methods"] == "OPTIONS, GET, POST, PUT, PATCH, DELETE"
    assert response.headers["Vary"] == "Origin"
    assert response.headers["Access-Control-Expose-Headers"] == "X-WP-Total, X-WP-TotalPages, Link"
    assert response.headers["Access-Control-Allow-Headers"] == \
        "Authorization, Content-Type, Content-Disposition, Content-MD5"


def test_errors_and_preflights_carry_cors_too(client):
    error = client.get(f"{API}/nowhere", headers={"Origin": ORIGIN}, status=404)
    assert error.headers["Access-Control-Allow-Origin"] == ORIGIN
    preflight = client.options(f"{API}/posts", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert preflight.status_int == 200 and preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"].split(", ")


def test_without_origin_no_origin_is_granted(client):
    response = client.get(f"{API}/posts")
    assert "Access-Control-Allow-Origin" not in response.headers
    assert response.headers["Access-Control-Expose-Headers"] == "X-WP-Total, X-WP-TotalPages, Link"


def test_cors_origins_restricts_the_origins(make_app):
    site = make_app(plugins=["core"], cors_origins=[ORIGIN])
    allowed = site.client.get(f"{API}/posts", headers={"Origin": ORIGIN})
    assert allowed.headers["Access-Control-Allow-Origin"] == ORIGIN
    for other in ("https://evil.test", "null", ORIGIN + ".evil.test"):
        refused = site.client.get(f"{API}/posts", headers={"Origin": other})
        assert refused.status_int == 200
        assert "Access-Control-Allow-Origin" not in refused.headers
        assert "Access-Control-Allow-Credentials" not in refused.headers


@pytest.mark.parametrize("path", ["/", "/authorize-application", "/no-such-page", "/api-reference"])
def test_html_pages_send_no_cors_headers(client, path):
    response = client.get(path, headers={"Origin": ORIGIN}, expect_errors=True)
    assert response.headers["Content-Type"].startswith("text/html")
    assert not [name for name in response.headers if name.lower().startswith("access-control-")]


def test_a_cross_origin_page_cannot_use_a_signed_in_browser_session(app, users, make_post):
    """The browser sends the site's session cookie along with a cross-origin request; REST ignores it."""
    editor = users["editor"]
    draft = make_post(status="draft", title="Staff only")
    browser = TestApp(app, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "192.0.2.7"})
    form = browser.get("/authorize-application?app_name=Planner").forms[0]
    form["log"], form["pwd"] = editor.login, editor.password
    signed_in = form.submit()
    assert signed_in.status_int == 303 and "sitehost_session" in browser.cookies  # a real browser session
    origin = {"Origin": "https://evil.test"}
    me = browser.get(f"{API}/users/me", headers=origin, status=401)
    assert_rest_error(me, "rest_not_logged_in", 401)
    assert browser.get(f"{API}/posts/{draft['id']}", headers=origin, status=401).json["code"] == "rest_forbidden"
    create = browser.post_json(f"{API}/posts", {"title": "Planted"}, headers=origin, status=401)
    assert_rest_error(create, "rest_cannot_create", 401)
    listed = browser.get(f"{API}/posts?status=draft", headers=origin, status=400)
    assert listed.json["data"]["details"]["status"]["data"]["status"] == 401  # treated as anonymous


def test_a_status_refused_anonymously_still_allows_get(client, users):
    """WordPress refuses the status while sanitizing, apart from the permission check: Allow lists GET."""
    refused = client.get(f"{API}/posts?status=draft", status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    assert refused.headers["Allow"] == "GET"
    subscriber = client.get(f"{API}/posts?status=draft", headers=users["subscriber"].headers, status=400)
    assert subscriber.headers["Allow"] == "GET"
    edit_context = client.get(f"{API}/posts?context=edit", status=401)  # a refused permission: nothing allowed
    assert "Allow" not in edit_context.headers


def test_options_links_the_route_to_itself_without_target_hints(client, users):
    """WordPress's OPTIONS descriptor carries `_links.self` as a bare href; the caller's methods are in Allow."""
    answer = client.options(f"{API}/posts", headers=users["administrator"].headers)
    assert answer.json["_links"]["self"] == [{"href": f"http://school.test{API}/posts"}]
    assert answer.headers["Allow"] == "GET, POST"


def test_options_schema_of_posts_has_wordpress_action_links(client):
    """WordPress's posts schema lists its action links (Link Description Objects) under `links`."""
    for path in (f"{API}/posts", f"{API}/posts/1"):
        links = client.options(path).json["schema"]["links"]
        assert [link["rel"] for link in links] == [
            "https://api.w.org/action-publish", "https://api.w.org/action-unfiltered-html",
            "https://api.w.org/action-sticky", "https://api.w.org/action-assign-author",
            "https://api.w.org/action-assign-categories", "https://api.w.org/action-create-categories",
            "https://api.w.org/action-assign-tags", "https://api.w.org/action-create-tags"], path
        assert all(link["href"] == f"http://school.test{API}/posts/{{id}}" for link in links)
        assert links[0]["targetSchema"] == {"type": "object", "properties": {
            "status": {"type": "string", "enum": ["publish", "future"]}}}
    page_rels = [link["rel"] for link in client.options(f"{API}/pages").json["schema"]["links"]]
    assert "https://api.w.org/action-sticky" not in page_rels and "https://api.w.org/action-publish" in page_rels
