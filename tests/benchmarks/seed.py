"""Seed a sitehost database with N realistic posts, fast (bulk Core inserts, one transaction).

Titles are school news headlines, bodies about 2 KB of HTML paragraphs drawn from a
pool, each post has one or two categories and up to four tags, every DRAFT_EVERY-th post
is a draft, and a few posts mention SEARCH_WORD so that a search finds about 1% of them.
The site is marked installed so `sitehost serve` adds no demo content on top.
"""

from __future__ import annotations

import datetime
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, insert, select, text

DRAFT_EVERY = 33  # every 33rd seeded post is a draft (the single-post scenario skips them)
SEARCH_WORD = "orchestra"
SEARCH_SHARE = 0.01
CHUNK = 5000
# The newest posts are written as a site's own writers write them: through batch/v1, 25 creates a
# request, each its own item with one category and one tag (an independent run that seeded all
# 10,000 this way and measured creates five times slower than this harness did on bulk-loaded rows).
THROUGH_BATCH = 2000

GROUPS = ["Year 7", "Year 8", "Year 9", "Year 10", "Year 11", "Sixth Form", "Reception", "Key Stage 2",
          "Key Stage 3", "Upper School", "Lower School", "Our Year 6"]
SUBJECTS = ["Science", "History", "Geography", "Art", "Drama", "Maths", "English", "French", "Spanish", "Computing",
            "PE", "Biology", "Chemistry", "Physics", "Design Technology", "Latin", "Economics", "Music", "Dance"]
EVENTS = ["Field Trip", "Open Evening", "Exhibition", "Science Fair", "Competition", "Workshop", "Assembly", "Concert",
          "Performance", "Parents' Evening", "Sports Day", "Bake Sale", "Debate", "Residential", "Careers Fair",
          "Charity Run", "Book Week", "Hackathon", "Gallery Night", "Prize Giving"]
OUTCOMES = ["Winners Announced", "Photos and Highlights", "Tickets Now Available", "Record Turnout",
            "A Day to Remember", "What Happens Next", "Thank You to Everyone Who Came", "Dates for Your Diary",
            "Results Are In", "Meet the Team", "Sign-up Opens Monday", "Report from the Organisers"]
PLACES = ["the Lake District", "the Natural History Museum", "Snowdonia", "the Science Museum", "Stratford",
          "the Royal Observatory", "Edinburgh", "the local nature reserve", "Paris", "the county finals"]
TITLE_TEMPLATES = [
    "{group} {subject} {event}: {outcome}",
    "{outcome}: {group} {event}",
    "{group} Visit {place}",
    "{subject} Department {event} — {outcome}",
    "Spring {event}: {outcome}",
    "{group} Students Shine at {place}",
    "Autumn Term {event} for {group}",
]
CATEGORIES = ["News", "Events", "Sport", "Music", "Arts", "Science", "Trips", "Admissions", "Parents",
              "Achievements", "Community", "Sixth Form"]
TAG_WORDS = ["football", "netball", "rugby", "chess", "robotics", "choir", "poetry", "coding", "ecology", "history",
             "volunteering", "charity", "exams", "library", "languages", "drama-club", "athletics", "swimming",
             "astronomy", "photography", "debating", "gardening", "cookery", "mentoring", "wellbeing"]
VOCABULARY = ("students teachers parents school term week year class lesson project team results trip visit "
              "museum science history music art drama sport match event concert exhibition library pupils staff "
              "community charity evening morning afternoon thanks support families governors assembly award prize "
              "reading writing mathematics experiment laboratory garden field coach bus lunch hall stage rehearsal "
              "performance audience tickets volunteers donation fundraising celebration achievement progress "
              "curriculum homework timetable uniform report feedback workshop speaker career university "
              "apprenticeship interview portfolio coursework revision examination certificate ceremony tradition "
              "friendship kindness resilience curiosity creativity leadership teamwork enthusiasm").split()
