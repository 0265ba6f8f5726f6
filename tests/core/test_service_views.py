"""What core's services show another plugin as a user may see it (app.content.view, view_many, media_by_url,
rest_url, terms by slug; app.users.profile) is what core/v2's own routes answer that user."""

from __future__ import annotations

import pytest

from host import Namespace, Route
from host.testing import client_as, create_test_user, make_plugin

from tests.core.helpers import API
from tests.core.test_media import png

PROBE = "/wp-json/probe/v1"


def probe_plugin():
    def view(request):
        shown = request.app.content.view(request, int(request.url_params["id"]), user=request.user)
        return {"shown": shown, "rest_url": request.app.content.rest_url(request, shown) if shown else None}

    def view_many(request):
        ids = [int(part) for part in request.url_params["ids"].split(",")]
        return {str(key): value for key, value in
                request.app.content.view_many(request, ids, "attachment", user=request.user).items()}

    def media_at(request):
        shown = request.app.content.media_by_url(request, request.query.get("url", ""), user=request.user)
        return {"id": shown["id"] if shown else None}

    def author(request):
        return {"profile": request.app.users.profile(request, int(request.url_params["id"]), user=request.user)}

    def category(request):
        return request.app.content.terms(request, "category", slugs=[request.url_params["slug"]])

    return make_plugin("probe", register_namespaces=lambda: [Namespace("probe/v1")], register_routes=lambda: [
        Route("probe/v1", r"/view/(?P<id>\d+)", "GET", view),
        Route("probe/v1", r"/media/(?P<ids>[\d,]+)", "GET", view_many),
        Route("probe/v1", "/media-at", "GET", media_at),
        Route("probe/v1", r"/author/(?P<id>\d+)", "GET", author),
        Route("probe/v1", r"/category/(?P<slug>[^/]+)", "GET", category)])


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", probe_plugin()])
    app.editor = create_test_user(app, "editor", login="mrs-hughes")
    app.as_editor = client_as(app, app.editor)
    return app


def without_links(data: dict) -> dict:
    return {key: value for key, value in data.items() if key != "_links"}


def test_view_is_the_item_route_answer_for_the_same_user(site):
    """A draft: hidden from a visitor (None), and for its editor exactly core/v2's view answer without _links."""
    draft = site.as_editor.post_json(f"{API}/posts", {"title": "Plans", "content": "<p>Trip</p>"}, status=201).json
    assert site.client.get(f"{PROBE}/view/{draft['id']}").json == {"shown": None, "rest_url": None}
    core = site.as_editor.get(f"{API}/posts/{draft['id']}", {"context": "view"}).json
    probe = site.as_editor.get(f"{PROBE}/view/{draft['id']}").json
    assert probe["shown"] == without_links(core)
    assert probe["rest_url"] == core["_links"]["self"][0]["href"]


def test_view_many_and_media_by_url_show_only_media_the_caller_may_read(site):
    """An image attached to a draft is its editors' only; an unattached one is anyone's."""
    headers = {"Content-Type": "image/png"}
    public, private = (site.as_editor.post(f"{API}/media", png(), headers={
        **headers, "Content-Disposition": f'attachment; filename="{name}.png"'}, status=201).json
        for name in ("crest", "plan"))
    draft = site.as_editor.post_json(f"{API}/posts", {"title": "Plans"}, status=201).json
    site.as_editor.post_json(f"{API}/media/{private['id']}", {"post": draft["id"]}, status=200)
    ids = f"{public['id']},{private['id']}"
    assert list(site.client.get(f"{PROBE}/media/{ids}").json) == [str(public["id"])]
    seen = site.as_editor.get(f"{PROBE}/media/{ids}").json
    assert seen[str(private["id"])] == without_links(site.as_editor.get(f"{API}/media/{private['id']}").json)
    assert site.client.get(f"{PROBE}/media-at", {"url": public["source_url"]}).json == {"id": public["id"]}
    assert site.client.get(f"{PROBE}/media-at", {"url": private["source_url"]}).json == {"id": None}
    assert site.as_editor.get(f"{PROBE}/media-at", {"url": private["source_url"]}).json == {"id": private["id"]}
    assert site.client.get(f"{PROBE}/media-at", {"url": "http://elsewhere.test/uploads/x.png"}).json == {"id": None}


def test_a_profile_is_shown_as_core_v2_users_shows_it(site):
    """An author with nothing published is not shown to a visitor (core/v2/users answers 401); once they
    publish, the profile is core/v2/users' view answer without _links."""
    site.client.get(f"{API}/users/{site.editor.id}", status=401)
    assert site.client.get(f"{PROBE}/author/{site.editor.id}").json == {"profile": None}
    assert site.as_editor.get(f"{PROBE}/author/{site.editor.id}").json["profile"]["name"] == "mrs-hughes"
    site.as_editor.post_json(f"{API}/posts", {"title": "News", "status": "publish"}, status=201)
    core = site.client.get(f"{API}/users/{site.editor.id}").json
    assert site.client.get(f"{PROBE}/author/{site.editor.id}").json == {"profile": without_links(core)}
    assert site.client.get(f"{PROBE}/author/999999").json == {"profile": None}


def test_terms_by_slug_are_sanitized_as_the_term_routes_do_and_carry_their_published_count(site):
    """`Sport Day` finds the term whose slug is sport-day; published_count is the term route's `count`
    (a draft in the category is not counted), `count` every linked item."""
    term = site.as_editor.post_json(f"{API}/categories", {"name": "Sport Day"}, status=201).json
    for status in ("publish", "draft"):
        site.as_editor.post_json(f"{API}/posts", {"title": status, "status": status, "categories": [term["id"]]},
                                 status=201)
    found = site.client.get(f"{PROBE}/category/Sport Day").json
    assert [(entry["id"], entry["count"], entry["published_count"]) for entry in found] == [(term["id"], 2, 1)]
    assert site.client.get(f"{API}/categories/{term['id']}").json["count"] == 1
