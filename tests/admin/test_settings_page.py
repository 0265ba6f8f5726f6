"""The Settings page over HTTP (WebTest): the REST core/v2/settings route as a form, its
validation errors beside the fields, and refusals (forged CSRF, non-administrators) that change nothing."""

from __future__ import annotations

from host.auth.users import first_administrator_email
from host.testing import TEST_SITE_ADDRESS, create_test_user

from .helpers import csrf_of, form_with, sign_in


def rest_settings(site, people) -> dict:
    return site.client.get("/wp-json/core/v2/settings", headers=people["administrator"].headers).json


def control(page, name: str):
    element = page.html.select_one(f"#field-{name}")
    assert element is not None, f"no field for {name}"
    return element


def error_beside(page, name: str) -> str:
    """The error shown beside a field, checking the field points at it for screen readers."""
    error = page.html.select_one(f"#field-{name}-error")
    assert error is not None, f"no error beside {name}"
    field = control(page, name)
    assert field["aria-invalid"] == "true"
    assert f"field-{name}-error" in field["aria-describedby"].split()
    assert error.find_parent("div", class_="field") is field.find_parent("div", class_="field")
    return error.text


def test_the_page_lists_every_setting_with_its_current_value_as_a_field_of_its_kind(site, people):
    site.client.post_json("/wp-json/core/v2/settings", {"posts_per_page": 7},
                          headers=people["administrator"].headers)
    values = rest_settings(site, people)
    page = sign_in(site, people["administrator"]).get("/admin/settings")
    assert page.status_int == 200
    form = form_with(page, "save")
    assert form["csrf_token"].value and form.method.lower() == "post"
    for name, value in values.items():
        if name in ("use_smilies", "default_ping_status"):
            continue  # inert here: left out of the page (see the test below)
        field = control(page, name)
        label = page.html.select_one(f"label[for=field-{name}]")
        assert label is not None and label.text.strip(), name
        if isinstance(value, bool):
            assert field["type"] == "checkbox" and ("checked" in field.attrs) == value
        elif name in ("show_on_front", "default_comment_status"):
            assert field.name == "select"
            assert field.select_one("option[selected]")["value"] == value
        elif isinstance(value, int) or value is None:
            assert field["type"] == "number" and field["value"] == ("" if value is None else str(value))
        else:
            assert field["value"] == value, name
    assert control(page, "posts_per_page")["value"] == "7"
    assert (control(page, "posts_per_page")["min"], control(page, "posts_per_page")["max"]) == ("1", "100")
    assert control(page, "email")["type"] == "email" and control(page, "url")["type"] == "url"
    assert [option["value"] for option in control(page, "show_on_front").select("option")] == ["posts", "page"]
    help_text = page.html.select_one("#field-timezone-help").text
    assert help_text == "A city in the same timezone as you."  # the route's own description
    assert control(page, "timezone")["aria-describedby"] == "field-timezone-help"


def test_a_valid_change_is_saved_through_the_route_and_shown(site, people):
    client = sign_in(site, people["administrator"])
    form = form_with(client.get("/admin/settings"), "save", title="Riverside Primary", posts_per_page="25",
                     timezone="Europe/London", show_on_front="page", page_on_front="3")
    answer = form.submit()
    assert answer.status_int == 200
    notice = answer.html.select_one(".notice[role=status]").text
    assert notice.startswith("Settings saved:") and "Site title" in notice and "Blog pages show at most" in notice
    assert control(answer, "title")["value"] == "Riverside Primary" and control(answer, "posts_per_page")["value"] == "25"
    saved = rest_settings(site, people)
    assert (saved["title"], saved["posts_per_page"], saved["timezone"], saved["show_on_front"],
            saved["page_on_front"]) == ("Riverside Primary", 25, "Europe/London", "page", 3)
    again = form_with(client.get("/admin/settings"), "save")
    assert again["title"].value == "Riverside Primary"
    again["posts_per_page"] = ""  # empty: back to the default
    answer = again.submit()
    saved = rest_settings(site, people)
    assert saved["posts_per_page"] == 10 and saved["title"] == "Riverside Primary"
    unchanged = form_with(answer, "save").submit()
    assert "Nothing to save" in unchanged.text and rest_settings(site, people) == saved


def test_the_site_address_changed_here_is_the_base_of_new_guids(site, people):
    client = sign_in(site, people["administrator"])
    page = client.get("/admin/settings")
    assert control(page, "url")["value"] == TEST_SITE_ADDRESS
    answer = form_with(page, "save", url="https://www.riverside.example").submit()
    assert answer.status_int == 200 and "Site address (URL)" in answer.html.select_one(".notice[role=status]").text
    assert rest_settings(site, people)["url"] == "https://www.riverside.example"
    post = site.client.post_json("/wp-json/core/v2/posts", {"title": "After the move"},
                                 headers={**people["editor"].headers, "Host": "evil.example"}).json
    assert post["guid"]["raw"] == f"https://www.riverside.example/?p={post['id']}"


