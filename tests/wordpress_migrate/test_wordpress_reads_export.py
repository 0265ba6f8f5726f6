"""WordPress's importer reads our export: its SimpleXML, XML and line-by-line parsers find every
author, term, post, page, attachment and comment, and nothing in the file makes WP_Import fail or
drop a core item.

WordPress's importer plugin is not on any registry CI reaches (Debian's `wordpress` package has core
only, no importer; npm's @wp-playground/cli downloads the plugin from wordpress.org when a blueprint
imports a WXR), so its reading rules are restated in tests/wordpress_migrate/wordpress_rules.py from
its source and applied here.
"""

from __future__ import annotations

import pytest

from tests.wordpress_migrate.export_helpers import API, TRICKY_TITLE, ZONE, export_to_file, run_cli, seed_site
from tests.wordpress_migrate.wordpress_rules import (PHP_TRIM, WORDPRESS_POST_TYPES, WORDPRESS_TAXONOMIES,
                                                     WxrReadError, import_problems, read_like_regex,
                                                     read_like_simplexml, read_like_xml_extension)


def only_plugin_types(problems: list[str], data: dict) -> list[str]:
    """The problems left once those of sitehost's plugins' own post types and taxonomies are set aside:
    WordPress imports those only with the matching WordPress plugin (The Events Calendar, Elementor ...)
    active, and names each item it cannot take as "Invalid post type"."""
    plugin_types = {post["post_type"] for post in data["posts"]} - WORDPRESS_POST_TYPES
    plugin_taxonomies = {term["term_taxonomy"] for term in data["terms"]} - WORDPRESS_TAXONOMIES
    return [problem for problem in problems
            if not any(f"Failed to import {kind} " in problem or f"{kind} " in problem.split(":")[0]
                       for kind in plugin_types | plugin_taxonomies)]


def as_lines_read(value) -> str:
    """A value as the line-by-line parser reads it: the trailing whitespace of each line dropped (its own
    limit, whoever wrote the file: WordPress's exports lose the space of an e-mail's "-- " the same way)."""
    return "\n".join(line.rstrip(PHP_TRIM) for line in str(value).split("\n"))


def assert_the_line_parser_reads_the_same(path) -> None:
    """WXR_Parser_Regex finds every author, term, item, meta and comment the XML parsers find, with the
    same text: authors on one line each, text it would read with its entities undecoded in CDATA."""
    by_xml, by_lines = read_like_simplexml(path), read_like_regex(path)
    assert by_lines["version"] == by_xml["version"] and by_lines["base_url"] == by_xml["base_url"]
    assert set(by_lines["authors"]) == set(by_xml["authors"])
    for login, author in by_xml["authors"].items():
        assert {key: str(value) for key, value in author.items()} == \
            {key: by_lines["authors"][login][key] for key in author}
    for kind in ("categories", "tags", "terms"):
        assert [{key: str(value) for key, value in term.items()} for term in by_xml[kind]] == \
            [{key: term[key] for key in found} for term, found in zip(by_lines[kind], by_xml[kind])]
    assert len(by_lines["posts"]) == len(by_xml["posts"])
    for xml_post, line_post in zip(by_xml["posts"], by_lines["posts"]):
        label = f"{xml_post['post_type']} {xml_post['post_id']}"
        for key, value in xml_post.items():
            if key == "terms":
                assert line_post["terms"] == [{**term, "name": as_lines_read(term["name"])} for term in value], label
            elif key == "postmeta":
                assert line_post["postmeta"] == [(meta_key, as_lines_read(meta_value)) for meta_key, meta_value
                                                 in value], label
            elif key == "comments":
                assert len(line_post["comments"]) == len(value), label
                for xml_comment, line_comment in zip(value, line_post["comments"]):
                    assert {name: as_lines_read(found) if name != "commentmeta" else found
                            for name, found in xml_comment.items()} == \
                        {name: line_comment[name] for name in xml_comment}, label
            else:
                assert line_post[key] == as_lines_read(value), (label, key)


def total(app, path: str, headers, **query) -> int:
    response = app.client.get(f"{API}/{path}", dict(query, per_page=1), headers=headers)
    assert response.status_int == 200
    return int(response.headers["X-WP-Total"])


@pytest.fixture(scope="module")
def seeded(make_module_app, tmp_path_factory):
    app = make_module_app(site={"timezone_string": ZONE})
    made = seed_site(app)
    return app, made, export_to_file(app, tmp_path_factory.mktemp("export"))


