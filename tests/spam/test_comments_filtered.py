"""The filter at work on core/v2/comments: rules, the verdict history, learning from moderators."""

from __future__ import annotations

import pytest

from host.testing import assert_rest_error

from tests.spam.helpers import COMMENTS, SPAM, flush, publish_post, rows, staff, visitor_comment


@pytest.fixture
def site(make_app):
    app = make_app(plugins=["core", "spam"], site={"comment_flood": 0, "disallowed_keys": ["casino", "bad-site.example"]})
    people = staff(app)
    return app, people, publish_post(app, people["editor"].headers)


def test_a_clean_comment_is_judged_ham_and_recorded_with_its_guid(site):
    app, people, post = site
    comment = visitor_comment(app, post, "Will the school bus run on sports day?").json
    assert comment["status"] == "hold"  # a first comment is held by core's rule, not by the filter
    checks = rows(app, "spam_checks")
    assert len(checks) == 1
    check = checks[0]
    assert check["spam"] is False and check["reason"] == "clean" and check["type"] == "comment"
    assert len(check["guid"]) == 36
    assert [row["spam_guid"] for row in rows(app, "comments")] == [check["guid"]]  # stored with the comment
    assert check["email_hash"] and "priya" not in check["email_hash"]  # addresses are kept hashed
    assert [entry["event"] for entry in rows(app, "spam_history")] == ["check-ham"]


def test_disallowed_words_file_the_comment_as_spam_and_strictness_discards_it(site):
    app, people, post = site
    admin = people["administrator"].headers
    # strictness is on by default: the worst spam (a disallowed word) is discarded
    refused = visitor_comment(app, post, "Best CASINO bonus today", status=403)
    assert_rest_error(refused, "rest_comment_discarded", 403)
    assert app.client.get(COMMENTS, {"status": "spam"}, headers=admin).json == []
    checks = rows(app, "spam_checks")
    assert checks[-1]["discarded"] is True and checks[-1]["reason"] == "disallowed_keys"
    # with strictness off it is kept in the spam folder instead
    app.client.post_json(f"{SPAM}/settings", {"spam_strictness": False}, headers=admin, status=200)
    kept = visitor_comment(app, post, "Visit bad-site.example for prizes", address="10.0.0.9").json
    assert kept["status"] == "spam"
    assert [item["id"] for item in app.client.get(COMMENTS, {"status": "spam"}, headers=admin).json] == [kept["id"]]
    assert app.client.get(COMMENTS, {"post": post["id"]}).json == []  # never public


def test_many_links_count_against_a_comment(site):
    app, people, post = site
    links = " ".join(f"http://shop{number}.example/deal" for number in range(6))
    comment = visitor_comment(app, post, f"Great deals {links}").json
    assert comment["status"] == "spam"
    assert rows(app, "spam_checks")[-1]["reason"] == "links"


def test_moderator_decisions_train_the_classifier_and_count_in_the_stats(site):
    app, people, post = site
    admin = people["administrator"].headers
    editor = people["editor"].headers
    spam_texts = [f"Cheap replica watches and pills discount offer number {n}" for n in range(4)]
    ham_texts = [f"Thank you teachers for the lovely assembly about kindness {n}" for n in range(4)]
    made = []
    for number, text in enumerate(spam_texts + ham_texts):
        made.append(visitor_comment(app, post, text, name=f"Person {number}", email=f"p{number}@example.org",
                                    address=f"10.1.0.{number}").json)
    # moderators decide: the spam ones are spam (missed by the empty model), the others approved
    for comment in made[:4]:
        app.client.put_json(f"{COMMENTS}/{comment['id']}", {"status": "spam"}, headers=editor, status=200)
    for comment in made[4:]:
        app.client.put_json(f"{COMMENTS}/{comment['id']}", {"status": "approved"}, headers=editor, status=200)
    flush(app)
    model = rows(app, "spam_model")[0]
    assert (model["spam_docs"], model["ham_docs"]) == (4, 4)
    history = [entry["event"] for entry in rows(app, "spam_history")]
    assert history.count("report-spam") == 4 and history.count("status-changed-approved") == 4
    stats = app.client.get(f"{SPAM}/stats", headers=admin).json["all"]
    assert stats == {"spam": 0, "ham": 8, "missed_spam": 4, "false_positives": 0, "accuracy": 50.0, "time_saved": 0}
    # the model now recognises the kind of text it was taught
    fresh = visitor_comment(app, post, "Replica watches and pills at a discount offer", name="New person",
                            email="new@example.org", address="10.2.0.1").json
    assert fresh["status"] == "spam"
    assert rows(app, "spam_checks")[-1]["reason"] == "classifier"
    # a false positive restored by a moderator is counted, and unlearnt/relearnt as ham
    app.client.put_json(f"{COMMENTS}/{fresh['id']}", {"status": "approved"}, headers=editor, status=200)
    flush(app)
    stats = app.client.get(f"{SPAM}/stats/all", headers=admin).json["all"]
    assert stats["false_positives"] == 1 and stats["spam"] == 1
    model = rows(app, "spam_model")[0]
    assert (model["spam_docs"], model["ham_docs"]) == (4, 5)