def test_a_bad_timezone_is_shown_beside_its_field_with_the_values_kept_and_nothing_saved(site, people):
    before = rest_settings(site, people)
    client = sign_in(site, people["administrator"])
    form = form_with(client.get("/admin/settings"), "save", title="Changed title", timezone="Mars/Olympus_Mons")
    answer = form.submit(status=400)
    assert error_beside(answer, "timezone") == "Timezone is not a known time zone."
    assert answer.html.select_one(".notice.error[role=alert]") is not None
    assert control(answer, "timezone")["value"] == "Mars/Olympus_Mons" and control(answer, "title")["value"] == "Changed title"
    assert answer.html.select_one("#field-title-error") is None
    assert rest_settings(site, people) == before


def test_a_wrong_type_or_a_value_out_of_range_is_shown_beside_its_field_and_nothing_saved(site, people):
    before = rest_settings(site, people)
    client = sign_in(site, people["administrator"])
    page = client.get("/admin/settings")
    answer = form_with(page, "save", posts_per_page="many", description="A new tagline").submit(status=400)
    assert error_beside(answer, "posts_per_page") == "Enter a whole number."
    assert control(answer, "posts_per_page")["value"] == "many" and control(answer, "description")["value"] == "A new tagline"
    answer = form_with(page, "save", posts_per_page="0", start_of_week="9", email="not an address").submit(status=400)
    assert "between 1 (inclusive) and 100" in error_beside(answer, "posts_per_page")
    assert "between 0 (inclusive) and 6" in error_beside(answer, "start_of_week")
    assert control(answer, "start_of_week")["value"] == "9" and control(answer, "email")["value"] == "not an address"
    answer = form_with(page, "save", email="not an address").submit(status=400)
    assert error_beside(answer, "email") == "Invalid email address."
    token = csrf_of(client)
    answer = client.post("/admin/settings", {"csrf_token": token, "action": "save", "show_on_front": "everything"},
                         status=400)
    assert "not one of posts, page" in error_beside(answer, "show_on_front")
    assert rest_settings(site, people) == before


def test_a_forged_csrf_token_is_refused_and_changes_nothing(site, people):
    before = rest_settings(site, people)
    client = sign_in(site, people["administrator"])
    form = form_with(client.get("/admin/settings"), "save", title="Forged")
    form["csrf_token"] = "forged-token"
    answer = form.submit(status=403)
    assert "Form expired" in answer.text
    client.post("/admin/settings", {"action": "save", "title": "No token"}, status=403)
    assert rest_settings(site, people) == before


def test_users_without_manage_options_are_refused_and_change_nothing(site, people):
    before = rest_settings(site, people)
    for role in ("editor", "author", "subscriber"):
        client = sign_in(site, people[role])
        assert client.get("/admin/settings", status=403).html.select_one("#field-title") is None
        client.post("/admin/settings", {"csrf_token": csrf_of(client), "action": "save", "title": role}, status=403)
    anonymous = site.client.get("/admin/settings", status=303)
    assert "/admin/sign-in?next=" in anonymous.headers["Location"]
    assert rest_settings(site, people) == before


def test_without_the_core_plugin_the_page_says_settings_are_unavailable(make_app):
    site = make_app(disabled=["core"])
    admin = create_test_user(site, "administrator")
    client = sign_in(site, admin)
    page = client.get("/admin/settings")
    assert "Settings are unavailable" in page.text and page.html.select_one("#field-title") is None
    answer = client.post("/admin/settings", {"csrf_token": csrf_of(client), "action": "save", "title": "x"}, status=409)
    assert "Nothing was saved" in answer.text



def test_settings_page_leaves_out_inert_options_and_shows_the_administration_email(site, people):
    page = sign_in(site, people["administrator"]).get("/admin/settings")
    assert page.html.select_one("#field-use_smilies") is None  # sitehost draws no emoticons
    assert page.html.select_one("#field-default_ping_status") is None  # nor sends pingbacks
    assert "emoticons" not in page.text.lower() and "link notifications" not in page.text.lower()
    with site.db.session() as session:
        oldest_administrator = first_administrator_email(site, session)
    assert "@" in oldest_administrator
    assert control(page, "email")["value"] == oldest_administrator  # not an empty field
    assert rest_settings(site, people)["email"] == oldest_administrator
