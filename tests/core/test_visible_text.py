"""Excerpts and search read what a reader sees: no script or style text, no tag names."""

from __future__ import annotations

import datetime

from sqlalchemy import insert, text

from tests.core.helpers import API

SCRIPTED = "<p>Friday</p><script>alert(1)</script><style>p { color: tomato }</style><p>, then the concert.</p>"


def titles(response):
    return [item["title"]["rendered"] for item in response.json]


def test_generated_excerpt_has_no_script_text_and_no_space_before_punctuation(client, users):
    created = client.post_json(f"{API}/posts", {"title": "Week", "content": SCRIPTED, "status": "publish"},
                               headers=users["administrator"].headers, status=201).json
    excerpt = client.get(f"{API}/posts/{created['id']}").json["excerpt"]["rendered"]
    assert excerpt == "<p>Friday, then the concert.</p>\n"


def test_search_finds_visible_words_only(client, users):
    admin = users["administrator"].headers
    client.post_json(f"{API}/posts", {"title": "Week", "content": SCRIPTED, "status": "publish"}, headers=admin)
    client.post_json(f"{API}/posts", {"title": "Strong results", "content": "<strong>Well done</strong>",
                                      "status": "publish"}, headers=admin)
    for query in ({"search": "concert"}, {"search": "concert", "search_columns": "post_content"},
                  {"search": "concert", "search_semantics": "exact", "search_columns": "post_content"}):
        found = titles(client.get(f"{API}/posts", query))
        assert found == (["Week"] if "search_semantics" not in query else []), query
    for hidden in ("alert", "tomato", "script", "style"):
        for query in ({"search": hidden}, {"search": hidden, "search_columns": "post_content"}):
            response = client.get(f"{API}/posts", query)
            assert response.json == [] and response.headers["X-WP-Total"] == "0", query
    assert titles(client.get(f"{API}/posts", {"search": "strong"})) == ["Strong results"]  # the title, not the tag


def test_search_index_follows_edits_and_deletes(client, users):
    admin = users["administrator"].headers
    post = client.post_json(f"{API}/posts", {"title": "Trip", "content": "<p>Museum</p>", "status": "publish"},
                            headers=admin).json
    client.post_json(f"{API}/posts/{post['id']}", {"content": "<p>Aquarium</p><script>museum()</script>"},
                     headers=admin)
    assert client.get(f"{API}/posts", {"search": "museum"}).json == []
    assert titles(client.get(f"{API}/posts", {"search": "aquarium"})) == ["Trip"]
    client.delete(f"{API}/posts/{post['id']}?force=true", headers=admin)
    assert client.get(f"{API}/posts", {"search": "aquarium"}).json == []


