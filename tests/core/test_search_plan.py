"""A posts search on PostgreSQL reads the GIN index of the posts' visible text.

PostgreSQL once inlined `sitehost_text` and priced its regular expressions as cheap operators: a
search's first page walked the date index and ran them over every post it passed (0.24 s at
1,000 posts) instead of asking the index. EXPLAIN of the statements a search runs shows the plan.
"""

from __future__ import annotations

import datetime
import re

import pytest
from sqlalchemy import insert

from host.testing import recorded_statements, role_users

from tests.core.helpers import API

SEARCH_INDEX = "ix_posts_search_text"


@pytest.fixture
def pg_site(make_app):
    app = make_app(plugins=["core"])
    if app.db.engine.dialect.name != "postgresql":
        pytest.skip("EXPLAIN of PostgreSQL's GIN index; SQLite searches its FTS5 table (tests/core/test_posts_collection.py)")
    posts = app.db.metadata.tables["posts"]
    start = datetime.datetime(2024, 1, 1)
    rows = []
    for number in range(600):
        date = start + datetime.timedelta(hours=number)
        topic = ("The orchestra rehearses" if number % 50 == 0 else "Chess club news" if number % 3 == 1
                 else "Sports day results")
        rows.append({"type": "post", "status": "publish", "slug": f"news-{number}", "title": f"{topic} {number}",
                     "content": "<p>" + "Lessons, clubs and trips for every year group. " * 40 + "</p>",
                     "excerpt": "", "date": date, "date_gmt": date, "modified": date, "modified_gmt": date})
    with app.db.session(write=True) as session, session.begin():
        session.execute(insert(posts), rows)
    with app.db.engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE posts")
        connection.commit()
    return app


def _search_statements(app, query: dict) -> tuple[list, list[tuple[str, object]]]:
    """The answer of GET posts with `query`, and the statements on posts it ran with the search predicate."""
    with recorded_statements(app, lambda statement: "@@" in statement) as seen:
        answer = app.client.get(f"{API}/posts", query, status=200)
    return answer, seen


def _plan(app, statement: str, parameters, analyze: bool = False) -> list[str]:
    explain = "EXPLAIN (ANALYZE, BUFFERS) " if analyze else "EXPLAIN "
    with app.db.engine.connect() as connection:
        return [line for (line,) in connection.exec_driver_sql(explain + statement, parameters)]


def assert_reads_the_index_and_filters_no_text(plan: list[str]) -> None:
    """The plan reads the GIN index; the visible-text function appears only as the index's condition (and the
    bitmap's recheck of the rows the index found), never as a filter run over the rows a scan walks."""
    text = "\n".join(plan)
    assert f"Bitmap Index Scan on {SEARCH_INDEX}" in text, text
    filters = [line for line in plan if line.strip().startswith("Filter:")]
    assert not any("sitehost_text" in line for line in filters), text


@pytest.mark.parametrize("search,found", [("orchestra", 12), ("orch", 12), ("orchestra rehearses", 12),
                                          ('"orchestra rehearses"', 12)])
def test_a_selective_posts_search_reads_the_gin_index_and_runs_no_text_function_per_row(pg_site, search, found):
    answer, statements = _search_statements(pg_site, {"search": search, "per_page": 10})
    assert answer.headers["X-WP-Total"] == str(found) and len(answer.json) == 10
    assert statements, "the search ran no full-text predicate"
    for statement, parameters in statements:
        # The page tests posts against the index's hits (store.listing.SEARCH_HITS_UP_TO); on 600 posts
        # PostgreSQL may scan them all for that, a cheap test of their ids.
        assert_reads_the_index_and_filters_no_text(_plan(pg_site, statement, parameters))


def test_a_search_a_third_of_the_posts_match_counts_through_the_index(pg_site):
    answer, statements = _search_statements(pg_site, {"search": "chess", "per_page": 10})
    assert answer.headers["X-WP-Total"] == "196" and len(answer.json) == 10
    plans = ["\n".join(_plan(pg_site, statement, parameters)) for statement, parameters in statements]
    # No plan runs the text functions over the posts it scans (a scan testing ids against the hits is cheap).
    assert plans and not any(re.search(r"Filter: .*sitehost_text", plan) for plan in plans), plans
    counts = [plan for plan in plans if not plan.startswith("Limit")]
    assert counts and all(f"Bitmap Index Scan on {SEARCH_INDEX}" in plan for plan in counts), plans


def test_a_search_nearly_every_post_matches_pages_by_walking_the_date_index(pg_site):
    """Then the cheapest page walks the date index and tests the ten or so rows it passes."""
    answer, statements = _search_statements(pg_site, {"search": "sports", "per_page": 10})
    assert answer.headers["X-WP-Total"] == "392" and len(answer.json) == 10
    pages = ["\n".join(_plan(pg_site, statement, parameters)) for statement, parameters in statements
             if "LIMIT" in statement]
    assert pages and all("Index Scan Backward using ix_posts_type_date_id_status on posts" in plan
                         or f"Bitmap Index Scan on {SEARCH_INDEX}" in plan for plan in pages), pages


def test_the_page_is_the_newest_matches_in_date_order(pg_site):
    answer, _statements = _search_statements(pg_site, {"search": "orchestra", "per_page": 5, "page": 2})
    assert [item["title"]["rendered"] for item in answer.json] == [
        f"The orchestra rehearses {number}" for number in (300, 250, 200, 150, 100)]
    assert answer.headers["X-WP-TotalPages"] == "3"


