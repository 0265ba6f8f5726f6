"""The WordPress import page (WebTest and headless Chromium against a real `sitehost serve`) and the
`wordpress/import` ability over abilities/v1: both run the same import, and both refuse anyone without
the `import` capability."""

from __future__ import annotations

import time

from host.testing import create_test_user, stop_sitehost
from plugins.wordpress_migrate import jobs
from tests.admin.helpers import form_with, sign_in
from tests.admin.served import init_site, serve

from .helpers import SITE_FILE, count_rows

RUN = "/wp-json/abilities/v1/abilities/wordpress/import/run"


def wait_for_summary(client, url: str = "/admin/wordpress-import", seconds: float = 120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page = client.get(url)
        if "Refresh" not in page.headers:
            return page
        assert "MB read" in page.html.select_one("#progress-line").text
        time.sleep(0.2)
    raise AssertionError("the import did not finish")


def test_the_page_imports_an_upload_in_the_background_and_shows_the_summary(make_app):
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    client = sign_in(app, admin)
    page = client.get("/admin/wordpress-import")
    assert "Import a WordPress export" in page.text and "Past imports" not in page.text
    form = form_with(page, "upload")
    form["wxr_file"] = ("hillside.xml", SITE_FILE.read_bytes(), "text/xml")
    answer = form.submit()
    assert answer.status_int == 200 and "Import 1 started." in answer.text
    done = wait_for_summary(client)
    headline = done.html.select_one("#summary-headline").text
    assert headline.startswith("33 created, 0 updated, 1 unchanged")
    assert "attachment 40 'Hillside logo'" in done.html.text  # no --uploads here: files are named as not imported
    assert "sitehost user set-password LOGIN" in done.text and "jmorgan" in done.text
    rows = done.html.select("section[aria-labelledby=runs-heading] tbody tr")
    assert len(rows) == 1 and "finished" in rows[0].text
    assert app.client.get("/wp-json/core/v2/posts/20").json["title"]["rendered"] == "Welcome back to the spring term"
    assert not list(jobs.upload_folder(app).iterdir())  # the uploaded copy is removed after the run


def test_the_page_refuses_a_missing_file_a_second_run_and_a_hostile_file(make_app):
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    client = sign_in(app, admin)
    page = client.get("/admin/wordpress-import")
    missing = form_with(page, "upload").submit(status=400)
    assert "Choose a WordPress export file" in missing.text
    form = form_with(client.get("/admin/wordpress-import"), "upload")
    form["wxr_file"] = ("bomb.xml", b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><rss>&a;</rss>', "text/xml")
    form.submit()
    failed = wait_for_summary(client)
    assert "refused: the file has a DTD" in failed.html.select_one("[role=alert]").text
    assert count_rows(app, "posts", type="post") == 0
    # while one import moves, a second is refused
    path = jobs.store_upload(app, "x.xml", open(SITE_FILE, "rb"), 10 ** 9)
    with app.db.session(write=True) as session, session.begin():
        table = app.db.metadata.tables["wordpress_import_runs"]
        session.execute(table.insert().values(file_name="other.xml", state="importing", bytes_total=100, bytes_done=10,
                                              summary="", error="", user_id=admin.id, started_gmt=jobs.utcnow(),
                                              updated_gmt=jobs.utcnow()))
    running = client.get("/admin/wordpress-import")
    line = " ".join(running.html.select_one("#progress-line").text.split())
    assert running.headers["Refresh"] == "2" and line == "Importing: 0.0 of 0.0 MB read (other.xml)"
    assert "Import a WordPress export" not in running.text  # no second upload form meanwhile
    path.unlink()


def test_only_the_import_capability_reaches_the_page(make_app):
    app = make_app(plugins=["core", "wordpress_migrate"])
    editor = create_test_user(app, "editor")
    assert sign_in(app, editor).get("/admin/wordpress-import", status=403).status_int == 403
    anonymous = app.client.get("/admin/wordpress-import", status=303)
    assert "/admin/sign-in" in anonymous.headers["Location"]


def test_the_ability_imports_for_an_administrator_and_refuses_others(make_app):
    app = make_app(plugins=["core", "abilities", "wordpress_migrate"])
    admin, editor = create_test_user(app, "administrator"), create_test_user(app, "editor")
    text = SITE_FILE.read_text(encoding="utf-8")
    refused = app.client.post_json(RUN, {"input": {"wxr": text}}, headers=editor.headers, status=403).json
    assert refused["data"]["status"] == 403
    anonymous = app.client.post_json(RUN, {"input": {"wxr": text}}, status=401).json
    assert anonymous["data"]["status"] == 401
    assert count_rows(app, "posts") == 0
    answer = app.client.post_json(RUN, {"input": {"wxr": text}}, headers=admin.headers).json
    assert answer["created"] > 30 and answer["summary"].startswith(f"{answer['created']} created")
    assert {"item": "product 99 'School jumper'", "reason": "no plugin of this site takes the post type 'product'"} \
        in answer["not_imported"]
    assert "pupil.parent" in answer["users_without_password"]
    again = app.client.post_json(RUN, {"input": {"wxr": text}}, headers=admin.headers).json
    assert again["created"] == 0 and again["unchanged"] > 30
    hostile = app.client.post_json(RUN, {"input": {"wxr": "<rss><channel>"}}, headers=admin.headers, status=400).json
    assert hostile["code"] == "wordpress_import_refused" and "malformed XML" in hostile["message"]
    bad_input = app.client.post_json(RUN, {"input": {"wxr": ""}}, headers=admin.headers, status=400).json
    assert bad_input["data"]["status"] == 400


def test_an_administrator_imports_an_export_in_chromium(browser, tmp_path):
    config, login, password = init_site(tmp_path)
    process, site, _rest = serve(config)
    page = browser.new_page()
    try:
        page.goto(site + "/admin/sign-in")
        page.get_by_label("Username or email address").fill(login)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/sign-in" not in url)
        page.get_by_role("navigation", name="Admin").get_by_role("link", name="WordPress import").click()
        page.get_by_label("WordPress export file (.xml)").set_input_files(str(SITE_FILE))
        page.get_by_role("button", name="Import the file").click()
        page.wait_for_selector("#summary-headline", timeout=120_000)  # the page reloads itself until then
        assert "created" in page.locator("#summary-headline").inner_text()
        assert "School jumper" in page.locator("main").inner_text()
        assert "Users without a password" in page.locator("main").inner_text()
    finally:
        page.close()
        stop_sitehost(process)
