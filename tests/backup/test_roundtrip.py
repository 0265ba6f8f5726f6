"""Moving a site between engines: SQLite -> PostgreSQL -> SQLite (or PostgreSQL -> SQLite -> PostgreSQL in
the PostgreSQL run) gives the same REST answers to a crawl of every GET route, and the same checksums.

Needs both engines: the PostgreSQL run of the suite has them; the SQLite run has them when
SITEHOST_TEST_POSTGRES_URL names a PostgreSQL server (otherwise this module is skipped).
"""

from __future__ import annotations

import re

import pytest

from host.openapi import path_templates
from host.testing import create_test_user
from plugins.backup.service import backup_site, restore_site
from tests.reliability.harness import collection_of, fill_pattern, path_variables, regex_example

from .helpers import (ARCHIVED, GRADES, archive_plugin, engine_under_test, gradebook_plugin, new_database, open_site,
                      postgres_server, raw_rows, site_settings, write_grades)

pytestmark = pytest.mark.skipif(not postgres_server(), reason="needs a PostgreSQL server beside SQLite "
                                "(SITEHOST_TEST_DATABASE_URL or SITEHOST_TEST_POSTGRES_URL)")

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
       b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")


def _route_paths(app, headers) -> list[str]:
    """One or more concrete paths for every GET route, with ids taken from the site's own collections."""
    routes = [(pattern, route) for pattern, route in app.registry.ordered_routes()
              if any("GET" in endpoint.methods for endpoint in route.endpoints)]
    ids: dict[str, list[int]] = {}
    plain = [fill_pattern(pattern, {}) for pattern, _route in routes if not path_variables(pattern)]
    for path in plain:
        response = app.client.get("/wp-json" + path, headers=headers, expect_errors=True)
        if response.status_int == 200 and response.content_type.endswith("json") and isinstance(response.json, list):
            ids[path] = [item["id"] for item in response.json  # numeric ids (some lists use names, e.g. kit colours)
                         if isinstance(item, dict) and isinstance(item.get("id"), int)][:3]
    every_id = sorted({number for numbers in ids.values() for number in numbers})[:6] or [1]
    post_ids = ids.get("/core/v2/posts", []) + ids.get("/core/v2/pages", [])
    paths = list(plain)
    for pattern, _route in routes:
        names = path_variables(pattern)
        if not names:
            continue
        collection = collection_of(pattern)
        choices = ids.get(fill_pattern(collection, {}), []) if collection and not path_variables(collection) else []
        for number in choices or every_id[:3]:
            values = {}
            groups = path_templates(pattern)[0][1]
            for name in names:
                group = groups[name]
                if name == "id":
                    values[name] = number
                elif name == "parent":
                    values[name] = post_ids[0] if post_ids else number
                elif re.fullmatch(group, str(number)):
                    values[name] = number
                else:
                    values[name] = regex_example(group)
            paths.append(fill_pattern(pattern, values))
    return sorted(set(paths))


def _answer(app, path, headers):
    response = app.client.get("/wp-json" + path, headers=headers, expect_errors=True)
    body = response.json if response.content_type.endswith("json") else response.body
    return response.status_int, response.headers.get("X-WP-Total"), body


# Answers about the machine rather than the content (which engine, folder, sizes) differ after a move.
MACHINE_DESCRIPTIONS = ("/site-health/",)


def crawl(app, headers_by_role) -> dict:
    answers = {}
    for role, headers in headers_by_role.items():
        for path in _route_paths(app, headers):
            if not path.startswith(MACHINE_DESCRIPTIONS):
                answers[(role, path)] = _answer(app, path, headers)
    return answers


def test_a_site_moves_between_engines_and_back_with_identical_answers(tmp_path):
    first = engine_under_test()
    other = "postgresql" if first == "sqlite" else "sqlite"
    grades, old = gradebook_plugin(), archive_plugin()
    plugins = [grades, old]
    with new_database(tmp_path / "a", first) as source_url, new_database(tmp_path, other) as moved_url, \
            new_database(tmp_path / "b", first) as back_url:
        for folder in ("a", "b"):
            (tmp_path / folder).mkdir(exist_ok=True)
        setup = open_site(site_settings(source_url, tmp_path / "up-a", tmp_path / "bk", plugins))
        setup.install_site(demo=True)
        setup.db.engine.dispose()
        with setup.db.engine.begin() as connection:
            connection.execute(setup.db.metadata.tables[ARCHIVED].insert(), [{"title": "Old prize list"}])
        setup.close()
        settings = site_settings(source_url, tmp_path / "up-a", tmp_path / "bk", plugins, disabled=["oldarchive"])
        source = open_site(settings)
        admin = create_test_user(source, "administrator", login="head")
        write_grades(source)
        media = source.client.post("/wp-json/core/v2/media", PNG, headers={
            **admin.headers, "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="crest.png"'},
            status=201).json
        post = source.client.post_json("/wp-json/core/v2/posts", {
            "title": "Sports day", "content": "<p>Results of the <b>relay</b></p>", "status": "publish",
            "featured_media": media["id"], "meta": {}}, headers=admin.headers, status=201).json
        source.client.post_json(f"/wp-json/core/v2/posts/{post['id']}", {"content": "<p>Final results</p>"},
                                headers=admin.headers, status=200)  # a revision
        with source.db.engine.begin() as connection:  # meta of a key no plugin registers: kept all the same
            connection.execute(source.db.metadata.tables["post_meta"].insert(),
                               [{"post_id": post["id"], "key": "_school_house", "value": '"Lovelace"'}])
        roles = {"anonymous": {}, "administrator": admin.headers}
        before = crawl(source, roles)
        repeat = crawl(source, roles)
        stable = {key for key in before if repeat.get(key) == before[key]}
        assert len(stable) > 50, f"only {len(stable)} stable answers"
        archive, _removed = backup_site(source, tmp_path / "a")
        source.close()

        hops = [(moved_url, tmp_path / "up-moved"), (back_url, tmp_path / "up-back")]
        previous = archive
        for url, uploads in hops:
            restore_site(settings, previous.path, url, uploads)
            site = open_site(site_settings(url, uploads, tmp_path / "bk", plugins, disabled=["oldarchive"]))
            try:
                after = crawl(site, roles)
                differences = sorted(key for key in stable if after.get(key) != before[key])
                assert differences == [], [(key, before[key], after.get(key)) for key in differences[:3]]
                assert (uploads / media["media_details"]["file"]).read_bytes() == PNG
                # the full-text index was rebuilt from the restored rows: the edited post is found by
                # its new words only
                final = site.client.get("/wp-json/core/v2/posts?search=final+results", headers=admin.headers).json
                assert post["id"] in [item["id"] for item in final]
                relay = site.client.get("/wp-json/core/v2/posts?search=relay", headers=admin.headers).json
                assert post["id"] not in [item["id"] for item in relay]
                next_archive, _removed = backup_site(site, tmp_path / ("moved" if url == moved_url else "back"))
            finally:
                site.close()
            checksums = {table["name"]: table["sha256"] for table in next_archive.manifest["tables"]}
            assert checksums == {table["name"]: table["sha256"] for table in archive.manifest["tables"]}
            assert raw_rows(url, GRADES)[0][1] == "Ada Lovelace"
            previous = next_archive
        for table in (GRADES, "post_meta", "users", "application_passwords", "terms", "term_relationships"):
            assert raw_rows(back_url, table) == raw_rows(source_url, table), table
