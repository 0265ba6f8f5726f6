"""Every admin page and the error paths of every form (WebTest): field errors beside the fields,
values kept, nothing changed on an error, secrets shown once."""

from __future__ import annotations

from host import AdminPage, PageAnswer
from host.auth import users as user_service
from host.plugin_state import read_stored_disabled
from host.testing import basic_auth_headers, create_test_user, make_plugin

from .helpers import form_with, sign_in


def field_error(page, name: str) -> str:
    element = page.html.select_one(f"#field-{name}-error")
    assert element is not None, f"no error beside {name}"
    assert page.html.select_one(f"#field-{name}")["aria-invalid"] == "true"
    return element.text


def user_count(site) -> int:
    with site.db.session() as session:
        return len(user_service.list_users(site, session))


def stored_disabled(site):
    with site.db.engine.connect() as connection:
        return read_stored_disabled(connection)


def test_dashboard_shows_the_site_version_plugins_and_health_results(site, people):
    page = sign_in(site, people["administrator"]).get("/admin/")
    text = page.text
    assert "Riverside School" in text or site.settings.site["name"] in text
    assert "sitehost version" in text and "Enabled plugins" in text
    rows = page.html.select("section[aria-labelledby=health-heading] tbody tr")
    assert len(rows) == len(site.registry.health_tests) > 0
    assert {row.select_one(".status").text for row in rows} <= {"good", "recommended", "critical"}


def test_dashboard_without_site_health_runs_the_basic_checks(make_app, people):
    site = make_app(disabled=["site_health"])
    admin = create_test_user(site, "administrator")
    page = sign_in(site, admin).get("/admin/")
    assert "The database answers" in page.text and "only the basic checks" in page.text


def test_the_basic_checks_name_the_object_store_the_uploads_are_kept_in(make_app, s3_server):
    site = make_app(disabled=["site_health"], storage=s3_server.storage_settings())
    page = sign_in(site, create_test_user(site, "administrator")).get("/admin/")
    assert "The uploads are kept in the object store" in page.text
    assert f"s3://{site.storage.settings.bucket}/" in page.text


def test_plugins_page_lists_every_plugin_and_disables_and_enables_through_the_stored_set(site, people):
    client = sign_in(site, people["administrator"])
    page = client.get("/admin/plugins")
    names = [row.select_one("strong").text for row in page.html.select("main tbody tr")]
    assert names == [record.name for record in site.plugin_records]
    assert "<code>oembed/1.0</code>" in page.text
    answer = form_with(page, "disable", _match={"plugin": "oembed"}).submit()
    assert answer.status_int == 200 and "oembed</strong> disabled" in answer.text
    assert "disabling: reloading" in answer.text
    assert "oembed" in stored_disabled(site)
    answer = form_with(answer, "enable", _match={"plugin": "oembed"}).submit()
    assert "oembed" not in stored_disabled(site)


def test_disabling_a_plugin_others_require_names_them_and_changes_nothing(make_app):
    needed = make_plugin("lunch_menu", version="1.0")
    needing = make_plugin("lunch_orders", version="1.0", requires=("lunch_menu",))
    site = make_app(plugins=["core", "cache", needed, needing])
    admin = create_test_user(site, "administrator")
    client = sign_in(site, admin)
    page = client.get("/admin/plugins")
    refused = form_with(page, "disable", _match={"plugin": "lunch_menu"}).submit(status=409)
    assert "lunch_orders" in refused.html.select_one(".notice.error").text
    assert "Nothing was changed" in refused.text
    assert stored_disabled(site) is None
    token = page.forms[1]["csrf_token"].value
    unknown = client.post("/admin/plugins", {"csrf_token": token, "action": "disable", "plugin": "nonesuch"},
                          status=409)
    assert "no plugin named" in unknown.text.lower() and stored_disabled(site) is None


def test_create_user_errors_are_shown_beside_the_fields_and_values_kept(site, people):
    client = sign_in(site, people["administrator"])
    before = user_count(site)
    page = client.get("/admin/users")
    answer = form_with(page, "create", login="", email="not an address", role="editor").submit(status=400)
    assert field_error(answer, "login") == "Enter a login."
    assert "email address" in field_error(answer, "email")
    assert answer.html.select_one("#field-email")["value"] == "not an address"
    assert answer.html.select_one("#field-role option[selected]")["value"] == "editor"
    answer = form_with(answer, "create", login="x" * 61, email="a@school.test", password="short").submit(status=400)
    assert "60" in field_error(answer, "login") and "8" in field_error(answer, "password")
    taken = people["editor"]
    answer = form_with(answer, "create", login=taken.login, email="new@school.test", password="").submit(status=400)
    assert "login" in field_error(answer, "login").lower()
    token = answer.forms[1]["csrf_token"].value
    answer = client.post("/admin/users", {"csrf_token": token, "action": "create", "login": "pat",
                                          "email": "pat@school.test", "role": "overlord"}, status=400)
    assert field_error(answer, "role") == "Choose one of the roles."
    assert user_count(site) == before


