"""Round trip: a site exported with `sitehost export wordpress` and imported into an empty site with
`sitehost import wordpress` answers every REST read of its core content the same, field by field
(ids compared through the importer's id map): a seeded site with every core field set, and the demo
site with its plugins' items too (every post type and taxonomy core/v2 serves: events, venues,
courses, lessons, forms ..., whichever way they travel: a plugin's own export hook, or by name).

Left out of the comparison, each because a WXR file has no place for it (docs/wordpress_migrate.md):
users' registration date, description, URL and nickname, and comments' user agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from host.testing import create_test_user

from plugins.wordpress_migrate.writer import xml_text
from tests.wordpress_migrate.export_helpers import API, ZONE, export_to_file, run_cli, seed_site, write_config

STATUSES = "publish,future,draft,pending,private,trash"
# What each collection's items refer to, by field: compared through the id map of that kind.
REFERENCES = {
    "posts": {"author": "user", "featured_media": "post", "categories": "term", "tags": "term"},
    "pages": {"author": "user", "featured_media": "post", "parent": "post"},
    "media": {"author": "user", "post": "post"},
    "categories": {"parent": "term"},
    "tags": {},
    "comments": {"post": "post", "parent": "comment", "author": "user"},
    "users": {},
}
KIND = {"posts": "post", "pages": "post", "media": "post", "categories": "term", "tags": "term",
        "comments": "comment", "users": "user"}
NOT_IN_WXR = {"users": {"registered_date", "description", "url", "nickname", "link", "slug", "avatar_urls"},
              "comments": {"author_user_agent"}}
ALWAYS_DIFFERENT = {"id", "_links", "link"}  # the id is compared through the map; links carry the ids


def read_all(app, headers, path: str, **query) -> list[dict]:
    found, page = [], 1
    while True:
        response = app.client.get(f"{API}/{path}", dict(query, context="edit", per_page=100, page=page),
                                  headers=headers)
        assert response.status_int == 200
        found += response.json
        if page >= int(response.headers.get("X-WP-TotalPages", "1")):
            return found
        page += 1


def plugin_collections(app, headers) -> tuple[dict[str, list[dict]], dict[str, dict[str, str]]]:
    """The items of every other post type the site serves (core/v2/types: events, courses ...) and the
    terms of every other taxonomy, named "type:NAME" and "taxonomy:NAME"; and what their fields refer to
    (an item's terms are listed under each taxonomy's rest_base)."""
    found, references = {}, {}
    taxonomies = app.client.get(f"{API}/taxonomies", headers=headers).json
    term_fields = {described["rest_base"]: "term" for described in taxonomies.values()}
    for name, described in taxonomies.items():
        if name not in ("category", "post_tag"):
            found[f"taxonomy:{name}"] = read_all(app, headers, described["rest_base"], hide_empty="false")
            references[f"taxonomy:{name}"] = {"parent": "term"}
    types = app.client.get(f"{API}/types", headers=headers).json
    for name, described in types.items():
        if name not in ("post", "page", "attachment"):
            found[f"type:{name}"] = read_all(app, headers, described["rest_base"], status=STATUSES)
            references[f"type:{name}"] = {"author": "user", "featured_media": "post", "parent": "post", **term_fields}
    return found, references


def collections(app, headers) -> dict[str, list[dict]]:
    return {
        "posts": read_all(app, headers, "posts", status=STATUSES),
        "pages": read_all(app, headers, "pages", status=STATUSES),
        "media": read_all(app, headers, "media"),
        "categories": read_all(app, headers, "categories", hide_empty="false"),
        "tags": read_all(app, headers, "tags", hide_empty="false"),
        "comments": [comment for status in ("all", "spam", "trash")
                     for comment in read_all(app, headers, "comments", status=status)],
        "users": read_all(app, headers, "users"),
    }


def id_map(app) -> dict[str, dict[int, int]]:
    table = app.db.metadata.tables["wordpress_id_map"]
    mapped: dict[str, dict[int, int]] = {}
    with app.db.engine.connect() as connection:
        for kind, old_id, new_id in connection.execute(select(table.c.kind, table.c.old_id, table.c.new_id)):
            mapped.setdefault(kind, {})[old_id] = new_id
    return mapped


def translated(value, kind: str, mapped: dict):
    """`value` (an id or a list of ids of `kind`) in the new site's ids (0 stays 0)."""
    if isinstance(value, list):
        return [translated(one, kind, mapped) for one in value]
    if not value:
        return value
    return mapped.get(kind, {}).get(value, f"unmapped {kind} {value}")


@dataclass(frozen=True)
class Difference:
    collection: str
    old: dict
    field: str
    expected: object
    found: object

    def __str__(self) -> str:
        return f"{self.collection} {self.old.get('id')}.{self.field}: {self.expected!r} became {self.found!r}"


