"""core/v2 users: list, read, create, update, delete and users/me, through HTTP for each role."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from .helpers import assert_no_hash, publish_post

USERS = "/wp-json/core/v2/users"


def test_administrator_lists_everyone_with_pagination_headers(site, people):
    response = site.client.get(USERS, {"per_page": 2, "orderby": "id"}, headers=people["administrator"].headers)
    assert response.status_int == 200
    assert response.headers["X-WP-Total"] == "5"
    assert response.headers["X-WP-TotalPages"] == "3"
    assert 'rel="next"' in response.headers["Link"]
    assert [item["id"] for item in response.json] == [people["administrator"].id, people["editor"].id]
    assert set(response.json[0]) == {"id", "name", "url", "description", "link", "slug", "avatar_urls", "meta",
                                     "_links"}
    assert response.json[0]["_links"]["self"][0]["href"].endswith(f"/core/v2/users/{people['administrator'].id}")
    assert_no_hash(response)


@pytest.mark.parametrize("role", ["editor", "author", "contributor", "subscriber", None])
def test_others_see_only_users_with_published_content(site, people, role):
    publish_post(site, people["author"].id)
    publish_post(site, people["contributor"].id, status="draft")
    headers = people[role].headers if role else {}
    response = site.client.get(USERS, headers=headers)
    assert [item["id"] for item in response.json] == [people["author"].id]
    assert response.headers["X-WP-Total"] == "1"


def test_who_authors_needs_edit_posts_and_lists_possible_authors(site, people):
    response = site.client.get(USERS, {"who": "authors", "orderby": "id"}, headers=people["administrator"].headers)
    assert [item["id"] for item in response.json] == [people[role].id for role in
                                                       ("administrator", "editor", "author", "contributor")]
    assert_rest_error(site.client.get(USERS, {"who": "authors"}, headers=people["subscriber"].headers, status=403),
                      "rest_forbidden_who", 403)
    assert_rest_error(site.client.get(USERS, {"who": "authors"}, status=401), "rest_forbidden_who", 401)


def test_list_filters_and_ordering(site, people):
    admin = people["administrator"].headers
    by_role = site.client.get(USERS, {"roles": "editor,author"}, headers=admin).json
    assert {item["id"] for item in by_role} == {people["editor"].id, people["author"].id}
    search = site.client.get(USERS, {"search": people["subscriber"].login[:12]}, headers=admin).json
    assert [item["id"] for item in search] == [people["subscriber"].id]
    include = [people["subscriber"].id, people["editor"].id]
    ordered = site.client.get(USERS, {"include": ",".join(map(str, include)), "orderby": "include"}, headers=admin).json
    assert [item["id"] for item in ordered] == include
    excluded = site.client.get(USERS, {"exclude": str(people["editor"].id)}, headers=admin).json
    assert people["editor"].id not in [item["id"] for item in excluded]
    desc = site.client.get(USERS, {"orderby": "id", "order": "desc", "offset": 1, "per_page": 1}, headers=admin).json
    assert [item["id"] for item in desc] == [people["contributor"].id]
    slug = site.client.get(USERS, {"slug": people["author"].login}, headers=admin).json
    assert [item["id"] for item in slug] == [people["author"].id]
    beyond = site.client.get(USERS, {"page": 9}, headers=admin)
    assert beyond.json == [] and beyond.headers["X-WP-Total"] == "5"


def test_list_errors(site, people):
    subscriber = people["subscriber"].headers
    assert_rest_error(site.client.get(USERS, {"roles": "editor"}, headers=subscriber, status=403), "rest_user_cannot_view", 403)
    assert_rest_error(site.client.get(USERS, {"context": "edit"}, status=401), "rest_forbidden_context", 401)
    assert_rest_error(site.client.get(USERS, {"orderby": "email"}, headers=subscriber, status=403), "rest_forbidden_orderby", 403)
    assert_rest_error(site.client.get(USERS, {"per_page": 101}, status=400), "rest_invalid_param", 400)


def test_edit_context_shows_private_fields_but_never_a_password(site, people):
    admin = people["administrator"]
    body = site.client.get(f"{USERS}/{people['editor'].id}", {"context": "edit"}, headers=admin.headers).json
    assert body["username"] == people["editor"].login
    assert body["email"] == people["editor"].email
    assert body["roles"] == ["editor"]
    assert body["capabilities"]["edit_others_posts"] is True and "manage_options" not in body["capabilities"]
    assert body["extra_capabilities"] == {"editor": True}
    assert body["registered_date"].endswith("+00:00")
    assert "password" not in body


def test_reading_one_user(site, people):
    target = people["subscriber"]
    assert site.client.get(f"{USERS}/{target.id}", headers=target.headers).json["id"] == target.id
    assert_rest_error(site.client.get(f"{USERS}/{target.id}", status=401), "rest_user_cannot_view", 401)
    assert_rest_error(site.client.get(f"{USERS}/{target.id}", headers=people["author"].headers, status=403),
                      "rest_user_cannot_view", 403)
    assert_rest_error(site.client.get(f"{USERS}/{target.id}", {"context": "edit"}, headers=people["editor"].headers,
                                      status=403), "rest_user_cannot_view", 403)
    publish_post(site, target.id)
    assert site.client.get(f"{USERS}/{target.id}").json["name"] == target.login
    assert_rest_error(site.client.get(f"{USERS}/999", headers=people["administrator"].headers, status=404),
                      "rest_user_invalid_id", 404)
    assert_rest_error(site.client.get(f"{USERS}/0", status=404), "rest_user_invalid_id", 404)


def test_users_me(site, people):
    assert_rest_error(site.client.get(f"{USERS}/me", status=401), "rest_not_logged_in", 401)
    me = site.client.get(f"{USERS}/me", {"context": "edit"}, headers=people["contributor"].headers).json
    assert me["id"] == people["contributor"].id and me["roles"] == ["contributor"]
    changed = site.client.post_json(f"{USERS}/me", {"first_name": "Ada", "description": "Maths"},
                                    headers=people["contributor"].headers)
    assert changed.json["first_name"] == "Ada" and changed.json["description"] == "Maths"
    assert_rest_error(site.client.post_json(f"{USERS}/me", {"name": "x"}, status=401), "rest_not_logged_in", 401)
    assert_rest_error(site.client.post_json(f"{USERS}/me", {"roles": ["administrator"]},
                                            headers=people["contributor"].headers, status=403),
                      "rest_cannot_edit_roles", 403)


def test_create_user(site, people):
    admin = people["administrator"].headers
    body = {"username": "mrs.grey", "email": "grey@school.test", "password": "s3cret-words", "name": "Mrs Grey",
            "roles": ["author"]}
    response = site.client.post_json(USERS, body, headers=admin, status=201)
    assert response.headers["Location"] == f"http://school.test/wp-json/core/v2/users/{response.json['id']}"
    assert response.json["username"] == "mrs.grey" and response.json["roles"] == ["author"]
    assert response.json["name"] == "Mrs Grey"
    assert_no_hash(response)
    assert_rest_error(site.client.post_json(USERS, body, headers=admin, status=400), "existing_user_login", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "username": "other"}, headers=admin, status=400),
                      "existing_user_email", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "username": "bad<name>", "email": "b@school.test"},
                                            headers=admin, status=400), "rest_user_invalid_username", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "username": "n2", "email": "n2@school.test", "password": "a\\b"},
                                            headers=admin, status=400), "rest_user_invalid_password", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "username": "n3", "email": "n3@school.test", "roles": ["king"]},
                                            headers=admin, status=400), "rest_user_invalid_role", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "id": 5}, headers=admin, status=400), "rest_user_exists", 400)
    assert_rest_error(site.client.post_json(USERS, {"username": "x"}, headers=admin, status=400),
                      "rest_missing_callback_param", 400)
    assert_rest_error(site.client.post_json(USERS, {**body, "username": "n4", "email": "nope"}, headers=admin, status=400),
                      "rest_invalid_param", 400)
    for role in ("editor", "subscriber"):
        assert_rest_error(site.client.post_json(USERS, {**body, "username": "n5", "email": "n5@school.test"},
                                                headers=people[role].headers, status=403), "rest_cannot_create_user", 403)
    assert_rest_error(site.client.post_json(USERS, body, status=401), "rest_cannot_create_user", 401)


def test_update_user(site, people):
    admin = people["administrator"].headers
    target = people["author"]
    url = f"{USERS}/{target.id}"
    updated = site.client.put_json(url, {"last_name": "Lovelace", "roles": ["editor"], "slug": "ada"}, headers=admin)
    assert updated.json["last_name"] == "Lovelace" and updated.json["roles"] == ["editor"] and updated.json["slug"] == "ada"
    assert_rest_error(site.client.patch_json(url, {"username": "renamed"}, headers=admin, status=400),
                      "rest_user_invalid_argument", 400)
    assert_rest_error(site.client.patch_json(url, {"email": people["editor"].email}, headers=admin, status=400),
                      "rest_user_invalid_email", 400)
    assert_rest_error(site.client.patch_json(url, {"slug": people["editor"].login}, headers=admin, status=400),
                      "rest_user_invalid_slug", 400)
    assert_rest_error(site.client.patch_json(url, {"password": ""}, headers=admin, status=400),
                      "rest_user_invalid_password", 400)
    assert_rest_error(site.client.patch_json(url, {"roles": ["wizard"]}, headers=admin, status=400),
                      "rest_user_invalid_role", 400)
    assert_rest_error(site.client.patch_json(url, {"name": "x"}, headers=people["editor"].headers, status=403),
                      "rest_cannot_edit", 403)
    assert_rest_error(site.client.patch_json(url, {"name": "x"}, status=401), "rest_cannot_edit", 401)
    assert_rest_error(site.client.patch_json(f"{USERS}/{people['administrator'].id}", {"roles": ["editor"]},
                                             headers=admin, status=403), "rest_user_invalid_role", 403)
    assert_rest_error(site.client.patch_json(f"{USERS}/999", {"name": "x"}, headers=admin, status=404),
                      "rest_user_invalid_id", 404)
    # a failed update changed nothing
    assert site.client.get(url, {"context": "edit"}, headers=admin).json["email"] == target.email


def test_delete_user_reassigns_content(site, people):
    admin = people["administrator"].headers
    doomed, heir = people["contributor"], people["author"]
    publish_post(site, doomed.id)
    url = f"{USERS}/{doomed.id}"
    assert_rest_error(site.client.delete(url, {"reassign": heir.id}, headers=admin, status=501), "rest_trash_not_supported", 501)
    assert_rest_error(site.client.delete(url + "?force=true", headers=admin, status=400), "rest_missing_callback_param", 400)
    assert_rest_error(site.client.delete(url + f"?force=true&reassign={doomed.id}", headers=admin, status=400),
                      "rest_user_invalid_reassign", 400)
    assert_rest_error(site.client.delete(url + "?force=true&reassign=999", headers=admin, status=400),
                      "rest_user_invalid_reassign", 400)
    assert_rest_error(site.client.delete(url + "?force=true&reassign=false", headers=admin, status=400),
                      "rest_user_invalid_reassign", 400)
    assert_rest_error(site.client.delete(url + f"?force=true&reassign={heir.id}", headers=people["editor"].headers,
                                         status=403), "rest_user_cannot_delete", 403)
    response = site.client.delete(url + f"?force=true&reassign={heir.id}", headers=admin)
    assert response.json["deleted"] is True and response.json["previous"]["id"] == doomed.id
    assert_no_hash(response)
    assert_rest_error(site.client.get(url, headers=admin, status=404), "rest_user_invalid_id", 404)
    assert [item["id"] for item in site.client.get(USERS).json] == [heir.id]
    # the deleted user's application password stopped working with the account
    assert_rest_error(site.client.get(f"{USERS}/me", headers=doomed.headers, status=401), "incorrect_password", 401)


def test_delete_user_without_content_and_reassign_false(site, people):
    admin = people["administrator"].headers
    target = people["subscriber"]
    response = site.client.delete(f"{USERS}/{target.id}?force=true&reassign=false", headers=admin)
    assert response.json["deleted"] is True
    me = site.client.delete(f"{USERS}/me?force=true&reassign=false", headers=people["editor"].headers, status=403)
    assert_rest_error(me, "rest_user_cannot_delete", 403)


def test_a_given_slug_is_reduced_to_url_safe_characters(client, users):
    response = client.post_json("/wp-json/core/v2/users", {
        "username": "slugger", "email": "slugger@school.test", "password": "pw", "slug": "Mr Ünïcode/Teacher"},
        headers=users["administrator"].headers, status=201)
    assert response.json["slug"] == "mr-n-code-teacher"
    assert response.json["link"] == "http://school.test/author/mr-n-code-teacher/"


def test_users_routes_are_batchable_and_take_search_columns(site, people):
    """As WordPress: users and users/<id> declare allow_batch (users/me does not); search_columns narrows a search."""
    admin = people["administrator"].headers
    routes = site.client.get("/wp-json/core/v2").json["routes"]
    for path in ("/core/v2/users", "/core/v2/users/(?P<id>[\\d]+)"):
        assert all(endpoint.get("allow_batch") == {"v1": True} for endpoint in routes[path]["endpoints"]), path
    assert all("allow_batch" not in endpoint for endpoint in routes["/core/v2/users/me"]["endpoints"])
    column_arg = routes["/core/v2/users"]["endpoints"][0]["args"]["search_columns"]
    assert column_arg["type"] == "array" and column_arg["default"] == []
    assert column_arg["items"]["enum"] == ["email", "name", "id", "username", "slug"]
    batch = site.client.post_json("/wp-json/batch/v1", {"requests": [{"path": "/core/v2/users", "body": {
        "username": "columnist", "email": "ink@paper.test", "password": "pw-123456", "name": "Quill"}}]},
        headers=admin, status=207)
    assert batch.json["responses"][0]["status"] == 201
    by_email = site.client.get(USERS, {"search": "paper", "search_columns": "email"}, headers=admin).json
    assert [user["slug"] for user in by_email] == ["columnist"]
    assert site.client.get(USERS, {"search": "paper", "search_columns": "name"}, headers=admin).json == []
    refused = site.client.get(USERS, {"search": "x", "search_columns": "password"}, headers=admin, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
