"""Categories and tags: list, create, read, update and delete."""

from __future__ import annotations

import pytest
from host.testing import assert_rest_error

from tests.core.helpers import API


def test_fresh_site_has_uncategorized(client):
    response = client.get(f"{API}/categories")
    assert [term["slug"] for term in response.json] == ["uncategorized"]
    assert response.headers["X-WP-Total"] == "1"
    term = response.json[0]
    assert term["id"] == 1 and term["parent"] == 0 and term["meta"] == {} and term["taxonomy"] == "category"
    assert term["_links"]["wp:post_type"][0]["href"].endswith("/core/v2/posts?categories=1")


@pytest.mark.parametrize("role,category,tag", [
    ("administrator", 201, 201), ("editor", 201, 201), ("author", 403, 201), ("contributor", 403, 201),
    ("subscriber", 403, 403)])
def test_each_role_creating_terms(client, users, role, category, tag):
    response = client.post_json(f"{API}/categories", {"name": f"Cat {role}"}, headers=users[role].headers,
                                status=category)
    if category == 403:
        assert_rest_error(response, "rest_cannot_create", 403)
    response = client.post_json(f"{API}/tags", {"name": f"Tag {role}"}, headers=users[role].headers, status=tag)
    if tag == 201:
        assert response.headers["Location"].endswith(f"/tags/{response.json['id']}")


