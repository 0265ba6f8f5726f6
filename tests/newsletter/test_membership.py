"""The public form never tells who is on a list, and an unsubscribe form only mails a link.

A confirmed subscriber's data never changes without a click in their own inbox: an anonymous
caller who types someone's address into an unsubscribe form gets the same answer as for any
address, and the subscriber gets a mail whose link (one button) ends the subscription.
"""

from __future__ import annotations

from .helpers import follow, link_in, local, queued_mails, result_of, standard_site, text_of

LOCAL = {"REMOTE_ADDR": "127.0.0.1"}  # exempt from the address limit: these tests send many sign-ups


def _statuses(site, email: str) -> dict[int, str]:
    [person] = [person for person in site.subscribers() if person["email"] == email]
    return {item["list"]: item["status"] for item in person["subscriptions"]}


def _confirmed(site, email: str, **fields) -> None:
    site.sign_up("family", environ=LOCAL, EMAIL=email, FNAME="Sam", **fields)
    follow(site.app.client, local(link_in(queued_mails(site.app)[-1], "/newsletter/confirm")))


def test_an_unsubscribe_form_mails_a_link_and_changes_nothing_until_it_is_used(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    site.add_form("leave year 7", action="unsubscribe", lists=[site.lists["Year 7 parents"]])
    _confirmed(site, "parent@example.org")
    before = len(queued_mails(site.app))

    response = site.sign_up("leave year 7", EMAIL="parent@example.org")  # anyone may type the address
    assert result_of(response)[0] == "unsubscribe_requested" and response.json is True
    assert set(_statuses(site, "parent@example.org").values()) == {"confirmed"}

    [mail] = queued_mails(site.app)[before:]
    assert mail["To"] == "parent@example.org" and mail["Subject"] == "Unsubscribe from Riverside School"
    assert "  - Year 7 parents\n" in text_of(mail) and "Whole school" not in text_of(mail)
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = local(link_in(mail, "/newsletter/unsubscribe?token="))
    assert link == local(mail["List-Unsubscribe"].strip("<>"))
    page = site.app.client.get(link)  # opening the link shows the button; still nothing changes
    assert "Unsubscribe" in page.text and set(_statuses(site, "parent@example.org").values()) == {"confirmed"}
    done = follow(site.app.client, link)
    assert "You have been unsubscribed from Year 7 parents" in done.text
    assert _statuses(site, "parent@example.org") == {site.lists["Whole school"]: "confirmed",
                                                     site.lists["Year 7 parents"]: "unsubscribed"}

    # a form with both lists: one link ends both (the lists the person still has)
    site.sign_up("leave", EMAIL="parent@example.org")
    both = local(link_in(queued_mails(site.app)[-1], "/newsletter/unsubscribe?token="))
    assert "from Whole school" in site.app.client.get(both).text
    follow(site.app.client, both)
    assert set(_statuses(site, "parent@example.org").values()) == {"unsubscribed"}
    # nothing left to end: no further mail
    count = len(queued_mails(site.app))
    site.sign_up("leave", EMAIL="parent@example.org")
    assert len(queued_mails(site.app)) == count


def _answer(response) -> tuple:
    return response.status, sorted(response.headerlist), response.body


def test_every_answer_to_an_address_is_the_same_whoever_it_belongs_to(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    school, year7 = site.lists["Whole school"], site.lists["Year 7 parents"]
    site.sign_up("family", environ=LOCAL, EMAIL="pending@example.org", FNAME="Sam")
    _confirmed(site, "confirmed@example.org")
    _confirmed(site, "one-list@example.org", **{"_newsletter_lists[]": str(school)})
    _confirmed(site, "left@example.org")
    follow(site.app.client, local(queued_mails(site.app)[-1]["List-Unsubscribe"].strip("<>")))
    _confirmed(site, "erased@example.org")
    erased = [person for person in site.subscribers() if person["email"] == "erased@example.org"][0]
    site.admin.delete(f"/wp-json/newsletter/v1/subscribers/{erased['id']}", {"force": "true"})
    addresses = ["stranger@example.org", "pending@example.org", "confirmed@example.org", "one-list@example.org",
                 "left@example.org", "erased@example.org"]

    for form, fields in (("family", {"FNAME": "Sam", "_newsletter_lists[]": [str(school), str(year7)]}),
                         ("leave", {})):
        answers = {email: _answer(site.sign_up(form, environ=LOCAL, EMAIL=email, **fields)) for email in addresses}
        assert len(set(map(repr, answers.values()))) == 1, answers
        status, headers, body = answers[addresses[0]]
        assert status == "200 OK" and body == b"true"
        assert dict(headers)["X-Newsletter-Result"] == ("subscribed" if form == "family" else "unsubscribe_requested")
    # the answers were alike; the inboxes were told what concerns them
    assert set(_statuses(site, "confirmed@example.org").values()) == {"confirmed"}  # the unsubscribe only asked
    assert _statuses(site, "one-list@example.org") == {school: "confirmed", year7: "pending"}
