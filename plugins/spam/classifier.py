"""The naive Bayes text classifier: features of a submission, the model kept in the database,
and learning from labelled submissions.

Features are the distinct lower-cased words of the text (letters and digits of any script,
so Cyrillic, Greek or Chinese spam is tokenised too), the linked domains, and a few shape
markers (links, shouting, money, e-mail addresses). Tokenising walks each character once:
no regular expression runs over outsider text.

The model is Bernoulli naive Bayes over those sets: for each feature the number of spam and
ham documents that held it. It lives in `spam_tokens` / `spam_model` so every worker judges
with the same one; each worker keeps an in-memory copy and reloads it when the model's
version (bumped by every training) changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sqlalchemy import bindparam, select, update


from .tables import MODEL, TOKENS, table

MAX_FEATURES = 400  # distinct features read per submission
MAX_TEXT = 20_000  # characters of text looked at
MIN_DOCS_PER_CLASS = 3  # below this the classifier has no opinion
MAX_FEATURE_EVIDENCE = 4.0  # one feature moves the log-odds by at most this much
LINK_STARTS = ("http://", "https://", "www.")
MONEY = set("$€£¥₽₹")


def link_domains(text: str) -> list[str]:
    """The host part of every http(s):// or www. link, lower-cased (plain string scanning)."""
    lowered = text.lower()
    domains = []
    position = 0
    while len(domains) < 50:
        starts = [index for index in (lowered.find(start, position) for start in LINK_STARTS) if index >= 0]
        if not starts:
            break
        begin = min(starts)
        rest = lowered[begin:begin + 300]
        if rest.startswith("http"):
            rest = rest.split("//", 1)[1] if "//" in rest else rest
        end = 0
        while end < len(rest) and (rest[end].isalnum() or rest[end] in ".-"):
            end += 1
        host = rest[:end].strip(".")
        if host.startswith("www."):
            host = host[4:]
        if host:
            domains.append(host)
        position = begin + max(end, 1) + 4
    return domains


def count_links(text: str) -> int:
    return len(link_domains(text))


def words(text: str) -> list[str]:
    """Runs of letters and digits, lower-cased; very long runs are cut, single characters dropped
    except for scripts without spaces (each CJK character is a word)."""
    found, current = [], []
    for character in text[:MAX_TEXT].lower():
        if character.isalnum() or character in "'’":
            if "\u3040" <= character <= "\u9fff":  # kana and CJK ideographs: one word each
                if current:
                    found.append("".join(current))
                    current = []
                found.append(character)
                continue
            current.append(character)
        elif current:
            found.append("".join(current))
            current = []
    if current:
        found.append("".join(current))
    return [word.strip("'’")[:40] for word in found if len(word.strip("'’")) > 1 or "\u3040" <= word <= "\u9fff"]


def features(content: str, author: str = "", url: str = "", email: str = "") -> list[str]:
    """The distinct features of a submission, at most MAX_FEATURES."""
    seen: dict[str, None] = {}
    for word in words(content):
        seen[word] = None
    domains = link_domains(content)
    for domain in domains:
        seen["domain:" + domain] = None
        seen["tld:" + domain.rsplit(".", 1)[-1]] = None
    links = len(domains)
    if links:
        seen["links:" + ("1" if links == 1 else "2" if links == 2 else "3+")] = None
    else:
        seen["links:0"] = None
    letters = [character for character in content[:2000] if character.isalpha()]
    if len(letters) >= 20 and sum(character.isupper() for character in letters) > 0.6 * len(letters):
        seen["shape:shouting"] = None
    if any(character in MONEY for character in content[:MAX_TEXT]):
        seen["shape:money"] = None
    if "@" in content[:MAX_TEXT]:
        seen["shape:address"] = None
    if "!!" in content[:MAX_TEXT]:
        seen["shape:exclaim"] = None
    for word in words(author)[:5]:
        seen["author:" + word] = None
    if url:
        seen["has_url"] = None
        for domain in link_domains(url if "://" in url else "http://" + url)[:1]:
            seen["url:" + domain] = None
    if email and "@" in email:
        seen["mail:" + email.rsplit("@", 1)[1].lower()[:60]] = None
    return [name[:64] for name in list(seen)[:MAX_FEATURES]]


