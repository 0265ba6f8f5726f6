"""Demo data: a small verdict history, so the statistics of a demonstration site are not empty."""

from __future__ import annotations

import datetime
import uuid

from .judge import digest
from .tables import CHECKS, HISTORY, table

SAMPLES = [
    (False, "Well done to the Year 6 choir, the concert was wonderful!", "Helen Carter"),
    (False, "Will the library be open during half term?", "Tom Okafor"),
    (True, "Cheap essays written for you, visit www.best-essay-deal.example now!!!", "Essay Pro"),
    (True, "Buy v1agra online, no prescription, http://pills.example/buy", "Best Pharmacy"),
    (False, "Thank you to the PTA for organising the summer fair.", "Aisha Rahman"),
]


def write_demo_history(app, session) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    for index, (spam, content, author) in enumerate(SAMPLES):
        guid, when = str(uuid.uuid4()), now - datetime.timedelta(days=3 * index + 1)
        session.execute(table(app, CHECKS).insert().values(
            guid=guid, type="comment", spam=spam, score=0.98 if spam else 0.05, reason="classifier" if spam else "clean",
            discarded=False, source="local", email_hash=digest(f"{author.split()[0].lower()}@example.org"),
            ip_hash=digest(f"198.51.100.{index + 10}"), content_hash=digest(content), author=author, url="",
            email_domain="example.org", content=content, created=when, label="", reversed="", trained=""))
        session.execute(table(app, HISTORY).insert().values(
            guid=guid, event="check-spam" if spam else "check-ham", actor="spam", message="demo", created=when))
