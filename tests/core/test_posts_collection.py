"""Every collection parameter of posts and pages, each with data where it changes the result."""

from __future__ import annotations

import pytest
from host.testing import assert_rest_error

from tests.core.helpers import API


def ids(response):
    return [item["id"] for item in response.json]


@pytest.fixture
def admin(users):
    return users["administrator"].headers


@pytest.fixture
def category(client, admin):
    def make(name, parent=0):
        return client.post_json(f"{API}/categories", {"name": name, "parent": parent}, headers=admin).json["id"]
    return make


@pytest.fixture
def tag(client, admin):
    def make(name):
        return client.post_json(f"{API}/tags", {"name": name}, headers=admin).json["id"]
    return make


def test_defaults_publish_only_newest_first_with_headers(client, make_post):
    older = make_post(title="Older", date="2024-01-01T10:00:00")
    newer = make_post(title="Newer", date="2024-02-01T10:00:00")
    make_post(title="Draft", status="draft")
    response = client.get(f"{API}/posts")
    assert ids(response) == [newer["id"], older["id"]]
    assert response.headers["X-WP-Total"] == "2"
    assert response.headers["X-WP-TotalPages"] == "1"


def test_pagination_headers_links_and_page_errors(client, make_post):
    for index in range(5):
        make_post(title=f"Post {index}", date=f"2024-01-0{index + 1}T10:00:00")
    response = client.get(f"{API}/posts?per_page=2&page=2")
    assert len(response.json) == 2
    assert response.headers["X-WP-TotalPages"] == "3"
    assert 'rel="prev"' in response.headers["Link"] and 'rel="next"' in response.headers["Link"]
    assert_rest_error(client.get(f"{API}/posts?page=4&per_page=2", status=400), "rest_post_invalid_page_number", 400)
    for bad in ("per_page=0", "per_page=101", "per_page=-1", "page=0"):
        assert_rest_error(client.get(f"{API}/posts?{bad}", status=400), "rest_invalid_param", 400)
    assert client.get(f"{API}/posts?search=nothingmatches&page=3").json == []


def test_offset_replaces_page_and_keeps_total(client, make_post):
    made = [make_post(title=f"P{index}", date=f"2024-01-0{index + 1}T10:00:00")["id"] for index in range(4)]
    response = client.get(f"{API}/posts?offset=1&per_page=2&page=2")
    assert ids(response) == [made[2], made[1]]
    assert response.headers["X-WP-Total"] == "4"


