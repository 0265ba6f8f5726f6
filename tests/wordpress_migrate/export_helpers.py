"""Helpers of the export tests: a site with every core field set (written through core/v2, as people
write it), and `sitehost export wordpress` run on it as an operator runs it."""

from __future__ import annotations

import datetime
import os
import struct
import zlib
from pathlib import Path

from click.testing import CliRunner

from host.cli import main
from host.testing import create_test_user

API = "/wp-json/core/v2"
ZONE = "America/New_York"  # local and GMT dates differ, by 4 or 5 hours
# Text WordPress's CDATA splitting and XML's character rules are about: `]]>` (twice), a control
# character XML cannot hold, non-ASCII letters and a character outside the BMP.
TRICKY_TITLE = "Fees ]]> and ]]> bursaries \x01 Ünïcödé 🎓"
TRICKY_CONTENT = "<p>CDATA ends with ]]> here; a control \x0b character; Größe, café, 日本語 🎒</p>"


def png(width: int = 3, height: int = 2) -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\x10\x80\xf0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def seed_site(app) -> dict:
    """Every core field set at least once: users of several roles, categories with a parent and
    descriptions, tags, an image with alt text, caption and parent, posts in every status (sticky,
    formatted, protected, scheduled, trashed, with excerpt, featured image and closed comments), a page
    tree with menu order, and threaded comments in every status. Answers what it made, by name."""
    client = app.client
    admin = create_test_user(app, "administrator", login="head", email="head@school.test")
    editor = create_test_user(app, "editor", login="okafor", email="okafor@school.test")
    author = create_test_user(app, "author", login="patel", email="patel@school.test")
    h = admin.headers
    made: dict = {"users": {"head": admin, "okafor": editor, "patel": author}}

    def post(path, body, headers=h, status=201):
        return client.post_json(f"{API}/{path}", body, headers=headers, status=status).json

    news = post("categories", {"name": "News & Notices", "description": "Everything the school announces"})
    sport = post("categories", {"name": "Sport", "parent": news["id"], "description": "Fixtures — résultats"})
    tag = post("tags", {"name": "Year 7", "description": "For the new pupils"})
    post("tags", {"name": "Unused tag"})
    made["terms"] = {"news": news, "sport": sport, "tag": tag}

    image = client.post(f"{API}/media", png(), headers=dict(h, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="sports-day.png"'})).json
    image = client.post_json(f"{API}/media/{image['id']}", {
        "title": "Sports day", "alt_text": "Children racing", "caption": "The 100 m final",
        "description": "Taken by the PE department"}, headers=h).json
    made["image"] = image

    made["sticky"] = post("posts", {
        "title": "Sports day results", "content": "<p>Well done, everyone!</p>", "excerpt": "Who won what",
        "status": "publish", "sticky": True, "format": "aside", "featured_media": image["id"],
        "categories": [sport["id"]], "tags": [tag["id"]], "comment_status": "open", "ping_status": "closed",
        "date": "2025-06-20T14:30:00", "author": author.id}, headers=h)
    client.post_json(f"{API}/media/{image['id']}", {"post": made["sticky"]["id"]}, headers=h)
    made["tricky"] = post("posts", {"title": TRICKY_TITLE, "content": TRICKY_CONTENT, "status": "publish",
                                    "categories": [news["id"]], "date": "2025-01-10T08:00:00"})
    made["protected"] = post("posts", {"title": "Staff rota", "content": "<p>Only staff</p>", "status": "publish",
                                       "password": "owl", "comment_status": "closed", "date": "2025-02-01T12:00:00"})
    made["draft"] = post("posts", {"title": "Half-written", "content": "<p>Draft</p>", "status": "draft"})
    made["pending"] = post("posts", {"title": "For review", "status": "pending"}, headers=author.headers)
    made["private"] = post("posts", {"title": "Governors", "status": "private", "date": "2025-03-03T09:15:00"})
    future = (datetime.datetime.now() + datetime.timedelta(days=40)).replace(microsecond=0)
    made["future"] = post("posts", {"title": "Open evening", "status": "future", "date": future.isoformat()})
    made["trashed"] = post("posts", {"title": "Old notice", "status": "publish", "date": "2024-11-11T11:11:00"})
    client.delete(f"{API}/posts/{made['trashed']['id']}", headers=h)

    made["about"] = post("pages", {"title": "About us", "content": "<p>Our school</p>", "status": "publish",
                                   "menu_order": 2, "comment_status": "open", "date": "2024-09-01T10:00:00"})
    made["history"] = post("pages", {"title": "History", "status": "publish", "parent": made["about"]["id"],
                                     "menu_order": 5, "comment_status": "closed", "date": "2024-09-02T10:00:00"})

    target = made["sticky"]["id"]
    visitor = {"author_name": "Parent Visitor", "author_email": "parent@example.org",
               "author_url": "https://example.org/family", "author_ip": "203.0.113.9"}
    first = post("comments", dict(visitor, post=target, content="Great day! ]]> indeed", status="approved",
                                  date="2025-06-21T09:00:00"))
    made["comments"] = {
        "approved": first,
        "reply": post("comments", {"post": target, "parent": first["id"], "content": "Thank you — Ms Okafor",
                                   "status": "approved", "date": "2025-06-21T10:00:00"}, headers=editor.headers),
        "held": post("comments", dict(visitor, post=target, content="Waiting", status="hold")),
        "spam": post("comments", dict(visitor, post=target, content="Buy now", status="spam")),
        "trash": post("comments", dict(visitor, post=target, content="Removed", status="approved")),
        "on_page": post("comments", dict(visitor, post=made["about"]["id"], content="Lovely page",
                                         status="approved")),
    }
    client.delete(f"{API}/comments/{made['comments']['trash']['id']}", headers=h)
    return made


def write_config(app, folder: Path) -> Path:
    """A sitehost.toml naming the app's database, uploads and [site] settings, for the command line."""
    import tomli_w

    settings = app.settings
    config = folder / "sitehost.toml"
    config.write_bytes(tomli_w.dumps({"database_url": settings.database_url, "uploads_dir": settings.uploads_dir,
                                      "site": dict(settings.site)}).encode())
    return config


def run_cli(config: Path, *args: str):
    """`sitehost --config CONFIG ARGS...` as a person runs it (none of the suite's SITEHOST_* variables)."""
    unset = {key: None for key in os.environ if key.startswith("SITEHOST_")}
    return CliRunner().invoke(main, ["--config", str(config), *args], env=unset, catch_exceptions=False)


def export_to_file(app, folder: Path) -> Path:
    config = write_config(app, folder)
    target = folder / "export.xml"
    result = run_cli(config, "export", "wordpress", "--out", str(target))
    assert result.exit_code == 0, result.output
    return target
