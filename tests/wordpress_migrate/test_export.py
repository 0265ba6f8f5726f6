"""`sitehost export wordpress`: the file's shape (stdout or --out), dates in the site's zone and GMT,
trash kept as WordPress keeps it, attachments' files reachable at their URLs, and the two export hooks."""

from __future__ import annotations

import io

import pytest
from lxml import etree

from host.testing import make_plugin
from host.wxr import WxrItem, WxrTerm

from plugins.wordpress_migrate.export import export_site
from plugins.wordpress_migrate.writer import cdata_sections, xml_text
from tests.wordpress_migrate.export_helpers import ZONE, export_to_file, run_cli, seed_site, write_config
from tests.wordpress_migrate.wordpress_rules import read_like_simplexml

WP = "{http://wordpress.org/export/1.2/}"


@pytest.fixture(scope="module")
def seeded(make_module_app, tmp_path_factory):
    app = make_module_app(site={"timezone_string": ZONE})
    made = seed_site(app)
    folder = tmp_path_factory.mktemp("export")
    return app, made, export_to_file(app, folder), folder


def core_parts(document) -> list[bytes]:
    """The channel's header (without its moment), authors, terms and core items, as bytes: what two
    exports of one site have in common (a plugin may stamp its items with the export's time)."""
    channel = document.find("channel")
    header = [etree.tostring(channel.find(tag)) for tag in ("title", "link", "description", "language")]
    parts = [b"".join(header), etree.tostring(channel.find(f"{WP}base_site_url"))]
    parts += [etree.tostring(element) for element in channel
              if element.tag in (f"{WP}author", f"{WP}category", f"{WP}tag", f"{WP}term")]
    parts += [etree.tostring(item) for item in channel.iter("item")
              if item.findtext(f"{WP}post_type") in ("post", "page", "attachment")]
    return parts


def item_of(data: dict, post_id: int) -> dict:
    return next(post for post in data["posts"] if post["post_id"] == post_id)


def test_stdout_gives_the_same_document_as_out(seeded):
    app, _made, path, folder = seeded
    result = run_cli(write_config(app, folder), "export", "wordpress")
    assert result.exit_code == 0
    assert result.stdout_bytes.startswith(b'<?xml version="1.0" encoding="UTF-8" ?>\n')
    streamed, written = etree.fromstring(result.stdout_bytes), etree.parse(str(path)).getroot()
    assert core_parts(streamed) == core_parts(written)
    assert len(core_parts(written)) == 2 + 3 + 5 + 11  # the header, authors, terms and core items
    assert result.stderr.startswith("Exported 1 attachment, ") and "2 page, 8 post; 6 comments, 5 terms, 3 authors." \
        in result.stderr
    assert path.stat().st_mode & 0o777 == 0o600  # emails and commenters' addresses: the operator's alone


def test_dates_are_local_and_gmt_and_drafts_have_none(seeded):
    _app, made, path, _folder = seeded
    data = read_like_simplexml(path)
    draft = item_of(data, made["draft"]["id"])
    assert draft["status"] == "draft" and draft["post_date_gmt"] == "0000-00-00 00:00:00"
    about = item_of(data, made["about"]["id"])  # 1 September: New York is on summer time (UTC-4)
    assert (about["post_date"], about["post_date_gmt"]) == ("2024-09-01 10:00:00", "2024-09-01 14:00:00")
    tricky = item_of(data, made["tricky"]["id"])  # 10 January: winter time (UTC-5)
    assert (tricky["post_date"], tricky["post_date_gmt"]) == ("2025-01-10 08:00:00", "2025-01-10 13:00:00")
    first = next(c for c in item_of(data, made["sticky"]["id"])["comments"]
                 if c["comment_id"] == made["comments"]["approved"]["id"])
    assert (first["comment_date"], first["comment_date_gmt"]) == ("2025-06-21 09:00:00", "2025-06-21 13:00:00")
    assert item_of(data, made["future"]["id"])["status"] == "future"


