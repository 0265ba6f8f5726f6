"""A calendar search on PostgreSQL runs its text search once, even under statistics older than the rows.

After a bulk import, until autovacuum analyzes the tables, PostgreSQL believed there were no events
and no event posts, and planned `cal_events.post_id IN (matching posts)` as a nested loop that ran
the search's text functions over every event post once per event: one anonymous search of 500
events held a PostgreSQL core for 338 s (found by the benchmark's calendar fixtures). EXPLAIN
ANALYZE of the statements the search runs shows how often each scan of posts ran.
"""

from __future__ import annotations

import json

import pytest

from host.testing import recorded_statements

from .helpers import API

EVENTS = 120


@pytest.fixture
def stale_statistics_site(make_app):
    """A calendar of EVENTS published events inserted after its tables were analyzed empty."""
    app = make_app(plugins=["core", "calendar"])
    if app.db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's planner; SQLite matches searches through its FTS5 table")
    body = "<p>" + "Clubs, trips and concerts for every year group. " * 40 + "</p>"
    with app.db.engine.begin() as connection:
        for table in ("posts", "cal_events"):
            connection.exec_driver_sql(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
            connection.exec_driver_sql(f"ANALYZE {table}")
        connection.exec_driver_sql(
            "INSERT INTO posts (type, status, slug, title, content, excerpt, parent, menu_order, password,"
            " comment_status, ping_status, format, template, sticky, featured_media, date, date_gmt, modified,"
            " modified_gmt, guid, mime_type, pre_trash_status, file, alt_text)"
            " SELECT 'cal_event', 'publish', 'event-' || n,"
            " CASE WHEN n %% 40 = 0 THEN 'Rule fixture ' || n ELSE 'Concert ' || n END,"
            " %(body)s, '', 0, 0, '', 'closed', 'closed', '', '', false, 0, now(), now(), now(), now(), '', '', '', '', ''"
            f" FROM generate_series(1, {EVENTS}) AS n", {"body": body})
        connection.exec_driver_sql(
            "INSERT INTO cal_events (post_id, status, parent, start_utc, end_utc, timezone, all_day, featured, sticky,"
            " hide_from_listings, show_map, show_map_link, cost, currency_symbol, currency_code, currency_position,"
            " website, custom_fields, global_id_lineage)"
            " SELECT id, 'publish', 0, now() + interval '1 day', now() + interval '1 day 1 hour', 'UTC', false, false,"
            " false, false, false, false, '', '', '', '', '', '{}', '[]' FROM posts WHERE type = 'cal_event'")
    yield app
    with app.db.engine.begin() as connection:
        for table in ("posts", "cal_events"):
            connection.exec_driver_sql(f"ALTER TABLE {table} RESET (autovacuum_enabled)")


def _scans_of_posts(node: dict) -> list[dict]:
    """Every plan node below `node` that reads the posts table."""
    found = [node] if node.get("Relation Name") == "posts" else []
    for child in node.get("Plans", []):
        found.extend(_scans_of_posts(child))
    return found


def test_a_search_of_events_reads_each_post_at_most_once(stale_statistics_site):
    app = stale_statistics_site
    with recorded_statements(app, lambda statement: "@@" in statement) as searched:
        answer = app.client.get(f"{API}/events", {"search": "Rule fixture", "per_page": 2}, status=200)
    assert answer.json["total"] == EVENTS // 40
    assert [item["title"] for item in answer.json["events"]] == ["Rule fixture 40", "Rule fixture 80"]
    assert searched, "the search ran no full-text predicate"
    for statement, parameters in searched:
        with app.db.engine.connect() as connection:
            (plan,) = connection.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, parameters).scalar()
        scans = _scans_of_posts(plan["Plan"])
        assert scans, json.dumps(plan, indent=1)
        # A nested loop over the events showed the posts scan with its text filter run once per event.
        assert all(scan["Actual Loops"] == 1 for scan in scans), json.dumps(plan, indent=1)
