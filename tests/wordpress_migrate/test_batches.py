"""New posts are written a batch at a time (the content service's create_many, the comments service's
create_many): read back through core/v2, each batch gives what one create after another gave, with
unique slugs, HTML as the importing administrator may write it, term counts, search, links and comment threads, and the cache is
purged once per batch, not once per post."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from host.testing import create_test_user
from plugins.wordpress_migrate.run import import_file

from .generate import OLD, write_wxr

POSTS = 12
BATCH = 5  # three batches: links and replies inside one batch and across two


@pytest.fixture(scope="module")
def imported(make_module_app, tmp_path_factory):
    app = make_module_app(plugins=["core", "wordpress_migrate", "cache"])
    admin = create_test_user(app, "administrator", login="batch-admin")
    export = write_wxr(tmp_path_factory.mktemp("batches") / "export.xml", posts=POSTS, comments_per_post=3)
    text = export.read_text(encoding="utf-8")
    text = text.replace("<wp:post_name><![CDATA[news-2]]>", "<wp:post_name><![CDATA[news-1]]>")  # one slug twice
    text = text.replace("<![CDATA[News 3: ", "<![CDATA[News 3: <script>alert(1)</script>")
    export.write_text(text, encoding="utf-8")
    purges_before = cache_version(app)
    summary = import_file(app, export, batch_items=BATCH)
    return app, admin, summary, cache_version(app) - purges_before


def cache_version(app) -> int:
    table = app.db.metadata.tables["cache_version"]
    with app.db.session() as session:
        # Row 1 is the content kind's counter (one row per kind of write; an unordered read may find another)
        return int(session.execute(select(table.c.version).where(table.c.id == 1)).scalar() or 0)


def get(app, admin, path, **params):
    return app.client.get(path, params=params, headers=admin.headers)


def test_every_post_and_comment_is_counted_once(imported):
    _app, _admin, summary, _purges = imported
    assert summary.by_kind["post"]["created"] == POSTS
    assert summary.by_kind["comments"]["created"] == 3 * POSTS
    assert summary.headline().endswith("0 not imported")


def test_posts_keep_their_ids_and_get_unique_slugs_and_titles_as_an_administrator_wrote_them(imported):
    app, admin, *_ = imported
    posts = {post["id"]: post for post in get(app, admin, "/wp-json/core/v2/posts", per_page=100,
                                              context="edit").json}
    assert sorted(posts) == [100 + number for number in range(1, POSTS + 1)]
    assert posts[101]["slug"] == "news-1" and posts[102]["slug"] == "news-1-2"
    # The import writes as the site's administrator, who may write any markup (as WordPress's importer does);
    # an import by a user without unfiltered_html is filtered (test_import_fidelity.py).
    assert posts[103]["title"]["raw"].startswith("News 3: <script>alert(1)</script>")


def test_links_between_posts_of_one_batch_and_of_two_point_to_this_site(imported):
    app, admin, *_ = imported
    for number in (3, 6):  # 3 links to 2 in its batch; 6 to 5, written by the batch before
        content = get(app, admin, f"/wp-json/core/v2/posts/{100 + number}", context="edit").json["content"]["raw"]
        assert f'href="http://school.test/?p={100 + number - 1}"' in content and OLD not in content


def test_term_counts_and_search_see_every_post(imported):
    app, admin, *_ = imported
    categories = {term["slug"]: term["count"] for term in get(app, admin, "/wp-json/core/v2/categories",
                                                                per_page=100).json}
    expected = {slug: sum(1 for number in range(1, POSTS + 1) if number % 5 == index)
                for index, slug in enumerate(("news", "sports", "music", "trips", "classes"))}
    assert {slug: categories[slug] for slug in expected} == expected
    found = get(app, admin, "/wp-json/core/v2/posts", search="News", per_page=100)
    assert found.headers["X-WP-Total"] == str(POSTS)


def test_comment_threads_keep_their_parents_across_batches(imported):
    app, admin, *_ = imported
    for post_id in (101, 106, 112):
        comments = sorted(get(app, admin, "/wp-json/core/v2/comments", post=post_id, status="all",
                              context="edit").json, key=lambda comment: comment["id"])
        assert len(comments) == 3
        assert [comment["parent"] for comment in comments] == [0, 0, comments[1]["id"]]


def test_the_cache_is_purged_once_per_batch(imported):
    *_, purges = imported
    assert purges == -(-POSTS // BATCH)  # one commit per batch, each purging once for all its posts