def test_wordpress_reads_every_core_item_of_a_seeded_site(seeded):
    app, made, path = seeded
    admin = made["users"]["head"].headers
    data = read_like_simplexml(path)
    assert data["version"] == "1.2"
    assert data["base_url"] == data["base_blog_url"] == "http://school.test"
    by_type = {kind: [post for post in data["posts"] if post["post_type"] == kind] for kind in ("post", "page", "attachment")}
    statuses = ",".join(("publish", "future", "draft", "pending", "private", "trash"))
    assert len(by_type["post"]) == total(app, "posts", admin, status=statuses) == 8
    assert len(by_type["page"]) == total(app, "pages", admin, status=statuses) == 2
    assert len(by_type["attachment"]) == total(app, "media", admin) == 1
    assert len(data["categories"]) == total(app, "categories", admin, hide_empty="false")
    assert len(data["tags"]) == total(app, "tags", admin, hide_empty="false") == 2
    assert len(data["authors"]) == total(app, "users", admin, context="edit")
    comments = [comment for post in data["posts"] for comment in post["comments"]]
    assert len(comments) == 6
    assert sorted(comment["comment_approved"] for comment in comments) == ["0", "1", "1", "1", "spam", "trash"]
    assert only_plugin_types(import_problems(data), data) == []

    # What WordPress stores from it: the tricky title without the control character, `]]>` intact.
    tricky = next(post for post in data["posts"] if post["post_id"] == made["tricky"]["id"])
    assert tricky["post_title"] == TRICKY_TITLE.replace("\x01", "")
    assert "CDATA ends with ]]> here; a control  character; Größe, café, 日本語 🎒" in tricky["post_content"]
    sticky = next(post for post in data["posts"] if post["post_id"] == made["sticky"]["id"])
    assert sticky["is_sticky"] == 1 and sticky["post_author"] == "patel"
    assert (sticky["post_date"], sticky["post_date_gmt"]) == ("2025-06-20 14:30:00", "2025-06-20 18:30:00")
    assert {"name": "Aside", "slug": "post-format-aside", "domain": "post_format"} in sticky["terms"]
    assert ("_thumbnail_id", str(made["image"]["id"])) in sticky["postmeta"]
    attachment = by_type["attachment"][0]
    assert attachment["attachment_url"] == made["image"]["source_url"]
    child = next(category for category in data["categories"] if category["category_nicename"] == "sport")
    assert child["category_parent"] == "news-notices"


def test_the_expat_fallback_parser_finds_the_same(seeded):
    _app, _made, path = seeded
    data = read_like_simplexml(path)
    version, counts, post_types = read_like_xml_extension(path)
    assert version == "1.2"
    assert counts["item"] == counts["wp:post_id"] == counts["content:encoded"] == counts["excerpt:encoded"] \
        == counts["dc:creator"] == len(data["posts"])
    assert counts["wp:author"] == len(data["authors"])
    assert counts["wp:category"] == len(data["categories"]) and counts["wp:tag"] == len(data["tags"])
    assert counts["wp:comment"] == 6
    assert {kind: post_types[kind] for kind in ("post", "page", "attachment")} == {"post": 8, "page": 2, "attachment": 1}


def test_the_line_by_line_fallback_parser_reads_the_same(seeded):
    _app, _made, path = seeded
    assert_the_line_parser_reads_the_same(path)


def test_the_demo_site_reads_with_its_plugin_items_named(tmp_path):
    """The demo site, as `sitehost init --demo` makes it: every core item reads; the plugins' items
    are WordPress post types only with their plugins installed there, and are named as such."""
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path}/demo.db"\nuploads_dir = "{tmp_path}/uploads"\n')
    assert run_cli(config, "init", "--demo").exit_code == 0
    result = run_cli(config, "export", "wordpress", "--out", str(tmp_path / "demo.xml"))
    assert result.exit_code == 0, result.output
    data = read_like_simplexml(tmp_path / "demo.xml")
    core = [post for post in data["posts"] if post["post_type"] in WORDPRESS_POST_TYPES]
    kinds = {post["post_type"] for post in core}
    assert {"post", "page"} <= kinds
    assert only_plugin_types(import_problems(data), data) == []
    assert f"{len(data['authors'])} authors" in result.output
    assert any("&" in post["guid"] for post in data["posts"])  # a plugin type's /?post_type=…&p=…
    assert_the_line_parser_reads_the_same(tmp_path / "demo.xml")


def test_a_file_wordpress_would_refuse_is_told_apart(tmp_path):
    """The rules refuse what WordPress refuses (so the tests above could fail)."""
    bad = tmp_path / "bad.xml"
    bad.write_text('<?xml version="1.0"?><!DOCTYPE rss><rss><channel><wp:wxr_version xmlns:wp="x">1.2'
                   "</wp:wxr_version></channel></rss>")
    with pytest.raises(WxrReadError):
        read_like_simplexml(bad)
    bad.write_text('<?xml version="1.0"?><rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>'
                   "<wp:wxr_version>one</wp:wxr_version></channel></rss>")
    with pytest.raises(WxrReadError):
        read_like_simplexml(bad)
    with pytest.raises(WxrReadError):
        read_like_xml_extension(bad)
    bad.write_text('<?xml version="1.0"?><rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>'
                   "<wp:wxr_version>1.2</wp:wxr_version><wp:base_site_url>http://a</wp:base_site_url>"
                   "<wp:category><wp:category_nicename>child</wp:category_nicename>"
                   "<wp:category_parent>parent</wp:category_parent></wp:category>"
                   "<item><wp:post_type>tribe_events</wp:post_type></item></channel></rss>")
    problems = import_problems(read_like_simplexml(bad))
    assert any("before its parent" in problem for problem in problems)
    bad.write_text('<?xml version="1.0"?><rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>'
                   "<wp:wxr_version>1.2</wp:wxr_version>\n<wp:author>\n<wp:author_login>head</wp:author_login>\n"
                   "</wp:author>\n<item><guid>http://a/?post_type=x&amp;p=1</guid></item>\n</channel></rss>")
    assert read_like_simplexml(bad)["authors"] and not read_like_regex(bad)["authors"]
    assert read_like_regex(bad)["posts"][0]["guid"] == "http://a/?post_type=x&amp;p=1"
    assert any("Invalid post type" in problem for problem in problems)