SENTENCE_FRAMES = [
    "Our {a} and {b} worked hard on the {c} this {d}.",
    "Thank you to all the {a} who helped with the {c}.",
    "The {c} brought together {a}, {b} and the wider {e}.",
    "We are proud of the {f} shown by every one of our {a}.",
    "More details about the {c} will follow in next {d}'s newsletter.",
    "Photos from the {c} are available from the school office.",
    "The {a} described the {c} as the highlight of the {d}.",
    "Please speak to your form tutor if you would like to join the {c}.",
]


@dataclass
class SeedResult:
    """What the scenarios need to know about a seeded database."""

    path: Path
    posts: int
    published: int
    first_post: int = 1  # seeded ids run from first_post to first_post + posts - 1
    category_ids: dict[str, int] = field(default_factory=dict)
    busiest_category: int = 0
    author_login: str = ""
    author_password: str = ""
    admin_login: str = ""  # an administrator, for plugin scenarios that create their own data first
    admin_password: str = ""
    seconds: float = 0.0
    search_matches: int = 0


def _sentence(rng: random.Random) -> str:
    words = {key: rng.choice(VOCABULARY) for key in "abcdef"}
    return rng.choice(SENTENCE_FRAMES).format(**words)


def paragraph_pool(rng: random.Random, size: int = 1500) -> list[str]:
    """Paragraphs of about 400 characters; a body is five of them (about 2 KB with markup)."""
    pool = []
    for _ in range(size):
        sentences = []
        while sum(len(sentence) + 1 for sentence in sentences) < 380:
            sentences.append(_sentence(rng))
        pool.append("<p>" + " ".join(sentences) + "</p>")
    return pool


def headline(rng: random.Random) -> str:
    return rng.choice(TITLE_TEMPLATES).format(group=rng.choice(GROUPS), subject=rng.choice(SUBJECTS),
                                              event=rng.choice(EVENTS), outcome=rng.choice(OUTCOMES),
                                              place=rng.choice(PLACES))


def slug_of(title: str, post_id: int) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:180] + f"-{post_id}"


def body_for(rng: random.Random, pool: list[str], mention: bool) -> str:
    paragraphs = rng.sample(pool, 5)
    if mention:
        paragraphs.insert(rng.randrange(len(paragraphs)),
                          f"<p>The school {SEARCH_WORD} rehearses on Thursdays and welcomes new players.</p>")
    return "\n\n".join(paragraphs)


