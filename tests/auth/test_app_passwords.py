"""Application passwords: the routes, HTTP Basic with them, and revocation that works at once."""

from __future__ import annotations

import re

from host.testing import assert_rest_error

from .helpers import assert_no_hash, basic

USERS = "/wp-json/core/v2/users"
APP_ID = "5b1a1d2e-8d4b-4c6e-9f0a-0123456789ab"


def passwords_url(user_id) -> str:
    return f"{USERS}/{user_id}/application-passwords"


def test_create_list_read_rename_delete(site, people):
    editor = people["editor"]
    created = site.client.post_json(passwords_url("me"), {"name": " <b>Phone</b>  app ", "app_id": APP_ID},
                                    headers=editor.headers, status=201)
    record = created.json
    assert created.headers["Location"] == f"http://school.test{passwords_url(editor.id)}/{record['uuid']}"
    assert re.fullmatch(r"([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}", record["password"])
    assert record["name"] == "Phone app" and record["app_id"] == APP_ID
    assert record["last_used"] is None and record["last_ip"] is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", record["created"])
    assert record["_links"]["self"][0]["href"] == created.headers["Location"]
    assert_no_hash(created)

    listed = site.client.get(passwords_url(editor.id), headers=editor.headers)
    assert {item["uuid"] for item in listed.json} >= {record["uuid"]}
    assert all("password" not in item for item in listed.json)
    assert_no_hash(listed)
    embed = site.client.get(f"{passwords_url(editor.id)}/{record['uuid']}", {"context": "embed"}, headers=editor.headers)
    assert set(embed.json) == {"uuid", "app_id", "name", "_links"}

    renamed = site.client.patch_json(f"{passwords_url(editor.id)}/{record['uuid']}", {"name": "Tablet", "app_id": "0" * 8 + "-0000-4000-8000-" + "0" * 12},
                                     headers=editor.headers)
    assert renamed.json["name"] == "Tablet" and renamed.json["app_id"] == APP_ID and "password" not in renamed.json
    assert_rest_error(site.client.patch_json(f"{passwords_url(editor.id)}/{record['uuid']}", {"name": "<i></i>"},
                                             headers=editor.headers, status=400), "application_password_empty_name", 400)

    deleted = site.client.delete(f"{passwords_url(editor.id)}/{record['uuid']}", headers=editor.headers)
    assert deleted.json["deleted"] is True and deleted.json["previous"]["uuid"] == record["uuid"]
    assert_rest_error(site.client.get(f"{passwords_url(editor.id)}/{record['uuid']}", headers=editor.headers, status=404),
                      "rest_application_password_not_found", 404)


def test_new_password_works_with_login_or_email_and_spaces_ignored(site, people):
    author = people["author"]
    password = site.client.post_json(passwords_url("me"), {"name": "CLI"}, headers=author.headers).json["password"]
    for identifier, secret in ((author.login, password), (author.email, password.replace(" ", "")),
                               (author.login, "-".join(password.split()))):
        me = site.client.get(f"{USERS}/me", headers=basic(identifier, secret))
        assert me.json["id"] == author.id


def test_basic_auth_errors(site, people):
    """An unknown login or email answers exactly as a wrong password: no login can be found out (12.13)."""
    author = people["author"]
    answers = [site.client.get(f"{USERS}/me", headers=basic(identifier, "x"), status=401)
               for identifier in ("nobody", "nobody@school.test", author.login, author.email)]
    for answer in answers:
        assert_rest_error(answer, "incorrect_password", 401)
    assert len({answer.body for answer in answers}) == 1
    assert len({tuple(sorted((k, v) for k, v in answer.headers.items() if k != "Date")) for answer in answers}) == 1
    # the account's login password is not an application password
    assert_rest_error(site.client.get(f"{USERS}/me", headers=basic(author.login, author.password), status=401),
                      "incorrect_password", 401)
    # errors come before routing: even an unknown route answers 401
    assert_rest_error(site.client.get("/wp-json/nowhere", headers=basic(author.login, "wrong"), status=401),
                      "incorrect_password", 401)


def test_revoked_password_stops_working_at_once(site, people):
    subscriber = people["subscriber"]
    created = site.client.post_json(passwords_url("me"), {"name": "Old laptop"}, headers=subscriber.headers).json
    headers = basic(subscriber.login, created["password"])
    assert site.client.get(f"{USERS}/me", headers=headers).json["id"] == subscriber.id
    site.client.delete(f"{passwords_url('me')}/{created['uuid']}", headers=subscriber.headers)
    assert_rest_error(site.client.get(f"{USERS}/me", headers=headers, status=401), "incorrect_password", 401)


