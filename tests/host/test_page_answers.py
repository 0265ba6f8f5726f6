"""Pages answer by returning a host.PageAnswer (status, headers, content type, cookies), redirect() or
not_found(), and read one host.Request: over HTTP, the answers a browser gets."""

from __future__ import annotations

from host import AdminPage, HtmlView, Page, PageAnswer, PageRequest, not_found, redirect
from host.admin import AdminRequest
from host.testing import admin_form, admin_sign_in, make_plugin


def lunch_pages():
    def csv_menu(app, request: PageRequest):
        return PageAnswer("day,meal\nMonday,Soup\n", headers={"X-Lunch": "soup", "Cache-Control": "no-cache"},
                          content_type="text/csv; charset=utf-8")

    def full(app, request: PageRequest):
        return PageAnswer("<p>The lunch list is full.</p>", 409, headers=[("Link", "</lunch/>; rel=up")])

    def moved(app, request: PageRequest):
        return redirect(request.site_url + "/lunch/menu.csv", 301)

    def order(app, request: PageRequest):
        if request.form.get("meal") != "Soup":
            return PageAnswer("<p>Choose a meal.</p>", 400)
        return redirect("/lunch/menu.csv").set_cookie("lunch-order", "soup", max_age=3600)

    def day(app, request: PageRequest, name: str):
        if name not in ("monday", "tuesday"):
            return not_found()
        return f"<p>Lunch on {name}</p>"

    def streamed(app, request: PageRequest):
        return PageAnswer((line.encode() for line in ("one\n", "two\n")), content_type="text/plain; charset=utf-8")

    def echo(app, request: PageRequest):
        """What the page's request holds, as text (one line each)."""
        lines = [f"method={request.method}", f"path={request.path}", f"day={request.query_text('day', 'none')}",
                 f"list={request.query_text('list', 'not text')}", f"cookie={request.cookie('flavour')}",
                 f"header={request.header('x-school')}", f"site={request.site_url}",
                 f"client={request.client_address}", f"user={request.user.id}",
                 f"meal={request.form.get('meal', '')}", f"ids={','.join(request.form_list('ids'))}"]
        return PageAnswer("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")

    def kept(app, request: PageRequest):
        return PageAnswer("soup\n", content_type="text/plain; charset=utf-8")

    def download(app, request: PageRequest):
        return PageAnswer("soup\n", content_type="text/plain; charset=utf-8",
                          headers={"Content-Disposition": 'attachment; filename="menu.txt"'})

    return [Page("/lunch/menu.csv", ("GET", "HEAD"), csv_menu), Page("/lunch/full", ("GET",), full),
            Page("/lunch/old-menu", ("GET",), moved), Page("/lunch/order", ("POST",), order),
            Page("/lunch/day/<name>", ("GET",), day), Page("/lunch/streamed", ("GET",), streamed),
            Page("/lunch/echo", ("GET", "POST"), echo), Page("/lunch/kept", ("GET", "HEAD"), kept, cacheable=True),
            Page("/lunch/menu.txt", ("GET", "HEAD"), download, cacheable=True)]


def html_view(app, request: PageRequest):
    if request.query_text("lunch") != "1":
        return None
    request.state.lunch_seen_by_view = request.path  # site_head reads it: the same request object
    return HtmlView("Lunch", "<p>Soup</p>")


def site_head(app, request: PageRequest):
    seen = request.state.get("lunch_seen_by_view")
    return f'<meta name="lunch-view" content="{seen}">' if seen else None


def lunch_plugin():
    return make_plugin("lunch", register_pages=lunch_pages, html_view=html_view, site_head=site_head)


def test_an_answer_carries_its_status_headers_and_content_type(make_app):
    client = make_app(plugins=[lunch_plugin()]).client
    menu = client.get("/lunch/menu.csv")
    assert menu.status_int == 200 and menu.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert menu.headers["X-Lunch"] == "soup" and menu.headers["Cache-Control"] == "no-cache"
    assert menu.text == "day,meal\nMonday,Soup\n"
    assert menu.headers["Link"].endswith('<http://school.test/wp-json/>; rel="https://api.w.org/"')  # the host's
    full = client.get("/lunch/full", status=409)
    assert full.content_type == "text/html" and full.text == "<p>The lunch list is full.</p>"
    assert full.headers["Link"].startswith("</lunch/>; rel=up, <http://school.test/wp-json/>")
    streamed = client.get("/lunch/streamed")
    assert streamed.status_int == 200 and streamed.text == "one\ntwo\n" and streamed.content_type == "text/plain"


