"""The core plugin's lines: the posts feed `/feed/`, uncached and from the cache; a post's public page with
20 approved comments, uncached and from the cache (the public site, part 7); and in process, creates
that share a title.

Recurring event imports and weekly newsletters create many posts of one title; each needs a
slug of its own (`title`, `title-2`, ...). A create must cost the same however many items
already share its slug, so the line compares the SQL statements of the last 100 of 2,000
same-titled creates with those of the first 100: statements, not time, so that a busy shared
machine cannot move the verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import event

from tests.benchmarks.scenarios import HIT_ATTEMPTS, Context, Scenario, Unavailable, expect, fetch, get_until_hit
from tests.benchmarks.wrk import lua_string

from . import Budget, Measure

FEED = "/feed/"


def _site(context: Context) -> str:
    """The site's address: the REST root without its prefix (`/feed/` lives outside it)."""
    return context.rest[: -len(context.rest_path)] if context.rest_path != "/" else context.rest


def _lua_feed(context: Context) -> str:
    return f'wrk.method = "GET"\nwrk.path = {lua_string(FEED)}\n'


def _check_feed(cached: bool):
    """The feed answers RSS with ten items (from the cache, after the first request, when `cached`)."""
    def check(context: Context) -> None:
        headers, body = get_until_hit(_site(context) + FEED, cached)
        if not headers.get("Content-Type", "").startswith("application/rss+xml") or body.count(b"<item>") != 10:
            raise Unavailable(f"{FEED}: {headers.get('Content-Type')!r}, {body.count(b'<item>')} items")
        if cached and headers.get("X-Cache") != "hit":
            raise Unavailable(f"{FEED}: no cache hit in {HIT_ATTEMPTS} more requests")
    return check


POST_PAGE_SLUG = "sports-day-results-and-comments"
POST_PAGE_COMMENTS = 20


def prepare_post_page(context: Context) -> None:
    """One published post with POST_PAGE_COMMENTS approved comments, written over REST as the administrator
    (a moderator's comments are approved at once); a server that has it already is left as it is."""
    found_status, _headers, found = fetch(context.rest + f"/core/v2/posts?slug={POST_PAGE_SLUG}&_fields=id")
    expect(found_status, 200, found, "find the commented post")
    if found:
        return
    admin = {"Authorization": context.admin_authorization}
    status, _headers, post = fetch(context.rest + "/core/v2/posts", "POST", {
        "title": "Sports day: the results", "slug": POST_PAGE_SLUG, "status": "publish",
        "content": "<p>Every race, every team and the cup for the house with the most points.</p>" * 10}, admin)
    expect(status, 201, post, "create the commented post")
    for number in range(POST_PAGE_COMMENTS):
        status, _headers, comment = fetch(context.rest + "/core/v2/comments", "POST", {
            "post": post["id"], "content": f"Comment {number + 1}: well run, everyone. See you next year!",
            "author_name": f"Parent {number + 1}", "author_email": f"parent{number + 1}@example.org"}, admin)
        expect(status, 201, comment, "create a comment")
        if comment.get("status") != "approved":
            raise Unavailable(f"a comment of the administrator is {comment.get('status')!r}, not approved")


def _post_page_path(context: Context) -> str:
    """The post's address on the site (its plain permalink `/?p=ID`: the harness sets no permalink structure)."""
    status, _headers, found = fetch(context.rest + f"/core/v2/posts?slug={POST_PAGE_SLUG}&_fields=link")
    expect(status, 200, found, "find the commented post")
    if not found:
        raise Unavailable("the commented post is missing")
    return found[0]["link"][len(_site(context)):]


def _lua_post_page(context: Context) -> str:
    return f'wrk.method = "GET"\nwrk.path = {lua_string(_post_page_path(context))}\n'