def test_a_selective_search_reads_each_match_once_and_sorts_the_page_from_them(pg_site):
    """The page's matches are read in one materialized CTE with every filter and the sort column; the page
    is its first rows in order. (Testing posts' ids against the hits read each match a second time.)"""
    answer, statements = _search_statements(pg_site, {"search": "orchestra", "per_page": 5})
    assert answer.headers["X-WP-Total"] == "12"
    assert [item["title"]["rendered"] for item in answer.json] == [
        f"The orchestra rehearses {number}" for number in (550, 500, 450, 400, 350)]
    pages = [(statement, parameters) for statement, parameters in statements if "LIMIT" in statement]
    assert pages, statements
    for statement, parameters in pages:
        plan = "\n".join(_plan(pg_site, statement, parameters))
        assert "CTE search_matches" in plan and f"Bitmap Index Scan on {SEARCH_INDEX}" in plan, plan
        assert "Nested Loop" not in plan and "posts_pkey" not in plan, plan


@pytest.mark.parametrize("query,expected", [
    ({"orderby": "title", "order": "asc"}, [0, 100, 150, 200, 250]),  # as text: "... 100" < "... 150" < "... 50"
    ({"orderby": "id", "order": "asc"}, [0, 50, 100, 150, 200]),
    ({"orderby": "date", "order": "asc", "page": 2}, [250, 300, 350, 400, 450]),
    ({"orderby": "relevance"}, [550, 500, 450, 400, 350]),  # not one column: the hits are tested by id instead
])
def test_a_selective_search_pages_in_every_order(pg_site, query, expected):
    answer, _statements = _search_statements(pg_site, {"search": "orchestra", "per_page": 5, **query})
    assert answer.headers["X-WP-Total"] == "12"
    assert [item["title"]["rendered"] for item in answer.json] == [
        f"The orchestra rehearses {number}" for number in expected]


def test_statements_run_without_parallel_workers(pg_site):
    """A parallel plan would start worker processes for one statement, taking cores from other requests."""
    with pg_site.db.engine.connect() as connection:
        assert connection.exec_driver_sql("SHOW max_parallel_workers_per_gather").scalar() == "0"


def _index_pages_read(plan: list[str]) -> int:
    """The buffers the bitmap scan of the search index read (EXPLAIN ANALYZE, BUFFERS)."""
    lines = iter(plan)
    for line in lines:
        if f"Bitmap Index Scan on {SEARCH_INDEX}" in line:
            for detail in lines:
                if "Buffers:" in detail:
                    return sum(int(number) for number in re.findall(r"=(\d+)", detail))
    raise AssertionError("\n".join(plan))


def test_posts_written_since_the_last_vacuum_cost_a_search_a_bounded_read(pg_site):
    """A GIN index keeps new entries in a pending list that every search reads through until a vacuum
    merges it; the index's 64 kB limit keeps that list (and so a search's read) small."""
    editor = role_users(pg_site)["editor"].headers
    for batch in range(4):
        requests = [{"path": "/core/v2/posts", "body": {
            "status": "publish", "title": f"Club report {batch}-{number}",
            "content": " ".join(f"topic{batch}x{number}x{word}" for word in range(300))}} for number in range(25)]
        answers = pg_site.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor, status=207)
        assert [item["status"] for item in answers.json["responses"]] == [201] * 25
    answer, statements = _search_statements(pg_site, {"search": "orchestra", "per_page": 10})
    assert answer.headers["X-WP-Total"] == "12"
    for statement, parameters in statements:
        plan = _plan(pg_site, statement, parameters, analyze=True)
        assert _index_pages_read(plan) <= 24, "\n".join(plan)


def test_a_search_index_built_before_the_pending_limit_gets_it_at_the_next_start(pg_site, make_app):
    def index_options(app) -> list[str]:
        with app.db.engine.connect() as connection:
            return connection.exec_driver_sql("SELECT reloptions FROM pg_class WHERE oid = to_regclass(%(name)s)",
                                              {"name": SEARCH_INDEX}).scalar() or []

    assert index_options(pg_site) == ["gin_pending_list_limit=64"]
    with pg_site.db.engine.begin() as connection:  # as an earlier release built it
        connection.exec_driver_sql(f"ALTER INDEX {SEARCH_INDEX} RESET (gin_pending_list_limit)")
    assert index_options(pg_site) == []
    restarted = make_app(plugins=["core"], database_url=pg_site.db.url.render_as_string(hide_password=False))
    assert index_options(restarted) == ["gin_pending_list_limit=64"]
    answer = restarted.client.get(f"{API}/posts", {"search": "orchestra", "per_page": 3}, status=200)
    assert answer.headers["X-WP-Total"] == "12" and len(answer.json) == 3


@pytest.mark.parametrize("search,found", [("-orchestra", 588), ("chess -orchestra", 196)])
def test_a_search_with_a_word_to_leave_out_tests_posts_against_that_words_hits(pg_site, search, found):
    """A word the posts must not contain is read from the index once, not by the text functions run over
    every post a count or a page passes (`-orchestra` on 100,000 posts took 11.5 s to count that way)."""
    answer, statements = _search_statements(pg_site, {"search": search, "per_page": 10})
    assert answer.headers["X-WP-Total"] == str(found) and len(answer.json) == 10
    assert all("orchestra" not in post["title"]["rendered"].lower() for post in answer.json)
    counts = [statement for statement in statements if "count(" in statement[0]]
    assert counts, statements
    for statement, parameters in counts:
        assert_reads_the_index_and_filters_no_text(_plan(pg_site, statement, parameters))
