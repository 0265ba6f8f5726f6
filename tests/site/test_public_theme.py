"""The default theme: every public page in one layout (skip link, header with the site name and
menu, main, footer, stylesheet), the builder kit's colours, and the operator's template folder."""

from __future__ import annotations

from host.testing import create_test_user

from .helpers import PAGES, SITE, menu_titles, parse_strict


def _page(app, admin, title, **fields):
    fields.setdefault("status", "publish")
    return app.client.post_json(PAGES, {"title": title, **fields}, headers=admin.headers, status=201).json


def test_layout_has_landmarks_menu_and_stylesheet(make_app):
    app = make_app(plugins=["core"], site={"name": "Riverside School", "description": "Learning by the river"})
    admin = create_test_user(app, "administrator")
    about = _page(app, admin, "About us", menu_order=2)
    _page(app, admin, "Admissions", menu_order=1)
    _page(app, admin, "Staff room", status="draft")
    _page(app, admin, "Our history", parent=about["id"])
    _page(app, admin, "Governors only", status="private")

    response = app.client.get(f"/?page_id={about['id']}")
    assert response.status_int == 200 and response.content_type == "text/html"
    document = parse_strict(response.text)
    skip = document.find(".//body/a")
    assert skip.get("href") == "#content" and skip.text == "Skip to content"
    site_link = document.find(".//header//a[@rel='home']")
    assert site_link.get("href") == f"{SITE}/" and site_link.text == "Riverside School"
    assert menu_titles(document) == ["Admissions", "About us"]  # top level, published, by menu order
    current = document.find(".//nav[@aria-label='Site']//a[@aria-current='page']")
    assert current.text == "About us"
    main = document.find(".//main")
    assert main.get("id") == "content" and main.find("h1").text == "About us"
    assert document.find(".//footer") is not None
    assert document.find(".//head/title").text == "About us | Riverside School"
    assert document.find(".//head/link[@rel='https://api.w.org/']").get("href") == f"{SITE}/wp-json/"
    assert document.find(".//head/meta[@name='viewport']") is not None
    for private in ("Staff room", "Governors only"):
        assert private not in response.text

    stylesheet = document.find(".//head/link[@rel='stylesheet']").get("href")
    assert stylesheet.startswith(f"{SITE}/static/theme/theme.css?ver=")
    css = app.client.get(stylesheet.removeprefix(SITE))
    assert css.status_int == 200 and css.content_type == "text/css"
    assert "--builder-color-primary" in css.text and "@media (max-width: 40rem)" in css.text
    app.client.get("/static/theme/../__init__.py", status=404)


def test_not_found_and_front_page_use_the_layout(make_app):
    app = make_app(plugins=["core"])
    for path, status in (("/no-such-page/", 404), ("/", 200), ("/?p=999999", 404)):
        response = app.client.get(path, status=status)
        document = parse_strict(response.text)
        assert document.find(".//main[@id='content']/h1") is not None
        assert document.find(".//header//a[@rel='home']") is not None


def test_builder_kit_colours_reach_the_theme(make_app):
    app = make_app(plugins=["core", "builder"])
    admin = create_test_user(app, "administrator")
    document = parse_strict(app.client.get("/").text)
    links = [link.get("href") for link in document.iterfind(".//head/link[@rel='stylesheet']")]
    assert links[0].startswith(f"{SITE}/static/theme/theme.css") and links[1].startswith(f"{SITE}/builder/kit.css?ver=")
    kit = app.client.get(links[1].removeprefix(SITE))
    assert kit.status_int == 200 and kit.content_type == "text/css"
    assert kit.text.startswith(":root{") and "--builder-color-primary:#1F4E79" in kit.text

    app.client.post_json("/wp-json/builder/v1/globals/colors/primary", {"title": "Primary", "value": "#5A1E6E"},
                         headers=admin.headers, status=200)
    changed = [link.get("href") for link in parse_strict(app.client.get("/").text).iterfind(
        ".//head/link[@rel='stylesheet']")][1]
    assert changed != links[1]  # a new address: browsers never keep the old palette
    assert "--builder-color-primary:#5A1E6E" in app.client.get(changed.removeprefix(SITE)).text


def test_no_builder_no_kit_stylesheet(make_app):
    app = make_app(plugins=["core"])
    links = [link.get("href") for link in parse_strict(app.client.get("/").text).iterfind(".//head/link[@rel='stylesheet']")]
    assert len(links) == 1 and "/static/theme/theme.css" in links[0]


def test_operator_template_folder_wins(make_app, tmp_path):
    folder = tmp_path / "theme"
    folder.mkdir()
    (folder / "site_footer.html").write_text(
        '<footer class="site-footer"><p>Riverside School, 1 River Lane · {{ site_name }}</p></footer>\n')
    app = make_app(plugins=["core"], site={"name": "Riverside <School>", "templates_dir": str(folder)})
    response = app.client.get("/")
    document = parse_strict(response.text)
    assert "".join(document.find(".//footer/p").itertext()) == "Riverside School, 1 River Lane · Riverside <School>"
    assert "Riverside &lt;School&gt;" in response.text  # the operator's template is autoescaped too
    assert document.find(".//header//a[@rel='home']") is not None  # the other templates stay the theme's
    plain = make_app(plugins=["core"])
    assert "1 River Lane" not in plain.client.get("/").text
