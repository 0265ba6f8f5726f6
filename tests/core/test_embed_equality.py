"""`_embed` answers exactly what a client would get by following each embeddable link itself.

The reference is the per-link path spelled out over HTTP: for every item of the plain answer,
every embeddable link is fetched as the same caller with `context=embed` (and the route's
largest `per_page` for collections), and `_embedded` is assembled from those answers. Whatever
makes `_embed` cheaper must keep this equality, errors included: an embedded item the caller
may not read is embedded as the error object its own GET answers.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from sqlalchemy import insert

from host import Taxonomy
from host.testing import client_as, create_test_user, make_plugin, role_users
from plugins.core.tables import tables
from tests.core.test_media import upload

API = "/wp-json/core/v2"
CURIE = "https://api.w.org/"


@pytest.fixture(scope="module")
def site(make_module_app):
    topics = make_plugin("topics", requires=("core",), register_taxonomies=lambda: [
        Taxonomy("topic", "Topics", rest_base="topics", object_types=("post",))])
    app = make_module_app(plugins=["core", topics], site={"comment_flood": 0})
    users = role_users(app)
    editor, author = client_as(app, users["editor"]), client_as(app, users["author"])
    quiet = client_as(app, create_test_user(app, "author"))  # publishes nothing: not a public profile
    trip = editor.post_json(f"{API}/topics", {"name": "Trips"}, status=201).json
    gone_picture = upload(app.client, users["editor"].headers, name="gone.png").json
    news = editor.post_json(f"{API}/categories", {"name": "News"}, status=201).json
    sport = editor.post_json(f"{API}/categories", {"name": "Sport"}, status=201).json
    tags = [editor.post_json(f"{API}/tags", {"name": name}, status=201).json for name in ("Match", "Choir")]
    picture = upload(app.client, users["editor"].headers, name="field.png").json
    hidden_picture = upload(app.client, users["editor"].headers, name="hidden.png").json
    editor.post_json(f"{API}/media/{hidden_picture['id']}", {"status": "private"}, status=200)
    first = editor.post_json(f"{API}/posts", {
        "title": "Sports day", "content": "Races", "status": "publish", "categories": [news["id"], sport["id"]],
        "tags": [tag["id"] for tag in tags], "featured_media": picture["id"]}, status=201).json
    editor.post_json(f"{API}/posts", {"title": "Concert", "content": "Songs", "status": "publish",
                                      "tags": [tags[1]["id"]], "featured_media": hidden_picture["id"]}, status=201)
    author.post_json(f"{API}/posts", {"title": "Author's news", "content": "Mine", "status": "publish"}, status=201)
    author.post_json(f"{API}/posts", {"title": "Author's draft", "content": "Not yet", "status": "draft"}, status=201)
    editor.post_json(f"{API}/posts", {"title": "Private note", "content": "Staff", "status": "private"}, status=201)
    for text in ("Well done", "Great day"):
        app.client.post_json(f"{API}/comments", {"post": first["id"], "content": text, "author_name": "Parent",
                                                 "author_email": "parent@school.test"}, status=201)
    editor.post_json(f"{API}/comments", {"post": first["id"], "content": "Thanks all"}, status=201)
    draft_parent = editor.post_json(f"{API}/pages", {"title": "Plans", "status": "draft"}, status=201).json
    public_parent = editor.post_json(f"{API}/pages", {"title": "About", "status": "publish"}, status=201).json
    for title, parent in (("Staff plans", draft_parent), ("Our history", public_parent)):
        editor.post_json(f"{API}/pages", {"title": title, "status": "publish", "parent": parent["id"]}, status=201)
    editor.post_json(f"{API}/media/{picture['id']}", {"post": first["id"]}, status=200)
    # The cases of batched embeds: a registered taxonomy's terms, a password, an author
    # without a public profile, a featured picture deleted since
    trip_posts = [
        editor.post_json(f"{API}/posts", {"title": "Museum trip", "status": "publish", "categories": [sport["id"]],
                                          "featured_media": gone_picture["id"]}, status=201).json,
        editor.post_json(f"{API}/posts", {"title": "Staff quiz", "status": "publish", "password": "owl",
                                          "tags": [tags[0]["id"]]}, status=201).json,
        quiet.post_json(f"{API}/posts", {"title": "Quiet note", "status": "private"}, status=201).json]
    editor.delete(f"{API}/media/{gone_picture['id']}?force=true", status=200)
    for post in trip_posts[:2]:  # replies on a protected post: only those who may edit it read them
        editor.post_json(f"{API}/comments", {"post": post["id"], "content": "Noted"}, status=201)
    editor.post_json(f"{API}/comments", {"post": trip_posts[0]["id"], "content": "Bring lunch"}, status=201)
    client_as(app, users["subscriber"]).post_json(f"{API}/comments", {"post": trip_posts[0]["id"],
                                                                      "content": "Can I come?"}, status=201)
    # Posts take no field for a plugin's taxonomy: its own code assigns terms, as the plugin would.
    relationships = tables(app)["term_relationships"]
    with app.db.session(write=True) as session:
        session.execute(insert(relationships), [{"post_id": post["id"], "term_id": trip["id"]} for post in trip_posts])
        session.commit()
    app.people = users
    return app


def caller(site, role: str | None):
    return site.client if role is None else client_as(site, site.people[role])


def per_link(client, item: dict, wanted: set[str] | None = None) -> dict | None:
    """`_embedded` of `item` built by following its embeddable links one GET at a time."""
    embedded = {}
    for raw_rel, entries in item.get("_links", {}).items():
        if raw_rel == "curies":
            continue
        rel = "wp:" + raw_rel[len(CURIE):] if raw_rel.startswith(CURIE) else raw_rel
        if wanted is not None and rel not in wanted:
            continue
        results, found = [], False
        for link in entries:
            if not link.get("embeddable") or not link["href"].startswith("http://school.test/wp-json/"):
                results.append([])
                continue
            parts = urlsplit(link["href"])
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            query.setdefault("context", "embed")
            if "?" in link["href"]:  # collections: the embed asks for the route's largest page
                query.setdefault("per_page", "100")
            results.append(client.get(parts.path, query, expect_errors=True).json)
            found = True
        if found:
            embedded[rel] = results
    return embedded or None


def expand_curies(links: dict) -> dict:
    return {(CURIE + rel[3:] if rel.startswith("wp:") else rel): entries for rel, entries in links.items()}


@pytest.mark.parametrize("role", [None, "subscriber", "author", "editor"])
@pytest.mark.parametrize("path", ["/posts?_embed", "/posts?_embed&status=publish,private,draft&per_page=20",
                                  "/pages?_embed", "/media?_embed", "/posts?_embed=author,wp:term",
                                  "/posts?_embed=wp:featuredmedia,replies&order=asc"])
def test_embed_equals_following_every_link(site, role, path, caplog):
    client = caller(site, role)
    status_ok = role in ("author", "editor") or "status=" not in path
    embedded = client.get(API + path, expect_errors=True)
    plain = client.get(API + path.replace("_embed", "_embed_off", 1), expect_errors=True)
    assert embedded.status_int == plain.status_int == (200 if status_ok else 400)
    assert "embed batch" not in caplog.text  # every batch answered (a failed one falls back, unseen)
    if not status_ok:
        return
    wanted_text = dict(parse_qsl(urlsplit(path).query, keep_blank_values=True))["_embed"]
    wanted = set(wanted_text.split(",")) if wanted_text else None
    assert [item["id"] for item in embedded.json] == [item["id"] for item in plain.json]
    assert embedded.json and any("_embedded" in item for item in embedded.json)
    for with_embeds, item in zip(embedded.json, plain.json):
        expected = per_link(client, {**item, "_links": expand_curies(item["_links"])}, wanted)
        assert with_embeds.get("_embedded") == expected, (path, role, item["id"])
        assert {key: value for key, value in with_embeds.items() if key != "_embedded"} == item


def test_an_embedded_item_the_caller_may_not_read_is_its_error_object(site):
    """The private picture and the draft parent page: an error object in place, as their own GETs answer."""
    posts = site.client.get(f"{API}/posts?_embed").json
    concert = next(item for item in posts if item["title"]["rendered"] == "Concert")
    media = concert["_embedded"]["wp:featuredmedia"][0]
    assert media["code"] == "rest_forbidden" and media["data"]["status"] == 401
    pages = site.client.get(f"{API}/pages?_embed").json
    staff = next(item for item in pages if item["title"]["rendered"] == "Staff plans")
    assert staff["_embedded"]["up"][0]["code"] in ("rest_forbidden", "rest_post_invalid_id")
    as_editor = client_as(site, site.people["editor"]).get(f"{API}/posts?_embed").json
    concert = next(item for item in as_editor if item["title"]["rendered"] == "Concert")
    assert concert["_embedded"]["wp:featuredmedia"][0]["id"] == concert["featured_media"]


def test_batched_terms_of_a_registered_taxonomy_are_embedded_per_post(site):
    posts = client_as(site, site.people["editor"]).get(f"{API}/posts?_embed=wp:term&per_page=20&status=publish,private").json
    by_title = {item["title"]["rendered"]: item for item in posts}
    for title in ("Museum trip", "Staff quiz", "Quiet note"):
        lists = by_title[title]["_embedded"]["wp:term"]
        topics = next(terms for terms in lists if terms and terms[0]["taxonomy"] == "topic")
        assert [term["name"] for term in topics] == ["Trips"]
        assert set(topics[0]) == {"id", "link", "name", "slug", "taxonomy", "_links"}
    sports = by_title["Sports day"]["_embedded"]["wp:term"]
    assert [term["name"] for term in sports[0]] == ["News", "Sport"]  # the list's order: by name
    assert sports[2] == []  # no topics



def test_replies_of_a_password_protected_post_are_refused_to_those_without_it(site):
    posts = site.client.get(f"{API}/posts?_embed=replies").json
    by_title = {item["title"]["rendered"]: item for item in posts}
    assert by_title["Staff quiz"]["_embedded"]["replies"][0]["code"] == "rest_cannot_read_post"
    as_editor = client_as(site, site.people["editor"]).get(f"{API}/posts?_embed=replies").json
    quiz = next(item for item in as_editor if item["title"]["rendered"] == "Staff quiz")
    assert [reply["content"]["rendered"] for reply in quiz["_embedded"]["replies"][0]] == ["<p>Noted</p>\n"]


def test_batched_embeds_give_back_every_database_connection(site):
    """The batches read through the finished list request: its session must be closed again."""
    pool = site.db.engine.pool
    before = pool.checkedout() if hasattr(pool, "checkedout") else None
    for _ in range(3):
        site.client.get(f"{API}/posts?_embed")
    if before is not None:
        assert pool.checkedout() == before