def test_honeypot_timing_and_repeated_content_through_the_hook(site):
    app, _people, _post = site
    base = {"type": "form", "author": "Sam", "email": "sam@example.org", "ip": "10.3.0.1", "user_agent": "Mozilla/5.0",
            "content": "Hello, I would like information about admissions."}
    verdict = app.hook.check_spam(app=app, submission={**base, "guid": "g-1", "honeypot": "", "elapsed_seconds": 40})
    assert verdict["spam"] is False and verdict["reason"] == "clean" and verdict["guid"] == "g-1"
    assert set(verdict) == {"spam", "reason", "score", "discard", "guid"}
    trap = app.hook.check_spam(app=app, submission={**base, "guid": "g-2", "honeypot": "http://x.example"})
    assert trap["spam"] is True and trap["reason"] == "honeypot"
    quick = app.hook.check_spam(app=app, submission={**base, "guid": "g-3", "elapsed_seconds": 0.4,
                                                     "content": "Quick question about uniforms."})
    assert quick["spam"] is True and quick["reason"] == "too_fast"
    flush(app)
    # the honeypot entry's text was spam: the same text again is spam at once, from anyone
    again = app.hook.check_spam(app=app, submission={**base, "guid": "g-4", "email": "other@example.org",
                                                     "ip": "10.3.0.2", "content": base["content"]})
    assert again["spam"] is True and again["reason"] == "repeated_content"
    signup = app.hook.check_spam(app=app, submission={"type": "signup", "author": "", "email": "kim@example.org",
                                                      "content": "", "ip": "10.3.0.9", "user_agent": "x"})
    assert signup["spam"] is False and signup["guid"]  # a guid is made when none is given
    types = {row["guid"]: row["type"] for row in rows(app, "spam_checks")}
    assert types["g-1"] == "form" and types[signup["guid"]] == "signup"


def test_moderators_are_not_checked_and_disabling_the_filter_leaves_comments_working(make_app):
    app = make_app(plugins=["core", "spam"], disabled=["spam"], site={"disallowed_keys": ["casino"]})
    people = staff(app)
    post = publish_post(app, people["editor"].headers)
    comment = visitor_comment(app, post, "casino night for the PTA fundraiser").json
    assert comment["status"] == "hold"


def test_short_or_empty_texts_are_never_repeated_content(site):
    app, _people, _post = site
    signup = {"type": "signup", "author": "", "content": "", "user_agent": "Mozilla/5.0"}
    spam = app.hook.check_spam(app=app, submission={**signup, "email": "bot@example.org", "ip": "10.4.0.1",
                                                   "honeypot": "filled"})
    assert spam["spam"] is True
    thanks = {"type": "comment", "author": "Bot", "email": "bot2@example.org", "ip": "10.4.0.2", "content": "Thanks!",
              "honeypot": "x"}
    assert app.hook.check_spam(app=app, submission=thanks)["spam"] is True
    flush(app)
    for number in range(3):  # other people's sign-ups (no text) and short thanks stay ham
        person = app.hook.check_spam(app=app, submission={**signup, "email": f"parent{number}@example.org",
                                                          "ip": f"10.4.1.{number}"})
        assert person["spam"] is False and person["reason"] == "clean"
        short = app.hook.check_spam(app=app, submission={"type": "comment", "author": f"P{number}", "content": "Thanks!",
                                                         "email": f"p{number}@example.org", "ip": f"10.4.2.{number}"})
        assert short["spam"] is False
        flush(app)


def test_learning_is_a_host_job_run_once_whichever_process_takes_it(site):
    """A moderator's decision is queued as the job spam.learn in the database: it survives its process, and
    another process (a second worker or node) that runs the due jobs afterwards learns nothing twice."""
    from host.app import create_app

    app, people, post = site
    other_node = create_app(app.settings)  # a second process on the same database
    try:
        comment = visitor_comment(app, post, "Cheap replica watches, pills and more").json
        app.client.put_json(f"{COMMENTS}/{comment['id']}", {"status": "spam"}, headers=people["editor"].headers,
                            status=200)  # the request runs the spam jobs it queued when it finishes
        learned = [job for job in app.jobs.listing() if job["name"] == "spam.learn"]
        assert [(job["state"], job["payload"]["report"]) for job in learned] == [("done", "report-spam")]
        assert other_node.jobs.run_due(names=["spam.learn", "spam.report"]) == 0
        assert [entry["event"] for entry in rows(app, "spam_history")].count("report-spam") == 1
        assert rows(app, "spam_model")[0]["spam_docs"] == 1
    finally:
        other_node.close()