def test_statuses_trash_threads_and_protection_as_wordpress_keeps_them(seeded):
    _app, made, path, _folder = seeded
    data = read_like_simplexml(path)
    assert {item_of(data, made[name]["id"])["status"] for name in ("pending", "private", "trashed")} == \
        {"pending", "private", "trash"}
    assert ("_wp_trash_meta_status", "publish") in item_of(data, made["trashed"]["id"])["postmeta"]
    assert item_of(data, made["protected"]["id"])["post_password"] == "owl"
    assert item_of(data, made["protected"]["id"])["comment_status"] == "closed"
    history = item_of(data, made["history"]["id"])
    assert (history["post_parent"], history["menu_order"]) == (made["about"]["id"], 5)
    comments = {c["comment_id"]: c for c in item_of(data, made["sticky"]["id"])["comments"]}
    ids = made["comments"]
    assert comments[ids["reply"]["id"]]["comment_parent"] == str(ids["approved"]["id"])
    assert comments[ids["reply"]["id"]]["comment_user_id"] == made["users"]["okafor"].id
    assert [comments[ids[name]["id"]]["comment_approved"] for name in ("approved", "held", "spam", "trash")] == \
        ["1", "0", "spam", "trash"]
    assert comments[ids["trash"]["id"]]["commentmeta"] == [("_wp_trash_meta_status", "1")]


def test_an_attachment_names_its_file_where_the_site_serves_it(seeded):
    app, made, path, _folder = seeded
    attachment = item_of(read_like_simplexml(path), made["image"]["id"])
    meta = dict(attachment["postmeta"])
    assert attachment["attachment_url"].startswith("http://school.test/uploads/")
    assert attachment["post_parent"] == made["sticky"]["id"]
    assert meta["_wp_attached_file"] == attachment["attachment_url"].removeprefix("http://school.test/uploads/")
    assert meta["_wp_attachment_image_alt"] == "Children racing"
    assert meta["_wp_attachment_metadata"].startswith('a:') and '"width";i:3;' in meta["_wp_attachment_metadata"]
    assert (attachment["post_excerpt"], attachment["post_content"]) == ("The 100 m final", "Taken by the PE department")
    served = app.client.get(attachment["attachment_url"].removeprefix("http://school.test"))
    assert served.status_int == 200 and served.body.startswith(b"\x89PNG")


def test_cdata_is_split_around_its_end_marker_and_illegal_characters_go():
    for text in ("plain", "a]]>b", "]]>", "x]]>]]>y", "]]]]>>", ""):
        document = b"<t>" + b"".join(_cdata_bytes(section) for section in cdata_sections(text)) + b"</t>"
        assert etree.fromstring(document).text == text, text
    assert xml_text("a\x00b\x08c\x0bd\x1fe\ufffef\uffffg\ud800h\ti\nj\rk🎓") == "abcdefgh\ti\nj\rk🎓"


def _cdata_bytes(section) -> bytes:
    holder = etree.Element("h")
    holder.text = section
    return etree.tostring(holder)[3:-4]


def test_a_disabled_plugin_writes_nothing(make_app, tmp_path):
    config = write_config(make_app(), tmp_path)
    assert run_cli(config, "plugins", "disable", "wordpress_migrate").exit_code == 0
    target = tmp_path / "never.xml"
    result = run_cli(config, "export", "wordpress", "--out", str(target))
    assert result.exit_code == 1 and "the wordpress_migrate plugin is not running here (disabled)" in result.output
    assert not target.exists() and list(tmp_path.glob("*.part")) == []


# --- the hooks ------------------------------------------------------------------------------------