def test_create_user_shows_a_made_up_password_once(site, people):
    client = sign_in(site, people["administrator"])
    page = client.get("/admin/users")
    answer = form_with(page, "create", login="pat", email="pat@school.test", role="author", password="").submit(status=201)
    password = answer.html.select_one(".notice.secret kbd").text
    assert len(password) >= 12
    assert password not in client.get("/admin/users").text
    with site.db.session() as session:
        pat = user_service.find_user(site, session, "pat")
        assert pat.roles == ("author",)
        assert user_service.verify_login_password(user_service.login_password_hash(site, session, pat.id), password)


def test_user_page_change_role_reset_unlock_revoke_delete(site, people):
    client = sign_in(site, people["administrator"])
    author = people["author"]
    page = client.get(f"/admin/users/{author.id}")
    assert "Application passwords" in page.text and "tests" in page.text and "never" in page.text
    answer = form_with(page, "role", role="editor").submit()
    assert "is now editor" in answer.text
    with site.db.session() as session:
        assert user_service.get_user(site, session, author.id).roles == ("editor",)
    token = answer.forms[1]["csrf_token"].value
    bad = client.post(f"/admin/users/{author.id}", {"csrf_token": token, "action": "role", "role": "king"}, status=400)
    assert field_error(bad, "role") == "Choose one of the roles."
    # reset: the new password is shown once and works; the old one does not
    answer = form_with(answer, "reset-password").submit()
    new_password = answer.html.select_one(".notice.secret kbd").text
    with site.db.session() as session:
        stored = user_service.login_password_hash(site, session, author.id)
    assert user_service.verify_login_password(stored, new_password)
    assert not user_service.verify_login_password(stored, author.password)
    # unlock forgets the failed sign-ins
    site.client.get("/wp-json/core/v2/users/me", headers=basic_auth_headers(author.login, "wrong"), status=401)
    answer = client.get(f"/admin/users/{author.id}")
    assert "Failed sign-ins</dt><dd>1" in answer.text
    answer = form_with(answer, "unlock").submit()
    assert "1 failed sign-in of" in answer.text and "Failed sign-ins</dt><dd>0" in answer.text
    # revoke: an unknown password is 404, a real one is gone and no longer signs in
    answer = client.post(f"/admin/users/{author.id}", {"csrf_token": token, "action": "revoke", "uuid": "nope"},
                         status=404)
    answer = form_with(client.get(f"/admin/users/{author.id}"), "revoke").submit()
    assert "revoked" in answer.text
    site.client.get("/wp-json/core/v2/users/me", headers={"Authorization": author.authorization}, status=401)
    # delete: an unknown reassignment is refused beside the field; then it goes
    answer = client.post(f"/admin/users/{author.id}", {"csrf_token": token, "action": "delete", "reassign": "999999"},
                         status=400)
    assert field_error(answer, "reassign") == "Choose another existing user."
    answer = form_with(answer, "delete", reassign=str(people["editor"].id)).submit()
    assert f"User {author.login} deleted" in answer.text
    with site.db.session() as session:
        assert user_service.get_user(site, session, author.id) is None
    client.get(f"/admin/users/{author.id}", status=404)
    client.get("/admin/users/not-a-number", status=404)


def test_deleting_an_author_of_content_needs_a_reassignment_and_yourself_is_refused(site, people):
    admin = people["administrator"]
    author = people["author"]
    created = site.client.post_json("/wp-json/core/v2/posts", {"title": "Sports day", "status": "publish"},
                                    headers=author.headers, status=201)
    client = sign_in(site, admin)
    page = client.get(f"/admin/users/{author.id}")
    refused = form_with(page, "delete", reassign="").submit(status=400)
    assert "choose who takes it over" in field_error(refused, "reassign")
    own = form_with(client.get(f"/admin/users/{admin.id}"), "delete").submit(status=400)
    assert "your own account" in field_error(own, "reassign")
    demote = form_with(client.get(f"/admin/users/{admin.id}"), "role", role="editor").submit(status=400)
    assert "yourself" in field_error(demote, "role")
    answer = form_with(client.get(f"/admin/users/{author.id}"), "delete", reassign=str(admin.id)).submit()
    assert answer.status_int == 200
    post = site.client.get(f"/wp-json/core/v2/posts/{created.json['id']}").json
    assert post["author"] == admin.id


def test_profile_password_change_errors_and_success(site, people):
    subscriber = people["subscriber"]
    client = sign_in(site, subscriber)
    page = client.get("/admin/profile")
    answer = form_with(page, "change-password", current_password="wrong", new_password="short",
                       confirm_password="short").submit(status=400)
    assert field_error(answer, "current_password") == "This is not your current password."
    assert "8" in field_error(answer, "new_password")
    answer = form_with(answer, "change-password", current_password=subscriber.password,
                       new_password="a long new password", confirm_password="another one").submit(status=400)
    assert field_error(answer, "confirm_password") == "The two new passwords differ."
    answer = form_with(answer, "change-password", current_password=subscriber.password,
                       new_password="a long new password", confirm_password="a long new password").submit()
    assert "Your password was changed" in answer.text
    with site.db.session() as session:
        stored = user_service.login_password_hash(site, session, subscriber.id)
    assert user_service.verify_login_password(stored, "a long new password")


