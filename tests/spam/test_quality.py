"""Measured quality: train on half of a labelled set of school-site comments, judge the other half.

The set (tests/spam/corpus.py) has over 1,000 comments: ham from parents, pupils and staff and
spam (pharmacy, SEO, essays, scams, casino) in several languages. Training goes through the
classifier's own learning (as moderators' decisions do); judging goes through the real
`check_spam` hook, rules included. The held-out half is followed by many clean comments from
one address right after a spam from it (parents share a school's or a home's address): the
sender's reputation must not turn those into spam. The confusion matrix is printed (pytest -s
shows it).
"""

from __future__ import annotations

from plugins.spam import classifier

from tests.spam.corpus import generate, one_address_after_spam
from tests.spam.helpers import flush


def test_caught_spam_and_false_positives_on_held_out_comments(make_app):
    app = make_app(plugins=["core", "spam"])
    items = generate(1200)
    assert len(items) >= 1000
    assert {item["label"] for item in items} == {"ham", "spam"}
    train, test = items[::2], items[1::2]
    shared = one_address_after_spam()
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
    for number, item in enumerate(shared):
        verdict = app.hook.check_spam(app=app, submission={
            "type": "comment", "author": item["author"], "email": item["email"], "url": item["url"],
            "content": item["content"], "ip": item["ip"], "user_agent": "Mozilla/5.0", "guid": f"s-{number}"})
        flush(app)  # each verdict is history the next one from this address reads
        matrix[(item["label"], verdict["spam"])] += 1
    spam_total = matrix[("spam", True)] + matrix[("spam", False)]
    ham_total = matrix[("ham", True)] + matrix[("ham", False)]
    caught = matrix[("spam", True)] / spam_total
    false_positive_rate = matrix[("ham", True)] / ham_total
    print(f"\nspam quality on {len(test) + len(shared)} held-out comments (trained on {len(train)}):"
          f"\n                 judged spam  judged ham"
          f"\n  actually spam  {matrix[('spam', True)]:11d}  {matrix[('spam', False)]:10d}"
          f"\n  actually ham   {matrix[('ham', True)]:11d}  {matrix[('ham', False)]:10d}"
          f"\n  caught {caught:.1%}, false positives {false_positive_rate:.2%}")
    assert spam_total > 200 and ham_total > 250
    assert caught >= 0.95
    assert false_positive_rate <= 0.01

