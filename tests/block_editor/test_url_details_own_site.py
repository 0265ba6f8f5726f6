"""url-details of a page of the site itself, served by a real `sitehost serve` (a local install: private targets allowed)."""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest

from host.testing import create_test_user, start_sitehost, stop_sitehost

from tests.core.test_media import upload

API = "/wp-json/core/v2"
ROUTE = "/wp-json/block-editor/v1/url-details?url="


@pytest.fixture
def served(tmp_path):
    database = tmp_path / "site.db"
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{database}"\n\n[site]\nname = "Riverside School"\n\n'
                      '[plugins.block_editor]\nallow_private_targets = true\n')
    process, rest = start_sitehost(config, "--workers", "1", "--threads", "2", env={**os.environ})
    yield f"sqlite:///{database}", rest.removesuffix("/wp-json")
    stop_sitehost(process)


def test_a_page_of_the_site_answers_its_title_description_and_image(make_app, served):
    database_url, site = served
    app = make_app(database_url=database_url, site={"name": "Riverside School"},
                   config={"block_editor": {"allow_private_targets": True}})
    editor = create_test_user(app, "editor").headers
    image = upload(app.client, editor).json
    post = app.client.post_json(f"{API}/posts", {
        "title": "Open day", "status": "publish", "content": "<p>Tours all morning.</p>",
        "excerpt": "Meet the teachers & see the labs.", "featured_media": image["id"]}, headers=editor).json
    details = app.client.get(ROUTE + quote(f"{site}/?p={post['id']}", safe=""), headers=editor).json
    assert details["title"] == "Open day | Riverside School"
    assert details["description"] == "Meet the teachers & see the labs."
    assert details["image"] == f"{site}/uploads/{image['media_details']['file']}"
    # A protected post gives no summary to a preview; a missing one answers WordPress's no_response.
    locked = app.client.post_json(f"{API}/posts", {"title": "Staff only", "status": "publish", "password": "s3cret",
                                                   "excerpt": "Secret plans"}, headers=editor).json
    hidden = app.client.get(ROUTE + quote(f"{site}/?p={locked['id']}", safe=""), headers=editor).json
    assert hidden["title"] == "Staff only | Riverside School" and hidden["description"] == "" and hidden["image"] == ""
    missing = app.client.get(ROUTE + quote(f"{site}/?p=999999", safe=""), headers=editor, status=404)
    assert missing.json["code"] == "no_response"
