"""A malformed or hostile export fails with one clear error line and changes nothing: entities and DTDs
(billion laughs, external entities), an oversized text node, a line or tag of many megabytes, absurd
nesting, attachment paths that climb out of the uploads folder, broken XML and files that are no export."""

from __future__ import annotations

import pytest

from .helpers import SITE_FILE, UPLOADS, count_rows, run_import, write_config

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/">\n<channel>\n<wp:wxr_version>1.2</wp:wxr_version>\n'
        '<wp:base_site_url>https://old.example</wp:base_site_url>\n')
ITEM = ('<item><title>First</title><wp:post_id>5</wp:post_id><wp:post_type>post</wp:post_type>'
        '<wp:status>publish</wp:status><content:encoded><![CDATA[<p>Hello</p>]]></content:encoded></item>\n')
TAIL = "</channel>\n</rss>\n"


def attachment(path: str) -> str:
    return ('<item><title>Sneaky</title><wp:post_id>9</wp:post_id><wp:post_type>attachment</wp:post_type>'
            f'<wp:status>inherit</wp:status><wp:attachment_url>https://old.example/wp-content/uploads/{path}'
            '</wp:attachment_url><wp:postmeta><wp:meta_key>_wp_attached_file</wp:meta_key>'
            f'<wp:meta_value>{path}</wp:meta_value></wp:postmeta></item>\n')


HOSTILE = {
    "billion_laughs": (
        '<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n<rss><channel><title>&lol3;</title>'
        + ITEM + TAIL, "refused: the file has a DTD"),
    "external_entity": (
        '<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
        '<rss><channel><title>&secret;</title>' + ITEM + TAIL, "refused: the file has a DTD"),
    "parameter_entity_url": (
        '<?xml version="1.0"?>\n<!DOCTYPE rss SYSTEM "http://127.0.0.1:9/evil.dtd">\n<rss><channel>' + ITEM + TAIL,
        "refused: the file has a DTD"),
    "deep_nesting": (HEAD + ITEM + "<item>" + "<x>" * 40 + "</x>" * 40 + "</item>" + TAIL, "nested more than 24 deep"),
    "climbing_attachment": (HEAD + ITEM + attachment("../../../etc/cron.d/evil.png") + TAIL,
                            "leaves the uploads folder"),
    "absolute_attachment": (HEAD + ITEM + attachment("/etc/passwd") + TAIL, "leaves the uploads folder"),
    "truncated": (HEAD + ITEM + "<item><title>Cut off", "malformed XML at line"),
    "not_an_export": ('<?xml version="1.0"?>\n<html><body>Hello</body></html>\n', "not a WordPress export"),
    "empty": ("", "not a WordPress export: the file is empty"),
    "bad_number": (HEAD + ITEM.replace("<wp:post_id>5", "<wp:post_id>five") + TAIL, "a post id is not a number"),
}


@pytest.fixture
def site(make_app, tmp_path):
    app = make_app(plugins=["core", "wordpress_migrate"])
    return app, write_config(app, tmp_path), tmp_path


def totals(app) -> dict:
    return {table: count_rows(app, table) for table in ("posts", "comments", "users", "terms", "wordpress_id_map",
                                                        "wordpress_redirects")}


def refused(site, text: str | bytes, expected: str):
    app, config, folder = site
    path = folder / "export.xml"
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    before = totals(app)
    result = run_import(config, str(path), "--uploads", str(UPLOADS))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: ") and expected in lines[0], result.output
    assert lines[0].endswith("; nothing was imported")
    assert totals(app) == before
    return lines[0]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_or_malformed_file_fails_with_one_line_and_changes_nothing(site, name):
    text, expected = HOSTILE[name]
    line = refused(site, text, expected)
    assert "root:" not in line and "lollol" not in line


def test_an_oversized_text_node_fails(site):
    text = HEAD + ITEM + "<item><title>Big</title><content:encoded>" + "a" * (32 * 1024 * 1024 + 10) + TAIL
    refused(site, text, "the text of <content:encoded> is longer than 33,554,432 characters")


def test_a_line_of_many_megabytes_inside_a_tag_fails(site):
    # one line, no newline: a 9 MB attribute value that expat would buffer whole before any event
    text = HEAD + ITEM + '<item><category domain="' + "d" * (9 * 1024 * 1024) + '">x</category></item>' + TAIL
    refused(site, text, "without a complete tag")


def test_a_file_hostile_at_its_end_imports_nothing_of_its_beginning(site):
    # the first items are fine, the last one is not: the check reads the whole file before writing
    good = SITE_FILE.read_text(encoding="utf-8")
    refused(site, good.replace("</channel>", attachment("../escape.pdf") + "</channel>"), "leaves the uploads folder")
