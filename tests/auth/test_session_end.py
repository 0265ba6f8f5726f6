"""Browser sessions end with what they were based on.

A session of the authorize page survived a password change, a role change and the deletion
of every application password, and could still mint a new application password. Each of
those events now ends the user's sessions in the same transaction.
"""

from __future__ import annotations

import pytest
from webtest import TestApp

from .helpers import basic

PAGE = "/authorize-application"
QUERY = "app_name=Planner"
USERS = "/wp-json/core/v2/users"


def signed_in_browser(site, person):
    client = TestApp(site, extra_environ={"HTTP_HOST": "school.test", "REMOTE_ADDR": "192.0.2.9"})
    form = client.get(f"{PAGE}?{QUERY}").forms[0]
    form["log"], form["pwd"] = person.login, person.password
    assert form.submit().status_int == 303
    page = client.get(f"{PAGE}?{QUERY}")
    assert page.forms[0].action and "name" in page.forms[0].fields  # the approve form: signed in
    return client


def approve_page_or_login(client):
    page = client.get(f"{PAGE}?{QUERY}")
    return "approve" if "name" in page.forms[0].fields else "login"




def change_password(site, people, person):
    site.client.post_json(f"{USERS}/{person.id}", {"password": "a brand new password 42"},
                          headers=people["administrator"].headers)


def change_role(site, people, person):
    site.client.post_json(f"{USERS}/{person.id}", {"roles": ["author"]}, headers=people["administrator"].headers)


def delete_every_application_password(site, people, person):
    response = site.client.delete(f"{USERS}/{person.id}/application-passwords",
                                  headers=people["administrator"].headers)
    assert response.json["deleted"] is True


def delete_the_last_application_password(site, people, person):
    listed = site.client.get(f"{USERS}/{person.id}/application-passwords", headers=people["administrator"].headers).json
    for record in listed:
        site.client.delete(f"{USERS}/{person.id}/application-passwords/{record['uuid']}",
                           headers=people["administrator"].headers)


@pytest.mark.parametrize("event", [change_password, change_role, delete_every_application_password,
                                   delete_the_last_application_password])
def test_the_event_ends_the_session_and_it_can_mint_nothing(site, people, event):
    editor = people["editor"]
    client = signed_in_browser(site, editor)
    approve_form = client.get(f"{PAGE}?{QUERY}").forms[0]  # taken while the session was alive
    event(site, people, editor)
    before = site.client.get(f"{USERS}/{editor.id}/application-passwords", headers=people["administrator"].headers).json
    submitted = approve_form.submit("action", value="approve", expect_errors=True)
    assert submitted.status_int != 302 and "password=" not in submitted.headers.get("Location", "")
    after = site.client.get(f"{USERS}/{editor.id}/application-passwords", headers=people["administrator"].headers).json
    assert len(after) == len(before)
    assert approve_page_or_login(client) == "login"


def test_profile_edits_keep_the_session(site, people):
    editor = people["editor"]
    client = signed_in_browser(site, editor)
    site.client.post_json(f"{USERS}/{editor.id}", {"description": "Teaches music"}, headers=basic(editor.login, editor.app_password))
    site.client.post_json(f"{USERS}/{editor.id}", {"roles": ["editor"]}, headers=people["administrator"].headers)
    assert approve_page_or_login(client) == "approve"


def test_a_deleted_user_has_no_session(site, people):
    author = people["author"]
    client = signed_in_browser(site, author)
    site.client.delete(f"{USERS}/{author.id}?force=true&reassign={people['administrator'].id}",
                       headers=people["administrator"].headers)
    assert approve_page_or_login(client) == "login"