def without_xml_illegal(value):
    """What the file can carry of `value`: characters XML 1.0 cannot hold are left out (documented)."""
    if isinstance(value, str):
        return xml_text(value)
    if isinstance(value, dict):
        return {key: without_xml_illegal(one) for key, one in value.items()}
    if isinstance(value, list):
        return [without_xml_illegal(one) for one in value]
    return value


def _kind(name: str) -> str:
    return "post" if name.startswith("type:") else "term" if name.startswith("taxonomy:") else KIND[name]


def differences(old: dict[str, list[dict]], new: dict[str, list[dict]], mapped: dict,
                references: dict[str, dict[str, str]] | None = None) -> list[Difference]:
    references = {**REFERENCES, **(references or {})}
    found = []
    for name, items in old.items():
        by_id = {item["id"]: item for item in new.get(name, [])}
        skipped = ALWAYS_DIFFERENT | NOT_IN_WXR.get(name, set())
        for item in items:
            other = by_id.get(translated(item["id"], _kind(name), mapped))
            if other is None:
                found.append(Difference(name, item, "(the item)", item["id"], None))
                continue
            for field in sorted(set(item) | set(other)):
                if field in skipped:
                    continue
                expected = without_xml_illegal(item.get(field))
                if field in references[name]:
                    expected = translated(expected, references[name][field], mapped)
                if other.get(field) != expected:
                    found.append(Difference(name, item, field, expected, other.get(field)))
        if name != "users" and len(new.get(name, [])) > len(items):
            found.append(Difference(name, {}, "(count)", len(items), len(new[name])))
    return found


def unexplained(found: list[Difference], *extra_gaps: dict) -> tuple[list[str], set[str]]:
    """(the differences no named gap explains, the gaps seen)."""
    gaps: dict = {}
    for more in extra_gaps:
        gaps.update(more)
    left, seen = [], set()
    for difference in found:
        reason = next((reason for reason, applies in gaps.items() if applies(difference)), None)
        if reason is None:
            left.append(str(difference))
        else:
            seen.add(reason)
    return left, seen


def import_into(target, file: Path, uploads: Path, folder: Path) -> str:
    config = write_config(target, folder)
    result = run_cli(config, "import", "wordpress", str(file), "--uploads", str(uploads))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_seeded_site_comes_back_field_for_field(make_app, tmp_path):
    source = make_app(site={"timezone_string": ZONE})
    made = seed_site(source)
    (tmp_path / "out").mkdir()
    exported = export_to_file(source, tmp_path / "out")
    target = make_app(site={"timezone_string": ZONE})
    (tmp_path / "in").mkdir()
    import_into(target, exported, Path(source.settings.uploads_dir), tmp_path / "in")
    checker = create_test_user(target, "administrator", login="checker", email="checker@school.test")
    before = collections(source, made["users"]["head"].headers)
    after = collections(target, checker.headers)
    left, _gaps = unexplained(differences(before, after, id_map(target)))
    assert left == [], "\n".join(left)
    assert (len(before["posts"]), len(before["comments"])) == (8, 6)


# The demo's pages show the plugins' items (an events list, a contact form) in their rendering; those
# items travel through the plugins' own export hooks (engineer wxrplug's), which are not on main yet;
# with them, the builder's import of a page's document (after core made the page) changes its modified.
PLUGIN_GAPS = {
    "a plugin item's comment and ping status (the plugins' shared export helper writes every item closed)":
        lambda d: d.collection.startswith("type:") and d.field in ("comment_status", "ping_status"),
    "a page whose builder document is imported after it gets the import's time as modified":
        lambda d: d.collection == "pages" and d.field in ("modified", "modified_gmt")
        and 'class="builder-page' in d.old.get("content", {}).get("rendered", ""),
    "a rendering that shows plugins' items (not in the file until the plugins' export hooks land)":
        lambda d: d.field in ("content", "excerpt") and isinstance(d.expected, dict)
        and d.expected.get("raw") == d.found.get("raw"),
}


def test_the_demo_site_comes_back_field_for_field(make_app, tmp_path):
    source = make_app()
    source.install_site(demo=True)
    (tmp_path / "out").mkdir()
    exported = export_to_file(source, tmp_path / "out")
    target = make_app()
    (tmp_path / "in").mkdir()
    uploads = Path(source.settings.uploads_dir)
    uploads.mkdir(parents=True, exist_ok=True)
    import_into(target, exported, uploads, tmp_path / "in")
    admin = create_test_user(source, "administrator", login="exporter", email="exporter@school.test")
    checker = create_test_user(target, "administrator", login="checker", email="checker@school.test")
    before_plugins, references = plugin_collections(source, admin.headers)
    before = collections(source, admin.headers) | before_plugins
    after = collections(target, checker.headers) | plugin_collections(target, checker.headers)[0]
    before["users"] = [user for user in before["users"] if user["username"] != "exporter"]
    assert before["type:cal_event"] and before["type:lms_course"]
    left, _gaps = unexplained(differences(before, after, id_map(target), references), PLUGIN_GAPS)
    assert left == [], "\n".join(left)
    assert before["posts"] and before["pages"]
