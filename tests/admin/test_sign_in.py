"""Sign-in, sessions, CSRF and security headers of the admin area (WebTest, no browser)."""

from __future__ import annotations

from .helpers import browser, csrf_of, sign_in


def test_anonymous_visitors_are_sent_to_the_sign_in_page(site):
    client = browser(site)
    answer = client.get("/admin/users")
    assert answer.status_int == 303
    assert answer.headers["Location"].endswith("/admin/sign-in?next=/admin/users")
    form_page = answer.follow()
    assert form_page.status_int == 200
    cookie = form_page.headers["Set-Cookie"]
    assert cookie.startswith("sitehost_form=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert form_page.forms[0]["csrf_token"].value
    assert client.post("/admin/users", {"action": "create"}, status=403)


def test_sign_in_goes_to_the_page_asked_for_and_sets_a_session_cookie(site, people):
    admin = people["administrator"]
    client = browser(site)
    form = client.get("/admin/sign-in?next=/admin/users").forms[0]
    form["log"], form["pwd"] = admin.login, admin.password
    answer = form.submit()
    assert answer.status_int == 303 and answer.headers["Location"].endswith("/admin/users")
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith("sitehost_session=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    page = answer.follow()
    assert page.status_int == 200 and "<h1>Users</h1>" in page.text
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in csp and "form-action 'self'" in csp and "default-src 'self'" in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Cache-Control"] == "no-store"


def test_sign_in_errors_keep_the_login_and_say_what_is_wrong(site, people):
    admin = people["administrator"]
    client = browser(site)
    form = client.get("/admin/sign-in").forms[0]
    form["log"], form["pwd"] = admin.login, "wrong password"
    answer = form.submit()
    assert answer.status_int == 200 and "incorrect" in answer.text
    assert answer.forms[0]["log"].value == admin.login
    form = answer.forms[0]
    form["log"], form["pwd"] = "", ""
    assert form.submit(status=400).status_int == 400


def test_a_forged_sign_in_token_gets_403(site, people):
    admin = people["administrator"]
    client = browser(site)
    client.get("/admin/sign-in")
    answer = client.post("/admin/sign-in", {"csrf_token": "forged" * 8, "log": admin.login, "pwd": admin.password},
                         status=403)
    assert "sitehost_session" not in answer.headers.get("Set-Cookie", "")


def test_sign_in_limits_apply(site, people):
    editor = people["editor"]
    client = browser(site, "192.0.2.44")
    for _attempt in range(3):
        form = client.get("/admin/sign-in").forms[0]
        form["log"], form["pwd"] = editor.login, "guess"
        form.submit()
    form = client.get("/admin/sign-in").forms[0]
    form["log"], form["pwd"] = editor.login, editor.password
    refused = form.submit(status=429)
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many failed sign-in attempts" in refused.text


def test_users_without_manage_options_reach_only_their_profile_and_content_pages(site, people):
    client = sign_in(site, people["editor"])
    landing = client.get("/admin/sign-in")
    assert landing.status_int == 303 and landing.headers["Location"].endswith("/admin/profile")
    assert client.get("/admin/", status=403).status_int == 403
    assert client.get("/admin/plugins", status=403).status_int == 403
    profile = client.get("/admin/profile")
    assert profile.status_int == 200
    menu = [link.text for link in profile.html.select("nav a")]
    assert menu[0] == "Your profile"
    assert {"Posts", "Pages", "Comments", "Contact forms"} <= set(menu)  # core's and the forms plugin's pages for editors
    assert not {"Dashboard", "Plugins", "Users", "Settings", "Cache", "Form submissions", "Calendar"} & set(menu)
    subscriber = sign_in(site, people["subscriber"]).get("/admin/profile")
    assert [link.text for link in subscriber.html.select("nav a")] == ["Your profile"]


def test_sign_out_ends_the_session(site, people):
    client = sign_in(site, people["administrator"])
    token = csrf_of(client)
    assert client.post("/admin/sign-out", {"csrf_token": "forged"}, status=403)
    answer = client.post("/admin/sign-out", {"csrf_token": token})
    assert answer.status_int == 303 and answer.headers["Location"].endswith("/admin/sign-in")
    assert client.get("/admin/").status_int == 303


def test_a_forged_csrf_token_gets_403_on_every_form_and_changes_nothing(site, people):
    client = sign_in(site, people["administrator"])
    before = len(client.get("/admin/users").html.select("main table tbody tr"))
    for page in site.registry.admin_pages.values():
        for action in page[0].actions:
            answer = client.post(f"/admin/{page[0].path}", {"action": action, "csrf_token": "forged" * 8,
                                                              "login": "forged", "email": "f@school.test",
                                                              "role": "editor", "plugin": "oembed"}, status=403)
            assert "expired" in answer.text
    assert len(client.get("/admin/users").html.select("main table tbody tr")) == before
    assert "oembed/1.0" in site.registry.namespaces


def test_the_stylesheet_is_served_by_sitehost(site):
    answer = browser(site).get("/admin/style.css")
    assert answer.content_type == "text/css" and ":focus-visible" in answer.text


UNCLEAN_NEXT = ["/admin/%0d%0aSet-Cookie:%20x=1", "/admin/%0aLocation:%20https://evil.test", "/admin/%09tab",
                "/admin/%7f", "/admin/%c2%85", "/admin/caf%c3%a9", "/admin/a b", "/admin/../core", "/admin/./users",
                "https://evil.test/admin/", "//evil.test/admin/", "/admin/\\evil", "/wp-json/", ""]


def test_a_next_that_is_not_a_clean_same_site_path_goes_to_the_dashboard(site, people):
    """A header-breaking `next` answered 500 to a signed-in user and lost the new session's cookie on POST."""
    client = sign_in(site, people["administrator"])
    for wanted in UNCLEAN_NEXT:
        answer = client.get(f"/admin/sign-in?next={wanted}")
        assert answer.status_int == 303, wanted
        assert answer.headers["Location"] == "/admin/", wanted
        assert "Set-Cookie" not in answer.headers, wanted
    assert client.get("/admin/sign-in?next=/admin/users?tab=roles%26x").headers["Location"] == \
        "/admin/users?tab=roles&x"

    admin = people["administrator"]
    fresh = browser(site)
    form = fresh.get("/admin/sign-in?next=/admin/%0d%0aSet-Cookie:%20x=1").forms[0]
    form["log"], form["pwd"] = admin.login, admin.password
    answer = form.submit()
    assert answer.status_int == 303 and answer.headers["Location"] == "/admin/"
    assert [name for name, value in answer.headerlist if name == "Set-Cookie" and value.startswith("x=")] == []
    assert answer.headers["Set-Cookie"].startswith("sitehost_session=")
    assert answer.follow().status_int == 200
