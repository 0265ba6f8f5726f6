"""Bad input is refused before any handler runs and leaves no trace in the database."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from .harness import snapshot

TRIPWIRE = "/wp-json/probe/v1/tripwire"


@pytest.fixture
def small_site(make_app, probe_module):
    app = make_app(plugins=[probe_module], max_body_bytes=4096)
    app.client.post_json(TRIPWIRE, {"text": "handler reachable"}, status=200)  # the tripwire works
    return app


def _refused(app, before, response, code, status):
    body = assert_rest_error(response, code, status)
    assert snapshot(app) == before, "refused input left a trace"
    return body


def test_body_over_the_limit_answers_413(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE, params=b'{"text": "' + b"a" * 5000 + b'"}',
                                      content_type="application/json", expect_errors=True)
    _refused(small_site, before, response, "rest_request_too_large", 413)


def test_form_body_over_the_limit_answers_413(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE, params={"text": "b" * 5000}, expect_errors=True)
    _refused(small_site, before, response, "rest_request_too_large", 413)


@pytest.mark.parametrize("depth", [65, 200, 100_000])
def test_deeply_nested_json_answers_400(small_site, depth):
    before = snapshot(small_site)
    payload = ('{"payload": ' + '{"a": ' * depth + "1" + "}" * depth + "}").encode()
    if len(payload) > 4096:
        small_site.settings.max_body_bytes = len(payload) + 1
    response = small_site.client.post(TRIPWIRE, params=payload, content_type="application/json", expect_errors=True)
    body = _refused(small_site, before, response, "rest_invalid_json", 400)
    assert body["data"]["json_error_code"] == 1
    assert body["data"]["json_error_message"] == "Maximum stack depth exceeded"


def test_nesting_at_the_limit_is_accepted(small_site):
    depth = small_site.settings.max_json_depth - 2
    payload = '{"payload": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    small_site.client.post(TRIPWIRE, params=payload.encode(), content_type="application/json", status=200)


def test_non_utf8_json_answers_400(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE, params=b'{"text": "caf\xe9"}', content_type="application/json",
                                      expect_errors=True)
    body = _refused(small_site, before, response, "rest_invalid_json", 400)
    assert body["data"]["json_error_code"] == 5


def test_non_utf8_form_body_answers_400(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE, params=b"text=caf%E9\xff", expect_errors=True,
                                      content_type="application/x-www-form-urlencoded")
    _refused(small_site, before, response, "rest_invalid_body", 400)


def test_malformed_json_answers_400(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE, params=b'{"text": ', content_type="application/json",
                                      expect_errors=True)
    _refused(small_site, before, response, "rest_invalid_json", 400)


def test_absurd_query_string_answers_414(small_site):
    before = snapshot(small_site)
    response = small_site.client.post(TRIPWIRE + "?text=" + "q" * 20_000, expect_errors=True)
    _refused(small_site, before, response, "rest_query_too_long", 414)


def test_bad_content_length_answers_400(small_site):
    import io
    import json

    before = snapshot(small_site)
    answer = {}
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": TRIPWIRE, "QUERY_STRING": "", "SERVER_NAME": "school.test",
               "SERVER_PORT": "80", "HTTP_HOST": "school.test", "wsgi.url_scheme": "http",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": "lots", "wsgi.input": io.BytesIO(b"{}")}
    body = b"".join(small_site(environ, lambda status, headers: answer.update(status=status, headers=headers)))
    assert answer["status"] == "400 Bad Request"
    error = json.loads(body)
    assert error["code"] == "rest_invalid_content_length" and error["data"]["status"] == 400
    assert snapshot(small_site) == before


def test_invalid_params_never_reach_the_handler(small_site):
    before = snapshot(small_site)
    response = small_site.client.post_json(TRIPWIRE, {"text": "t" * 201}, expect_errors=True)
    _refused(small_site, before, response, "rest_invalid_param", 400)
    response = small_site.client.post_json(TRIPWIRE, {"payload": "not an object"}, expect_errors=True)
    _refused(small_site, before, response, "rest_invalid_param", 400)


def test_integers_beyond_64_bits_are_not_integers(small_site):
    """Found by the fuzzer: such a value reached SQLite and failed there with a 500."""
    before = snapshot(small_site)
    response = small_site.client.get("/wp-json/probe/v1/items/99999999999999999999999", expect_errors=True)
    body = _refused(small_site, before, response, "rest_invalid_param", 400)
    assert body["data"]["details"]["id"]["code"] == "rest_invalid_type"
    small_site.client.get(f"/wp-json/probe/v1/items/{2**63 - 1}", status=404)


def test_large_integers_are_read_exactly(example_app):
    """Through a float, 9007199254740993 would have become ...992: another item."""
    body = example_app.client.get("/wp-json/example/v1/echo?needed=1&maybe=9007199254740993", expect_errors=True)
    assert body.status_int == 200 and body.json["params"]["maybe"] == 9007199254740993