def seed(config: Path, path: Path, posts: int, random_seed: int = 2024, database_url: str | None = None) -> SeedResult:
    """Create a fresh database at `path` (the database of `config`) with `posts` posts.

    `database_url`: seed that database instead of the SQLite file at `path` (a PostgreSQL schema
    the caller has just created empty)."""
    from host.app import create_app
    from host.auth import users as user_service
    from host.config import load_settings

    started = time.perf_counter()
    for suffix in ("", "-wal", "-shm", "-writer", "-writer-gate"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    app = create_app(load_settings(config, env={}, database_url=database_url or f"sqlite:///{path}", disabled=[]))
    try:
        app.install_site(demo=False)
        tables = app.db.metadata.tables
        missing = {"posts", "terms", "term_relationships"} - set(tables)
        if missing:
            raise RuntimeError(f"the core plugin's tables are missing ({', '.join(sorted(missing))}); "
                               "is plugins/core enabled and complete?")
        rng = random.Random(random_seed)
        with app.db.session(write=True) as session, session.begin():
            authors = [user_service.create_user(app, session, f"teacher{number}", f"teacher{number}@school.invalid",
                                                role="author", display_name=f"Teacher {number}").id
                       for number in range(1, 6)]
            bench = user_service.create_user(app, session, "bench-author", "bench-author@school.invalid",
                                             role="author", display_name="Benchmark Author")
            password, _record = user_service.create_application_password(app, session, bench.id, "benchmark")
            authors.append(bench.id)
            admin = user_service.create_user(app, session, "bench-admin", "bench-admin@school.invalid",
                                             role="administrator", display_name="Benchmark Administrator")
            admin_password, _record = user_service.create_application_password(app, session, admin.id, "benchmark")
        result = SeedResult(path=path, posts=posts, published=0, author_login="bench-author",
                            author_password=password, admin_login="bench-admin", admin_password=admin_password)
        tail = min(posts // 10, THROUGH_BATCH)
        with app.db.engine.begin() as connection:
            _seed_content(connection, tables, posts - tail, authors, rng, result)
        _seed_through_batch(app, result, tail, rng)
        _store_renderings(app)
        result.seconds = time.perf_counter() - started
        return result
    finally:
        app.close()


def _store_renderings(app) -> None:
    """Each post's rendering stored, as on a site whose posts were written (and answered) through
    the API; rows inserted around it get theirs here (plugins/core/store/rendered.py)."""
    from plugins.core import store as core_store

    core_store.fill_renderings(app)


def _seed_through_batch(app, result: SeedResult, count: int, rng: random.Random) -> None:
    """`count` more posts through POST /batch/v1 in this process (a WSGI call each, no sockets)."""
    import base64
    import io
    import json

    from sqlalchemy import select as select_

    if count <= 0:
        return
    terms = app.db.metadata.tables["terms"]
    with app.db.engine.connect() as connection:
        tag = connection.execute(select_(terms.c.id).where(terms.c.taxonomy == "post_tag").order_by(terms.c.id)).scalar()
    token = base64.b64encode(f"{result.admin_login}:{result.admin_password}".encode()).decode()
    pool = paragraph_pool(rng, 50)
    for start in range(0, count, 25):
        requests = [{"method": "POST", "path": "/core/v2/posts", "body": {
            "title": headline(rng), "content": body_for(rng, pool, False), "status": "publish",
            "categories": [result.busiest_category], "tags": [tag]}} for _ in range(min(25, count - start))]
        body = json.dumps({"requests": requests}).encode()
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/wp-json/batch/v1", "QUERY_STRING": "",
                   "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8080", "HTTP_HOST": "127.0.0.1:8080",
                   "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)),
                   "CONTENT_TYPE": "application/json", "REMOTE_ADDR": "127.0.0.1",
                   "HTTP_AUTHORIZATION": "Basic " + token}
        answer = {}
        chunks = app(environ, lambda status, _headers, answer=answer: answer.setdefault("status", status))
        data = json.loads(b"".join(chunks))
        created = [item["status"] for item in data.get("responses", [])] if isinstance(data, dict) else []
        if not answer["status"].startswith("207") or created != [201] * len(requests):
            raise RuntimeError(f"seeding through batch/v1 failed: {answer['status']} {str(data)[:300]}")
    result.published += count


def _seed_content(connection, tables, posts: int, authors: list[int], rng: random.Random, result: SeedResult) -> None:
    post_table, terms, relationships = tables["posts"], tables["terms"], tables["term_relationships"]
    first_id = (connection.execute(select(func.max(terms.c.id))).scalar() or 0) + 1  # after the install's terms
    first_post = (connection.execute(select(func.max(post_table.c.id))).scalar() or 0) + 1
    term_rows = [{"id": first_id + index, "taxonomy": "category", "name": name, "slug": name.lower().replace(" ", "-"),
                  "description": f"{name} from around the school", "parent": 0}
                 for index, name in enumerate(CATEGORIES)]
    tag_ids = []
    for index, word in enumerate(TAG_WORDS * 6):
        term_id = first_id + len(CATEGORIES) + index
        name = word if index < len(TAG_WORDS) else f"{word}-{index // len(TAG_WORDS)}"
        term_rows.append({"id": term_id, "taxonomy": "post_tag", "name": name, "slug": name,
                          "description": "", "parent": 0})
        tag_ids.append(term_id)
    connection.execute(insert(terms), _only_columns(terms, term_rows))
    result.category_ids = {row["name"]: row["id"] for row in term_rows[:len(CATEGORIES)]}
    category_weights = [30, 20, 12, 6, 6, 6, 5, 3, 4, 4, 2, 2]  # News is the busiest

    pool = paragraph_pool(rng)
    start = datetime.datetime(2015, 9, 1, 8, 0, 0)
    step = datetime.timedelta(seconds=max(60, int(10 * 365 * 86400 / max(posts, 1))))
    post_rows, relationship_rows = [], []
    category_counts: dict[int, int] = {}
    result.first_post = first_post
    category_range = range(first_id, first_id + len(CATEGORIES))
    for post_id in range(first_post, first_post + posts):
        title = headline(rng)
        mention = rng.random() < SEARCH_SHARE
        date = start + step * post_id
        is_draft = (post_id - first_post + 1) % DRAFT_EVERY == 0
        result.published += 0 if is_draft else 1
        result.search_matches += 1 if mention and not is_draft else 0
        post_rows.append({
            "id": post_id, "type": "post", "status": "draft" if is_draft else "publish",
            "slug": slug_of(title, post_id), "title": title, "content": body_for(rng, pool, mention),
            "excerpt": "", "author": rng.choice(authors), "parent": 0, "menu_order": 0,
            "comment_status": "open", "ping_status": "open", "format": "", "sticky": post_id - first_post in (3, 5, 8),
            "featured_media": 0, "date": date, "date_gmt": None if is_draft else date, "modified": date,
            "modified_gmt": date, "guid": f"http://school.test/?p={post_id}",
        })
        categories = {rng.choices(category_range, category_weights)[0]}
        if rng.random() < 0.3:
            categories.add(rng.choice(category_range))
        for term_id in categories | set(rng.sample(tag_ids, rng.randrange(0, 5))):
            relationship_rows.append({"post_id": post_id, "term_id": term_id})
            if term_id in category_range and not is_draft:
                category_counts[term_id] = category_counts.get(term_id, 0) + 1
        if len(post_rows) >= CHUNK:
            _flush(connection, post_table, relationships, post_rows, relationship_rows)
    _flush(connection, post_table, relationships, post_rows, relationship_rows)
    result.busiest_category = max(category_counts, key=category_counts.get) if category_counts else 1
    if connection.dialect.name == "postgresql":  # explicit ids leave the sequences behind
        for table in ("posts", "terms"):
            connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                    f"(SELECT max(id) FROM {table}))"))
    connection.execute(text("ANALYZE"))


# Rows per multi-row INSERT on PostgreSQL (a statement takes at most 65,535 parameters).
POSTGRES_ROWS_PER_INSERT = {"posts": 1000, "term_relationships": 10000}


def _flush(connection, post_table, relationships, post_rows: list, relationship_rows: list) -> None:
    for table, rows in ((post_table, _only_columns(post_table, post_rows)), (relationships, relationship_rows)):
        if not rows:
            continue
        if connection.dialect.name != "postgresql":
            connection.execute(insert(table), rows)
            continue
        # psycopg's executemany sends one INSERT per row, and each fires the statement-level triggers
        # (term counts, content version) again: one multi-row INSERT per chunk fires them once, as an
        # import's bulk INSERT does.
        size = POSTGRES_ROWS_PER_INSERT[table.name]
        for start in range(0, len(rows), size):
            connection.execute(insert(table).values(rows[start:start + size]))
    post_rows.clear()
    relationship_rows.clear()


def _only_columns(table, rows: list[dict]) -> list[dict]:
    """Keep the keys the table has (the content schema may gain or lose optional columns)."""
    names = set(table.c.keys())
    return [{key: value for key, value in row.items() if key in names} for row in rows]
