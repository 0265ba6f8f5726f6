"""The WordPress migration hooks, each answered by a small plugin and checked through core/v2 and the
summary: import_wordpress_item, wordpress_item_imported, wordpress_taxonomies; and html_not_found."""

from __future__ import annotations

from host import HtmlView, MetaKey
from host.content import service_request
from host.testing import create_test_user, make_plugin
from plugins.wordpress_migrate.run import import_file

from .helpers import SITE_FILE, UPLOADS


def run(app):
    return import_file(app, SITE_FILE, uploads_dir=UPLOADS)


def test_hook_import_wordpress_item(make_app):
    seen = []

    def import_wordpress_item(app, item, run):
        if item.post_type != "product":
            return None
        seen.append(item.post_id)
        if run.new_id("post", item.post_id) is not None:
            run.count("unchanged")
            return True
        request = service_request(app, run.session, _Writer())
        created = app.content.create(request, "post", title=f"Uniform: {item.title}", status="publish",
                                     content=run.clean_html(run.rewrite_links(item.content + "<script>x()</script>")),
                                     author=run.user_id(item.author_login))
        run.remember("post", item.post_id, created["id"], item.link)
        run.count("created")
        return True

    app = make_app(plugins=["core", "wordpress_migrate", make_plugin("shop", import_wordpress_item)])
    summary = run(app)
    assert summary.by_kind["product"]["created"] == 1 and not [label for label, _ in summary.not_imported
                                                                if label.startswith("product 99")]
    posts = app.client.get("/wp-json/core/v2/posts", params={"search": "Uniform"}).json
    assert [post["title"]["rendered"] for post in posts] == ["Uniform: School jumper"]
    assert "<script" not in posts[0]["content"]["rendered"]
    assert app.client.get("/product/school-jumper/").location.endswith(f"/?p={posts[0]['id']}")
    again = run(app)
    assert again.by_kind["product"] == {"unchanged": 1} and seen == [99, 99]
    assert len(app.client.get("/wp-json/core/v2/posts", params={"search": "Uniform"}).json) == 1


class _Writer:
    """The author a test plugin writes as (no unfiltered_html)."""

    id = 0
    roles = ()

    def can(self, capability, *args):
        return False


def test_hook_wordpress_item_imported(make_app):
    calls = []

    def register_meta():
        return [MetaKey("page", "layout_source")]

    def wordpress_item_imported(app, item, new_id, run):
        calls.append((item.post_type, item.post_id, new_id))
        if item.meta_value("_elementor_data"):
            run.claim_meta("_elementor_data", "_elementor_edit_mode", "_elementor_page_settings",
                           "_elementor_template_type", "_elementor_version")
            app.content.update(service_request(app, run.session, _Writer()), new_id,
                               meta={"layout_source": f"elementor {len(item.meta_value('_elementor_data'))} bytes"})

    app = make_app(plugins=["core", "wordpress_migrate", make_plugin("layouts", register_meta, wordpress_item_imported)])
    admin = create_test_user(app, "administrator")
    summary = run(app)
    assert ("page", 14, 14) in calls and ("post", 20, 20) in calls
    assert not any(post_type in ("attachment", "product", "tribe_events") for post_type, _, _ in calls)
    page = app.client.get("/wp-json/core/v2/pages/14", params={"context": "edit"}, headers=admin.headers).json
    assert page["meta"]["layout_source"].startswith("elementor ") and page["meta"]["layout_source"].endswith(" bytes")
    labels = [label for label, _ in summary.not_imported]
    assert "post meta _elementor_data" not in labels and "post meta _yoast_wpseo_metadesc" in labels


def test_hook_wordpress_taxonomies(make_app):
    def wordpress_taxonomies(app):
        return {"genre": "post_tag", "product_cat": "category"}

    app = make_app(plugins=["core", "wordpress_migrate", make_plugin("genres", wordpress_taxonomies)])
    summary = run(app)
    tags = {tag["id"]: tag["name"] for tag in app.client.get("/wp-json/core/v2/tags", params={"per_page": 100}).json}
    post = app.client.get("/wp-json/core/v2/posts/29").json
    assert "Documentary" in [tags[tag] for tag in post["tags"]]
    categories = [term["slug"] for term in app.client.get("/wp-json/core/v2/categories").json]
    assert "uniform" in categories  # the channel's product_cat term, into categories
    labels = [label for label, _ in summary.not_imported]
    assert "post 29 term genre/documentary" not in labels and "term product_cat/uniform" not in labels
    assert "term nav_menu/main-menu" in labels


def test_hook_html_not_found(make_app):
    def html_not_found(app, request):
        if request.path == "/old-lunch-menu":
            return HtmlView("Moved", "<p>moved</p>", status=301, headers=(("Location", "http://school.test/?lunch=1"),))
        return None

    app = make_app(plugins=["core", make_plugin("oldlinks", html_not_found)])
    moved = app.client.get("/old-lunch-menu", status=301)
    assert moved.headers["Location"] == "http://school.test/?lunch=1"
    missing = app.client.get("/old-dinner-menu", status=404)
    assert "Page not found" in missing.text
    assert app.client.post("/old-lunch-menu", status="*").status_int in (404, 405)  # only GET and HEAD
    assert app.client.get("/wp-json/no/such/route", status=404).json["code"] == "rest_no_route"
