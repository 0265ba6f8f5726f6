"""Event categories and tags (§1.6): the wrapped lists, hide_empty, post/event, CRUD with term rights."""

from __future__ import annotations

from host.testing import assert_rest_error, client_as, create_test_user

from tests.calendar.helpers import API, LONDON, new_event

CATEGORIES, TAGS = f"{API}/categories", f"{API}/tags"


def test_categories_and_tags(make_app):
    app = make_app(plugins=["core", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    author = client_as(app, create_test_user(app, "author"))
    sport = admin.post_json(CATEGORIES, {"name": "Sport", "description": "Fixtures"})
    assert sport.status_int == 201 and sport.headers["Location"] == f"http://school.test{CATEGORIES}/{sport.json['id']}"
    sport = sport.json
    football = admin.post_json(CATEGORIES, {"name": "Football", "parent": sport["id"]}).json
    admin.post_json(CATEGORIES, {"name": "Music"})
    assert football["parent"] == sport["id"] and football["taxonomy"] == "cal_events_cat"
    assert football["urls"] == {"self": f"http://school.test{CATEGORIES}/{football['id']}",
                                "collection": f"http://school.test{CATEGORIES}",
                                "up": f"http://school.test{CATEGORIES}/{sport['id']}"}  # a child links its parent
    assert sport["urls"] == {"self": f"http://school.test{CATEGORIES}/{sport['id']}",
                             "collection": f"http://school.test{CATEGORIES}"}
    year7 = author.post_json(TAGS, {"name": "Year 7"}).json  # authors may create tags, not categories
    assert_rest_error(author.post_json(CATEGORIES, {"name": "Drama"}, status=403), "rest_cannot_create", 403)
    assert_rest_error(app.client.post_json(TAGS, {"name": "Anon"}, status=401), "rest_cannot_create", 401)
    assert_rest_error(admin.post_json(CATEGORIES, {"name": "Sport"}, status=400), "term_exists", 400)
    event = new_event(admin, title="Cup final", categories=[football["id"]], tags=[year7["id"]])

    listed = app.client.get(CATEGORIES)
    assert list(listed.json) == ["rest_url", "total", "total_pages", "categories"]
    # hide_empty defaults to true: Music goes, Sport stays as the parent of a used category (as in core).
    assert [term["name"] for term in listed.json["categories"]] == ["Football", "Sport"]
    assert listed.headers["X-CAL-Total"] == "2"
    # core's term fields, `meta` included, with link renamed url (the real term lists wrap core's).
    first = listed.json["categories"][0]
    assert first["meta"] == {} and "link" not in first and first["url"]
    assert set(first) >= {"id", "count", "description", "name", "slug", "taxonomy", "parent", "meta", "url", "urls"}
    everything = app.client.get(CATEGORIES, {"hide_empty": "false"}).json
    assert [term["name"] for term in everything["categories"]] == ["Football", "Music", "Sport"]
    assert [term["name"] for term in app.client.get(CATEGORIES, {"hide_empty": "false", "parent": sport["id"]})
            .json["categories"]] == ["Football"]
    for name in ("post", "event"):
        found = app.client.get(CATEGORIES, {name: event["id"]}).json["categories"]
        assert [term["id"] for term in found] == [football["id"]]
    paged = app.client.get(CATEGORIES, {"hide_empty": "false", "per_page": 2}).json
    assert paged["total_pages"] == 2 and "page=2" in paged["next_rest_url"]
    assert [term["name"] for term in app.client.get(TAGS, {"slug": "year-7"}).json["tags"]] == ["Year 7"]
    assert "parent" not in [arg for arg in app.client.options(TAGS).json["endpoints"][0]["args"]]

    assert app.client.get(f"{CATEGORIES}/{sport['id']}").json["name"] == "Sport"
    renamed = admin.put_json(f"{CATEGORIES}/{football['id']}", {"name": "Soccer"}).json
    assert renamed["name"] == "Soccer"
    assert app.client.get(f"{API}/events/{event['id']}").json["categories"][0]["name"] == "Soccer"
    assert_rest_error(author.post_json(f"{TAGS}/{year7['id']}", {"name": "Y7"}, status=403), "rest_cannot_update",
                      403)
    deleted = admin.delete(f"{TAGS}/{year7['id']}")
    assert deleted.status_int == 200 and deleted.json["name"] == "Year 7"
    assert_rest_error(app.client.get(f"{TAGS}/{year7['id']}", status=404), "rest_term_invalid", 404)
    assert app.client.get(f"{API}/events/{event['id']}").json["tags"] == []
    assert_rest_error(admin.delete(f"{CATEGORIES}/999999", status=404), "rest_term_invalid", 404)


def test_event_lists_are_cached_and_term_writes_purge_them(make_app):
    app = make_app(plugins=["core", "cache", "calendar"], site=LONDON)
    admin = client_as(app, create_test_user(app, "administrator"))
    sport = admin.post_json(CATEGORIES, {"name": "Sport"}).json
    new_event(admin, title="Cup final", categories=[sport["id"]])
    query = {"start_date": "2030-01-01"}
    assert app.client.get(f"{API}/events", query).headers["X-Cache"] == "miss"
    assert app.client.get(f"{API}/events", query).headers["X-Cache"] == "hit"
    admin.put_json(f"{CATEGORIES}/{sport['id']}", {"name": "Games"})
    fresh = app.client.get(f"{API}/events", query)
    assert fresh.headers["X-Cache"] == "miss" and fresh.json["events"][0]["categories"][0]["name"] == "Games"
    for path in ("venues", "organizers"):
        assert app.client.get(f"{API}/{path}").headers["X-Cache"] == "miss"
        assert app.client.get(f"{API}/{path}").headers["X-Cache"] == "hit"
    admin.post_json(f"{API}/venues", {"venue": "Main hall"})
    assert app.client.get(f"{API}/venues").json["total"] == 1
    new_event(admin, title="Concert")
    assert len(app.client.get(f"{API}/events", query).json["events"]) == 2
