"""The caches and indexes that make listing fast never change what a reader sees."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import insert, text, update

from host.testing import recorded_statements

from tests.core.helpers import API


def test_rendered_html_follows_an_edit_through_the_api(client, make_post, users):
    post = make_post(content="First words")
    assert "First words" in client.get(f"{API}/posts/{post['id']}").json["content"]["rendered"]
    client.post_json(f"{API}/posts/{post['id']}", {"content": "Second words"},
                     headers=users["administrator"].headers, status=200)
    body = client.get(f"{API}/posts/{post['id']}").json
    assert "Second words" in body["content"]["rendered"]
    assert "First words" not in body["content"]["rendered"]
    assert "Second words" in body["excerpt"]["rendered"]


def test_rendered_html_follows_a_direct_write_that_keeps_modified(app, client, make_post):
    """Another process (or a migration) may change the text without touching `modified`."""
    post = make_post(content="Original body")
    listed = client.get(f"{API}/posts").json
    assert "Original body" in listed[0]["content"]["rendered"]
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(update(posts).where(posts.c.id == post["id"]).values(content="Rewritten body"))
    body = client.get(f"{API}/posts/{post['id']}").json
    assert "Rewritten body" in body["content"]["rendered"]
    assert "Rewritten body" in body["excerpt"]["rendered"]


def test_indexes_added_later_are_created_on_an_existing_database(make_app, tmp_path):
    """`create_all` skips existing tables; startup adds the listing indexes to them."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    with first.db.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_posts_type_date_id_status"))
        connection.execute(text("DROP INDEX ix_posts_type_status_date_gmt"))
        connection.execute(text("CREATE INDEX ix_posts_type_date_id ON posts (type, date, id)"))  # an older release's
    first.close()
    second = make_app(plugins=["core"], database_url=url)
    with second.db.engine.connect() as connection:
        names = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'"))}
    assert {"ix_posts_type_date_id_status", "ix_posts_type_status_date_gmt"} <= names
    assert "ix_posts_type_date_id" not in names  # superseded: dropped, since every index costs each write
    assert second.client.get(f"{API}/posts").status_int == 200


def _select_count(app, url: str) -> tuple[object, int]:
    with recorded_statements(app, lambda statement: statement.lstrip().upper().startswith("SELECT")) as statements:
        response = app.client.get(url, status=200)
    return response, len(statements)


@pytest.fixture
def core_app(make_app):
    return make_app(plugins=["core"])


def _insert_post(app, **values) -> int:
    posts = app.db.metadata.tables["posts"]
    now = datetime.datetime(2024, 5, 1, 12, 0, 0)
    row = {"type": "post", "status": "publish", "slug": "", "title": "Raw", "content": "", "excerpt": "",
           "date": now, "date_gmt": now, "modified": now, "modified_gmt": now, "guid": ""}
    row.update(values)
    with app.db.session(write=True) as session, session.begin():
        return session.execute(insert(posts).values(**row)).inserted_primary_key[0]


def test_a_repeated_page_reuses_its_total_and_skips_the_count(core_app):
    for _ in range(3):
        _insert_post(core_app)
    first, first_selects = _select_count(core_app, f"{API}/posts?per_page=2")
    second, second_selects = _select_count(core_app, f"{API}/posts?per_page=2&page=2")
    again, again_selects = _select_count(core_app, f"{API}/posts?per_page=2&page=2")
    assert first.headers["X-WP-Total"] == second.headers["X-WP-Total"] == again.headers["X-WP-Total"] == "3"
    assert again.json == second.json
    # ids + COUNT + the items; then ids + the items (the total is kept); then the ids alone
    # (the items are kept too, encoded at this content version).
    assert (first_selects, second_selects, again_selects) == (3, 2, 1)


def test_a_total_follows_writes_by_another_process(core_app):
    """Rows written straight to the tables (as another server process would) change the total at once."""
    first = _insert_post(core_app)
    assert core_app.client.get(f"{API}/posts").headers["X-WP-Total"] == "1"
    second = _insert_post(core_app, title="Second")
    assert core_app.client.get(f"{API}/posts").headers["X-WP-Total"] == "2"
    posts = core_app.db.metadata.tables["posts"]
    with core_app.db.session(write=True) as session, session.begin():
        session.execute(update(posts).where(posts.c.id == first).values(status="draft"))
    response = core_app.client.get(f"{API}/posts")
    assert response.headers["X-WP-Total"] == "1"
    assert [item["id"] for item in response.json] == [second]


