"""OPTIONS answers each route's item schema, and the schema says exactly what the items hold.

For every core/v2 resource family a real item is read in the edit context and its keys are
compared with the schema's properties visible in that context, so an item field without
its schema, or a schema property no item carries, fails here.
"""

from __future__ import annotations

import pytest

from tests.core.helpers import API
from tests.core.test_media import png


@pytest.fixture
def items(client, users):
    admin = users["administrator"].headers
    post = client.post_json(f"{API}/posts", {"title": "Post", "content": "<p>Body</p>", "status": "publish"},
                            headers=admin).json
    client.post_json(f"{API}/posts/{post['id']}", {"title": "Post again"}, headers=admin)
    client.post_json(f"{API}/posts/{post['id']}/autosaves", {"title": "Draft title"}, headers=admin)
    page = client.post_json(f"{API}/pages", {"title": "Page", "status": "publish"}, headers=admin).json
    media = client.post(f"{API}/media", png(), headers=dict(admin, **{
        "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="p.png"'})).json
    category = client.post_json(f"{API}/categories", {"name": "News"}, headers=admin).json
    tag = client.post_json(f"{API}/tags", {"name": "Music"}, headers=admin).json
    me = users["administrator"]
    return {
        "posts": f"{API}/posts/{post['id']}", "pages": f"{API}/pages/{page['id']}", "media": f"{API}/media/{media['id']}",
        "categories": f"{API}/categories/{category['id']}", "tags": f"{API}/tags/{tag['id']}",
        "users": f"{API}/users/{me.id}", "revisions": f"{API}/posts/{post['id']}/revisions",
        "autosaves": f"{API}/posts/{post['id']}/autosaves",
        "application-passwords": f"{API}/users/{me.id}/application-passwords",
    }


FAMILIES = {  # family -> (OPTIONS path, expected schema title)
    "posts": ("posts", "post"), "pages": ("pages", "page"), "media": ("media", "attachment"),
    "categories": ("categories", "category"), "tags": ("tags", "tag"), "users": ("users", "user"),
    "revisions": ("posts/{id}/revisions", "post-revision"), "autosaves": ("posts/{id}/autosaves", "post-revision"),
    "application-passwords": ("users/{id}/application-passwords", "application-password"),
}


# Declared, but present only in one answer: the new application password in the create answer.
ONLY_SOMETIMES = {"application-passwords": {"password"}}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_options_schema_matches_the_items(client, users, items, family):
    admin = users["administrator"].headers
    options_path, title = FAMILIES[family]
    url = items[family]
    identifier = url.split("/")[5]  # core/v2/<base>/<id>/...
    answer = client.options(f"{API}/{options_path.format(id=identifier)}", headers=admin)
    assert answer.status_int == 200 and answer.headers["Allow"]
    schema = answer.json["schema"]
    assert (schema["$schema"], schema["title"], schema["type"]) == ("http://json-schema.org/draft-04/schema#", title,
                                                                     "object")
    body = client.get(url, {"context": "edit"}, headers=admin).json
    item = body[0] if isinstance(body, list) else body
    visible = {name for name, property_schema in schema["properties"].items()
               if "edit" in property_schema.get("context", ["edit"])}
    assert set(item) - {"_links", "_embedded"} == visible - ONLY_SOMETIMES.get(family, set()), family
    for name, property_schema in schema["properties"].items():
        assert property_schema.get("description"), (family, name)
        assert "type" in property_schema or "anyOf" in property_schema or "oneOf" in property_schema, (family, name)


def test_help_context_indexes_carry_the_schemas_too(client):
    routes = client.get("/wp-json/core/v2", {"context": "help"}).json["routes"]
    assert routes["/core/v2/posts"]["schema"]["title"] == "post"
    assert routes["/core/v2/media/(?P<id>[\\d]+)"]["schema"]["title"] == "attachment"