def _check_post_page(cached: bool):
    """The post's page answers HTML with its 20 comments (from the cache, after the first request, when `cached`)."""
    def check(context: Context) -> None:
        path = _post_page_path(context)
        headers, body = get_until_hit(_site(context) + path, cached)
        shown = body.count(b'<li class="comment" id="comment-')
        if not headers.get("Content-Type", "").startswith("text/html") or shown != POST_PAGE_COMMENTS:
            raise Unavailable(f"{path}: {headers.get('Content-Type')!r}, {shown} comments shown")
        if cached and headers.get("X-Cache") != "hit":
            raise Unavailable(f"{path}: no cache hit in {HIT_ATTEMPTS} more requests")
    return check


SCENARIOS = [
    Scenario("core-feed", "GET /feed/ (RSS, 10 posts)", _lua_feed, _check_feed(cached=False)),
    Scenario("core-feed-cached", "GET /feed/, cache hit", _lua_feed, _check_feed(cached=True), cached=True),
    Scenario("core-post-page", f"HTML post page with {POST_PAGE_COMMENTS} comments, cache off", _lua_post_page,
             _check_post_page(cached=False), prepare=prepare_post_page),
    Scenario("core-post-page-cached", "HTML post page, cache hit (cached public page)", _lua_post_page,
             _check_post_page(cached=True), cached=True, prepare=prepare_post_page),
]
# In process (tests/benchmarks/profile-style timing on the demo site) the uncached feed costs about six
# uncached 10-post lists (feedgen, ten renderings, authors and terms); a feed reader polls it, and the
# cache answers every poll between two writes.
BUDGET = [
    Budget("core-feed", 0.03, "the posts feed, uncached: about a sixth of the uncached list's share"),
    Budget("core-feed-cached", 0.5, "the posts feed from the response cache (a site page, not a REST read)"),
    Budget("core-post-page", 0.08, "the public site, part 7: a post page with 20 comments, cache off"),
    Budget("core-post-page-cached", 0.70, "the public site, part 7: a cached public page"),
]

SAME_TITLE_CREATES = 2000
SAME_TITLE_WINDOW = 100


def same_title_statement_ratio(workdir: Path, creates: int = SAME_TITLE_CREATES,
                               window: int = SAME_TITLE_WINDOW) -> float:
    """Statements of the last `window` of `creates` published creates of one title over the first `window`'s,
    through the REST route in process on an SQLite file (core only: no other plugin's statements)."""
    from host.app import create_app
    from host.config import Settings
    from host.testing import create_test_user
    from tests.benchmarks.profile import call

    folder = workdir / "same-title"
    folder.mkdir(exist_ok=True)
    settings = Settings(database_url=f"sqlite:///{folder}/site.db", uploads_dir=str(folder / "uploads"))
    settings.only_plugins = ["core"]
    app = create_app(settings)
    try:
        app.install_site(demo=False)
        author = create_test_user(app, "author")
        headers = {"Authorization": author.headers["Authorization"]}
        body = json.dumps({"title": "Weekly newsletter", "status": "publish", "content": "<p>This week.</p>"}).encode()
        counts = []
        seen = [0]

        def record(_conn, _cursor, statement, *_args):
            if "rendered_content" not in statement:  # the renderings' batch, written when due by time
                seen[0] += 1

        event.listen(app.db.engine, "before_cursor_execute", record)
        try:
            for number in range(creates):
                seen[0] = 0
                status, answer = call(app, "/core/v2/posts", "POST", headers, body)
                expected = "weekly-newsletter" if number == 0 else f"weekly-newsletter-{number + 1}"
                if not status.startswith("201") or json.loads(answer)["slug"] != expected:
                    raise RuntimeError(f"create {number + 1} answered {status}: {answer[:200]!r}")
                counts.append(seen[0])
        finally:
            event.remove(app.db.engine, "before_cursor_execute", record)
        return sum(counts[-window:]) / sum(counts[:window])
    finally:
        app.close()


MEASURES = [Measure("core-same-title", f"last {SAME_TITLE_WINDOW} of {SAME_TITLE_CREATES:,} same-titled creates, "
                    f"SQL statements over the first {SAME_TITLE_WINDOW}'s (SQLite)", 1.2, same_title_statement_ratio,
                    "a create costs the same however many items share its title", unit="x")]
