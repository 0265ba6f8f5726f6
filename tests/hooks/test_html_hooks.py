"""html_view and html_head: plugins answer permalinks on the front page address and add head tags."""

from host import HtmlView
from host.testing import make_plugin


def test_hook_html_view(make_app):
    def html_view(app, request):
        if request.query.get("lunch") is None:
            return None
        return HtmlView("Lunch", "<p>Soup &amp; bread</p>", headers=(("X-Lunch", "yes"),))

    app = make_app(plugins=[make_plugin("lunchview", html_view)])
    response = app.client.get("/?lunch=today")
    assert response.status_int == 200
    assert "<h1>Lunch</h1>" in response.text and "<p>Soup &amp; bread</p>" in response.text
    assert response.headers["X-Lunch"] == "yes"
    assert 'rel="https://api.w.org/"' in response.headers["Link"]
    assert "<h1>Lunch</h1>" not in app.client.get("/").text  # no opinion: the front page


def test_hook_html_head(make_app):
    def html_view(app, request):
        item = {"id": 7, "type": "note", "status": "publish", "link": "http://school.test/?note=7",
                "rest_url": "http://school.test/wp-json/notes/v1/notes/7"}
        return HtmlView("Note", "<p>n</p>", item=item) if request.query.get("note") else None

    def html_head(app, request, item):
        return f'<meta name="note-id" content="{item["id"]}">'

    app = make_app(plugins=[make_plugin("noteview", html_view), make_plugin("notehead", html_head)])
    assert '<meta name="note-id" content="7">' in app.client.get("/?note=7").text
    assert "note-id" not in app.client.get("/").text


def test_hook_editor_url(make_app):
    from tests.admin.helpers import sign_in
    from host.testing import create_test_user

    def editor_url(app, item, rest_url):
        if item["title"]["raw"].startswith("Built:"):
            return f"https://editor.school.test/edit/{item['id']}?api={rest_url}"
        return None

    app = make_app(plugins=["core", make_plugin("myeditor", editor_url)], extra={"auth": {"slow_seconds": 0}})
    admin = create_test_user(app, "administrator")
    built, plain = (app.client.post_json("/wp-json/core/v2/posts", {"title": title, "status": "publish"},
                                         headers=admin.headers, status=201).json for title in ("Built: fair", "Plain"))
    page = sign_in(app, admin).get("/admin/posts")
    assert page.html.select_one(f"#post-{built['id']} a.edit")["href"] == \
        f"https://editor.school.test/edit/{built['id']}?api=http://school.test/wp-json"
    assert page.html.select_one(f"#post-{plain['id']} a.edit")["href"] == \
        f"http://school.test/wp-json/core/v2/posts/{plain['id']}"  # no answer: the item's REST URL


def test_hook_site_menu_entries(make_app):
    from host import MenuEntry

    def site_menu_entries(app, request):
        return [MenuEntry("Events", "/events/", order=50), MenuEntry("Parents' <portal>", "https://portal.school.test/")]

    app = make_app(plugins=[make_plugin("eventsmenu", site_menu_entries)])
    text = app.client.get("/").text
    assert '<li><a href="http://school.test/events/">Events</a></li>' in text  # a site path made absolute
    assert '<a href="https://portal.school.test/">Parents&#39; &lt;portal&gt;</a>' in text
    assert text.index(">Events<") < text.index("portal&gt;")  # by order: 50 before the default 100
    assert 'aria-current="page">Events<' in app.client.get("/events/", status=404).text


def test_hook_site_stylesheets(make_app):
    def site_stylesheets(app, request):
        return [f"{app.site_url(request.environ)}/colours.css"]

    app = make_app(plugins=[make_plugin("colours", site_stylesheets)])
    text = app.client.get("/").text
    assert text.index("/static/theme/theme.css") < text.index('<link rel="stylesheet" href="http://school.test/colours.css">')


def test_hook_site_head(make_app):
    """Tags on every page of the site, whichever plugin answers it (the front page, a view, the 404 page)."""
    def site_head(app, request):
        return f'<link rel="alternate" type="application/rss+xml" title="Lunch menus" href="{app.site_url(request.environ)}/lunch.rss">'

    def html_view(app, request):
        return HtmlView("Lunch", "<p>Soup</p>") if request.query.get("lunch") else None

    app = make_app(plugins=[make_plugin("lunchfeed", site_head), make_plugin("lunchview", html_view)])
    tag = '<link rel="alternate" type="application/rss+xml" title="Lunch menus" href="http://school.test/lunch.rss">'
    for path, status in (("/", 200), ("/?lunch=today", 200), ("/no-such-page/", 404)):
        page = app.client.get(path, status=status).text
        assert page.count(tag) == 1 and page.index(tag) < page.index("</head>")
