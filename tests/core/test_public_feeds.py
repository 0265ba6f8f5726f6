"""The site's RSS 2.0 and Atom feeds, read as feed readers read them (feedparser), and their discovery links."""

from __future__ import annotations

import email.utils
import re
import time

import feedparser
import html5lib
from defusedxml import ElementTree

from tests.core.helpers import API

RFC_822 = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                     r"\d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$")
RFC_3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
ATOM = "{http://www.w3.org/2005/Atom}"
HIDDEN_TITLES = ("Draft plans", "Staff only memo", "Awaiting review", "Next year's timetable")


def _hidden_posts(make_post):
    """One post in each status nobody outside may read; their titles must never show."""
    make_post(title="Draft plans", content="draft words", status="draft")
    make_post(title="Staff only memo", content="private words", status="private")
    make_post(title="Awaiting review", content="pending words", status="pending")
    make_post(title="Next year's timetable", content="future words", status="future", date="2099-01-01T09:00:00")


def _rss(client, path: str, status: int = 200):
    response = client.get(path, status=status)
    assert response.headers["Content-Type"] == "application/rss+xml; charset=UTF-8"
    parsed = feedparser.parse(response.body)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "rss20"
    return response, parsed


def _atom(client, path: str):
    response = client.get(path)
    assert response.headers["Content-Type"] == "application/atom+xml; charset=UTF-8"
    parsed = feedparser.parse(response.body)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return response, parsed


def test_rss_feed_lists_published_posts_with_the_required_elements(client, make_post):
    first = make_post(title="Sports day", content="<p>Races on the <b>field</b>.</p>", excerpt="Races.")
    second = make_post(title="Book week", content="<p>Stories all week.</p>")
    response, feed = _rss(client, "/feed/")
    assert feed.feed.title == "Riverside School"
    assert feed.feed.link == "http://school.test/"
    assert feed.feed.description == "News, events and learning at Riverside School"
    assert [entry.title for entry in feed.entries] == ["Book week", "Sports day"]
    for entry, post in zip(feed.entries, (second, first)):
        assert entry.link == post["link"]
        assert entry.id == post["guid"]["rendered"]
        assert entry.guidislink is False
        assert entry.published_parsed is not None
    assert feed.entries[1].summary == "Races."
    assert "<b>field</b>" in feed.entries[1].content[0].value
    channel = ElementTree.fromstring(response.body).find("channel")
    for item in channel.findall("item"):
        assert RFC_822.match(item.findtext("pubDate")), item.findtext("pubDate")
        assert item.find("guid").get("isPermaLink") == "false"
    assert RFC_822.match(channel.findtext("lastBuildDate"))
    assert email.utils.parsedate_to_datetime(response.headers["Last-Modified"]) >= \
        email.utils.parsedate_to_datetime(channel.findtext("lastBuildDate"))


def test_atom_feed_has_id_updated_and_author(client, make_post):
    post = make_post(title="Sports day", content="<p>Races.</p>")
    response, feed = _atom(client, "/feed/atom/")
    assert feed.feed.id == "http://school.test/feed/atom/"
    assert feed.feed.author == "Riverside School"
    assert feed.feed.updated_parsed is not None
    assert [entry.title for entry in feed.entries] == ["Sports day"]
    assert feed.entries[0].id == post["guid"]["rendered"]
    assert feed.entries[0].link == post["link"]
    root = ElementTree.fromstring(response.body)
    assert RFC_3339.match(root.findtext(f"{ATOM}updated"))
    for entry in root.findall(f"{ATOM}entry"):
        assert RFC_3339.match(entry.findtext(f"{ATOM}updated"))
        assert RFC_3339.match(entry.findtext(f"{ATOM}published"))


def test_drafts_private_pending_and_scheduled_posts_never_appear(client, make_post):
    make_post(title="Open day", content="Everyone welcome.", categories=[1])
    _hidden_posts(make_post)
    for path in ("/feed/", "/feed/atom/", "/category/uncategorized/feed/", "/category/uncategorized/feed/atom/"):
        body = client.get(path).text
        assert "Open day" in body
        for title in HIDDEN_TITLES:
            assert title not in body, (path, title)
        for words in ("draft words", "private words", "pending words", "future words"):
            assert words not in body


