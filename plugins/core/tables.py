"""Tables of the content store: one `posts` table for every post type, meta, terms.

Everything a listing needs to show an item (terms, meta, revision counts) is reachable
from `posts` through indexed correlated subqueries, so a page of items is one SELECT.
Databases created before an index was added get it at startup (`create_missing_indexes`).
`sticky` and `featured_media` are columns rather than meta for the same reason.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON, Boolean, Column, DateTime, ForeignKey, Index, Integer, MetaData, PrimaryKeyConstraint, String, Table, Text,
    UniqueConstraint,
)
from sqlalchemy.schema import CreateTable

# The condition of the partial attachment index; a query repeats it word for word so that
# SQLite sees the index applies (a bound parameter would not prove it).
ATTACHMENTS_ONLY = "type = 'attachment'"



# Rendered content and excerpt of a row, stored by whichever process rendered them first, so
# that a single read of any item skips the display filters. `digest` covers every
# input of the rendering (plugins/core/render.py `rendering_digest`): a row is used only while
# it matches, so nothing invalidates it and a stale one is merely replaced. No trigger bumps the
# content version for it (storing a rendering changes no content), and no foreign key: a
# rendering left by a deleted row can never match another row's digest. It lives outside the
# app's MetaData on purpose: it is derived data (hundreds of MB on a large site) that backups
# should not copy; a restored site renders again and stores as it reads.
RENDERED_METADATA = MetaData()
RENDERED_CONTENT = Table(
    "rendered_content", RENDERED_METADATA,
    Column("post_id", Integer, primary_key=True, autoincrement=False),
    Column("digest", String(40), nullable=False),
    Column("content", Text, nullable=False, default=""),
    Column("excerpt", Text, nullable=False, default=""),
)


def install_rendered_content(app) -> None:
    """The stored renderings' table (create_all does not see it: it is not in the app's MetaData)."""
    with app.db.engine.begin() as connection:  # IF NOT EXISTS: workers of one site start together
        connection.execute(CreateTable(RENDERED_CONTENT, if_not_exists=True))


def define_tables(metadata: MetaData) -> dict[str, Table]:
    # sqlite_autoincrement: a deleted item's id is never handed out again (PostgreSQL's sequences
    # never reuse one either); host/db.py rebuilds tables an earlier version made without it.
    posts = Table(
        "posts", metadata,
        Column("id", Integer, primary_key=True),
        Column("type", String(40), nullable=False),
        Column("status", String(40), nullable=False),
        Column("slug", String(200), nullable=False, default=""),
        Column("title", Text, nullable=False, default=""),
        Column("content", Text, nullable=False, default=""),
        Column("excerpt", Text, nullable=False, default=""),
        Column("author", Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        Column("parent", Integer, nullable=False, default=0),
        Column("menu_order", Integer, nullable=False, default=0),
        Column("password", String(255), nullable=False, default=""),
        Column("comment_status", String(20), nullable=False, default="open"),
        Column("ping_status", String(20), nullable=False, default="open"),
        Column("format", String(20), nullable=False, default=""),
        Column("template", String(200), nullable=False, default=""),
        Column("sticky", Boolean, nullable=False, default=False),
        Column("featured_media", Integer, nullable=False, default=0),
        # Site-local and UTC dates; date_gmt is NULL while a draft's date "floats".
        Column("date", DateTime, nullable=False),
        Column("date_gmt", DateTime, nullable=True),
        Column("modified", DateTime, nullable=False),
        Column("modified_gmt", DateTime, nullable=False),
        Column("guid", String(255), nullable=False, default=""),
        Column("mime_type", String(100), nullable=False, default=""),
        Column("pre_trash_status", String(40), nullable=False, default=""),
        # Attachments: the file under the uploads folder, its metadata and alternative text.
        Column("file", String(500), nullable=False, default=""),
        Column("media_details", JSON, nullable=True),
        Column("alt_text", Text, nullable=False, default=""),
        # A page in the default order walks this index backwards and stops after one page. It
        # carries status and date_gmt so that walk never reads a row: a search's first pages
        # walk it too, keeping the ids the full-text index matched (plugins/core/store/search.py).
        Index("ix_posts_type_date_id_status", "type", "date", "id", "status", "date_gmt"),
        # Covers the COUNT of a status filter, scheduled posts included (their date_gmt decides).
        Index("ix_posts_type_status_date_gmt", "type", "status", "date_gmt"),
        Index("ix_posts_type_slug", "type", "slug"),
        Index("ix_posts_author", "author"),
        Index("ix_posts_parent_type", "parent", "type"),
        # /uploads/<file> finds its attachment (to check who may read it) in one lookup. Not a
        # partial index (WHERE type = 'attachment'): with one, SQLite served the uncached post
        # list about 20% slower (1,250 instead of 1,570 req/s in tests/benchmarks, 1 worker).
        Index("ix_posts_file", "file"),
        sqlite_autoincrement=True,
    )
    post_meta = Table(
        "post_meta", metadata,
        Column("id", Integer, primary_key=True),
        Column("post_id", Integer, ForeignKey("posts.id", ondelete="CASCADE"), nullable=False),
        Column("key", String(255), nullable=False),
        Column("value", Text, nullable=False, default=""),  # JSON-encoded
        UniqueConstraint("post_id", "key", name="uq_post_meta_post_key"),
    )
    terms = Table(
        "terms", metadata,
        Column("id", Integer, primary_key=True),
        Column("taxonomy", String(40), nullable=False),
        Column("name", String(200), nullable=False),
        Column("slug", String(200), nullable=False),
        Column("description", Text, nullable=False, default=""),
        Column("parent", Integer, nullable=False, default=0),
        # Published posts linked to the term, kept by triggers (install_term_counts) in the writer's own
        # transaction, as WordPress keeps term_taxonomy.count: a term list reads it instead of a COUNT per term.
        Column("count", Integer, nullable=False, default=0, server_default="0"),
        Index("ix_terms_taxonomy_slug", "taxonomy", "slug"),
        Index("ix_terms_taxonomy_parent", "taxonomy", "parent"),
        sqlite_autoincrement=True,
    )
    term_relationships = Table(
        "term_relationships", metadata,
        Column("post_id", Integer, ForeignKey("posts.id", ondelete="CASCADE"), nullable=False),
        Column("term_id", Integer, ForeignKey("terms.id", ondelete="CASCADE"), nullable=False),
        PrimaryKeyConstraint("post_id", "term_id"),
        Index("ix_term_relationships_term", "term_id", "post_id"),
    )
    # One row whose `version` grows with every change to posts, terms, term links, comments or users (bumped by
    # triggers, so in the writer's own transaction, whoever writes): cached totals of every
    # process are trusted only while it is unchanged.
    content_version = Table(
        "content_version", metadata,
        Column("id", Integer, primary_key=True),
        Column("version", Integer, nullable=False, default=0),
    )
    # Site settings written through core/v2/settings (JSON values); an absent key reads its default.
    site_settings = Table(
        "site_settings", metadata,
        Column("key", String(100), primary_key=True),
        Column("value", Text, nullable=False),
    )
    return {"posts": posts, "post_meta": post_meta, "terms": terms, "term_relationships": term_relationships,
            "content_version": content_version, "site_settings": site_settings,
            "comments": define_comment_table(metadata)}


# Replaced: ix_posts_type_date_id by ix_posts_type_date_id_status; ix_posts_attachment_file (partial) by ix_posts_file.
SUPERSEDED_INDEXES = ("ix_posts_type_date_id", "ix_posts_attachment_file")
POSTGRES_SLUG_INDEX = "ix_posts_type_slug_c"


def create_missing_indexes(app) -> None:
    """`create_all` skips tables that exist, so indexes added to them later are created here
    (and indexes they replace are dropped: every index costs each write)."""
    with app.db.engine.begin() as connection:
        existing = _index_names(connection)
        for name in ("posts", "post_meta", "terms", "term_relationships"):
            for index in tables(app)[name].indexes:
                if existing is None:
                    index.create(connection, checkfirst=True)
                elif index.name not in existing:
                    index.create(connection)
        for name in SUPERSEDED_INDEXES:
            connection.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
        if connection.dialect.name == "postgresql":
            # Slugs in code point order whatever the database's collation, for the range of a slug's family
            # (`slug-2`, `slug-3` ...) a create reads (plugins/core/store/slugs.py); SQLite's ix_posts_type_slug
            # already compares bytes. Not in the MetaData: SQLite has no "C" collation to build it with.
            connection.exec_driver_sql(f'CREATE INDEX IF NOT EXISTS {POSTGRES_SLUG_INDEX} ON posts (type, slug COLLATE "C")')


def _index_names(connection) -> set[str] | None:
    """Every index of the site's tables, in one query; None where only SQLAlchemy knows how to ask.

    `Index.create(checkfirst=True)` reflects its table's indexes once per index: on PostgreSQL four
    catalog queries each, about 40 at every start of a site."""
    dialect = connection.dialect.name
    if dialect == "sqlite":
        rows = connection.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index'")
    elif dialect == "postgresql":
        rows = connection.exec_driver_sql("SELECT relname FROM pg_class WHERE relkind IN ('i', 'I') "
                                          "AND relnamespace = current_schema()::regnamespace")
    else:
        return None
    return {name for (name,) in rows}


# Comments, users and settings count too: embedded replies and authors are built from them (Route.answer_version).
VERSIONED_TABLES = ("posts", "post_meta", "terms", "term_relationships", "comments", "users", "user_meta",
                    "site_settings")


def install_content_version(app) -> None:
    """The version row and the triggers that bump it on every insert, update and delete."""
    bump = "UPDATE content_version SET version = version + 1 WHERE id = 1"
    with app.db.engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO content_version (id, version) SELECT 1, 0 WHERE NOT EXISTS "
                                   "(SELECT 1 FROM content_version WHERE id = 1)")
        dialect = connection.dialect.name
        if dialect == "sqlite":
            for table in VERSIONED_TABLES:
                for event in ("INSERT", "UPDATE", "DELETE"):
                    connection.exec_driver_sql(
                        f"CREATE TRIGGER IF NOT EXISTS content_version_{table}_{event.lower()} AFTER {event} ON {table} "
                        f"BEGIN {bump}; END")
        elif dialect == "postgresql":
            connection.exec_driver_sql(
                "CREATE OR REPLACE FUNCTION bump_content_version() RETURNS trigger AS $$ "
                f"BEGIN {bump}; RETURN NULL; END $$ LANGUAGE plpgsql")
            for table in VERSIONED_TABLES:
                connection.exec_driver_sql(
                    f"CREATE OR REPLACE TRIGGER content_version_{table} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
                    f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION bump_content_version()")


# The version of the term-count triggers: a database whose triggers carry another (or none: made before
# counts were stored, or restored by the backup plugin, which drops SQLite's triggers) gets the triggers
# and one full recount at start-up, in one transaction (the column: core's baseline revision).
TERM_COUNT_VERSION = "v1"
TERM_COUNT_TRIGGER = f"term_count_{TERM_COUNT_VERSION}"
# A published post counts once for each term linked to it (whatever its type, as the live COUNT did).
_COUNTED = ("(SELECT COUNT(*) FROM term_relationships r JOIN posts p ON p.id = r.post_id "
            "WHERE r.term_id = terms.id AND p.status = 'publish')")
# Only rows that differ: a recount that changes nothing (a restored archive) leaves the content version alone.
RECOUNT_TERMS = f'UPDATE terms SET "count" = {_COUNTED} WHERE "count" <> {_COUNTED}'
MISCOUNTED_TERMS = f'SELECT 1 FROM terms WHERE "count" <> {_COUNTED} LIMIT 1'

_SQLITE_TERM_COUNT_TRIGGERS = {
    # A link made or removed while its post is published.
    "link": "AFTER INSERT ON term_relationships WHEN (SELECT status FROM posts WHERE id = new.post_id) = 'publish' "
            'BEGIN UPDATE terms SET "count" = "count" + 1 WHERE id = new.term_id; END',
    "unlink": "AFTER DELETE ON term_relationships WHEN (SELECT status FROM posts WHERE id = old.post_id) = 'publish' "
              'BEGIN UPDATE terms SET "count" = "count" - 1 WHERE id = old.term_id; END',
    "relink": "AFTER UPDATE OF post_id, term_id ON term_relationships BEGIN "
              'UPDATE terms SET "count" = "count" - 1 WHERE id = old.term_id '
              "AND (SELECT status FROM posts WHERE id = old.post_id) = 'publish'; "
              'UPDATE terms SET "count" = "count" + 1 WHERE id = new.term_id '
              "AND (SELECT status FROM posts WHERE id = new.post_id) = 'publish'; END",
    # Publish, unpublish, trash, untrash: every term of the post moves by one.
    "status": "AFTER UPDATE OF status ON posts WHEN (old.status = 'publish') <> (new.status = 'publish') BEGIN "
              "UPDATE terms SET \"count\" = \"count\" + (CASE WHEN new.status = 'publish' THEN 1 ELSE -1 END) "
              "WHERE id IN (SELECT term_id FROM term_relationships WHERE post_id = new.id); END",
    # Deleting a post removes its links first (while it still reads as published), so the
    # foreign key's cascade, which runs after the row is gone, finds nothing left to uncount.
    "delete": "BEFORE DELETE ON posts BEGIN DELETE FROM term_relationships WHERE post_id = old.id; END",
}
# PostgreSQL's triggers work per statement: a row trigger updated one of a dozen
# `terms` rows once per link, so one INSERT of 100,000 posts' links piled up dead versions of the
# same rows and ran for over 9 minutes. These read the statement's rows from transition tables
# and move each affected term once, by the statement's net change. PostgreSQL allows transition
# tables only on single-event triggers without column lists: one trigger per event, and the
# posts trigger fires on every UPDATE of posts and finds the rows whose status crossed 'publish'.
# A link counts while its post is published, as seen when the trigger fires (end of statement).
POSTGRES_TERM_COUNT_VERSION = "v2"
POSTGRES_TERM_COUNT_TRIGGER = f"term_count_{POSTGRES_TERM_COUNT_VERSION}"
_POSTGRES_TERM_COUNT_TRIGGERS = {  # name: (table, definition after the trigger's name)
    "links_insert": ("term_relationships", "AFTER INSERT ON term_relationships REFERENCING NEW TABLE AS added_links "
                     "FOR EACH STATEMENT EXECUTE FUNCTION sitehost_term_count_links_v2()"),
    "links_delete": ("term_relationships", "AFTER DELETE ON term_relationships REFERENCING OLD TABLE AS removed_links "
                     "FOR EACH STATEMENT EXECUTE FUNCTION sitehost_term_count_links_v2()"),
    "links_update": ("term_relationships", "AFTER UPDATE ON term_relationships "
                     "REFERENCING OLD TABLE AS removed_links NEW TABLE AS added_links "
                     "FOR EACH STATEMENT EXECUTE FUNCTION sitehost_term_count_links_v2()"),
    "status": ("posts", "AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_posts NEW TABLE AS new_posts "
               "FOR EACH STATEMENT EXECUTE FUNCTION sitehost_term_count_status_v2()"),
    # Deleting a post removes its links first (while it still reads as published), so the foreign
    # key's cascade, which runs after the row is gone, finds nothing left to uncount. Per row: a
    # statement trigger cannot act before the cascade, and posts are deleted a few at a time.
    "delete": ("posts", "BEFORE DELETE ON posts FOR EACH ROW EXECUTE FUNCTION sitehost_term_count_delete()"),
}
_POSTGRES_PUBLISHED_LINKS = ("SELECT link.term_id, COUNT(*) AS n FROM {links} link JOIN posts post "
                             "ON post.id = link.post_id AND post.status = 'publish' GROUP BY link.term_id")
_POSTGRES_TERM_COUNT = f"""
CREATE OR REPLACE FUNCTION sitehost_term_count_links_v2() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE terms SET "count" = terms."count" + change.n
      FROM ({_POSTGRES_PUBLISHED_LINKS.format(links="added_links")}) change WHERE terms.id = change.term_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE terms SET "count" = terms."count" - change.n
      FROM ({_POSTGRES_PUBLISHED_LINKS.format(links="removed_links")}) change WHERE terms.id = change.term_id;
  ELSE
    UPDATE terms SET "count" = terms."count" + change.n
      FROM (SELECT term_id, SUM(n) AS n FROM (
              {_POSTGRES_PUBLISHED_LINKS.format(links="added_links")}
              UNION ALL
              SELECT term_id, -n FROM ({_POSTGRES_PUBLISHED_LINKS.format(links="removed_links")}) removed
            ) moves GROUP BY term_id HAVING SUM(n) <> 0) change
      WHERE terms.id = change.term_id;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION sitehost_term_count_status_v2() RETURNS trigger AS $$
