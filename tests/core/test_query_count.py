"""A page of posts is one SELECT for the page plus one COUNT, whatever the filters."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import insert, select

from host.testing import recorded_statements

from tests.core.helpers import API


def _seed(app, count: int) -> None:
    tables = app.db.metadata.tables
    posts, relationships, terms, meta = (tables["posts"], tables["term_relationships"], tables["terms"],
                                         tables["post_meta"])
    start = datetime.datetime(2024, 1, 1)
    with app.db.session(write=True) as session, session.begin():
        news = session.execute(insert(terms).values(taxonomy="category", name="News", slug="news")).inserted_primary_key[0]
        tag = session.execute(insert(terms).values(taxonomy="post_tag", name="Sport", slug="sport")).inserted_primary_key[0]
        rows = []
        for index in range(count):
            date = start + datetime.timedelta(minutes=index)
            rows.append({"type": "post", "status": "publish" if index % 5 else "draft", "slug": f"post-{index}",
                         "title": f"Post {index} about the school", "content": f"Content {index}", "excerpt": "",
                         "date": date, "date_gmt": date, "modified": date, "modified_gmt": date,
                         "guid": f"http://school.test/?p={index + 1}", "sticky": index % 100 == 0})
        session.execute(insert(posts), rows)
        ids = session.execute(select(posts.c.id)).scalars().all()
        session.execute(insert(relationships), [{"post_id": post_id, "term_id": news if post_id % 2 else 1}
                                                for post_id in ids])
        session.execute(insert(relationships), [{"post_id": post_id, "term_id": tag} for post_id in ids[::3]])
        session.execute(insert(meta), [{"post_id": post_id, "key": "footnotes", "value": '"note"'}
                                       for post_id in ids[::7]])
    return news, tag


def _count_selects(app, url: str):
    # A PostgreSQL search's page begins WITH.
    with recorded_statements(app, lambda statement: statement.lstrip().upper().startswith(("SELECT", "WITH"))) \
            as statements:
        response = app.client.get(url, status=200)
    return response, statements


@pytest.fixture
def core_app(make_app):
    """Only the content plugin, so other plugins' queries (a response cache) do not count."""
    return make_app(plugins=["core"])


def test_a_filtered_page_of_ten_posts_is_three_statements_then_one(core_app):
    """The page's ids (with the content version), the COUNT, the items in full: never one per item.
    Asked again unchanged, the total and the encoded items are kept and only the ids are read."""
    app = core_app
    news, tag = _seed(app, 2000)
    url = (f"{API}/posts?per_page=10&page=2&categories={news}&tags_exclude=999&search=school&orderby=title"
           f"&order=asc&after=2023-01-01T00:00:00&author_exclude=99&format=standard&tax_relation=AND")
    response, statements = _count_selects(app, url)
    assert len(response.json) == 10
    assert int(response.headers["X-WP-Total"]) > 100
    assert all(news in item["categories"] for item in response.json)
    assert len(statements) == 3, statements
    again, statements = _count_selects(app, url)
    assert again.json == response.json
    assert len(statements) == 1, statements


def test_the_default_listing_is_three_statements_and_uses_the_indexes(core_app):
    app = core_app
    _seed(app, 500)
    response, statements = _count_selects(app, f"{API}/posts")
    assert len(response.json) == 10
    assert response.headers["X-WP-Total"] == "400"
    assert len(statements) == 3
    if app.db.engine.dialect.name == "sqlite":
        with app.db.engine.connect() as connection:
            for statement, parameters in statements:
                plan = " ".join(str(row) for row in connection.exec_driver_sql(
                    "EXPLAIN QUERY PLAN " + statement, parameters).fetchall())
                # The ids walk (type, date, id, status, date_gmt) and the COUNT is covered by
                # (type, status, date_gmt); the items are read by primary key.
                assert ("ix_posts_type_status_date_gmt" in plan or "ix_posts_type_date_id_status" in plan
                        or "INTEGER PRIMARY KEY" in plan), plan
                assert "SCAN posts" not in plan, plan