def test_a_category_total_follows_term_links(core_app):
    first, second = _insert_post(core_app), _insert_post(core_app)
    links = core_app.db.metadata.tables["term_relationships"]
    with core_app.db.session(write=True) as session, session.begin():
        session.execute(insert(links).values(post_id=first, term_id=1))
    assert core_app.client.get(f"{API}/posts?categories=1").headers["X-WP-Total"] == "1"
    with core_app.db.session(write=True) as session, session.begin():
        session.execute(insert(links).values(post_id=second, term_id=1))
    assert core_app.client.get(f"{API}/posts?categories=1").headers["X-WP-Total"] == "2"


def test_a_scheduled_post_counts_once_its_time_has_come(core_app, monkeypatch):
    from plugins.core import dates

    now = dates.utcnow()
    _insert_post(core_app)
    due = now + datetime.timedelta(hours=1)
    _insert_post(core_app, status="future", date=due, date_gmt=due, modified=now, modified_gmt=now)
    assert core_app.client.get(f"{API}/posts").headers["X-WP-Total"] == "1"
    monkeypatch.setattr(dates, "utcnow", lambda: now + datetime.timedelta(hours=2))
    response = core_app.client.get(f"{API}/posts")
    assert response.headers["X-WP-Total"] == "2"
    assert response.json[0]["status"] == "publish"


def _search(client, query: str, headers=None) -> list[str]:
    response = client.get(f"{API}/posts?{query}", headers=headers or {}, status=200)
    assert response.headers["X-WP-Total"] == str(len(response.json))
    return sorted(item["title"]["rendered"] for item in response.json)


def test_search_uses_word_prefixes_all_terms_exclusions_and_phrases(client, make_post):
    make_post(title="Football final", content="The team played well")
    make_post(title="Chess club", content="A quiet football afternoon in the library")
    make_post(title="Barefoot walk", content="Walking on the beach")
    make_post(title="Library news", content="New books in the school library")
    assert _search(client, "search=foot") == ["Chess club", "Football final"]  # prefixes, not substrings
    assert _search(client, "search=football%20library") == ["Chess club"]
    assert _search(client, "search=library%20-football") == ["Library news"]
    assert _search(client, "search=%22quiet%20football%22") == ["Chess club"]
    assert _search(client, "search=%22football%20quiet%22") == []
    assert _search(client, "search=football&search_columns=post_title") == ["Football final"]
    assert _search(client, "search=FOOTBALL") == ["Chess club", "Football final"]


def test_the_search_index_follows_edits_and_deletions(client, make_post, users):
    admin = users["administrator"].headers
    post = make_post(title="Orchestra rehearsal", content="Strings and brass")
    assert _search(client, "search=orchestra") == ["Orchestra rehearsal"]
    client.post_json(f"{API}/posts/{post['id']}", {"title": "Choir rehearsal", "content": "Voices"},
                     headers=admin, status=200)
    assert _search(client, "search=orchestra") == []
    assert _search(client, "search=voices") == ["Choir rehearsal"]
    client.delete(f"{API}/posts/{post['id']}?force=true", headers=admin, status=200)
    assert _search(client, "search=voices") == []


def test_anonymous_searches_never_return_password_protected_posts(client, make_post, users):
    make_post(title="Open trip letter", content="Museum visit")
    make_post(title="Protected trip letter", content="Museum visit", password="secret")
    assert _search(client, "search=museum") == ["Open trip letter"]
    signed_in = _search(client, "search=museum", users["administrator"].headers)
    assert signed_in == ["Open trip letter", "Protected trip letter"]


