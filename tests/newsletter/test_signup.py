"""Sign-ups that succeed: answer keys, double opt-in, the confirmation mail, limits per address and email."""

from __future__ import annotations

from host.testing import assert_rest_error

from .helpers import API, Site, follow, link_in, local, queued_mails, result_of, standard_site, text_of


def test_double_opt_in_from_sign_up_to_confirmed(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    response = site.sign_up("family", EMAIL="Parent@Example.org", fname="Sam", LNAME="Okafor")
    assert response.json is True and response.status_int == 200
    assert result_of(response) == ("subscribed", "Thank you! Please check your inbox and follow the link in our "
                                                 "email to confirm your sign-up.")
    [person] = site.subscribers()
    assert (person["email"], person["fields"]) == ("Parent@example.org", {"FNAME": "Sam", "LNAME": "Okafor"})
    assert {item["status"] for item in person["subscriptions"]} == {"pending"}
    assert {item["list"] for item in person["subscriptions"]} == set(site.lists.values())
    assert person["subscriptions"][0]["source"] == f"form {site.forms['family']}: Family newsletter"

    [mail] = queued_mails(site.app)
    assert mail["To"] == "Parent@example.org"
    assert mail["Subject"] == "Please confirm your subscription to Riverside School"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["List-Unsubscribe"].startswith("<http://school.test/newsletter/unsubscribe?token=")
    text = text_of(mail)
    assert "Hello Sam," in text and "  - Whole school\n  - Year 7 parents\n" in text
    confirm = link_in(mail, "/newsletter/confirm?token=")

    page = follow(site.app.client, local(confirm), extra_environ={"REMOTE_ADDR": "198.51.100.4"})
    assert page.status_int == 200 and "Subscription confirmed" in page.text
    assert page.headers["Cache-Control"] == "no-store"
    [person] = site.subscribers()
    assert {item["status"] for item in person["subscriptions"]} == {"confirmed"}
    assert all(item["confirmed"] for item in person["subscriptions"])
    again = site.app.client.get(local(confirm))
    assert again.status_int == 200 and "Already confirmed" in again.text

    # nothing new: the same answer as any sign-up (it must not tell who is subscribed); the inbox is told
    assert result_of(site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam", LNAME="Okafor"))[0] == \
        "subscribed"
    mails = queued_mails(site.app)
    assert len(mails) == 2 and mails[1]["Subject"] == "You are already subscribed to Riverside School"
    assert "nothing has changed" in text_of(mails[1]) and "/newsletter/confirm" not in text_of(mails[1])
    assert mails[1]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert {item["status"] for item in site.subscribers()[0]["subscriptions"]} == {"confirmed"}


def test_updated_waits_for_the_new_confirmation(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    school, year7 = site.lists["Whole school"], site.lists["Year 7 parents"]
    site.sign_up("family", **{"EMAIL": "parent@example.org", "FNAME": "Sam", "_newsletter_lists[]": str(school)})
    follow(site.app.client, local(link_in(queued_mails(site.app)[0], "/newsletter/confirm")))
    [person] = site.subscribers()
    assert [(item["list"], item["status"]) for item in person["subscriptions"]] == [(school, "confirmed")]

    # a new list and a changed name: updated; the name changes only once the new link is followed
    response = site.sign_up("family", **{"EMAIL": "parent@example.org", "FNAME": "Samira",
                                         "_newsletter_lists[]": [str(school), str(year7)]})
    assert result_of(response)[0] == "subscribed"  # not "updated": that would tell who is subscribed
    [person] = site.subscribers()
    assert person["fields"] == {"FNAME": "Sam"} and person["pending_fields"] == {"FNAME": "Samira"}
    assert [(item["list"], item["status"]) for item in person["subscriptions"]] == [(school, "confirmed"),
                                                                                    (year7, "pending")]
    mails = queued_mails(site.app)
    assert len(mails) == 2 and "  - Year 7 parents\n" in text_of(mails[1])
    assert "Whole school" not in text_of(mails[1])
    follow(site.app.client, local(link_in(mails[1], "/newsletter/confirm")))
    [person] = site.subscribers()
    assert person["fields"] == {"FNAME": "Samira"} and person["pending_fields"] is None
    assert {item["status"] for item in person["subscriptions"]} == {"confirmed"}
    # a changed field alone is an update too
    site.sign_up("family", **{"EMAIL": "parent@example.org", "FNAME": "Samira", "LNAME": "O",
                              "_newsletter_lists[]": str(school)})
    assert "asked to change your details" in text_of(queued_mails(site.app)[-1])
    assert site.subscribers()[0]["fields"] == {"FNAME": "Samira"}


def test_per_email_limit_stops_mails_not_sign_ups(make_app):
    site = standard_site(make_app(plugins=["newsletter"], config={"newsletter": {"email_limit": 2}}))
    for index in range(4):
        response = site.sign_up("family", environ={"REMOTE_ADDR": f"203.0.113.{index + 10}"},
                                EMAIL="parent@example.org", FNAME=f"Sam{index}")
        assert result_of(response)[0] == "subscribed"
    assert len(queued_mails(site.app)) == 2
    assert site.subscribers()[0]["fields"] == {"FNAME": "Sam3"}  # the newest data stands while pending
    assert len(site.subscribers()) == 1


def test_per_address_limit_answers_429_and_loopback_is_exempt(make_app):
    site = standard_site(make_app(plugins=["newsletter"], config={"newsletter": {"address_limit": 2}}))
    site.admin.post_json(f"{API}/forms/{site.forms['family']}", {"messages": {"rate_limited": "Slow down, please."}})
    for index in range(2):
        site.sign_up("family", EMAIL=f"p{index}@example.org", FNAME="A")
    refused = site.sign_up("family", status=429, EMAIL="p9@example.org", FNAME="A")
    body = assert_rest_error(refused, "rate_limited", 429)
    assert body["message"] == "Slow down, please." and 3500 <= body["data"]["retry_after"] <= 3600
    assert refused.headers["Retry-After"] == str(body["data"]["retry_after"])
    assert len(site.subscribers()) == 2
    # another address is not held back; nor is this machine (exempt_addresses)
    site.sign_up("family", environ={"REMOTE_ADDR": "198.51.100.1"}, EMAIL="p9@example.org", FNAME="A")
    for index in range(3):
        site.sign_up("family", environ={"REMOTE_ADDR": "127.0.0.1"}, EMAIL=f"local{index}@example.org", FNAME="A")
    # bad sign-ups do not use up the allowance of the address
    site2 = standard_site(make_app(plugins=["newsletter"], config={"newsletter": {"address_limit": 1}}))
    for _ in range(3):
        site2.sign_up("family", status=400, EMAIL="bad", FNAME="A")
    site2.sign_up("family", EMAIL="good@example.org", FNAME="A")


def test_behind_a_trusted_proxy_the_forwarded_address_counts(make_app):
    site = standard_site(make_app(plugins=["newsletter"], extra={"trust_proxy": True},
                                  config={"newsletter": {"address_limit": 1}}))
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    site.sign_up("family", environ={**proxy, "HTTP_X_FORWARDED_FOR": "203.0.113.50"}, EMAIL="a@example.org", FNAME="A")
    site.sign_up("family", status=429, environ={**proxy, "HTTP_X_FORWARDED_FOR": "203.0.113.50"},
                 EMAIL="b@example.org", FNAME="B")
    site.sign_up("family", environ={**proxy, "HTTP_X_FORWARDED_FOR": "203.0.113.51"}, EMAIL="b@example.org", FNAME="B")


def test_custom_success_text_and_the_form_encodings(make_app):
    site = Site(make_app(plugins=["newsletter"]))
    school = site.add_list("Whole school")
    site.add_form("plain", lists=[school], messages={"subscribed": "Merci ! Vérifiez votre boîte."})
    response = site.sign_up("plain", EMAIL="a@example.org")
    assert result_of(response) == ("subscribed", "Merci ! Vérifiez votre boîte.")
    assert response.headers["X-Newsletter-Message"].isascii()
    assert "X-Newsletter-Result, X-Newsletter-Message" in response.headers["Access-Control-Expose-Headers"]
    import time
    response = site.app.client.post_json("/wp-json/newsletter/v1/form", {
        "_newsletter_form_id": site.forms["plain"], "_newsletter_timestamp": time.time() - 3,
        "_newsletter_form_element_id": "footer-form", "_newsletter_form_instance": 2, "EMAIL": "b@example.org"},
        extra_environ={"REMOTE_ADDR": "203.0.113.9"})
    assert response.json is True
    response = site.app.client.post("/wp-json/newsletter/v1/form", upload_files=[], params={
        "_newsletter_form_id": str(site.forms["plain"]), "_newsletter_timestamp": str(time.time() - 3),
        "EMAIL": "c@example.org"}, content_type="multipart/form-data", extra_environ={"REMOTE_ADDR": "203.0.113.9"})
    assert response.json is True
    assert [person["email"] for person in site.subscribers()] == ["a@example.org", "b@example.org", "c@example.org"]


def test_forgotten_rate_events_are_cleaned_up(make_app, monkeypatch):
    import datetime

    from sqlalchemy import func, insert, select

    from host import ratelimit

    site = standard_site(make_app(plugins=["newsletter"]))
    events = site.app.host_tables["rate_events"]
    old = datetime.datetime(2020, 1, 1)
    with site.app.db.session(write=True) as session, session.begin():
        session.execute(insert(events), [{"scope": "newsletter.address", "subject": f"192.0.2.{index}", "at": old}
                                         for index in range(5)])
    monkeypatch.setattr(ratelimit, "CLEANUP_SHARE", 1.0)  # clean on this sign-up instead of one in a hundred
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")
    with site.app.db.session() as session:
        assert session.execute(select(func.count()).select_from(events).where(events.c.at == old)).scalar_one() == 0
        assert session.execute(select(func.count()).select_from(events)).scalar_one() == 2  # this address and email


def test_a_failing_spam_judge_does_not_shut_the_form(make_app, caplog):
    from host.testing import make_plugin

    def check_spam(app, submission):
        raise RuntimeError("spam service unreachable")

    site = standard_site(make_app(plugins=["newsletter", make_plugin("brokenjudge", check_spam=check_spam)]))
    assert result_of(site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam"))[0] == "subscribed"
    assert "a check_spam implementation failed" in caplog.text
