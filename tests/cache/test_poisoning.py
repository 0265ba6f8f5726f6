"""No anonymous request can make the response cache serve others a different answer.

Only answers whose parameters all came from the URL are shared: a GET with a JSON body, a
`_method` or an `X-HTTP-Method-Override` is never answered from the cache nor stored, a post
password never is, and the key follows the parameters as the handler parses them.
"""

from __future__ import annotations

import json

import pytest

API = "/wp-json/core/v2"


@pytest.fixture
def site(app, users):
    admin = users["administrator"].headers
    for title in ("Sports day", "Concert", "Open evening", "Science fair", "Book week"):
        app.client.post_json(f"{API}/posts", {"title": title, "status": "publish"}, headers=admin)
    app.secret_post = app.client.post_json(f"{API}/posts", {
        "title": "Trip letter", "content": "<p>Meet at 7:45 at the gate.</p>", "password": "owl",
        "status": "publish"}, headers=admin).json["id"]
    return app


def titles(response):
    return [item["title"]["rendered"] for item in response.json]


def test_a_get_with_a_json_body_is_neither_served_from_nor_stored_in_the_cache(site):
    client = site.client
    poison = client.request(f"{API}/posts?per_page=3", method="GET", body=json.dumps({"search": "nomatch"}).encode(),
                            content_type="application/json")
    assert poison.json == [] and "X-Cache" not in poison.headers
    plain = client.get(f"{API}/posts?per_page=3")
    assert len(plain.json) == 3 and plain.headers["X-Cache"] == "miss"
    again = client.request(f"{API}/posts?per_page=3", method="GET", body=json.dumps({"search": "nomatch"}).encode(),
                           content_type="application/json")
    assert again.json == [] and "X-Cache" not in again.headers  # the stored plain answer is not served to it
    assert client.get(f"{API}/posts?per_page=3").headers["X-Cache"] == "hit"


@pytest.mark.parametrize("how", ["header", "query"])
def test_a_method_override_to_get_is_never_cached(site, how):
    client = site.client
    url = f"{API}/posts?per_page=2" + ("&_method=GET" if how == "query" else "")
    headers = {"X-HTTP-Method-Override": "GET"} if how == "header" else {}
    overridden = client.post(url, json.dumps({"search": "nomatch"}), headers=headers, content_type="application/json")
    assert overridden.json == [] and "X-Cache" not in overridden.headers
    assert len(client.get(f"{API}/posts?per_page=2").json) == 2


def test_a_post_password_in_a_body_never_unlocks_content_for_others(site):
    client = site.client
    url = f"{API}/posts/{site.secret_post}"
    unlocked = client.request(url, method="GET", body=json.dumps({"password": "owl"}).encode(),
                              content_type="application/json")
    assert "7:45" in unlocked.json["content"]["rendered"]
    for _ in range(2):
        anonymous = client.get(url)
        assert anonymous.json["content"]["rendered"] == "" and anonymous.json["content"]["protected"] is True


def test_a_post_password_in_the_url_is_not_kept_in_the_cache(site):
    client = site.client
    url = f"{API}/posts/{site.secret_post}?password=owl"
    for _ in range(2):
        response = client.get(url)
        assert "7:45" in response.json["content"]["rendered"] and "X-Cache" not in response.headers
    assert site.client.get(f"{API}/posts/{site.secret_post}").json["content"]["rendered"] == ""


def test_duplicate_query_keys_are_keyed_as_parsed(site):
    client = site.client
    five = client.get(f"{API}/posts?per_page=5&per_page=1")
    one = client.get(f"{API}/posts?per_page=1&per_page=5")
    assert (len(five.json), len(one.json)) == (1, 5)  # the last value wins, as in PHP
    assert client.get(f"{API}/posts?per_page=1&per_page=5").headers["X-Cache"] == "hit"
    assert len(client.get(f"{API}/posts?per_page=1&per_page=5").json) == 5
    assert len(client.get(f"{API}/posts?per_page=5&per_page=1").json) == 1


def test_parameter_order_that_parses_the_same_shares_an_entry(site):
    client = site.client
    assert client.get(f"{API}/posts?per_page=2&order=asc").headers["X-Cache"] == "miss"
    hit = client.get(f"{API}/posts?order=asc&per_page=2")
    assert hit.headers["X-Cache"] == "hit" and len(hit.json) == 2
