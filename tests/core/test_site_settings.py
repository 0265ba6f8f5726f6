"""core/v2/settings: WordPress's keys, defaults from [site], REST writes that persist."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from tests.core.helpers import API

KEYS = {"title", "description", "url", "email", "timezone", "date_format", "time_format", "start_of_week", "language",
        "use_smilies", "default_category", "default_post_format", "posts_per_page", "show_on_front", "page_on_front",
        "page_for_posts", "default_ping_status", "default_comment_status", "moderation_notify", "site_logo", "site_icon"}


def test_settings_read_their_defaults_from_the_site_table(make_app, users):
    app = make_app(site={"name": "Hillside School", "timezone_string": "Europe/London", "url": "https://hillside.test"})
    from host.testing import role_users

    admin = role_users(app)["administrator"].headers
    settings = app.client.get(f"{API}/settings", headers=admin).json
    assert set(settings) == KEYS
    assert (settings["title"], settings["timezone"], settings["url"], settings["posts_per_page"]) == (
        "Hillside School", "Europe/London", "https://hillside.test", 10)


def test_writes_persist_across_processes_and_null_restores_the_default(make_app, app, client, users):
    admin = users["administrator"].headers
    written = client.post_json(f"{API}/settings", {"title": "Renamed", "posts_per_page": 5, "use_smilies": False},
                               headers=admin).json
    assert (written["title"], written["posts_per_page"], written["use_smilies"]) == ("Renamed", 5, False)
    other_process = make_app(database_url=app.settings.database_url)
    from host.testing import role_users

    again = other_process.client.get(f"{API}/settings", headers=role_users(other_process)["administrator"].headers).json
    assert again["title"] == "Renamed" and again["posts_per_page"] == 5
    reset = client.post_json(f"{API}/settings", {"title": None}, headers=admin).json
    assert reset["title"] == app.settings.site["name"] and reset["posts_per_page"] == 5


@pytest.mark.parametrize("body, name, code", [
    ({"posts_per_page": 0}, "posts_per_page", "rest_out_of_bounds"),
    ({"show_on_front": "news"}, "show_on_front", "rest_not_in_enum"),
    ({"email": "not-an-address"}, "email", "rest_invalid_email"),
    ({"start_of_week": "monday"}, "start_of_week", "rest_invalid_type"),
    ({"timezone": "Mars/Olympus"}, "timezone", "rest_invalid_param"),
    ({"url": "not a url"}, "url", "rest_invalid_url"),
    ({"url": "school.test"}, "url", "rest_invalid_url"),
    ({"url": "javascript:alert(1)"}, "url", "rest_invalid_url"),
    ({"url": "ftp://school.test"}, "url", "rest_invalid_url"),
    ({"url": "https://"}, "url", "rest_invalid_url"),
    ({"url": "https://school .test"}, "url", "rest_invalid_url"),
    ({"url": "https://school.test:99999"}, "url", "rest_invalid_url"),
    ({"url": "https://school.test/\n"}, "url", "rest_invalid_url"),
    ({"url": "https://school.test/" + "a" * 2100}, "url", "rest_invalid_url"),
])
def test_bad_values_are_refused_and_change_nothing(client, users, body, name, code):
    admin = users["administrator"].headers
    before = client.get(f"{API}/settings", headers=admin).json
    response = client.post_json(f"{API}/settings", {"title": "Changed", **body}, headers=admin, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert response.json["data"]["details"][name]["code"] == code
    assert client.get(f"{API}/settings", headers=admin).json == before


@pytest.mark.parametrize("url", ["https://www.hillside.test", "http://127.0.0.1:8080/school", "https://hillside.test/"])
def test_a_site_url_is_kept(client, users, url):
    admin = users["administrator"].headers
    assert client.post_json(f"{API}/settings", {"url": url}, headers=admin).json["url"] == url
    assert client.get(f"{API}/settings", headers=admin).json["url"] == url


def test_only_managers_of_options_read_or_write(client, users):
    assert_rest_error(client.get(f"{API}/settings", status=401), "rest_forbidden", 401)
    assert_rest_error(client.get(f"{API}/settings", headers=users["editor"].headers, status=403), "rest_forbidden", 403)
    assert_rest_error(client.post_json(f"{API}/settings", {"title": "x"}, headers=users["editor"].headers, status=403),
                      "rest_forbidden", 403)
    schema = client.options(f"{API}/settings", headers=users["administrator"].headers).json["schema"]
    assert set(schema["properties"]) == KEYS and schema["title"] == "settings"


def test_the_root_index_name_and_description_follow_the_title_and_tagline(make_app):
    """WordPress's root index shows the blogname and blogdescription options; a cached root index follows them."""
    app = make_app(plugins=["core", "cache"], site={"name": "Hillside School", "description": "Learning together"})
    from host.testing import role_users

    admin = role_users(app)["administrator"].headers
    first = app.client.get("/wp-json/")
    assert (first.json["name"], first.json["description"]) == ("Hillside School", "Learning together")
    assert app.client.get("/wp-json/").headers["X-Cache"] == "hit"  # the cache plugin keeps the root index
    app.client.post_json(f"{API}/settings", {"title": "Hillside Academy", "description": "Since 1901"}, headers=admin)
    renamed = app.client.get("/wp-json/")
    assert (renamed.json["name"], renamed.json["description"]) == ("Hillside Academy", "Since 1901")
    assert renamed.headers["X-Cache"] != "hit"
    other_process = make_app(database_url=app.settings.database_url, plugins=["core", "cache"])
    assert other_process.client.get("/wp-json/").json["name"] == "Hillside Academy"
    app.client.post_json(f"{API}/settings", {"title": None}, headers=admin)  # back to [site] name
    assert app.client.get("/wp-json/").json["name"] == "Hillside School"
    assert app.client.get("/wp-json/").json["description"] == "Since 1901"
    refused = app.client.post_json(f"{API}/settings", {"title": ["not", "text"]}, headers=admin, status=400)
    assert_rest_error(refused, "rest_invalid_param", 400)
    assert app.client.get("/wp-json/").json["name"] == "Hillside School"