def test_search_index_is_built_for_rows_written_before_it_existed(make_app, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    with first.db.engine.begin() as connection:
        for name in ("insert", "update", "delete"):
            connection.execute(text(f"DROP TRIGGER posts_search_{name}"))
        connection.execute(text("DROP TABLE posts_search"))
    _insert_post(first, title="Robotics club results")
    first.close()
    second = make_app(plugins=["core"], database_url=url)
    assert _search(second.client, "search=robotics") == ["Robotics club results"]


# --- list items reused by their row (plugins/core/encoded.py) --------------------------------

@pytest.fixture
def reader(users):
    """A signed-in subscriber: the response cache (cache plugin) never answers them, the item reuse does."""
    return users["subscriber"].headers


def _listed(client, post_id, headers):
    body = client.get(f"{API}/posts", headers=headers).json
    return next((item for item in body if item.get("id") == post_id), None)


def test_reused_list_items_follow_every_change_a_reader_can_see(app, client, make_post, users, reader):
    admin = users["administrator"].headers
    category = client.post_json(f"{API}/categories", {"name": "Choir"}, headers=admin, status=201).json
    post = make_post(title="Spring concert", categories=[category["id"]])
    first = _listed(client, post["id"], reader)
    assert first == _listed(client, post["id"], reader)  # the second page is built from the kept item
    assert first["title"]["rendered"] == "Spring concert"
    assert "category-choir" in first["class_list"]

    client.post_json(f"{API}/posts/{post['id']}", {"title": "Summer concert"}, headers=admin, status=200)
    edited = _listed(client, post["id"], reader)
    assert edited["title"]["rendered"] == "Summer concert"
    single = client.get(f"{API}/posts/{post['id']}").json
    assert edited["_links"]["version-history"] == single["_links"]["version-history"]
    assert edited["_links"]["version-history"][0]["count"] >= 1

    client.post_json(f"{API}/categories/{category['id']}", {"slug": "singers"}, headers=admin, status=200)
    assert "category-singers" in _listed(client, post["id"], reader)["class_list"]

    tag = client.post_json(f"{API}/tags", {"name": "Music"}, headers=admin, status=201).json
    client.post_json(f"{API}/posts/{post['id']}", {"tags": [tag["id"]]}, headers=admin, status=200)
    assert _listed(client, post["id"], reader)["tags"] == [tag["id"]]

    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():  # a write that keeps `modified`
        session.execute(update(posts).where(posts.c.id == post["id"]).values(content="Rewritten programme"))
    assert "Rewritten programme" in _listed(client, post["id"], reader)["content"]["rendered"]

    meta = app.db.metadata.tables["post_meta"]
    with app.db.session(write=True) as session, session.begin():  # meta written straight to its table
        session.execute(insert(meta).values(post_id=post["id"], key="footnotes", value='"[1] Programme notes"'))
    assert _listed(client, post["id"], reader)["meta"]["footnotes"] == "[1] Programme notes"

    client.delete(f"{API}/posts/{post['id']}", headers=admin, status=200)
    assert _listed(client, post["id"], reader) is None


def test_shaping_parameters_still_shape_items_that_were_reused(client, make_post):
    post = make_post(title="Sports day")
    plain = client.get(f"{API}/posts")
    assert plain.json[0]["id"] == post["id"]

    fields = client.get(f"{API}/posts?_fields=id,title").json
    assert fields[0] == {"id": post["id"], "title": {"rendered": "Sports day"}}

    embedded = client.get(f"{API}/posts?_embed=author").json
    assert embedded[0]["_embedded"]["author"][0]["id"] == embedded[0]["author"]

    pretty = client.get(f"{API}/posts?_pretty=1")
    assert pretty.body.startswith(b"[\n    {")
    assert pretty.json == plain.json

    enveloped = client.get(f"{API}/posts?_envelope=1").json
    assert enveloped["status"] == 200
    assert enveloped["body"] == plain.json
    assert client.get(f"{API}/posts").body == plain.body


def test_protected_and_private_items_are_built_for_each_request(client, make_post, users, reader):
    editor = users["editor"].headers
    protected = make_post(title="Staff notes", content="Secret agenda", password="letmein")
    private = make_post(title="Governors only", status="private")
    for _ in range(2):
        listed = _listed(client, protected["id"], reader)
        assert listed["content"] == {"rendered": "", "protected": True}
        assert _listed(client, private["id"], reader) is None
    seen = client.get(f"{API}/posts?status=publish,private", headers=editor).json
    assert {item["id"] for item in seen} >= {protected["id"], private["id"]}
    assert _listed(client, private["id"], reader) is None
    client.get(f"{API}/posts?status=private", status=400)


def test_deep_search_pages_continue_the_first_pages_exactly(client, make_post):
    """Past the first pages a search starts from the full-text matches instead of walking the
    date index (plugins/core/store/listing.py DEEP_SEARCH_OFFSET); both give one consistent order."""
    from plugins.core.store import DEEP_SEARCH_OFFSET

    wanted = DEEP_SEARCH_OFFSET + 25
    for number in range(wanted):
        make_post(title=f"Violin lesson {number}", content="Bring your violin.",
                  date=f"2024-03-{1 + number % 28:02d}T10:{number % 60:02d}:00")
        if number % 5 == 0:
            make_post(title=f"Cello lesson {number}", date=f"2024-03-{1 + number % 28:02d}T10:30:00")
    whole = client.get(f"{API}/posts?search=violin&per_page=100")
    assert whole.headers["X-WP-Total"] == str(wanted)
    expected = [item["id"] for item in whole.json]
    paged = []
    for page in range(1, wanted // 10 + 2):
        response = client.get(f"{API}/posts?search=violin&per_page=10&page={page}")
        assert response.headers["X-WP-Total"] == str(wanted)
        paged += [item["id"] for item in response.json]
    assert paged == expected
    deep = client.get(f"{API}/posts?search=violin&per_page=5&offset={DEEP_SEARCH_OFFSET + 5}").json
    assert [item["id"] for item in deep] == expected[DEEP_SEARCH_OFFSET + 5:DEEP_SEARCH_OFFSET + 10]


def _single(client, post_id, headers, **query):
    return client.get(f"{API}/posts/{post_id}", query, headers=headers, expect_errors=True)


def test_a_single_read_of_a_kept_item_follows_every_change(app, client, make_post, users, reader):
    """Single reads answer from the row's stored rendering the same bytes as building
    it, and nothing stale after an update, a term change, a direct write or an author rename."""
    admin = users["administrator"].headers
    category = client.post_json(f"{API}/categories", {"name": "Drama"}, headers=admin, status=201).json
    post = make_post(title="School play", categories=[category["id"]])
    built = _single(client, post["id"], reader)
    kept = _single(client, post["id"], reader)  # its rendering gathered by the first read
    assert built.status_int == kept.status_int == 200 and built.body == kept.body
    assert kept.headers["Link"] == built.headers["Link"] and "rel=\"alternate\"" in kept.headers["Link"]
    assert kept.json == _listed(client, post["id"], reader)  # the list shares the same kept encoding
    anonymous = _single(client, post["id"], {})
    assert anonymous.json["_links"]["self"][0]["targetHints"]["allow"] == ["GET"]
    assert kept.json["_links"]["self"][0]["targetHints"]["allow"] == ["GET"]
    as_admin = _single(client, post["id"], admin).json  # another caller's targetHints, not the kept ones
    assert "POST" in as_admin["_links"]["self"][0]["targetHints"]["allow"]

    client.post_json(f"{API}/posts/{post['id']}", {"title": "School musical"}, headers=admin, status=200)
    assert _single(client, post["id"], reader).json["title"]["rendered"] == "School musical"
    client.post_json(f"{API}/categories/{category['id']}", {"slug": "theatre"}, headers=admin, status=200)
    assert "category-theatre" in _single(client, post["id"], reader).json["class_list"]
    client.post_json(f"{API}/posts/{post['id']}", {"categories": [1]}, headers=admin, status=200)
    assert _single(client, post["id"], reader).json["categories"] == [1]
    posts = app.db.metadata.tables["posts"]
    with app.db.session(write=True) as session, session.begin():  # a write that keeps `modified`
        session.execute(update(posts).where(posts.c.id == post["id"]).values(content="New script"))
    assert "New script" in _single(client, post["id"], reader).json["content"]["rendered"]

    author_id = _single(client, post["id"], reader).json["author"]
    client.post_json(f"{API}/users/{author_id}", {"name": "Renamed Teacher"}, headers=admin, status=200)
    embedded = _single(client, post["id"], reader, _embed="author").json
    assert embedded["_embedded"]["author"][0]["name"] == "Renamed Teacher"
    assert _single(client, post["id"], reader).json["author"] == author_id

    # what the kept encoding does not answer is built as before: other contexts, passwords, shaping
    assert _single(client, post["id"], reader, _fields="id").json == {"id": post["id"]}
    assert _single(client, post["id"], reader, excerpt_length=1).json["excerpt"]["rendered"].strip().endswith("</p>")
    assert _single(client, post["id"], admin, context="edit").json["content"]["raw"] == "New script"
    client.post_json(f"{API}/posts/{post['id']}", {"password": "open sesame"}, headers=admin, status=200)
    locked = _single(client, post["id"], reader).json
    assert locked["content"] == {"rendered": "", "protected": True}
    assert _single(client, post["id"], reader, password="open sesame").json["content"]["rendered"] != ""
    client.post_json(f"{API}/posts/{post['id']}", {"password": ""}, headers=admin, status=200)
    assert _single(client, post["id"], reader).json == _single(client, post["id"], reader).json  # kept again
    client.delete(f"{API}/posts/{post['id']}", headers=admin, status=200)
    trashed = _single(client, post["id"], reader)  # never the kept published encoding
    assert trashed.status_int != 200 or trashed.json.get("status") != "publish"
    assert _single(client, 999999, reader).status_int == 404
