"""POST newsletter/v1/form, the reference's contract (§12): 404 not_found, 400 first error key, 200 true.

Only refusals here (they write nothing, so one site serves the module); sign-ups that succeed
are in test_signup.py.
"""

from __future__ import annotations

import json
import time

import pytest

from host.testing import assert_collection, assert_rest_error, make_plugin

from .helpers import API, FORM, REMOTE, Site, standard_site


@pytest.fixture(scope="module")
def site(make_module_app):
    site = standard_site(make_module_app(plugins=["newsletter"]))
    site.add_form("listless", title="No lists yet", lists=[])
    site.add_form("worded", title="Worded", lists=[site.lists["Whole school"]],
                  messages={"invalid_email": "That address does not look right.", "spam": "Bots not welcome."})
    return site


def _post(site, data, status, **kwargs):
    return site.app.client.post(FORM, data, status=status, extra_environ=REMOTE, **kwargs)


def _stamp(seconds_ago: float = 10) -> str:
    return str(int(time.time() - seconds_ago))


def test_no_form_in_the_request_is_not_found(site):
    for data in ({}, {"EMAIL": "parent@example.org"}, {"_newsletter_form": "1"}):
        body = assert_rest_error(_post(site, data, 404), "not_found", 404)
        assert body["message"] == "Resource does not exist."
    for form_id in ("999", "abc", "", "-1", "99999999999999999999"):
        assert_rest_error(_post(site, {"_newsletter_form_id": form_id}, 404), "not_found", 404)
    # GET is not a method of the route
    assert_rest_error(site.app.client.get(FORM, status=404), "rest_no_route", 404)


def test_a_form_without_lists_answers_no_lists_selected_first(site):
    body = assert_rest_error(_post(site, {"_newsletter_form_id": site.forms["listless"], "_newsletter_honeypot": "bot",
                                          "EMAIL": "nope"}, 400), "no_lists_selected", 400)
    assert body["message"] == "Please choose at least one newsletter."


def test_list_choice_with_nothing_of_the_forms_ticked(site):
    form = site.forms["family"]
    for ticked in (["999"], ["abc"], []):
        data = [("_newsletter_form_id", str(form)), ("_newsletter_timestamp", _stamp()), ("EMAIL", "a@example.org")]
        data += [("_newsletter_lists[]", value) for value in ticked] or [("_newsletter_lists", "")]
        assert_rest_error(_post(site, data, 400), "no_lists_selected", 400)


@pytest.mark.parametrize("fields", [
    {"_newsletter_honeypot": "http://spam.example"},
    {"_newsletter_honeypot": "x", "_newsletter_timestamp": None},
    {"_newsletter_timestamp": "now"},
    {"_newsletter_timestamp": None},
    {"_newsletter_timestamp": "nan"},
    {"_newsletter_timestamp": "inf"},
    {"_newsletter_timestamp": "@1"},
], ids=["honeypot", "honeypot-no-stamp", "stamp-text", "stamp-missing", "stamp-nan", "stamp-inf", "stamp-junk"])
def test_honeypot_and_timestamp_mark_spam(site, fields):
    data = {"_newsletter_form_id": site.forms["family"], "_newsletter_timestamp": _stamp(), "EMAIL": "not-an-address",
            **fields}
    data = {key: value for key, value in data.items() if value is not None}
    body = assert_rest_error(_post(site, data, 400), "spam", 400)
    assert body["message"].startswith("Sorry, your sign-up looked automated")


def test_a_timestamp_less_than_two_seconds_old_is_spam(site):
    for seconds_ago in (0, 1, -60):
        data = {"_newsletter_form_id": site.forms["family"], "_newsletter_timestamp": _stamp(seconds_ago),
                "EMAIL": "parent@example.org", "FNAME": "Sam"}
        assert_rest_error(_post(site, data, 400), "spam", 400)


@pytest.mark.parametrize("email", ["", "parent", "parent@", "@example.org", "parent@@example.org", "a b@example.org",
                                   "parent@example", "parent@exa_mple.org", "parent@" + "a" * 300 + ".org"])
def test_invalid_email(site, email):
    data = {"_newsletter_form_id": site.forms["family"], "_newsletter_timestamp": _stamp(), "EMAIL": email,
            "FNAME": "Sam"}
    body = assert_rest_error(_post(site, data, 400), "invalid_email", 400)
    assert body["message"] == "Please enter a valid email address."


