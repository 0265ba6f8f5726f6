"""Users as WordPress 7.1 gives them: avatar_urls, registered user meta, and the
`roles`, `capabilities` and `has_published_posts` filters of the list, over HTTP."""

from __future__ import annotations

import hashlib

import pytest

from host import MetaKey, PostType
from host.testing import assert_rest_error, create_test_user, make_plugin

from tests.core.helpers import API

USERS = f"{API}/users"


def school_plugin():
    """A plugin with its own post type (core/v2/events) and two user meta keys, one protected."""
    return make_plugin(
        "school_profile", requires=("core",),
        register_post_types=lambda: [PostType("event", "Events", rest_base="events")],
        register_meta=lambda: [MetaKey("user", "homeroom", {"type": "string", "default": ""}),
                               MetaKey("user", "_badges", {"type": "integer", "default": 0}, context=("edit",))])


@pytest.fixture
def school(make_app):
    app = make_app(plugins=["core", school_plugin()])
    app.people = {role: create_test_user(app, role) for role in
                  ("administrator", "editor", "author", "contributor", "subscriber")}
    return app


def expected_avatars(email: str, base: str = "https://secure.gravatar.com/avatar/") -> dict[str, str]:
    digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    return {size: f"{base}{digest}?s={size}&d=mm&r=g" for size in ("24", "48", "96")}


def test_avatar_urls_on_users_on_embedded_authors_and_in_the_schema(school):
    client, author = school.client, school.people["author"]
    post = client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=author.headers).json
    assert client.get(f"{USERS}/{author.id}").json["avatar_urls"] == expected_avatars(author.email)
    assert client.get(f"{USERS}/me", headers=author.headers).json["avatar_urls"] == expected_avatars(author.email)
    embedded = client.get(f"{API}/posts/{post['id']}?_embed=author").json["_embedded"]["author"][0]
    assert embedded["avatar_urls"] == expected_avatars(author.email)
    listed = client.get(USERS, headers=school.people["administrator"].headers).json
    assert all(set(user["avatar_urls"]) == {"24", "48", "96"} for user in listed)
    schema = client.options(USERS).json["schema"]["properties"]["avatar_urls"]
    assert schema["readonly"] is True and set(schema["properties"]) == {"24", "48", "96"}
    assert "avatar_urls" not in client.options(USERS).json["endpoints"][1]["args"]  # read-only: not an arg


def test_the_avatar_host_is_a_setting_and_empty_means_no_avatar_urls(make_app):
    mirror = make_app(plugins=["core"], config={"core": {"avatar_url": "https://avatars.school.test/a/"}})
    user = create_test_user(mirror, "author")
    assert mirror.client.get(f"{USERS}/me", headers=user.headers).json["avatar_urls"] == \
        expected_avatars(user.email, "https://avatars.school.test/a/")

    none = make_app(plugins=["core"], config={"core": {"avatar_url": ""}})
    user = create_test_user(none, "author")
    post = none.client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=user.headers).json
    assert "avatar_urls" not in none.client.get(f"{USERS}/{user.id}").json
    assert "avatar_urls" not in none.client.get(f"{API}/posts/{post['id']}?_embed=author").json[
        "_embedded"]["author"][0]


def test_a_bad_avatar_host_stops_the_start_naming_the_key(make_app):
    from host.config import ConfigError

    with pytest.raises(ConfigError, match=r"\[plugins.core\]: avatar_url = 'gravatar' is not valid; allowed: empty"):
        make_app(plugins=["core"], config={"core": {"avatar_url": "gravatar"}})