BEGIN
  UPDATE terms SET "count" = terms."count" + change.n
    FROM (SELECT link.term_id, SUM(CASE WHEN new_post.status = 'publish' THEN 1 ELSE -1 END) AS n
            FROM old_posts old_post JOIN new_posts new_post ON new_post.id = old_post.id
            JOIN term_relationships link ON link.post_id = new_post.id
           WHERE (old_post.status = 'publish') IS DISTINCT FROM (new_post.status = 'publish')
           GROUP BY link.term_id HAVING SUM(CASE WHEN new_post.status = 'publish' THEN 1 ELSE -1 END) <> 0) change
    WHERE terms.id = change.term_id;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION sitehost_term_count_delete() RETURNS trigger AS $$
BEGIN
  DELETE FROM term_relationships WHERE post_id = OLD.id;
  RETURN OLD;
END $$ LANGUAGE plpgsql;
""" + "".join(f"CREATE OR REPLACE TRIGGER {POSTGRES_TERM_COUNT_TRIGGER}_{name} {body};\n"
              for name, (_table, body) in _POSTGRES_TERM_COUNT_TRIGGERS.items())
# Functions of earlier versions' triggers, dropped once those triggers are.
_POSTGRES_OLD_TERM_COUNT_FUNCTIONS = ("sitehost_term_count_links", "sitehost_term_count_status")


def install_term_counts(app) -> bool:
    """Stored term counts: the triggers that keep the column (core's migrations add it to earlier
    releases' databases), and a recount when they are new.

    Triggers rather than code in each write path: publish, unpublish, trash, untrash, term
    links set through core/v2, batch/v1, `app.content` or any plugin's own SQL, deletes of posts
    and terms all change the count in the writer's transaction, whoever wrote. True if the
    counts were (re)computed.
    """
    # BEGIN IMMEDIATE on SQLite: two workers starting together queue here instead of one failing to upgrade.
    with app.db.engine.execution_options(sitehost_write=True).begin() as connection:
        dialect = connection.dialect.name
        if dialect == "sqlite":
            installed = {row[0] for row in connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, 11) = 'term_count_'")}
            wanted = {f"{TERM_COUNT_TRIGGER}_{name}" for name in _SQLITE_TERM_COUNT_TRIGGERS}
            if installed == wanted:
                return False
            for name in installed:
                connection.exec_driver_sql(f'DROP TRIGGER IF EXISTS "{name}"')
            for name, body in _SQLITE_TERM_COUNT_TRIGGERS.items():
                connection.exec_driver_sql(f"CREATE TRIGGER {TERM_COUNT_TRIGGER}_{name} {body}")
        elif dialect == "postgresql":
            installed = {row[0] for row in connection.exec_driver_sql(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND left(tgname, 11) = 'term_count_' "
                "AND tgrelid IN ('posts'::regclass, 'term_relationships'::regclass)")}
            wanted = {f"{POSTGRES_TERM_COUNT_TRIGGER}_{name}" for name in _POSTGRES_TERM_COUNT_TRIGGERS}
            if installed == wanted:
                return False
            # Writers wait while the counts are made: a link committed during the recount would be counted
            # by its trigger and then overwritten.
            connection.exec_driver_sql("LOCK TABLE posts, terms, term_relationships IN SHARE ROW EXCLUSIVE MODE")
            for name in installed - wanted:  # an earlier version's (term_count_v1_links: row by row)
                for table in ("term_relationships", "posts"):
                    connection.exec_driver_sql(f'DROP TRIGGER IF EXISTS "{name}" ON {table}')
            connection.exec_driver_sql(_POSTGRES_TERM_COUNT)
            for function in _POSTGRES_OLD_TERM_COUNT_FUNCTIONS:
                connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {function}()")
        else:
            return False
        if connection.exec_driver_sql(MISCOUNTED_TERMS).first() is None:
            return False  # PostgreSQL's version trigger fires per statement, even one that changes no row
        connection.exec_driver_sql(RECOUNT_TERMS)
    return True


# PostgreSQL's twin of the SQLite function host/db.py registers: markup without script, style,
# template and noscript elements, and without tags ("alert" was found in a post
# whose only script said alert(1)). IMMUTABLE, so an expression index can use it.
# Tags are removed, then any `<` or `>` left (an unclosed tag is not visible text): PostgreSQL's
# text-search parser is quadratic on a long run of unclosed tags, and 300,000 of them froze a write
#. The comment names the version, so an index built with an older body is rebuilt once.
# v3: PL/pgSQL with a COST, not an SQL function. PostgreSQL inlined the SQL body and
# priced its five regexp_replace calls as five cheap operators, so a search's first page walked the
# date index and ran them over every post it passed (about 2 ms each on a 2 KB post: 0.24 s at 1,000
# posts, 2.5 s at 10,000) instead of asking the GIN index. Not inlined, the call keeps its COST (a
# post's text costs about as much as sorting a thousand rows), and the planner reads the index.
POSTGRES_VISIBLE_TEXT_VERSION = "sitehost_text v3"
POSTGRES_VISIBLE_TEXT = r"""
CREATE OR REPLACE FUNCTION sitehost_text(markup text) RETURNS text AS $$
BEGIN
  RETURN translate(
         regexp_replace(
           regexp_replace(
             regexp_replace(
               regexp_replace(
                 regexp_replace(coalesce(markup, ''), '<script\M.*?</script\s*>', ' ', 'gi'),
                 '<style\M.*?</style\s*>', ' ', 'gi'),
               '<template\M.*?</template\s*>', ' ', 'gi'),
             '<noscript\M.*?</noscript\s*>', ' ', 'gi'),
           '<[^<>]*>', ' ', 'g'),
         '<>', '  ');
END
$$ LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000
"""
POSTGRES_SEARCH_INDEX = "ix_posts_search_text"
# A GIN index puts new entries in a pending list that every search reads through, row by row, until
# a vacuum or a full list (4 MB by default) merges them into the index. After 2,000 creates a search
# at 10,000 posts read 251 pages of it (1 ms of its 1.1; 0.03 ms once merged), and on a busy site the
# list stays near full between vacuums. 64 kB, the least PostgreSQL allows, bounds that read; a create
# then merges the list about every 25 posts (measured: 1.6 ms of PostgreSQL's time per post written,
# against 1.0 ms deferring the merge and 2.6 ms with the list off).
SEARCH_PENDING_LIMIT = "gin_pending_list_limit=64"
SEARCH_TABLE = "posts_search"


def install_search_index(app) -> None:
    """The full-text index that `search=` uses, over the visible text of title, content and excerpt.

    SQLite: a contentless FTS5 table kept in step by triggers that index `sitehost_index_text(...)`
    of each column (the words of `sitehost_text`; the deletes give the same tokens back, as
    contentless tables need). An
    index of the raw columns from an earlier version (posts_fts) is replaced, and rows written
    before the index existed are indexed once. PostgreSQL: the sitehost_text function and a
    GIN index on the tsvector of its output.
    """
    with app.db.engine.begin() as connection:
        dialect = connection.dialect.name
        if dialect == "sqlite":
            for name in ("insert", "update", "delete"):
                connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS posts_fts_{name}")
            connection.exec_driver_sql("DROP TABLE IF EXISTS posts_fts")
            exists = connection.exec_driver_sql(
                f"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{SEARCH_TABLE}'").first()
            columns = ("sitehost_index_text({0}.title), sitehost_index_text({0}.content), "
                       "sitehost_index_text({0}.excerpt)")
            # Triggers of an earlier version called sitehost_text (the same tokens, at more cost): replaced.
            for (name,) in connection.exec_driver_sql(
                    f"SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'posts' "
                    f"AND name LIKE '{SEARCH_TABLE}%' AND sql NOT LIKE '%sitehost_index_text%'").all():
                connection.exec_driver_sql(f'DROP TRIGGER "{name}"')
            if exists is None:
                connection.exec_driver_sql(
                    f"CREATE VIRTUAL TABLE {SEARCH_TABLE} USING fts5(title, content, excerpt, content='', "
                    "tokenize='unicode61 remove_diacritics 2')")
                connection.exec_driver_sql(f"INSERT INTO {SEARCH_TABLE}(rowid, title, content, excerpt) "
                                           f"SELECT id, {columns.format('posts')} FROM posts")
            insert = f"INSERT INTO {SEARCH_TABLE}(rowid, title, content, excerpt) VALUES (new.id, {columns.format('new')});"
            delete = (f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, title, content, excerpt) "
                      f"VALUES ('delete', old.id, {columns.format('old')});")
            for name, timing, body in (("insert", "AFTER INSERT", insert), ("delete", "AFTER DELETE", delete),
                                       ("update", "AFTER UPDATE OF title, content, excerpt", delete + " " + insert)):
                connection.exec_driver_sql(
                    f"CREATE TRIGGER IF NOT EXISTS {SEARCH_TABLE}_{name} {timing} ON posts BEGIN {body} END")
        elif dialect == "postgresql":
            installed = connection.exec_driver_sql(
                "SELECT obj_description(p.oid, 'pg_proc') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE p.proname = 'sitehost_text' AND n.nspname = current_schema()").scalar()
            if installed != POSTGRES_VISIBLE_TEXT_VERSION:
                connection.exec_driver_sql(POSTGRES_VISIBLE_TEXT)
                connection.exec_driver_sql(f"COMMENT ON FUNCTION sitehost_text(text) IS '{POSTGRES_VISIBLE_TEXT_VERSION}'")
                connection.exec_driver_sql(f"DROP INDEX IF EXISTS {POSTGRES_SEARCH_INDEX}")  # built with the old body
            connection.exec_driver_sql("DROP INDEX IF EXISTS ix_posts_search")
            connection.exec_driver_sql(
                f"CREATE INDEX IF NOT EXISTS {POSTGRES_SEARCH_INDEX} ON posts USING GIN "
                "(to_tsvector('simple', sitehost_text(title) || ' ' || sitehost_text(content) || ' ' "
                f"|| sitehost_text(excerpt))) WITH ({SEARCH_PENDING_LIMIT})")
            options = connection.exec_driver_sql(
                "SELECT reloptions FROM pg_class WHERE oid = to_regclass(%(name)s)",
                {"name": POSTGRES_SEARCH_INDEX}).scalar() or []
            if SEARCH_PENDING_LIMIT not in options:  # an index built before the limit: set it, and empty its list
                connection.exec_driver_sql(f"ALTER INDEX {POSTGRES_SEARCH_INDEX} SET ({SEARCH_PENDING_LIMIT})")
                connection.exec_driver_sql(f"SELECT gin_clean_pending_list('{POSTGRES_SEARCH_INDEX}')")


def tables(app) -> dict[str, Table]:
    """The app's content tables (each app has its own metadata)."""
    return app.db.metadata.tables


def define_comment_table(metadata: MetaData) -> Table:
    """core/v2/comments. `status` is hold, approved, spam or trash; `content_hash` (SHA-256 of the
    content) lets the duplicate check use an index; `spam_guid` is the guid of the spam check
    that judged the comment, so a deferred verdict (spam/v1 webhook) finds it again."""
    return Table(
        "comments", metadata,
        Column("id", Integer, primary_key=True),
        Column("post", Integer, ForeignKey("posts.id", ondelete="CASCADE"), nullable=False),
        Column("parent", Integer, nullable=False, default=0),
        Column("author", Integer, ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        Column("author_name", String(245), nullable=False, default=""),
        Column("author_email", String(100), nullable=False, default=""),
        Column("author_url", String(200), nullable=False, default=""),
        Column("author_ip", String(100), nullable=False, default=""),
        Column("author_user_agent", String(255), nullable=False, default=""),
        Column("date", DateTime, nullable=False),
        Column("date_gmt", DateTime, nullable=False),
        Column("content", Text, nullable=False, default=""),
        Column("content_hash", String(64), nullable=False, default=""),
        Column("status", String(20), nullable=False),
        Column("pre_trash_status", String(20), nullable=False, default=""),
        Column("type", String(20), nullable=False, default="comment"),
        Column("spam_guid", String(64), nullable=False, default=""),
        Index("ix_comments_post_status_date", "post", "status", "date_gmt"),
        Index("ix_comments_post_hash", "post", "content_hash"),
        Index("ix_comments_author_ip_date", "author_ip", "date_gmt"),
        Index("ix_comments_author_date", "author", "date_gmt"),
        Index("ix_comments_email_status", "author_email", "status"),
        Index("ix_comments_parent", "parent"),
        Index("ix_comments_spam_guid", "spam_guid"),
        sqlite_autoincrement=True,
    )