def test_profile_application_passwords_are_shown_once_and_revocable(site, people):
    editor = people["editor"]
    client = sign_in(site, editor)
    page = client.get("/admin/profile")
    empty = form_with(page, "create-app-password", name="  ").submit(status=400)
    assert "name" in field_error(empty, "name").lower()
    created = form_with(page, "create-app-password", name="Phone").submit(status=201)
    password = created.html.select_one("kbd.new-application-password").text
    site.client.get("/wp-json/core/v2/users/me", headers=basic_auth_headers(editor.login, password), status=200)
    listing = client.get("/admin/profile")
    assert password not in listing.text and "Phone" in listing.text
    token = listing.forms[1]["csrf_token"].value
    client.post("/admin/profile", {"csrf_token": token, "action": "revoke-app-password", "uuid": "nope"}, status=404)
    revoke = next(form for form in listing.forms.values()
                  if form.fields.get("action") and form["action"].value == "revoke-app-password"
                  and form.html.find_parent is not None)
    for form in listing.forms.values():
        if form.fields.get("action") and form["action"].value == "revoke-app-password":
            revoke = form
    answer = revoke.submit()
    assert "revoked" in answer.text


def test_cache_page_shows_the_hit_rate_and_purges(site, people):
    site.client.get("/wp-json/core/v2/posts")
    site.client.get("/wp-json/core/v2/posts")
    client = sign_in(site, people["administrator"])
    page = client.get("/admin/cache")
    assert "Hit rate" in page.text and "%" in page.html.select_one("dl.facts").text
    answer = form_with(page, "purge").submit()
    assert "The cache was purged" in answer.html.select_one(".notice.success").text  # HTML, not escaped text


def test_cache_page_without_the_cache_plugin(make_app):
    """The page is the cache plugin's own (register_admin_pages): without the plugin there is none, in the
    menu or at its address."""
    site = make_app(disabled=["cache"])
    admin = create_test_user(site, "administrator")
    client = sign_in(site, admin)
    dashboard = client.get("/admin/")
    assert "/admin/cache" not in [link["href"] for link in dashboard.html.select("nav a")]
    client.get("/admin/cache", status=404)
    token = client.get("/admin/profile").forms[0]["csrf_token"].value
    client.post("/admin/cache", {"csrf_token": token, "action": "purge"}, status=404)


def test_hook_register_admin_pages(make_app):
    """A plugin adds its own page to the admin area, with its capability and form actions."""
    orders = []

    def lunch_page(page):
        if page.method == "POST":
            meal = page.form.get("meal", "").strip()
            if not meal:
                page.error("meal", "Choose a meal.")
                return PageAnswer(page.form_html("order", page.field("meal", "Meal"), "Order"), 400)
            orders.append((page.user.login, meal))
            page.notice("<p>Ordered.</p>")
        return page.form_html("order", page.field("meal", "Meal"), "Order")

    def register_admin_pages(app):
        return [AdminPage("Lunch", "lunch", lunch_page, capability="edit_posts", actions=("order",))]

    plugin = make_plugin("lunch", register_admin_pages)
    site = make_app(plugins=["core", plugin])
    editor = create_test_user(site, "editor")
    subscriber = create_test_user(site, "subscriber")
    client = sign_in(site, editor)
    page = client.get("/admin/lunch")
    assert [link.text for link in page.html.select("nav a")] == ["Your profile", "Posts", "Pages", "Comments", "Lunch"]
    assert form_with(page, "order", meal="").submit(status=400).html.select_one("#field-meal-error")
    assert "Ordered." in form_with(page, "order", meal="soup").submit().text
    assert orders == [(editor.login, "soup")]
    sign_in(site, subscriber).get("/admin/lunch", status=403)
    assert orders == [(editor.login, "soup")]


def test_a_disabled_plugins_row_keeps_its_description_and_requirements(make_app):
    site = make_app(disabled=["calendar"])
    admin = create_test_user(site, "administrator")
    page = sign_in(site, admin).get("/admin/plugins")
    row = next(row for row in page.html.select("tbody tr") if row.select_one("strong").text == "calendar")
    assert row.select_one(".status").text == "disabled"
    first_cell = row.select_one("td").text
    assert "Events, venues, organizers, event categories and tags" in first_cell
    assert "requires core" in first_cell


def test_every_table_cell_carries_its_column_label_for_phones(site, people):
    page = sign_in(site, people["administrator"]).get("/admin/users")
    table = page.html.select_one("table.stack")
    labels = [header.text for header in table.select("thead th")]
    for row in table.select("tbody tr"):
        assert [cell["data-label"] for cell in row.select("td")] == labels[:len(row.select("td"))]