def test_protected_post_shows_the_notice_instead_of_its_text(client, make_post, users):
    protected = make_post(title="Exam answers", content="The answer is zebra.", excerpt="Answer zebra",
                          password="sesame")
    client.post_json(f"{API}/comments", {"post": protected["id"], "content": "Secret comment text"},
                     headers=users["administrator"].headers, status=201)
    for path in ("/feed/", "/feed/atom/"):
        body = client.get(path).text
        assert "Exam answers" in body
        assert "There is no excerpt because this is a protected post." in body
        assert "zebra" not in body
    for path in ("/comments/feed/", "/comments/feed/atom/"):
        assert "Secret comment text" not in client.get(path).text
    client.get(f"/comments/feed/?p={protected['id']}", status=404)


def test_feeds_list_ten_items(client, make_post):
    for number in range(12):
        make_post(title=f"News {number}", content="Words.")
    _response, feed = _rss(client, "/feed/")
    assert len(feed.entries) == 10
    assert feed.entries[0].title == "News 11"


def test_category_tag_and_author_feeds_list_only_their_posts(client, make_post, users):
    admin = users["administrator"].headers
    sport = client.post_json(f"{API}/categories", {"name": "Sport"}, headers=admin).json
    football = client.post_json(f"{API}/categories", {"name": "Football", "parent": sport["id"]}, headers=admin).json
    choir = client.post_json(f"{API}/tags", {"name": "Choir"}, headers=admin).json
    make_post(title="Netball final", categories=[sport["id"]])
    make_post(title="Cup match", categories=[football["id"]])
    make_post(title="Carol service", tags=[choir["id"]], role="author")
    make_post(title="Sport secret", categories=[sport["id"]], status="draft")
    _response, feed = _rss(client, "/category/sport/feed/")
    assert feed.feed.title == "Riverside School \u2013 Sport"
    assert sorted(entry.title for entry in feed.entries) == ["Cup match", "Netball final"]  # a child's posts too
    _response, feed = _atom(client, "/category/football/feed/atom/")
    assert [entry.title for entry in feed.entries] == ["Cup match"]
    _response, feed = _rss(client, "/tag/choir/feed/")
    assert [entry.title for entry in feed.entries] == ["Carol service"]
    author = client.get(f"{API}/users/me", headers=users["author"].headers).json
    _response, feed = _rss(client, f"/author/{author['slug']}/feed/")
    assert [entry.title for entry in feed.entries] == ["Carol service"]
    assert feed.entries[0].author == author["name"]
    editor = client.get(f"{API}/users/me", headers=users["editor"].headers).json  # nothing published
    for path in ("/category/nothing-here/feed/", "/tag/nothing-here/feed/", "/author/nobody/feed/",
                 f"/author/{editor['slug']}/feed/", "/tag/sport/feed/"):
        response = client.get(path, status=404)
        assert "Sport secret" not in response.text


def test_comments_feeds_list_approved_comments_of_public_posts(client, make_post, users):
    admin = users["administrator"].headers
    post = make_post(title="Sports day")
    other = make_post(title="Book week")
    draft = make_post(title="Draft plans")
    client.post_json(f"{API}/comments", {"post": draft["id"], "content": "On a draft"}, headers=admin)
    client.post_json(f"{API}/posts/{draft['id']}", {"status": "draft"}, headers=admin)  # taken back
    client.post_json(f"{API}/comments", {"post": post["id"], "content": "Well done everyone"}, headers=admin)
    client.post_json(f"{API}/comments", {"post": other["id"], "content": "Loved the costumes"}, headers=admin)
    client.post_json(f"{API}/comments", {"post": post["id"], "content": "Held for moderation",
                                         "status": "hold"}, headers=admin)
    _response, feed = _rss(client, "/comments/feed/")
    assert feed.feed.title == "Comments for Riverside School"
    assert sorted(entry.summary for entry in feed.entries) == ["Loved the costumes", "Well done everyone"]
    assert all(entry.link.startswith(("http://school.test/?p=")) and "#comment-" in entry.link
               for entry in feed.entries)
    _response, feed = _rss(client, f"/comments/feed/?p={post['id']}")
    assert feed.feed.title == "Comments on: Sports day"
    assert [entry.summary for entry in feed.entries] == ["Well done everyone"]
    _response, feed = _atom(client, f"/comments/feed/atom/?p={post['id']}")
    assert [entry.title for entry in feed.entries][0].startswith("Comment on Sports day by ")
    for path in (f"/comments/feed/?p={draft['id']}", "/comments/feed/?p=999999", "/comments/feed/?p=abc",
                 "/comments/feed/?p=" + "9" * 40):
        response = client.get(path, status=404)
        assert "Draft plans" not in response.text and "On a draft" not in response.text