def test_create_rules_and_errors(client, users):
    admin = users["administrator"].headers
    parent = client.post_json(f"{API}/categories", {"name": "Clubs"}, headers=admin).json
    child = client.post_json(f"{API}/categories", {"name": "<b>Chess</b> ", "parent": parent["id"]},
                             headers=admin).json
    assert child["name"] == "Chess" and child["slug"] == "chess" and child["parent"] == parent["id"]
    body = assert_rest_error(client.post_json(f"{API}/categories", {"name": "chess", "parent": parent["id"]},
                                              headers=admin, status=400), "term_exists", 400)
    assert body["data"]["term_id"] == child["id"]
    elsewhere = client.post_json(f"{API}/categories", {"name": "Chess"}, headers=admin).json
    assert elsewhere["slug"] == "chess-2"
    nested = client.post_json(f"{API}/categories", {"name": "Chess", "parent": elsewhere["id"]}, headers=admin).json
    assert nested["slug"] == "chess-chess-2"
    assert_rest_error(client.post_json(f"{API}/categories", {}, headers=admin, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(client.post_json(f"{API}/categories", {"name": "<b></b>"}, headers=admin, status=400),
                      "empty_term_name", 400)
    assert_rest_error(client.post_json(f"{API}/categories", {"name": "X", "parent": 999}, headers=admin, status=400),
                      "rest_term_invalid", 400)
    assert_rest_error(client.post_json(f"{API}/tags", {"name": "X", "parent": parent["id"]}, headers=admin,
                                       status=400), "rest_taxonomy_not_hierarchical", 400)
    client.post_json(f"{API}/tags", {"name": "Music"}, headers=admin)
    assert_rest_error(client.post_json(f"{API}/tags", {"name": "MUSIC"}, headers=admin, status=400), "term_exists", 400)
    assert client.post_json(f"{API}/tags", {"name": "Music", "slug": "music-club"}, headers=admin).status_int == 201


def test_update_and_delete(client, users, make_post):
    admin = users["administrator"].headers
    parent = client.post_json(f"{API}/categories", {"name": "Parent"}, headers=admin).json
    term = client.post_json(f"{API}/categories", {"name": "Old", "parent": parent["id"]}, headers=admin).json
    grandchild = client.post_json(f"{API}/categories", {"name": "Leaf", "parent": term["id"]}, headers=admin).json
    renamed = client.patch_json(f"{API}/categories/{term['id']}", {"name": "New", "description": "Desc"},
                                headers=admin).json
    assert renamed["name"] == "New" and renamed["slug"] == "old" and renamed["description"] == "Desc"
    assert_rest_error(client.post_json(f"{API}/categories/{term['id']}", {"slug": "parent"}, headers=admin,
                                       status=400), "duplicate_term_slug", 400)
    assert_rest_error(client.post_json(f"{API}/categories/{term['id']}", {"name": "x"},
                                       headers=users["author"].headers, status=403), "rest_cannot_update", 403)
    post = make_post(title="Filed", categories=[term["id"]])
    assert_rest_error(client.delete(f"{API}/categories/{term['id']}", headers=admin, status=501),
                      "rest_trash_not_supported", 501)
    assert_rest_error(client.delete(f"{API}/categories/{term['id']}?force=true", headers=users["author"].headers,
                                    status=403), "rest_cannot_delete", 403)
    deleted = client.delete(f"{API}/categories/{term['id']}?force=true", headers=admin).json
    assert deleted["deleted"] is True and deleted["previous"]["id"] == term["id"]
    assert client.get(f"{API}/categories/{grandchild['id']}").json["parent"] == parent["id"]
    assert client.get(f"{API}/posts/{post['id']}").json["categories"] == [1]
    assert_rest_error(client.delete(f"{API}/categories/1?force=true", headers=admin, status=403),
                      "rest_cannot_delete", 403)
    assert_rest_error(client.get(f"{API}/categories/{term['id']}", status=404), "rest_term_invalid", 404)
    assert_rest_error(client.get(f"{API}/tags/1", status=404), "rest_term_invalid", 404)


def test_list_parameters(client, users, make_post):
    admin = users["administrator"].headers
    made = {name: client.post_json(f"{API}/tags", {"name": name}, headers=admin).json["id"]
            for name in ("Zebra", "Apple", "Mango")}
    post = make_post(title="Tagged", tags=[made["Mango"], made["Apple"]])
    make_post(title="Draft tagged", status="draft", tags=[made["Zebra"]])
    names = lambda response: [term["name"] for term in response.json]
    assert names(client.get(f"{API}/tags")) == ["Apple", "Mango", "Zebra"]
    assert names(client.get(f"{API}/tags?order=desc")) == ["Zebra", "Mango", "Apple"]
    assert names(client.get(f"{API}/tags?hide_empty=true")) == ["Apple", "Mango"]
    assert names(client.get(f"{API}/tags?search=an")) == ["Mango"]
    assert names(client.get(f"{API}/tags?post={post['id']}")) == ["Apple", "Mango"]
    assert names(client.get(f"{API}/tags?slug=zebra,apple&orderby=include_slugs")) == ["Zebra", "Apple"]
    assert names(client.get(f"{API}/tags?include={made['Zebra']},{made['Apple']}&orderby=include")) == ["Zebra", "Apple"]
    assert names(client.get(f"{API}/tags?exclude={made['Apple']}")) == ["Mango", "Zebra"]
    assert names(client.get(f"{API}/tags?offset=1&per_page=1")) == ["Mango"]
    assert names(client.get(f"{API}/tags?orderby=count&order=desc"))[-1] == "Zebra"
    assert client.get(f"{API}/tags?page=9").json == []
    counts = {term["name"]: term["count"] for term in client.get(f"{API}/tags").json}
    assert counts == {"Apple": 1, "Mango": 1, "Zebra": 0}
    assert_rest_error(client.get(f"{API}/tags?post=99999", status=400), "rest_post_invalid_id", 400)
    draft = make_post(title="Hidden", status="draft")
    assert_rest_error(client.get(f"{API}/tags?post={draft['id']}", status=401), "rest_forbidden_context", 401)
    assert_rest_error(client.get(f"{API}/tags?context=edit", headers=users["author"].headers, status=403),
                      "rest_forbidden_context", 403)
    child = client.post_json(f"{API}/categories", {"name": "Child", "parent": 1}, headers=admin).json
    assert [term["id"] for term in client.get(f"{API}/categories?parent=1").json] == [child["id"]]
    assert_rest_error(client.get(f"{API}/categories?orderby=weird", status=400), "rest_invalid_param", 400)


def test_kept_term_pages_follow_every_write(client, users, make_post):
    """Pages of terms are kept per content version: each write shows on the next read."""
    admin = users["administrator"].headers
    listed = lambda: {term["name"]: term["count"] for term in client.get(f"{API}/tags").json}
    sport = client.post_json(f"{API}/tags", {"name": "Sport"}, headers=admin).json
    assert listed() == {"Sport": 0} and listed() == {"Sport": 0}
    post = make_post(title="Match", tags=[sport["id"]])
    assert listed() == {"Sport": 1}
    client.post_json(f"{API}/tags/{sport['id']}", {"name": "Sports"}, headers=admin, status=200)
    assert listed() == {"Sports": 1}
    client.delete(f"{API}/posts/{post['id']}", headers=admin, status=200)  # to the trash: no longer counted
    assert listed() == {"Sports": 0}
    client.post_json(f"{API}/tags", {"name": "Choir"}, headers=admin, status=201)
    assert set(listed()) == {"Sports", "Choir"}
    assert client.get(f"{API}/tags").headers["X-WP-Total"] == "2"


def test_target_hints_of_terms_per_caller(client, users):
    """Anonymous readers get one probe's hints for every term; the default category is never deletable."""
    admin = users["administrator"].headers
    client.post_json(f"{API}/categories", {"name": "News"}, headers=admin, status=201)
    hints = lambda headers=None: {term["slug"]: term["_links"]["self"][0]["targetHints"]["allow"]
                                  for term in client.get(f"{API}/categories", headers=headers or {}).json}
    assert hints() == {"news": ["GET"], "uncategorized": ["GET"]}
    assert hints(admin) == {"news": ["GET", "POST", "PUT", "PATCH", "DELETE"],
                            "uncategorized": ["GET", "POST", "PUT", "PATCH"]}
    assert hints() == {"news": ["GET"], "uncategorized": ["GET"]}
