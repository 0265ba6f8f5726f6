"""The root and namespace indexes: gzip by default for clients that accept it, kept compressed once,
with an ETag per encoding and 304 for a client that holds the answer."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.host.test_compression import GZIP, raw, vary

INDEXES = ("/wp-json/", "/wp-json/core/v2")


@pytest.fixture(scope="module")
def site(make_module_app):
    return make_module_app(plugins=["core"])


@pytest.fixture(scope="module")
def cached_site(make_module_app):
    return make_module_app(plugins=["core", "cache"])


@pytest.mark.parametrize("path", INDEXES)
def test_an_index_is_gzipped_for_a_client_that_accepts_gzip_and_tagged_per_encoding(site, path):
    plain = raw(site, path)
    packed = raw(site, path, **GZIP)
    assert plain.status_int == packed.status_int == 200
    assert "Content-Encoding" not in plain.headers and packed.headers["Content-Encoding"] == "gzip"
    assert "accept-encoding" in vary(plain) and "accept-encoding" in vary(packed)
    assert packed.headers["Content-Type"] == plain.headers["Content-Type"] == "application/json; charset=UTF-8"
    assert gzip.decompress(packed.body) == plain.body
    assert int(packed.headers["Content-Length"]) == len(packed.body) < len(plain.body) / 5
    assert plain.headers["ETag"].startswith('"') and packed.headers["ETag"] == plain.headers["ETag"][:-1] + '-gzip"'
    again = raw(site, path, **GZIP)
    assert again.body == packed.body and again.headers["ETag"] == packed.headers["ETag"]


@pytest.mark.parametrize("path", INDEXES)
def test_an_index_answers_304_to_the_tag_of_the_encoding_the_client_gets(site, path):
    plain, packed = raw(site, path), raw(site, path, **GZIP)
    held = raw(site, path, **GZIP, **{"If-None-Match": packed.headers["ETag"]})
    assert held.status_int == 304 and held.body == b""
    assert held.headers["ETag"] == packed.headers["ETag"] and "accept-encoding" in vary(held)
    assert "Content-Encoding" not in held.headers and "Content-Type" not in held.headers
    held_plain = raw(site, path, **{"If-None-Match": f'"other", W/{plain.headers["ETag"]}'})
    assert held_plain.status_int == 304 and held_plain.body == b""
    other_form = raw(site, path, **{"If-None-Match": packed.headers["ETag"]})  # holds the gzip form, asks plain
    assert other_form.status_int == 200 and other_form.body == plain.body
    stale = raw(site, path, **GZIP, **{"If-None-Match": '"not-this-one"'})
    assert stale.status_int == 200 and stale.body == packed.body


def test_head_of_the_root_index_carries_the_gzip_length_and_tag(site):
    packed = raw(site, "/wp-json/", **GZIP)
    head = raw(site, "/wp-json/", method="HEAD", **GZIP)
    assert head.status_int == 200 and head.body == b""
    assert head.headers["Content-Length"] == packed.headers["Content-Length"]
    assert head.headers["ETag"] == packed.headers["ETag"] and head.headers["Content-Encoding"] == "gzip"


def test_shaped_index_answers_are_encoded_per_request_without_the_kept_tag(site):
    fields = raw(site, "/wp-json/?_fields=namespaces,routes", **GZIP)
    assert fields.status_int == 200 and "ETag" not in fields.headers and fields.headers["Content-Encoding"] == "gzip"
    assert set(json.loads(gzip.decompress(fields.body))) == {"namespaces", "routes"}


@pytest.mark.parametrize("path", INDEXES)
def test_a_cache_hit_of_an_index_keeps_the_encodings_apart(cached_site, path):
    first = raw(cached_site, path, **GZIP)  # the host's kept gzip form: never stored as a plain answer
    plain = raw(cached_site, path)
    hit_plain = raw(cached_site, path)
    hit_packed = raw(cached_site, path, **GZIP)
    assert hit_plain.headers["X-Cache"] == hit_packed.headers["X-Cache"] == "hit"
    assert hit_plain.body == plain.body and "Content-Encoding" not in hit_plain.headers
    assert hit_plain.headers["ETag"] == plain.headers["ETag"]
    assert hit_packed.headers["Content-Encoding"] == "gzip" and gzip.decompress(hit_packed.body) == plain.body
    assert hit_packed.headers["ETag"] == first.headers["ETag"] == plain.headers["ETag"][:-1] + '-gzip"'
    held = raw(cached_site, path, **GZIP, **{"If-None-Match": first.headers["ETag"]})
    assert held.status_int == 304 and held.body == b"" and held.headers["ETag"] == first.headers["ETag"]
    assert "accept-encoding" in vary(held) and "Content-Encoding" not in held.headers