def test_hook_export_wordpress_items(make_app):
    """A plugin's items join the file in WordPress's shape, and its taxonomy under WordPress's name."""
    from host import PostType, Taxonomy

    def wordpress_taxonomies(app):
        return {"tribe_events_cat": "trip_kind"}

    def export_wordpress_items(app, export):
        def items():
            for number in (1, 2):
                yield WxrItem(post_id=900 + number, post_type="tribe_events", title=f"Trip {number}", slug=f"trip-{number}",
                              status="publish", content="", excerpt="", date="2025-05-01 09:00:00",
                              date_gmt="2025-05-01 08:00:00", modified="2025-05-01 09:00:00",
                              modified_gmt="2025-05-01 08:00:00", author_login="", parent=0, menu_order=0,
                              password="", is_sticky=False, comment_status="closed", ping_status="closed",
                              guid=export.link(900 + number), link=export.link(900 + number),
                              terms=[WxrTerm("tribe_events_cat", "museum", "Museum")],
                              meta=[("_EventStartDate", "2025-05-01 09:00:00")])
        return items()

    trips = make_plugin("trips", wordpress_taxonomies, export_wordpress_items,
                        register_post_types=lambda: [PostType("trip")],
                        register_taxonomies=lambda: [Taxonomy("trip_kind", "Trip kinds", object_types=("trip",))])
    app = make_app(plugins=["core", "wordpress_migrate", trips])
    with app.db.session(write=True) as session, session.begin():
        app.content.create_term(_request(app, session), "trip_kind", "Museum", slug="museum")
    stream = io.BytesIO()
    summary = export_site(app, stream)
    assert summary.items["tribe_events"] == 2
    root = etree.fromstring(stream.getvalue())
    terms = root.findall(f"channel/{WP}term")
    assert [(t.findtext(f"{WP}term_taxonomy"), t.findtext(f"{WP}term_slug")) for t in terms] == [("tribe_events_cat", "museum")]
    events = [item for item in root.iter("item") if item.findtext(f"{WP}post_type") == "tribe_events"]
    assert [event.findtext("title") for event in events] == ["Trip 1", "Trip 2"]
    assert events[0].findtext("link") == "http://school.test/?p=901"
    assert events[0].find("category").get("domain") == "tribe_events_cat"


def test_hook_wordpress_item_exported(make_app):
    """A plugin adds its meta to a core page on its way out (a builder's `_elementor_data`)."""
    seen = []

    def wordpress_item_exported(app, item, post_id, export):
        seen.append((item.post_type, post_id))
        if item.post_type == "page":
            item.meta.append(("_elementor_data", '[{"elType":"section"}]'))

    builder = make_plugin("fakebuilder", wordpress_item_exported)
    app = make_app(plugins=["core", "wordpress_migrate", builder])
    admin_headers = _admin_headers(app)
    page = app.client.post_json("/wp-json/core/v2/pages", {"title": "Home", "status": "publish"},
                                headers=admin_headers).json
    post = app.client.post_json("/wp-json/core/v2/posts", {"title": "News", "status": "publish"},
                                headers=admin_headers).json
    stream = io.BytesIO()
    export_site(app, stream)
    assert sorted(seen) == sorted([("page", page["id"]), ("post", post["id"])])
    root = etree.fromstring(stream.getvalue())
    meta = {item.findtext(f"{WP}post_id"): [(m.findtext(f"{WP}meta_key"), m.findtext(f"{WP}meta_value"))
                                            for m in item.findall(f"{WP}postmeta")] for item in root.iter("item")}
    assert meta[str(page["id"])] == [("_elementor_data", '[{"elType":"section"}]')]
    assert meta[str(post["id"])] == []


def test_a_post_type_whose_plugin_exports_nothing_goes_out_under_its_own_name(make_app):
    """A plugin that registers a type but no export hook still has its items in the file, by name."""
    from host import PostType

    lunch = make_plugin("lunch", register_post_types=lambda: [PostType("menu", rest_base="menus")])
    app = make_app(plugins=["core", "wordpress_migrate", lunch])
    headers = _admin_headers(app)
    menu = app.client.post_json("/wp-json/core/v2/menus", {"title": "Fish pie Friday", "status": "publish"},
                                headers=headers).json
    stream = io.BytesIO()
    assert export_site(app, stream).items["menu"] == 1
    item = next(item for item in etree.fromstring(stream.getvalue()).iter("item")
                if item.findtext(f"{WP}post_type") == "menu")
    assert (item.findtext(f"{WP}post_id"), item.findtext("title")) == (str(menu["id"]), "Fish pie Friday")


def _admin_headers(app):
    from host.testing import create_test_user

    return create_test_user(app, "administrator").headers


def _request(app, session):
    from host.content import service_request

    return service_request(app, session, None)