def test_conditional_get_answers_304(client, make_post, users):
    make_post(title="Sports day", content="<p>" + "Races on the field. " * 80 + "</p>")  # gzip pays from 1 KB
    first = client.get("/feed/")
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    unchanged = client.get("/feed/", headers={"If-None-Match": etag}, status=304)
    assert unchanged.body == b"" and unchanged.headers["ETag"] == etag
    client.get("/feed/", headers={"If-Modified-Since": modified}, status=304)
    client.get("/feed/", headers={"If-None-Match": '"something-else"'}, status=200)
    client.get("/feed/", headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}, status=200)
    gzip = {"Accept-Encoding": "gzip"}
    compressed = client.get("/feed/", headers=gzip)  # a cache hit, in the gzip form kept with it
    # WebTest decodes the gzip body and drops its Content-Encoding; the tag says which form was sent.
    assert compressed.headers["Vary"] == "Accept-Encoding" and "Races on the field." in compressed.text
    assert compressed.headers["ETag"] == etag[:-1] + '-gzip"'
    client.get("/feed/", headers={**gzip, "If-None-Match": compressed.headers["ETag"]}, status=304)
    book_week = make_post(title="Book week")
    changed = client.get("/feed/", headers={"If-None-Match": etag}, status=200)
    assert "Book week" in changed.text and changed.headers["ETag"] != etag
    latest = changed.headers["ETag"]
    time.sleep(1.1)  # HTTP dates count whole seconds: a body first built in the same second as another shares its date
    client.post_json(f"{API}/posts/{book_week['id']}", {"status": "draft"}, headers=users["editor"].headers)
    # The newest post left the feed: the feed is older than before, yet it changed since `modified`.
    taken_back = client.get("/feed/", headers={"If-Modified-Since": changed.headers["Last-Modified"]}, status=200)
    assert "Book week" not in taken_back.text
    assert taken_back.headers["ETag"] == etag != latest  # the first body again, newly dated


def test_plain_feed_addresses_redirect_to_the_feeds(client, make_post):
    post = make_post(title="Sports day")
    assert client.get("/?feed=rss2", status=301).headers["Location"] == "http://school.test/feed/"
    assert client.get("/?feed=atom", status=301).headers["Location"] == "http://school.test/feed/atom/"
    assert client.get("/?feed=comments-rss2", status=301).headers["Location"] == "http://school.test/comments/feed/"
    assert client.get(f"/?p={post['id']}&feed=rss2", status=301).headers["Location"] == \
        f"http://school.test/comments/feed/?p={post['id']}"
    client.get("/?feed=nonsense", status=404)
    for query in ("p=1%0d%0aSet-Cookie:%20x=1", "p=" + "9" * 40, "page_id=abc"):
        assert "Set-Cookie" not in client.get(f"/?{query}&feed=rss2", status=404).headers


def test_new_post_purges_the_cached_feed_and_an_unrelated_write_does_not(client, make_post, users):
    make_post(title="Sports day")
    client.get("/feed/")
    assert client.get("/feed/").headers.get("X-Cache") == "hit"
    client.post_json(f"{API}/users/me/application-passwords", {"name": "phone"},
                     headers=users["administrator"].headers, status=201)
    assert client.get("/feed/").headers.get("X-Cache") == "hit"  # nothing a feed shows changed
    make_post(title="Book week")
    fresh = client.get("/feed/")
    assert fresh.headers.get("X-Cache") is None and "Book week" in fresh.text
    assert client.get("/feed/", headers={"Cookie": "anything=1"}).headers.get("X-Cache") is None


def test_pages_announce_the_feeds_in_their_heads(client, make_post):
    post = make_post(title="Sports day", content="Races.")
    protected = make_post(title="Exam answers", password="sesame")
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    page = parser.parse(client.get(f"/?p={post['id']}").text)
    feeds = {link.get("title"): link.get("href") for link in page.iter("link")
             if link.get("rel") == "alternate" and link.get("type") == "application/rss+xml"}
    assert feeds == {"Riverside School \u00bb Feed": "http://school.test/feed/",
                     "Riverside School \u00bb Comments Feed": "http://school.test/comments/feed/",
                     "Riverside School \u00bb Sports day Comments Feed":
                         f"http://school.test/comments/feed/?p={post['id']}"}
    home = parser.parse(client.get("/").text)
    assert {link.get("href") for link in home.iter("link") if link.get("type") == "application/rss+xml"} == \
        {"http://school.test/feed/", "http://school.test/comments/feed/"}
    protected_page = client.get(f"/?p={protected['id']}").text
    assert f"/comments/feed/?p={protected['id']}" not in protected_page