def test_order_and_every_orderby(client, make_post, users):
    a = make_post(title="Banana", slug="zeta", date="2024-01-03T10:00:00")
    b = make_post(title="Apple", slug="alpha", date="2024-01-01T10:00:00", role="editor")
    c = make_post(title="Cherry", slug="mid", date="2024-01-02T10:00:00")
    assert ids(client.get(f"{API}/posts?order=asc")) == [b["id"], c["id"], a["id"]]
    assert ids(client.get(f"{API}/posts?orderby=title&order=asc")) == [b["id"], a["id"], c["id"]]
    assert ids(client.get(f"{API}/posts?orderby=slug&order=asc")) == [b["id"], c["id"], a["id"]]
    assert ids(client.get(f"{API}/posts?orderby=id&order=asc")) == [a["id"], b["id"], c["id"]]
    assert ids(client.get(f"{API}/posts?orderby=include&include={c['id']},{a['id']},{b['id']}")) == [
        c["id"], a["id"], b["id"]]
    assert ids(client.get(f"{API}/posts?orderby=include_slugs&slug=mid,zeta")) == [c["id"], a["id"]]
    by_author = ids(client.get(f"{API}/posts?orderby=author&order=desc"))
    assert by_author[0] == b["id"]  # the editor was created after the administrator
    client.post_json(f"{API}/posts/{b['id']}", {"content": "touched"}, headers=users["administrator"].headers)
    assert ids(client.get(f"{API}/posts?orderby=modified"))[0] == b["id"]
    assert ids(client.get(f"{API}/posts?orderby=parent&order=asc"))[0] in (a["id"], b["id"], c["id"])
    assert_rest_error(client.get(f"{API}/posts?orderby=include", status=400),
                      "rest_orderby_include_missing_include", 400)
    assert_rest_error(client.get(f"{API}/posts?orderby=relevance", status=400), "rest_no_search_term_defined", 400)
    assert_rest_error(client.get(f"{API}/posts?orderby=nonsense", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/posts?order=up", status=400), "rest_invalid_param", 400)


def test_search_columns_semantics_and_relevance(client, make_post):
    title_hit = make_post(title="Science fair results", content="Nothing here", date="2024-01-01T10:00:00")
    content_hit = make_post(title="Other news", content="The science fair was fun", date="2024-01-02T10:00:00")
    excerpt_hit = make_post(title="Third", content="x", excerpt="science recap", date="2024-01-03T10:00:00")
    assert set(ids(client.get(f"{API}/posts?search=science"))) == {title_hit["id"], content_hit["id"],
                                                                    excerpt_hit["id"]}
    assert ids(client.get(f"{API}/posts?search=science&search_columns=post_title")) == [title_hit["id"]]
    assert ids(client.get(f"{API}/posts?search=science&search_columns=post_excerpt")) == [excerpt_hit["id"]]
    assert ids(client.get(f"{API}/posts?search=science&search_columns=post_content")) == [content_hit["id"]]
    assert ids(client.get(f"{API}/posts?search=science -fair")) == [excerpt_hit["id"]]
    assert ids(client.get(f"{API}/posts?search=science%20fair&orderby=relevance"))[0] == title_hit["id"]
    assert ids(client.get(f"{API}/posts?search=Other%20news&search_semantics=exact")) == []
    assert ids(client.get(f'{API}/posts?search="Other news"&search_semantics=exact')) == [content_hit["id"]]
    assert_rest_error(client.get(f"{API}/posts?search_columns=post_name", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/posts?search_semantics=fuzzy", status=400), "rest_invalid_param", 400)


def test_anonymous_search_never_returns_protected_posts(client, make_post, admin):
    open_post = make_post(title="Open day")
    make_post(title="Open secret", password="pw")
    assert ids(client.get(f"{API}/posts?search=open")) == [open_post["id"]]
    assert len(client.get(f"{API}/posts?search=open", headers=admin).json) == 2


def test_dates_after_before_and_modified(client, make_post, users):
    jan = make_post(title="Jan", date="2024-01-15T10:00:00")
    mar = make_post(title="Mar", date="2024-03-15T10:00:00")
    assert ids(client.get(f"{API}/posts?after=2024-02-01T00:00:00")) == [mar["id"]]
    assert ids(client.get(f"{API}/posts?before=2024-02-01T00:00:00")) == [jan["id"]]
    assert ids(client.get(f"{API}/posts?after=2024-01-15T10:00:00")) == [mar["id"]]  # exclusive
    assert ids(client.get(f"{API}/posts?after=2024-01-15T09:00:00Z&before=2024-01-15T11:00:00%2B00:00")) == [jan["id"]]
    assert ids(client.get(f"{API}/posts?modified_before=2024-02-01T00:00:00")) == [jan["id"]]
    assert set(ids(client.get(f"{API}/posts?modified_after=2024-02-01T00:00:00"))) == {mar["id"]}
    client.post_json(f"{API}/posts/{jan['id']}", {"content": "edited now"}, headers=users["administrator"].headers)
    assert set(ids(client.get(f"{API}/posts?modified_after=2025-01-01T00:00:00"))) == {jan["id"]}
    assert_rest_error(client.get(f"{API}/posts?after=yesterday", status=400), "rest_invalid_param", 400)


def test_author_include_exclude_and_slug(client, make_post, users):
    mine = make_post(title="By admin", slug="by-admin")
    theirs = make_post(title="By editor", role="editor")
    editor = users["editor"].id
    assert ids(client.get(f"{API}/posts?author={editor}")) == [theirs["id"]]
    assert ids(client.get(f"{API}/posts?author_exclude={editor}")) == [mine["id"]]
    assert ids(client.get(f"{API}/posts?include={mine['id']}")) == [mine["id"]]
    assert ids(client.get(f"{API}/posts?exclude={mine['id']}")) == [theirs["id"]]
    assert ids(client.get(f"{API}/posts?slug=by-admin")) == [mine["id"]]
    assert ids(client.get(f"{API}/posts?slug[]=By Admin")) == [mine["id"]]
    assert_rest_error(client.get(f"{API}/posts?include=abc", status=400), "rest_invalid_param", 400)


def test_status_filters_and_permissions(client, make_post, users):
    published = make_post(title="Live")
    draft = make_post(title="Draft", status="draft")
    private = make_post(title="Private", status="private")
    editor = users["editor"].headers
    assert ids(client.get(f"{API}/posts?status=draft", headers=editor)) == [draft["id"]]
    assert set(ids(client.get(f"{API}/posts?status=draft,private", headers=editor))) == {draft["id"], private["id"]}
    assert set(ids(client.get(f"{API}/posts?status=any", headers=editor))) == {published["id"], draft["id"],
                                                                               private["id"]}
    body = assert_rest_error(client.get(f"{API}/posts?status=draft", status=400), "rest_invalid_param", 400)
    assert body["data"]["details"]["status"]["code"] == "rest_forbidden_status"
    assert body["data"]["details"]["status"]["data"]["status"] == 401
    body = assert_rest_error(client.get(f"{API}/posts?status=draft", headers=users["subscriber"].headers,
                                        status=400), "rest_invalid_param", 400)
    assert body["data"]["details"]["status"]["data"]["status"] == 403
    assert_rest_error(client.get(f"{API}/posts?status=unknown", headers=editor, status=400), "rest_invalid_param", 400)


def test_contributor_listing_drafts_sees_and_counts_only_own(client, make_post, users):
    """WordPress counts the admin's draft too (X-WP-Total 2): a leak."""
    make_post(title="Admin draft", status="draft")
    own = make_post(title="Own draft", status="draft", role="contributor")
    response = client.get(f"{API}/posts?status=draft", headers=users["contributor"].headers)
    assert ids(response) == [own["id"]]
    assert response.headers["X-WP-Total"] == "1"


def test_categories_tags_and_their_forms(client, make_post, category, tag):
    school = category("School")
    sports = category("Sports", parent=school)
    music = tag("Music")
    art = tag("Art")
    in_school = make_post(title="School news", categories=[school], tags=[music])
    in_sports = make_post(title="Match report", categories=[sports], tags=[music, art])
    plain = make_post(title="Plain")
    assert ids(client.get(f"{API}/posts?categories={school}")) == [in_school["id"]]
    assert set(ids(client.get(f"{API}/posts?categories[terms]={school}&categories[include_children]=true"))) == {
        in_school["id"], in_sports["id"]}
    assert ids(client.get(f"{API}/posts?tags[terms][]={music}&tags[terms][]={art}&tags[operator]=AND")) == [
        in_sports["id"]]
    assert set(ids(client.get(f"{API}/posts?tags={music},{art}"))) == {in_school["id"], in_sports["id"]}
    assert set(ids(client.get(f"{API}/posts?tags_exclude={art}"))) == {in_school["id"], plain["id"]}
    assert set(ids(client.get(f"{API}/posts?categories_exclude[terms]={school}&categories_exclude[include_children]=1"
                              ))) == {plain["id"]}
    assert set(ids(client.get(f"{API}/posts?categories={school}&tags={art}&tax_relation=OR"))) == {
        in_school["id"], in_sports["id"]}
    assert ids(client.get(f"{API}/posts?categories={school}&tags={art}")) == []
    assert_rest_error(client.get(f"{API}/posts?categories=abc", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/posts?tax_relation=XOR", status=400), "rest_invalid_param", 400)


def test_sticky_and_ignore_sticky(client, make_post):
    sticky = make_post(title="Pinned", sticky=True, date="2024-01-01T10:00:00")
    normal = [make_post(title=f"Normal {index}", date=f"2024-02-0{index + 1}T10:00:00")["id"] for index in range(3)]
    assert ids(client.get(f"{API}/posts?sticky=true")) == [sticky["id"]]
    assert sticky["id"] not in ids(client.get(f"{API}/posts?sticky=false"))
    assert ids(client.get(f"{API}/posts?per_page=2"))[0] == normal[2]
    stuck = client.get(f"{API}/posts?per_page=2&ignore_sticky=false")
    assert ids(stuck) == [sticky["id"], normal[2], normal[1]]  # page 1 may hold more than per_page
    assert stuck.headers["X-WP-Total"] == "4"
    assert_rest_error(client.get(f"{API}/posts?sticky=maybe", status=400), "rest_invalid_param", 400)


def test_format_filter(client, make_post):
    aside = make_post(title="Aside", format="aside")
    standard = make_post(title="Standard")
    assert ids(client.get(f"{API}/posts?format=aside")) == [aside["id"]]
    assert ids(client.get(f"{API}/posts?format=standard")) == [standard["id"]]
    assert_rest_error(client.get(f"{API}/posts?format=aside,aside", status=400), "rest_invalid_param", 400)
    assert_rest_error(client.get(f"{API}/posts?format=poem", status=400), "rest_invalid_param", 400)


def test_pages_parent_parent_exclude_menu_order_and_orderby(client, make_post):
    about = make_post("pages", title="About", menu_order=2)
    staff = make_post("pages", title="Staff", parent=about["id"], menu_order=1)
    contact = make_post("pages", title="Contact", menu_order=3)
    assert ids(client.get(f"{API}/pages?parent={about['id']}")) == [staff["id"]]
    assert set(ids(client.get(f"{API}/pages?parent=0"))) == {about["id"], contact["id"]}
    assert set(ids(client.get(f"{API}/pages?parent_exclude={about['id']}"))) == {about["id"], contact["id"]}
    assert ids(client.get(f"{API}/pages?menu_order=3")) == [contact["id"]]
    assert ids(client.get(f"{API}/pages?orderby=menu_order&order=asc")) == [staff["id"], about["id"], contact["id"]]
    assert_rest_error(client.get(f"{API}/posts?orderby=menu_order", status=400), "rest_invalid_param", 400)


def test_context_edit_needs_edit_rights(client, make_post, users):
    make_post(title="One")
    assert_rest_error(client.get(f"{API}/posts?context=edit", status=401), "rest_forbidden_context", 401)
    assert_rest_error(client.get(f"{API}/posts?context=edit", headers=users["subscriber"].headers, status=403),
                      "rest_forbidden_context", 403)
    body = client.get(f"{API}/posts?context=edit", headers=users["editor"].headers).json
    assert body[0]["title"]["raw"] == "One" and "password" in body[0]
    embed = client.get(f"{API}/posts?context=embed").json[0]
    assert set(embed) == {"author", "date", "excerpt", "featured_media", "id", "link", "slug", "title", "type",
                          "_links"}
    assert_rest_error(client.get(f"{API}/posts?context=help", status=400), "rest_invalid_param", 400)