def test_required_merge_field_missing(site):
    for fname in ("", "   ", None):
        data = {"_newsletter_form_id": site.forms["family"], "_newsletter_timestamp": _stamp(),
                "EMAIL": "parent@example.org", "LNAME": "Okafor"}
        if fname is not None:
            data["FNAME"] = fname
        body = assert_rest_error(_post(site, data, 400), "required_field_missing", 400)
        assert body["message"] == "Please fill in all the required fields."


def test_error_texts_are_the_forms_own_and_json_bodies_work(site):
    form = site.forms["worded"]
    response = site.app.client.post_json(FORM, {"_newsletter_form_id": form, "_newsletter_timestamp": _stamp(),
                                                "email": "nope"}, status=400, extra_environ=REMOTE)
    assert response.json == {"code": "invalid_email", "message": "That address does not look right.",
                             "data": {"status": 400}}
    response = site.app.client.post_json(FORM, {"_newsletter_form_id": str(form), "_newsletter_honeypot": "x"},
                                         status=400, extra_environ=REMOTE)
    assert response.json["message"] == "Bots not welcome."
    # merge field names are matched in upper case; a nested value is no value
    response = site.app.client.post_json(FORM, {"_newsletter_form_id": site.forms["family"],
                                                "_newsletter_timestamp": _stamp(), "email": "a@example.org",
                                                "fname": {"x": 1}}, status=400, extra_environ=REMOTE)
    assert response.json["code"] == "required_field_missing"


def test_refusals_write_nothing(site):
    assert_collection(site.admin.get(API + "/subscribers"), total=0)


def test_the_check_spam_hook_is_asked_with_the_signup(make_app):
    heard = []

    def check_spam(app, submission):
        heard.append(dict(submission))
        return {"spam": True, "reason": "test"} if submission["email"].startswith("spam") else None

    site = Site(make_app(plugins=["newsletter", make_plugin("spamjudge", check_spam=check_spam)]))
    school = site.add_list("Whole school")
    form = site.add_form("family", lists=[school], fields=[{"tag": "FNAME"}, {"tag": "LNAME"}, {"tag": "CHILD"}])
    data = {"_newsletter_form_id": form, "_newsletter_timestamp": _stamp(5), "EMAIL": "spam@example.org",
            "FNAME": "Ann", "LNAME": "Lee", "CHILD": "Year 7", "NOTDECLARED": "x"}
    assert_rest_error(site.app.client.post(FORM, data, status=400, headers={"User-Agent": "Browser/1.0"},
                                           extra_environ=REMOTE), "spam", 400)
    submission = heard[-1]
    assert set(submission) == {"type", "author", "email", "content", "ip", "user_agent", "guid", "honeypot",
                               "elapsed_seconds"}
    assert (submission["type"], submission["author"], submission["email"]) == ("signup", "Ann Lee", "spam@example.org")
    assert submission["content"] == "CHILD: Year 7"
    assert (submission["ip"], submission["user_agent"], submission["honeypot"]) == ("203.0.113.7", "Browser/1.0", "")
    assert submission["guid"] == f"http://school.test/wp-json/newsletter/v1/forms/{form}"
    assert 4 <= submission["elapsed_seconds"] < 60
    # the hook is asked before the address is checked: a no-opinion answer lets the next check speak
    data["EMAIL"] = "not-an-address"
    assert_rest_error(site.app.client.post(FORM, data, status=400, extra_environ=REMOTE), "invalid_email", 400)
    assert heard[-1]["email"] == "not-an-address"
    assert_collection(site.admin.get(API + "/subscribers"), total=0)


def test_oversized_and_odd_bodies_are_refused_cleanly(site):
    many = {f"F{index}": "x" for index in range(500)}
    many.update({"_newsletter_form_id": site.forms["family"], "_newsletter_timestamp": _stamp(), "EMAIL": "bad"})
    assert_rest_error(_post(site, many, 400), "invalid_email", 400)
    response = site.app.client.post(FORM, json.dumps(["not", "an", "object"]), status=404,
                                    headers={"Content-Type": "application/json"}, extra_environ=REMOTE)
    assert response.json["code"] == "not_found"