def test_redirects_and_cookies(make_app):
    client = make_app(plugins=[lunch_plugin()]).client
    moved = client.get("/lunch/old-menu", status=301)
    assert moved.headers["Location"] == "http://school.test/lunch/menu.csv" and moved.text == ""
    refused = client.post("/lunch/order", {"meal": "Chips"}, status=400)
    assert refused.text == "<p>Choose a meal.</p>" and "Set-Cookie" not in refused.headers
    ordered = client.post("/lunch/order", {"meal": "Soup"}, status=303)
    assert ordered.headers["Location"] == "/lunch/menu.csv"  # a path of this site, sent as it is
    cookie = ordered.headers["Set-Cookie"]
    assert cookie.startswith("lunch-order=soup;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Max-Age=3600" in cookie and "Path=/" in cookie


def test_not_found_answers_the_sites_404_page(make_app):
    client = make_app(plugins=[lunch_plugin()]).client
    assert client.get("/lunch/day/monday").text == "<p>Lunch on monday</p>"
    missing = client.get("/lunch/day/sunday", status=404)
    assert missing.content_type == "text/html" and "Page not found" in missing.text
    assert missing.text == client.get("/nothing/here", status=404).text  # the same page as an unknown address


def test_the_request_reads_the_same_way_on_every_page(make_app, make_user):
    app = make_app(plugins=["core", lunch_plugin()])
    teacher = make_user(app, "editor")
    anonymous = app.client.get("/lunch/echo?day=monday&list[]=a&list[]=b", headers={
        "X-School": "Riverside", "Cookie": "flavour=tomato"}, extra_environ={"REMOTE_ADDR": "192.0.2.7"})
    assert anonymous.text.splitlines() == [
        "method=GET", "path=/lunch/echo", "day=monday", "list=not text", "cookie=tomato", "header=Riverside",
        "site=http://school.test", "client=192.0.2.7", "user=0", "meal=", "ids="]
    posted = app.client.post("/lunch/echo", "meal=Soup&ids=3&ids=5", headers={
        "Authorization": teacher.authorization, "Content-Type": "application/x-www-form-urlencoded"})
    assert posted.text.splitlines()[0] == "method=POST"
    assert posted.text.splitlines()[-3:] == [f"user={teacher.id}", "meal=Soup", "ids=3,5"]


def test_html_hooks_of_one_request_share_its_request(make_app):
    client = make_app(plugins=[lunch_plugin()]).client
    view = client.get("/?lunch=1")
    assert view.status_int == 200 and "<p>Soup</p>" in view.text
    assert '<meta name="lunch-view" content="/">' in view.text
    assert 'name="lunch-view"' not in client.get("/").text


def test_a_cacheable_answer_keeps_its_type_and_validators(make_app):
    client = make_app(plugins=["cache", lunch_plugin()]).client
    first = client.get("/lunch/kept")
    assert first.status_int == 200 and first.content_type == "text/plain" and first.text == "soup\n"
    again = client.get("/lunch/kept", headers={"If-None-Match": first.headers["ETag"]}, status=304)
    assert again.body == b""
    kept = client.get("/lunch/kept")
    assert kept.content_type == "text/plain" and kept.headers["ETag"] == first.headers["ETag"]
    assert kept.headers["X-Cache"] == "hit"
    for _attempt in range(2):  # a download is handed over, never kept
        download = client.get("/lunch/menu.txt")
        assert download.text == "soup\n" and "X-Cache" not in download.headers and "ETag" not in download.headers


def test_admin_pages_answer_the_same_way(make_app, make_user):
    def lunch_admin(page: AdminRequest):
        if page.subpath == "export":
            return PageAnswer("meal\nSoup\n", content_type="text/csv; charset=utf-8",
                              headers={"Content-Disposition": 'attachment; filename="lunch.csv"'})
        if page.subpath == "gone":
            return not_found()
        if page.method == "POST":
            return redirect(page.url() + "?ordered=1")
        if page.query_text("ordered"):
            page.notice("Ordered: soup for Monday.")  # text: the host escapes it
        return page.form_html("order", "", "Order")

    plugin = make_plugin("lunch", register_admin_pages=lambda: [
        AdminPage("Lunch", "lunch", lunch_admin, capability="edit_posts", actions=("order",))])
    app = make_app(plugins=["core", plugin])
    client = admin_sign_in(app, make_user(app, "editor"))
    page = client.get("/admin/lunch")
    ordered = admin_form(page, "order").submit(status=303)
    assert ordered.headers["Location"] == "/admin/lunch?ordered=1" and ordered.headers["Cache-Control"] == "no-store"
    assert "Ordered: soup for Monday." in ordered.follow().text
    export = client.get("/admin/lunch/export")
    assert export.content_type == "text/csv" and export.text == "meal\nSoup\n"  # as it is, not in the layout
    assert export.headers["Cache-Control"] == "no-store" and export.headers["X-Content-Type-Options"] == "nosniff"
    gone = client.get("/admin/lunch/gone", status=404)
    assert gone.content_type == "text/html" and "<nav" in gone.text  # the admin area's own 404, in its layout
