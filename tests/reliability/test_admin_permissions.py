"""Who may open and post to each admin page, generated from `app.registry.admin_pages`.

Every page registered through `register_admin_pages` (the host's and any plugin's) is opened
by each role and by an anonymous visitor, and each of its form `actions` is posted by each
with a valid CSRF token: anonymous visitors are sent to sign in (GET) or refused (POST),
roles without the page's capability get 403, the others get the page; and a refused post
changes nothing in the database.
"""

from __future__ import annotations

import pytest
from webtest import TestApp

from host import AdminPage
from host.auth import sessions
from host.testing import ROLES, create_test_user, make_plugin

from .harness import role_capabilities, snapshot


def _notes_page(page):
    if page.method == "POST":
        page.notice("<p>Noted.</p>")
    return page.form_html("note", "", "Note")


@pytest.fixture
def admin_site(make_app, example_plugin, probe_module):
    """Every plugin, plus one that adds an admin page for editors: plugin pages join the matrix by registering."""
    notes = make_plugin("staff_notes", register_admin_pages=lambda app: [
        AdminPage("Staff notes", "staff-notes", _notes_page, capability="edit_others_posts", actions=("note",))])
    return make_app(extra_plugins=[probe_module, notes])


def _clients(site):
    clients = {"anonymous": (TestApp(site, extra_environ={"HTTP_HOST": "school.test"}), "")}
    for role in ROLES:
        user = create_test_user(site, role)
        token, csrf = sessions.start_session(site, user.id)
        client = TestApp(site, extra_environ={"HTTP_HOST": "school.test"})
        client.set_cookie(sessions.SESSION_COOKIE, token)
        clients[role] = (client, csrf)
    return clients


def _allowed(site, page: AdminPage, role: str) -> bool:
    if role == "anonymous":
        return False
    return not page.capability or page.capability in role_capabilities(site, role)


def test_every_admin_page_and_action_answers_each_role_and_refusals_change_nothing(admin_site):
    site = admin_site
    pages = [page for page, _owner in site.registry.admin_pages.values()]
    assert {"", "plugins", "users", "profile", "settings", "cache", "staff-notes"} <= {page.path for page in pages}
    clients = _clients(site)
    cells = []
    for page in pages:
        url = "/admin/" + page.path
        for role, (client, csrf) in clients.items():
            allowed = _allowed(site, page, role)
            answer = client.get(url, expect_errors=True)
            if role == "anonymous":
                assert answer.status_int == 303 and "/admin/sign-in?next=" in answer.headers["Location"], (url, role)
            else:
                assert answer.status_int == (200 if allowed else 403), (url, role, answer.status_int)
            cells.append((url, "GET", role, answer.status_int))
            for action in page.actions:
                before = snapshot(site)
                answer = client.post(url, {"csrf_token": csrf, "action": action}, expect_errors=True)
                if allowed:
                    assert answer.status_int not in (403, 500), (url, action, role, answer.status_int)
                else:
                    assert answer.status_int == 403, (url, action, role, answer.status_int)
                    assert snapshot(site) == before, f"refused {action} on {url} as {role} changed the database"
                cells.append((url, action, role, answer.status_int))
    refused = [cell for cell in cells if cell[3] == 403]
    assert any(cell[0] == "/admin/staff-notes" and cell[2] == "author" for cell in refused)
    assert any(cell[0] == "/admin/staff-notes" and cell[2] == "editor" and cell[3] == 200 for cell in cells)
    assert all(cell[3] != 403 for cell in cells if cell[0] == "/admin/profile" and cell[2] != "anonymous")
    assert {cell[2] for cell in cells if cell[:2] == ("/admin/settings", "save")} == {"anonymous", *ROLES}


def test_a_refused_settings_save_carrying_a_change_changes_nothing(make_app):
    """The matrix posts bare actions; here each refused role sends a real change, which the administrator's post makes."""
    site = make_app()
    clients = _clients(site)
    change = {"action": "save", "title": "Changed by a refused post", "posts_per_page": "42"}
    before = snapshot(site)
    for role, (client, csrf) in clients.items():
        if role != "administrator":
            assert client.post("/admin/settings", {**change, "csrf_token": csrf}, expect_errors=True).status_int == 403
    assert snapshot(site) == before
    client, csrf = clients["administrator"]
    assert client.post("/admin/settings", {**change, "csrf_token": csrf}).status_int == 200
    assert snapshot(site)["site_settings"] != before["site_settings"]