def test_registered_user_meta_is_read_written_validated_and_deleted(school):
    client, people = school.client, school.people
    author, admin = people["author"], people["administrator"]
    client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=author.headers)
    assert client.get(f"{USERS}/{author.id}").json["meta"] == {"homeroom": ""}  # view: not the edit-only key
    assert client.get(f"{USERS}/me?context=edit", headers=author.headers).json["meta"] == {"homeroom": "",
                                                                                         "_badges": 0}
    written = client.post_json(f"{USERS}/me", {"meta": {"homeroom": "5B", "unregistered": "x"}},
                               headers=author.headers).json
    assert written["meta"] == {"homeroom": "5B", "_badges": 0}
    assert client.get(f"{USERS}/{author.id}").json["meta"] == {"homeroom": "5B"}
    listed = client.get(USERS, {"context": "edit", "include": [author.id]}, headers=admin.headers).json
    assert listed[0]["meta"] == {"homeroom": "5B", "_badges": 0}
    body = assert_rest_error(client.post_json(f"{USERS}/me", {"meta": {"homeroom": ["5B"]}}, headers=author.headers,
                                              status=400), "rest_invalid_param", 400)
    assert "meta" in body["data"]["params"]
    admin_written = client.post_json(f"{USERS}/{author.id}", {"meta": {"_badges": 3}}, headers=admin.headers).json
    assert admin_written["meta"] == {"homeroom": "5B", "_badges": 3}
    assert client.post_json(f"{USERS}/{author.id}", {"meta": {"homeroom": None}},
                            headers=admin.headers).json["meta"] == {"homeroom": "", "_badges": 3}
    created = client.post_json(USERS, {"username": "newteacher", "email": "new@school.test", "password": "pw-12345",
                                       "meta": {"homeroom": "3A"}}, headers=admin.headers, status=201).json
    assert created["meta"] == {"homeroom": "3A", "_badges": 0}
    client.delete(f"{USERS}/{created['id']}?force=true&reassign=false", headers=admin.headers)
    declared = client.options(USERS).json["endpoints"][1]["args"]["meta"]
    assert set(declared["properties"]) == {"homeroom", "_badges"}


def test_roles_and_capabilities_filters_need_list_users(school):
    client, people = school.client, school.people
    admin = people["administrator"].headers
    ids = lambda response: {user["id"] for user in response.json}
    assert ids(client.get(USERS, {"roles": "editor"}, headers=admin)) == {people["editor"].id}
    assert ids(client.get(USERS, {"roles": "editor,author"}, headers=admin)) == {people["editor"].id,
                                                                                 people["author"].id}
    assert ids(client.get(USERS, {"capabilities": "publish_pages"}, headers=admin)) == {
        people["administrator"].id, people["editor"].id}
    assert ids(client.get(USERS, {"capabilities": "upload_files,edit_posts"}, headers=admin)) == {
        people[role].id for role in ("administrator", "editor", "author", "contributor")}
    assert client.get(USERS, {"capabilities": "no_such_capability"}, headers=admin).json == []
    assert client.get(USERS, {"capabilities": "read"}, headers=admin).headers["X-WP-Total"] == "5"
    body = assert_rest_error(client.get(USERS, {"capabilities": "edit_posts"}, status=401), "rest_user_cannot_view",
                             401)
    assert body["message"] == "Sorry, you are not allowed to filter users by capability."
    assert_rest_error(client.get(USERS, {"capabilities": "edit_posts"}, headers=people["editor"].headers,
                                 status=403), "rest_user_cannot_view", 403)
    assert_rest_error(client.get(USERS, {"roles": "editor"}, status=401), "rest_user_cannot_view", 401)


def test_has_published_posts_filter(school):
    client, people = school.client, school.people
    admin = people["administrator"].headers
    client.post_json(f"{API}/posts", {"title": "Trip", "status": "publish"}, headers=people["author"].headers)
    client.post_json(f"{API}/pages", {"title": "Staff", "status": "publish"}, headers=people["editor"].headers)
    client.post_json(f"{API}/events", {"title": "Fair", "status": "publish"}, headers=admin)
    client.post_json(f"{API}/posts", {"title": "Idea", "status": "draft"}, headers=people["contributor"].headers)
    ids = lambda response: {user["id"] for user in response.json}
    everyone_published = {people[role].id for role in ("administrator", "editor", "author")}
    assert ids(client.get(USERS, {"has_published_posts": "true"}, headers=admin)) == everyone_published
    assert ids(client.get(USERS, {"has_published_posts": "false"}, headers=admin)) == {
        user.id for user in people.values()}
    assert ids(client.get(USERS, {"has_published_posts": "page"}, headers=admin)) == {people["editor"].id}
    assert ids(client.get(USERS, {"has_published_posts[]": ["post", "event"]}, headers=admin)) == {
        people["author"].id, people["administrator"].id}  # a plugin's post type counts too
    response = client.get(USERS, {"has_published_posts": "event"})  # anonymous: still only published authors
    assert ids(response) == {people["administrator"].id} and response.headers["X-WP-Total"] == "1"
    assert ids(client.get(USERS)) == everyone_published
    assert_rest_error(client.get(USERS, {"has_published_posts": "attachment-ish"}, status=400),
                      "rest_invalid_param", 400)
    declared = client.options(USERS).json["endpoints"][0]["args"]
    assert declared["has_published_posts"]["type"] == ["boolean", "array"]
    assert set(declared["has_published_posts"]["items"]["enum"]) == {"post", "page", "attachment", "event"}
    assert declared["capabilities"]["type"] == "array"
