"""Totals count only what the caller may read.

The read permission is applied inside the query, so X-WP-Total and X-WP-TotalPages never
confirm an item the caller cannot see: not through a search's prefixes, not through a media
parent, not through the totals cache shared by callers with different rights.
"""

from __future__ import annotations

from tests.core.helpers import API
from tests.core.test_media import png


def ids(response):
    return [item["id"] for item in response.json]


def attach(client, headers, post_id, name="d.png"):
    return client.post(f"{API}/media?post={post_id}", png(), headers=dict(headers, **{
        "Content-Type": "image/png", "Content-Disposition": f'attachment; filename="{name}"'}), status=201).json


def test_search_of_others_drafts_reveals_no_total_to_a_contributor(client, make_post, users):
    make_post(title="Exam answers: photosynthesis", status="draft")
    contributor = users["contributor"].headers
    for prefix in ("photo", "photosynthesis", "exam"):
        response = client.get(f"{API}/posts", {"status": "draft", "search": prefix}, headers=contributor)
        assert response.json == []
        assert (response.headers["X-WP-Total"], response.headers["X-WP-TotalPages"]) == ("0", "0")


def test_editors_still_count_every_draft(client, make_post, users):
    make_post(title="Admin draft", status="draft")
    make_post(title="Contributor draft", status="draft", role="contributor")
    response = client.get(f"{API}/posts?status=draft", headers=users["editor"].headers)
    assert len(response.json) == 2 and response.headers["X-WP-Total"] == "2"


def test_private_posts_count_for_those_who_may_read_them(client, make_post, users):
    make_post(title="Staff only", status="private")
    for role, expected in (("editor", "1"), ("author", "0"), ("contributor", "0")):
        response = client.get(f"{API}/posts?status=private", headers=users[role].headers, expect_errors=True)
        if response.status_int == 200:
            assert response.headers["X-WP-Total"] == expected, role
            assert len(response.json) == int(expected), role
        else:  # callers without edit_posts may not ask for the status at all
            assert response.json["code"] == "rest_invalid_param"


def test_the_totals_cache_does_not_carry_a_count_across_callers(client, make_post, users):
    make_post(title="Draft one", status="draft")
    assert client.get(f"{API}/posts?status=draft", headers=users["editor"].headers).headers["X-WP-Total"] == "1"
    assert client.get(f"{API}/posts?status=draft", headers=users["contributor"].headers).headers["X-WP-Total"] == "0"
    assert client.get(f"{API}/posts?status=draft", headers=users["editor"].headers).headers["X-WP-Total"] == "1"


def test_anonymous_media_search_does_not_count_attachments_of_drafts(client, make_post, users):
    admin = users["administrator"].headers
    draft = make_post(title="Unannounced trip", status="draft")
    published = make_post(title="Sports day")
    attach(client, admin, draft["id"], "trip.png")
    visible = attach(client, admin, published["id"], "sports.png")
    response = client.get(f"{API}/media", {"search": "png"})
    assert ids(response) == [visible["id"]]
    assert response.headers["X-WP-Total"] == "1"
    assert client.get(f"{API}/media", {"search": "trip"}).headers["X-WP-Total"] == "0"
    assert client.get(f"{API}/media", {"search": "trip"}, headers=admin).headers["X-WP-Total"] == "1"


def test_media_parent_filter_does_not_confirm_a_draft(client, make_post, users):
    admin = users["administrator"].headers
    draft = make_post(title="Unannounced trip", status="draft")
    attach(client, admin, draft["id"])
    for parent in (draft["id"], 999_999):  # a draft answers exactly as an id that does not exist
        response = client.get(f"{API}/media", {"parent": parent})
        assert (response.json, response.headers["X-WP-Total"]) == ([], "0")
    own_view = client.get(f"{API}/media", {"parent": draft["id"]}, headers=admin)
    assert own_view.headers["X-WP-Total"] == "1"


def test_an_author_counts_attachments_of_own_drafts(client, make_post, users):
    author = users["author"].headers
    draft = client.post_json(f"{API}/posts", {"title": "Mine", "status": "draft"}, headers=author).json
    attach(client, author, draft["id"])
    assert client.get(f"{API}/media", {"parent": draft["id"]}, headers=author).headers["X-WP-Total"] == "1"
    assert client.get(f"{API}/media", {"parent": draft["id"]}, headers=users["contributor"].headers
                      ).headers["X-WP-Total"] == "0"


def test_the_totals_cache_keys_on_every_filter_but_not_on_the_page(client, make_post):
    """A cached total is found again for another page or page size of the same filters, and never
    answers a query that differs in one filter (the key is the filters' values, read at once)."""
    for number in range(3):
        make_post(title=f"Field trip {number}")
    make_post(title="Concert")
    first = client.get(f"{API}/posts", {"search": "trip", "per_page": "2"})
    assert first.headers["X-WP-Total"] == "3" and first.headers["X-WP-TotalPages"] == "2"
    second = client.get(f"{API}/posts", {"search": "trip", "per_page": "2", "page": "2", "order": "asc"})
    assert second.headers["X-WP-Total"] == "3" and len(second.json) == 1
    assert client.get(f"{API}/posts", {"search": "concert", "per_page": "2"}).headers["X-WP-Total"] == "1"
    assert client.get(f"{API}/posts", {"per_page": "2"}).headers["X-WP-Total"] == "4"