def test_delete_all(site, people):
    contributor = people["contributor"]
    extra = site.client.post_json(passwords_url("me"), {"name": "Second"}, headers=contributor.headers).json
    response = site.client.delete(passwords_url(contributor.id), headers=people["administrator"].headers)
    assert response.json == {"deleted": True, "count": 2}
    assert_rest_error(site.client.get(f"{USERS}/me", headers=basic(contributor.login, extra["password"]), status=401),
                      "incorrect_password", 401)


def test_introspect_and_last_used(site, people):
    editor = people["editor"]
    body = site.client.get(f"{passwords_url('me')}/introspect", headers=editor.headers).json
    assert body["name"] == "tests" and body["last_used"] is not None
    listed = site.client.get(passwords_url("me"), headers=editor.headers).json
    assert listed[0]["last_used"] is not None
    assert_rest_error(site.client.get(f"{passwords_url(people['author'].id)}/introspect", headers=editor.headers,
                                      status=403), "rest_cannot_introspect_app_password_for_non_authenticated_user", 403)
    assert_rest_error(site.client.get(f"{passwords_url(editor.id)}/introspect", status=401),
                      "rest_cannot_introspect_app_password_for_non_authenticated_user", 401)


def test_permissions_per_role(site, people):
    target = people["author"]
    url = passwords_url(target.id)
    record = site.client.post_json(url, {"name": "By admin"}, headers=people["administrator"].headers, status=201).json
    item = f"{url}/{record['uuid']}"
    for role in ("editor", "contributor", "subscriber"):
        headers = people[role].headers
        assert_rest_error(site.client.get(url, headers=headers, status=403), "rest_cannot_list_application_passwords", 403)
        assert_rest_error(site.client.post_json(url, {"name": "x"}, headers=headers, status=403),
                          "rest_cannot_create_application_passwords", 403)
        assert_rest_error(site.client.delete(url, headers=headers, status=403),
                          "rest_cannot_delete_application_passwords", 403)
        assert_rest_error(site.client.get(item, headers=headers, status=403), "rest_cannot_read_application_password", 403)
        assert_rest_error(site.client.patch_json(item, {"name": "x"}, headers=headers, status=403),
                          "rest_cannot_edit_application_password", 403)
        assert_rest_error(site.client.delete(item, headers=headers, status=403),
                          "rest_cannot_delete_application_password", 403)
    assert_rest_error(site.client.get(url, status=401), "rest_cannot_list_application_passwords", 401)
    assert_rest_error(site.client.get(passwords_url("me"), status=401), "rest_not_logged_in", 401)
    assert_rest_error(site.client.get(passwords_url(999), headers=people["administrator"].headers, status=404),
                      "rest_user_invalid_id", 404)
    assert_rest_error(site.client.post_json(url, {"name": "x", "app_id": "NOT-A-UUID"}, headers=target.headers,
                                            status=400), "rest_invalid_param", 400)
    assert_rest_error(site.client.post_json(url, {"name": "   "}, headers=target.headers, status=400),
                      "rest_invalid_param", 400)
    assert_rest_error(site.client.post_json(url, {"name": "<p> </p>"}, headers=target.headers, status=400),
                      "application_password_empty_name", 400)


def test_no_hash_in_discovery_or_user_routes(site, people):
    admin = people["administrator"].headers
    for path in ("/wp-json/", f"{USERS}?context=edit", f"{USERS}/me?context=edit", passwords_url("me"),
                 f"{passwords_url('me')}/introspect", f"{USERS}?_embed=1"):
        assert_no_hash(site.client.get(path, headers=admin))


def test_a_refused_sign_in_answers_with_the_anonymous_allow_of_its_route(site, people):
    """WordPress dispatches the request as nobody after the sign-in failed: users/me lists GET."""
    author = people["author"]
    refused = site.client.get(f"{USERS}/me", headers=basic(author.login, "wrong"), status=401)
    assert_rest_error(refused, "incorrect_password", 401)
    assert refused.headers["Allow"] == "GET"
    unrouted = site.client.get("/wp-json/nowhere", headers=basic(author.login, "wrong"), status=401)
    assert "Allow" not in unrouted.headers
