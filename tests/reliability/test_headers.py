"""Security headers on every response, and CORS narrowed to the operator's origins when `cors_origins` is set."""

from __future__ import annotations

import pytest

ALLOWED = "https://app.school.test"


@pytest.fixture
def cors_site(make_app, example_plugin):
    return make_app(plugins=["example"], cors_origins=[ALLOWED])


REST_REQUESTS = [
    ("GET", "/wp-json/", 200),
    ("GET", "/wp-json/example/v1/notes", 200),
    ("GET", "/wp-json/example/v1/notes/999", 404),
    ("GET", "/wp-json/nowhere", 404),
    ("POST", "/wp-json/example/v1/notes?title=t", 401),
    ("GET", "/wp-json/example/v1/notes?per_page=1000", 400),
    ("OPTIONS", "/wp-json/example/v1/notes", 200),
    ("HEAD", "/wp-json/example/v1/notes", 200),
    ("GET", "/?rest_route=/example/v1/notes", 200),
]
HTML_REQUESTS = [("GET", "/", 200), ("GET", "/api-reference", 200), ("GET", "/no-such-page", 404),
                 ("GET", "/openapi.json", 200)]


@pytest.mark.parametrize("method, path, status", REST_REQUESTS)
def test_rest_responses_carry_nosniff_and_referrer_policy(example_app, method, path, status):
    response = example_app.client.request(path, method=method, expect_errors=True)
    assert response.status_int == status
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert response.headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("method, path, status", HTML_REQUESTS)
def test_html_pages_carry_a_restrictive_content_security_policy(example_app, method, path, status):
    response = example_app.client.request(path, method=method, expect_errors=True)
    assert response.status_int == status
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    policy = dict(part.strip().split(" ", 1) for part in response.headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'self'"
    assert policy["frame-ancestors"] == "'self'"
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]


def test_allowed_origin_gets_credentialed_cors(cors_site):
    response = cors_site.client.get("/wp-json/example/v1/notes", headers={"Origin": ALLOWED})
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert response.headers["Vary"] == "Origin"
    assert response.headers["Access-Control-Expose-Headers"] == "X-WP-Total, X-WP-TotalPages, Link"


@pytest.mark.parametrize("origin", ["https://evil.test", "null", ALLOWED + ".evil.test", ALLOWED.upper(),
                                    "http://app.school.test"])
def test_other_origins_get_no_cors_grant(cors_site, origin):
    response = cors_site.client.get("/wp-json/example/v1/notes", headers={"Origin": origin})
    assert response.status_int == 200
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_preflight_for_an_allowed_origin(cors_site):
    response = cors_site.client.options("/wp-json/example/v1/notes", headers={
        "Origin": ALLOWED, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert response.status_int == 200
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert "POST" in response.headers["Access-Control-Allow-Methods"].split(", ")
    allowed_headers = [name.lower() for name in response.headers["Access-Control-Allow-Headers"].split(", ")]
    assert "authorization" in allowed_headers and "content-type" in allowed_headers


def test_preflight_from_a_refused_origin_grants_nothing(cors_site):
    response = cors_site.client.options("/wp-json/example/v1/notes", headers={
        "Origin": "https://evil.test", "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Methods" not in response.headers


def test_any_origin_is_answered_by_default(example_app):
    """REST signs in from the Authorization header only, so CORS is open as in WordPress."""
    response = example_app.client.get("/wp-json/", headers={"Origin": ALLOWED})
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