@dataclass
class Model:
    """Document counts per feature and per class, as one worker last read them."""

    version: int = -1
    spam_docs: int = 0
    ham_docs: int = 0
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return self.spam_docs >= MIN_DOCS_PER_CLASS and self.ham_docs >= MIN_DOCS_PER_CLASS

    def log_odds(self, names: list[str]) -> float:
        """Evidence for spam (log-odds, 0 for none) from the features the model has seen."""
        if not self.ready:
            return 0.0
        spam_docs, ham_docs = self.spam_docs, self.ham_docs
        total = math.log((spam_docs + 1) / (ham_docs + 1))
        counts = self.counts
        for name in names:
            found = counts.get(name)
            if found is None:
                continue
            spam, ham = found
            evidence = math.log((spam + 0.5) / (spam_docs + 1)) - math.log((ham + 0.5) / (ham_docs + 1))
            total += max(-MAX_FEATURE_EVIDENCE, min(MAX_FEATURE_EVIDENCE, evidence))
        return total


VERSION_CHECK_SECONDS = 1.0  # how stale a worker's copy may be after another worker trained


def _model_row(app, session) -> tuple[int, int, int]:
    model_table = table(app, MODEL)
    row = session.execute(select(model_table.c.version, model_table.c.spam_docs, model_table.c.ham_docs)
                          .where(model_table.c.id == 1)).first()
    return (row.version, row.spam_docs, row.ham_docs) if row else (0, 0, 0)


def _load_model(app, session, row: tuple[int, int, int]) -> Model:
    tokens = table(app, TOKENS)
    counts = {token: (spam, ham) for token, spam, ham in session.execute(select(tokens.c.token, tokens.c.spam,
                                                                                tokens.c.ham))}
    return Model(*row, counts)


def current_model(app, session) -> Model:
    """This worker's copy of the model (host `app.kept`, at the model row's version), reloaded when the
    database's version moved on; the version is looked up at most once a second (training in this
    worker forgets it, so it is seen at once)."""
    row = app.kept("spam.model_row", 1, VERSION_CHECK_SECONDS).get_or_build("row", (), lambda: _model_row(app, session))
    return app.kept("spam.model", 1).get_or_build("model", row[0], lambda: _load_model(app, session, row))


def ensure_model_row(app) -> None:
    model_table = table(app, MODEL)
    with app.db.session(write=True) as session, session.begin():
        if session.execute(select(model_table.c.id).where(model_table.c.id == 1)).first() is None:
            session.execute(model_table.insert().values(id=1, version=0, spam_docs=0, ham_docs=0))


def learn(app, session, examples: list[tuple[list[str], str, int]]) -> None:
    """Add (+1) or remove (-1) documents: each example is (features, "spam" or "ham", sign).

    Runs in the caller's write transaction; counts of every feature are summed first, so a
    batch of a thousand documents costs one read and one write per distinct feature.
    """
    if not examples:
        return
    delta: dict[str, list[int]] = {}
    docs = {"spam": 0, "ham": 0}
    for names, label, sign in examples:
        docs[label] += sign
        column = 0 if label == "spam" else 1
        for name in names:
            delta.setdefault(name, [0, 0])[column] += sign
    tokens = table(app, TOKENS)
    names = list(delta)
    existing: dict[str, tuple[int, int]] = {}
    for start in range(0, len(names), 500):
        chunk = names[start:start + 500]
        existing.update({token: (spam, ham) for token, spam, ham in session.execute(
            select(tokens.c.token, tokens.c.spam, tokens.c.ham).where(tokens.c.token.in_(chunk)))})
    inserts, updates = [], []
    for name, (spam, ham) in delta.items():
        if name in existing:
            old_spam, old_ham = existing[name]
            updates.append({"key": name, "spam": max(0, old_spam + spam), "ham": max(0, old_ham + ham)})
        elif spam > 0 or ham > 0:
            inserts.append({"token": name, "spam": max(0, spam), "ham": max(0, ham)})
    if inserts:
        session.execute(tokens.insert(), inserts)
    if updates:
        session.execute(update(tokens).where(tokens.c.token == bindparam("key"))
                        .values(spam=bindparam("spam"), ham=bindparam("ham")), updates)
    model_table = table(app, MODEL)
    session.execute(update(model_table).where(model_table.c.id == 1).values(
        version=model_table.c.version + 1,
        spam_docs=model_table.c.spam_docs + docs["spam"], ham_docs=model_table.c.ham_docs + docs["ham"]))
    forget_checked(app)


def forget_checked(app) -> None:
    """Look at the model's version on the next check (this worker just trained)."""
    app.kept("spam.model_row", 1, VERSION_CHECK_SECONDS).clear()


def reset(app, session) -> None:
    session.execute(table(app, TOKENS).delete())
    model_table = table(app, MODEL)
    session.execute(update(model_table).where(model_table.c.id == 1).values(
        version=model_table.c.version + 1, spam_docs=0, ham_docs=0))
    forget_checked(app)
