"""core/v2/search: WordPress's search results over posts, terms and formats, readable ones only."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from tests.core.helpers import API


@pytest.fixture
def site(client, users):
    admin = users["administrator"].headers
    made = {
        "post": client.post_json(f"{API}/posts", {"title": "Orchestra concert", "status": "publish", "format": "audio"},
                                 headers=admin).json,
        "page": client.post_json(f"{API}/pages", {"title": "Orchestra rehearsals", "status": "publish"},
                                 headers=admin).json,
        "draft": client.post_json(f"{API}/posts", {"title": "Orchestra secret", "status": "draft"}, headers=admin).json,
        "hidden": client.post_json(f"{API}/posts", {"title": "Other", "content": "<script>orchestra()</script>",
                                                    "status": "publish"}, headers=admin).json,
        "category": client.post_json(f"{API}/categories", {"name": "Orchestra news"}, headers=admin).json,
    }
    return made


def test_posts_of_every_searchable_type_are_found_with_links_to_their_routes(client, site):
    response = client.get(f"{API}/search", {"search": "orchestra"})
    assert response.headers["X-WP-Total"] == "2" and response.headers["X-WP-TotalPages"] == "1"
    results = {item["subtype"]: item for item in response.json}
    assert set(results) == {"post", "page"}  # never the draft, nor script text
    post = results["post"]
    assert {key: post[key] for key in ("id", "title", "type", "subtype")} == {
        "id": site["post"]["id"], "title": "Orchestra concert", "type": "post", "subtype": "post"}
    assert post["url"] == f"http://school.test/?p={site['post']['id']}"
    assert post["_links"]["self"] == [{"embeddable": True, "targetHints": {"allow": ["GET"]},
                                       "href": f"http://school.test/wp-json/core/v2/posts/{site['post']['id']}"}]
    assert client.get(post["_links"]["self"][0]["href"].replace("http://school.test", "")).json["id"] == post["id"]
    pages_only = client.get(f"{API}/search", {"search": "orchestra", "subtype": "page"}).json
    assert [item["subtype"] for item in pages_only] == ["page"]
    assert pages_only[0]["url"] == f"http://school.test/?page_id={site['page']['id']}"  # its permalink


def test_paging_include_exclude_and_embed(client, site):
    first = client.get(f"{API}/search", {"search": "orchestra", "per_page": 1})
    assert first.headers["X-WP-TotalPages"] == "2" and len(first.json) == 1
    excluded = client.get(f"{API}/search", {"search": "orchestra", "exclude": site["post"]["id"]}).json
    assert [item["id"] for item in excluded] == [site["page"]["id"]]
    included = client.get(f"{API}/search", {"include": site["page"]["id"]}).json
    assert [item["id"] for item in included] == [site["page"]["id"]]
    embedded = client.get(f"{API}/search", {"search": "concert", "_embed": "self"}).json[0]
    assert embedded["_embedded"]["self"][0]["id"] == site["post"]["id"]
    assert set(client.get(f"{API}/search", {"search": "concert", "context": "embed"}).json[0]) == {
        "id", "title", "url", "_links"}


def test_terms_and_post_formats(client, site):
    terms = client.get(f"{API}/search", {"search": "orchestra", "type": "term"}).json
    assert [(item["id"], item["type"], item["subtype"]) for item in terms] == [(site["category"]["id"], "term", "category")]
    assert terms[0]["_links"]["self"][0]["href"].endswith(f"/core/v2/categories/{site['category']['id']}")
    formats = client.get(f"{API}/search", {"type": "post-format"}).json
    assert [(item["id"], item["title"], item["type"]) for item in formats] == [("audio", "Audio", "post-format")]


@pytest.mark.parametrize("query, name", [
    ({"type": "comment"}, "type"), ({"subtype": "menu"}, "subtype"), ({"per_page": 0}, "per_page"),
    ({"context": "edit"}, "context"), ({"search": "x" * 1001}, "search"),
])
def test_bad_arguments_answer_400(client, query, name):
    response = client.get(f"{API}/search", query, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    assert name in response.json["data"]["params"]
