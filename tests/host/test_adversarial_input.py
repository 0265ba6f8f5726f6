"""Input built to make a backtracking pattern or a recursion blow up answers at once.

Before the fix each of these requests held a worker for minutes (quadratic or exponential
regular expressions) or answered 500 (a million SQL variables, a recursion error). The sizes
are chosen so that the old code would not finish within any sane CI run; no timing is asserted.
"""

from __future__ import annotations

import json

from host.testing import assert_rest_error
from host.text import html_to_text, split_markup, strip_tags

API = "/wp-json/core/v2"


def get_with_json_body(client, path, params, status=200):
    """A GET whose parameters travel in a JSON body (WordPress reads them): past the 16 KB query limit."""
    return client.request(path, method="GET", body=json.dumps(params).encode(),
                          content_type="application/json", status=status)


def test_application_password_name_of_spaces_is_refused_by_its_pattern(client, users):
    """`.*\\S.*` on 400,000 spaces: 13 s for 40,000 with Python's re, and it grew with the square."""
    response = client.post_json(f"{API}/users/me/application-passwords", {"name": " " * 400_000},
                                headers=users["administrator"].headers, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert response.json["data"]["details"]["name"]["code"] == "rest_invalid_pattern"


def test_anonymous_long_name_costs_validation_only_and_answers_an_error(client):
    response = client.post_json(f"{API}/users/1/application-passwords", {"name": " " * 400_000}, status=400)
    assert response.json["code"] == "rest_invalid_param"


def test_a_plugin_pattern_that_backtracks_exponentially_runs_linearly(example_app):
    """`^(a+)+$` against 60 a's and a `!` is 2**60 steps for a backtracking engine."""
    url = "/wp-json/example/v1/echo?needed=1&word=" + "a" * 60 + "!"
    response = example_app.client.get(url, status=400)
    assert response.json["data"]["details"]["word"]["code"] == "rest_invalid_pattern"
    assert example_app.client.get("/wp-json/example/v1/echo?needed=1&word=" + "a" * 60).json["params"]["word"] == "a" * 60


def test_search_of_unclosed_angle_brackets(client, users):
    client.post_json(f"{API}/posts", {"title": "Sports day", "status": "publish"}, headers=users["editor"].headers)
    response = client.get(f"{API}/posts", {"search": "<" * 1000})
    assert response.status_int == 200 and response.json == []
    assert response.headers["X-WP-Total"] == "0"


def test_search_is_at_most_a_thousand_characters(client):
    """Longer reached SQLite as a LIKE pattern it refuses ("pattern too complex"): a 500."""
    response = get_with_json_body(client, f"{API}/posts", {"search": "<" * 500_000}, status=400)
    detail = response.json["data"]["details"]["search"]
    assert detail["code"] == "rest_too_long"
    assert detail["message"] == "search must be at most 1000 characters long."


def test_content_of_unclosed_comments_and_tags_renders(client, users):
    content = "Start. " + "<!-- wp:" * 100_000 + "<" * 200_000 + " \t" * 100_000 + "x"
    created = client.post_json(f"{API}/posts", {"title": "Odd", "content": content, "status": "publish"},
                               headers=users["administrator"].headers, status=201).json
    assert created["content"]["rendered"].endswith("x</p>\n")
    assert created["excerpt"]["rendered"].startswith("<p>Start.")


def test_title_of_unclosed_tags_makes_a_slug(client, users):
    created = client.post_json(f"{API}/posts", {"title": "Open " + "<" * 300_000, "status": "draft"},
                               headers=users["editor"].headers, status=201).json
    assert created["id"] > 0


def test_array_arguments_take_at_most_a_thousand_items(client):
    response = get_with_json_body(client, f"{API}/posts", {"include": list(range(1, 1_000_002))}, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    detail = response.json["data"]["details"]["include"]
    assert detail["code"] == "rest_too_many_items"
    assert detail["message"] == "include must contain at most 1000 items."
    assert get_with_json_body(client, f"{API}/posts", {"include": list(range(1, 1001))}).status_int == 200


def test_declared_max_items_still_wins(example_app):
    response = example_app.client.get("/wp-json/example/v1/echo?needed=1&tags=a,b,c,d", status=400)
    assert response.json["data"]["details"]["tags"]["code"] == "rest_too_many_items"


def test_query_keys_nested_past_sixty_four_levels_are_dropped(client):
    deep = "search" + "[]" * 5_000
    response = client.get(f"{API}/posts?{deep}=x&per_page=2")
    assert response.status_int == 200
    assert len(response.json) <= 2
    nested = "search" + "[a]" * 63
    assert client.get(f"{API}/posts?{nested}=x", expect_errors=True).status_int == 400  # kept: an object, not a string


def test_deeply_nested_json_body_is_a_clear_error(client, users):
    body = '{"title": "x", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = client.post(f"{API}/posts", body, content_type="application/json",
                           headers=users["administrator"].headers, expect_errors=True)
    assert response.status_int == 400
    assert response.json["code"] in ("rest_invalid_json", "rest_invalid_param")


def test_markup_scanners_are_linear_on_adversarial_text():
    for text in ("<" * 1_000_000, "<!--" * 250_000, "<a " * 300_000, "<script>" * 100_000 + "x"):
        parts = split_markup(text)
        assert "".join(parts) == text
        strip_tags(text)
        html_to_text(text)


def test_visible_text_drops_hidden_elements_and_keeps_punctuation_tight():
    assert html_to_text("<p>Friday</p><script>alert(1)</script>") == "Friday"
    assert html_to_text("<p>Hello</p><p>, world</p><style>p{}</style>!") == "Hello, world!"
    assert html_to_text("a<br>b<!-- note > here -->c") == "a bc"
    assert html_to_text("Fish &amp; chips") == "Fish & chips"
    assert html_to_text("Fish &amp; chips", keep_entities=True) == "Fish &amp; chips"
    assert split_markup("a<b>c<!-- x > y -->d<e") == ["a", "<b>", "c", "<!-- x > y -->", "d<e"]
    assert json.dumps(strip_tags("<em>it</em> < 3")) == '"it < 3"'


def _patterns(schema):
    """Every `pattern` and `patternProperties` key in a JSON Schema dict, however deep."""
    if isinstance(schema, dict):
        if isinstance(schema.get("pattern"), str):
            yield schema["pattern"]
        yield from (schema.get("patternProperties") or {})
        for value in schema.values():
            yield from _patterns(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _patterns(value)


def test_every_registered_pattern_compiles_with_re2(make_app, example_plugin):
    """Registry-driven: a plugin whose pattern needs look-around learns it here, not from a 500."""
    from host import linear

    every_plugin = make_app()
    found = [(compiled.path, pattern) for compiled in every_plugin.registry.routes.values()
             for endpoint in compiled.endpoints for pattern in _patterns(endpoint.args)]
    assert {"^(a+)+$", ".*\\S.*"} <= {pattern for _, pattern in found}  # the registry really was walked
    for _path, pattern in found:
        linear.pattern(pattern)  # raises re2.error for a pattern RE2 cannot run


def test_the_search_limit_is_a_guard_discovery_does_not_show(client):
    """WordPress publishes `search` without maxLength: OPTIONS and the index show its shape, the limit still holds."""
    for path in (f"{API}/posts", f"{API}/search", f"{API}/users"):
        search = client.options(path).json["endpoints"][0]["args"]["search"]
        assert search == {"description": "Limit results to those matching a string.", "type": "string",
                          "required": False}, path
    index = client.get(API).json["routes"]["/core/v2/posts"]["endpoints"][0]["args"]["search"]
    assert "maxLength" not in index and "guardMaxLength" not in index
    refused = client.get(f"{API}/search", {"search": "x" * 1001}, status=400)
    assert refused.json["data"]["details"]["search"]["code"] == "rest_too_long"