def test_an_index_of_raw_markup_from_an_earlier_version_is_replaced(make_app, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    now = datetime.datetime(2026, 1, 1, 10, 0, 0)
    with first.db.engine.begin() as connection:  # the layout an earlier version left: raw columns indexed
        for name in ("insert", "update", "delete"):
            connection.execute(text(f"DROP TRIGGER posts_search_{name}"))
        connection.execute(text("DROP TABLE posts_search"))
        connection.execute(text("CREATE VIRTUAL TABLE posts_fts USING fts5(title, content, excerpt, "
                                "content='posts', content_rowid='id')"))
        connection.execute(insert(first.db.metadata.tables["posts"]).values(
            type="post", status="publish", slug="old-post", title="Old post", excerpt="", guid="",
            content="<p>Choir</p><script>secretword()</script>", date=now, date_gmt=now, modified=now, modified_gmt=now))
    first.close()
    second = make_app(plugins=["core"], database_url=url)
    with second.db.engine.connect() as connection:
        names = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master"))}
    assert "posts_fts" not in names and {"posts_search", "posts_search_insert"} <= names
    assert titles(second.client.get(f"{API}/posts", {"search": "choir"})) == ["Old post"]
    assert second.client.get(f"{API}/posts", {"search": "secretword"}).json == []


def test_rows_indexed_by_the_earlier_triggers_are_updated_and_deleted_cleanly(make_app, tmp_path, make_user):
    """The search index's triggers now index sitehost_index_text (cheaper, same tokens); a contentless
    index removes a row by the tokens it is given, so an edit of a row indexed before must remove them all."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = make_app(plugins=["core"], database_url=url)
    admin = make_user(first, "administrator").headers
    with first.db.engine.begin() as connection:  # the triggers an earlier version made
        for name, timing, body in (
                ("insert", "AFTER INSERT", "INSERT INTO posts_search(rowid, title, content, excerpt) VALUES "
                                           "(new.id, sitehost_text(new.title), sitehost_text(new.content), "
                                           "sitehost_text(new.excerpt));"),
                ("update", "AFTER UPDATE OF title, content, excerpt",
                 "INSERT INTO posts_search(posts_search, rowid, title, content, excerpt) VALUES ('delete', old.id, "
                 "sitehost_text(old.title), sitehost_text(old.content), sitehost_text(old.excerpt)); "
                 "INSERT INTO posts_search(rowid, title, content, excerpt) VALUES (new.id, sitehost_text(new.title), "
                 "sitehost_text(new.content), sitehost_text(new.excerpt));"),
                ("delete", "AFTER DELETE", "INSERT INTO posts_search(posts_search, rowid, title, content, excerpt) "
                                           "VALUES ('delete', old.id, sitehost_text(old.title), "
                                           "sitehost_text(old.content), sitehost_text(old.excerpt));")):
            connection.execute(text(f"DROP TRIGGER posts_search_{name}"))
            connection.execute(text(f"CREATE TRIGGER posts_search_{name} {timing} ON posts BEGIN {body} END"))
    markup = "<p>Caf&eacute; &amp; Friday</p><p>, then&nbsp;the concert\u2026 (evening)</p>"
    kept = first.client.post_json(f"{API}/posts", {"title": "Old \u2019s title.", "content": markup,
                                                   "status": "publish"}, headers=admin, status=201).json
    gone = first.client.post_json(f"{API}/posts", {"title": "Second", "content": markup, "excerpt": "Brass",
                                                   "status": "publish"}, headers=admin, status=201).json
    first.close()
    second = make_app(plugins=["core"], database_url=url)
    with second.db.engine.connect() as connection:
        triggers = connection.execute(text("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                                           "AND name LIKE 'posts_search%'")).scalars().all()
    assert len(triggers) == 3 and all("sitehost_index_text" in sql for sql in triggers)
    second.client.post_json(f"{API}/posts/{kept['id']}", {"title": "Renamed", "content": "<p>Aquarium</p>"},
                            headers=admin, status=200)
    second.client.delete(f"{API}/posts/{gone['id']}?force=true", headers=admin, status=200)
    for word in ("café", "cafe", "friday", "concert", "evening", "old", "title", "brass", "second"):
        response = second.client.get(f"{API}/posts", {"search": word})
        assert response.json == [] and response.headers["X-WP-Total"] == "0", word
    assert titles(second.client.get(f"{API}/posts", {"search": "aquarium"})) == ["Renamed"]
    with second.db.engine.connect() as connection:  # nothing of the old rows is left in the index
        connection.execute(text("CREATE VIRTUAL TABLE temp.search_words USING fts5vocab(main, posts_search, row)"))
        words = set(connection.execute(text("SELECT term FROM temp.search_words")).scalars())
    assert words == {"renamed", "aquarium"}, words


def test_generated_excerpt_of_a_long_post_is_its_first_55_visible_words(client, users):
    """The excerpt reads the content only until word 56 begins: a word split by inline tags, punctuation
    after a word, hidden text and block breaks near the cut give the same words as reading it all."""
    words = [f"w{index}" for index in range(54)]
    content = ("<p>" + " ".join(words) + "</p><script>not these words</script>"
               + "<p>fi<b>na</b>l , then</p><p>more" + " text" * 2000 + "</p>")
    created = client.post_json(f"{API}/posts", {"title": "Long", "content": content, "status": "publish"},
                               headers=users["administrator"].headers, status=201).json
    expected = "<p>" + " ".join(words) + " final, [&hellip;]</p>\n"
    assert created["excerpt"]["rendered"] == expected
    assert client.get(f"{API}/posts/{created['id']}").json["excerpt"]["rendered"] == expected
    short = client.post_json(f"{API}/posts", {"title": "Short", "content": "<p>one <em>two</em>.</p>",
                                              "status": "publish"}, headers=users["administrator"].headers).json
    assert short["excerpt"]["rendered"] == "<p>one two.</p>\n"


def test_style_attributes_leave_and_everything_else_stays():
    from host.text import without_style_attributes

    markup = ('<div class="a" style="color:red"><p title=\'x "y"\'>a &amp; b &#39;c&#39; "q"</p>'
              '<img src="/a.png" style="width:1px" alt="z" /><br><input disabled style=x>'
              '<!-- style="kept" --><script>if (a<b) x = \'style="kept"\'</script>text style="kept"</div>')
    assert without_style_attributes(markup) == (
        '<div class="a"><p title=\'x "y"\'>a &amp; b &#39;c&#39; "q"</p><img src="/a.png" alt="z" /><br>'
        '<input disabled><!-- style="kept" --><script>if (a<b) x = \'style="kept"\'</script>text style="kept"</div>')
    assert without_style_attributes("<p>no styles</p>") == "<p>no styles</p>"
    assert without_style_attributes('<p>cut off <a href="x" style') == '<p>cut off <a href="x" style'
