"""Comments in the database: rows to dicts, the visibility rule as SQL, writes, and the comments service.

The rule for who reads which comment lives here twice, once as SQL (`visible_clause`, used
by lists and their totals, so a total never counts what the page would not show) and once in
Python (`can_read_comment`, for one comment); tests/core/test_comments_read.py holds them equal.
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

from sqlalchemy import and_, bindparam, delete, or_, select, true, update
from sqlalchemy import text as sql_text

from host import ContentDeleted, ContentSaved
from host.comments import COMMENT_STATUSES

from . import dates, store
from .permissions import type_caps
from .shaping import public_status, user_can_read
from .tables import tables

COLUMNS = ("id", "post", "parent", "author", "author_name", "author_email", "author_url", "author_ip",
           "author_user_agent", "date", "date_gmt", "content", "status", "pre_trash_status", "type", "spam_guid")


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def comments_table(app):
    return tables(app)["comments"]


def row_to_comment(row) -> dict[str, Any]:
    mapping = row._mapping
    comment = {name: mapping[name] for name in COLUMNS}
    comment["author"] = comment["author"] or 0
    return comment


def get_comment(app, session, comment_id: int) -> dict | None:
    table = comments_table(app)
    statement = app.db.prepared("core.comment_by_id", lambda: select(*(table.c[name] for name in COLUMNS)).where(
        table.c.id == bindparam("comment_id")))
    row = session.execute(statement, {"comment_id": comment_id}).first()
    return row_to_comment(row) if row is not None else None


POST_FIELDS = ("id", "type", "status", "author", "password", "comment_status", "parent", "pre_trash_status")


def get_post(app, session, post_id: int) -> dict | None:
    """What comments need of their post (its read and edit rules, its link): a few columns, not
    the full item; an attachment's post (status inherit) is read in full for its parent."""
    if not post_id or int(post_id) <= 0:
        return None
    posts = tables(app)["posts"]
    statement = app.db.prepared("core.comment_post_by_id", lambda: select(*(posts.c[name] for name in POST_FIELDS))
                                .where(posts.c.id == bindparam("post_id")))
    row = session.execute(statement, {"post_id": int(post_id)}).first()
    if row is None:
        return None
    post = dict(row._mapping)
    if post["status"] == "inherit":
        return store.get_item(app, session, int(post_id))
    return post


def get_posts(app, session, post_ids: list[int]) -> dict[int, dict]:
    """{id: what `get_post` answers} of the ids that exist, in one query (and one per attachment)."""
    ids = [int(post_id) for post_id in post_ids if post_id and int(post_id) > 0]
    if not ids:
        return {}
    posts = tables(app)["posts"]
    found = {}
    for row in session.execute(select(*(posts.c[name] for name in POST_FIELDS)).where(posts.c.id.in_(ids))):
        post = dict(row._mapping)
        found[post["id"]] = store.get_item(app, session, post["id"]) if post["status"] == "inherit" else post
    return found


# --- who reads what --------------------------------------------------------------------------

def moderates(user) -> bool:
    return user.is_authenticated and user.can("moderate_comments")


def post_readable(request, post: dict, password: str | None) -> bool:
    """The reference's check_read_post_permission: a password-protected post needs its password
    (or the right to edit it); otherwise the post's own read rule."""
    if post.get("password") and password != post["password"]:
        return request.user.is_authenticated and request.user.can("edit_post", post)
    return user_can_read(request.app, request.user, post)


def can_edit_comment(request, comment: dict, post: dict | None) -> bool:
    user = request.user
    if not user.is_authenticated:
        return False
    if user.can("moderate_comments"):
        return True
    return user.can("edit_comment", {**comment, "_post": post})


def can_read_comment(request, comment: dict, post: dict | None, password: str | None = None) -> bool:
    user = request.user
    if post is not None and comment["status"] == "approved" and post_readable(request, post, password):
        return True
    if not user.is_authenticated:
        return False
    if post is None and not user.can("moderate_comments"):
        return False
    if comment["author"] and comment["author"] == user.id:
        return True
    return can_edit_comment(request, comment, post)


def own_post_types(request) -> list[str]:
    """Post types whose published items this user may edit when they are the author (authors: posts)."""
    user = request.user
    return [name for name in request.app.registry.post_types
            if user.can(type_caps(request.app, name)["edit_published"])]


def visible_clause(request, unlocked_posts: tuple[int, ...] = ()):
    """SQL condition (over comments joined to posts) of the comments this caller may read."""
    app, user = request.app, request.user
    comments, posts = comments_table(app), tables(app)["posts"]
    if moderates(user):
        return true()
    public = [name for name in app.registry.statuses if public_status(app, name)] or ["publish"]
    unprotected = posts.c.password == ""
    if unlocked_posts:
        unprotected = or_(unprotected, posts.c.id.in_(unlocked_posts))
    clauses = [and_(comments.c.status == "approved", posts.c.status.in_(public), unprotected)]
    if user.is_authenticated:
        clauses.append(comments.c.author == user.id)
        types = own_post_types(request)
        if types:
            clauses.append(and_(posts.c.author == user.id, posts.c.type.in_(types)))
    return or_(*clauses) if len(clauses) > 1 else clauses[0]


# --- writes ----------------------------------------------------------------------------------

def insert_comment(app, session, values: dict[str, Any]) -> dict:
    table = comments_table(app)
    values = {**values, "content_hash": content_hash(values["content"])}
    result = session.execute(app.db.prepared("core.insert_comment", table.insert), values)
    return get_comment(app, session, int(result.inserted_primary_key[0]))


def update_comment(app, session, comment_id: int, values: dict[str, Any]) -> dict:
    table = comments_table(app)
    if "content" in values:
        values = {**values, "content_hash": content_hash(values["content"])}
    if values:
        session.execute(update(table).where(table.c.id == comment_id).values(**values))
    return get_comment(app, session, comment_id)


def status_values(comment: dict, status: str) -> dict[str, Any]:
    """The column changes that move `comment` to `status` (trash remembers where it came from)."""
    if status == "trash":
        return {"status": "trash", "pre_trash_status": comment["status"]}
    return {"status": status, "pre_trash_status": ""}


def delete_comment(app, session, comment: dict) -> None:
    """Delete for good; replies move up to the deleted comment's parent, as the reference does."""
    table = comments_table(app)
    session.execute(update(table).where(table.c.parent == comment["id"]).values(parent=comment["parent"]))
    session.execute(delete(table).where(table.c.id == comment["id"]))


def event_item(comment: dict, previous_status: str, changed_by: Any) -> dict:
    item = {key: (dates.fmt(value) if key in ("date", "date_gmt") else value) for key, value in comment.items()}
    item.update(type="comment", previous_status=previous_status, changed_by=changed_by)
    return item


def fire_saved(request, comment: dict, created: bool, previous_status: str, changed_by: Any) -> None:
    app = request.app
    event = ContentSaved.of(event_item(comment, previous_status, changed_by), created)
    request.after_commit(lambda: app.hook.content_saved(app=app, event=event))


def fire_deleted(request, comment: dict, force: bool, changed_by: Any) -> None:
    app = request.app
    event = ContentDeleted.of(event_item(comment, comment["status"], changed_by), force)
    request.after_commit(lambda: app.hook.content_deleted(app=app, event=event))


class CoreCommentService:
    """host.comments.CommentService over the comments table, in the caller's transaction."""

    def __init__(self, app):
        self.app = app

    def get(self, request, comment_id: int) -> dict | None:
        return get_comment(self.app, request.session, int(comment_id))

    def find_by_guid(self, request, guid: str) -> list[dict]:
        if not guid:
            return []
        table = comments_table(self.app)
        rows = request.session.execute(select(*(table.c[name] for name in COLUMNS))
                                       .where(table.c.spam_guid == str(guid)[:64]).order_by(table.c.id).limit(20))
        return [row_to_comment(row) for row in rows]

    def set_status(self, request, comment_id: int, status: str, actor: str) -> dict:
        if status not in COMMENT_STATUSES:
            raise ValueError(f"unknown comment status {status!r} (one of {', '.join(COMMENT_STATUSES)})")
        comment = self.get(request, comment_id)
        if comment is None:
            raise LookupError(f"no comment {comment_id}")
        if comment["status"] == status:
            return comment
        changed = update_comment(self.app, request.session, comment["id"], status_values(comment, status))
        fire_saved(request, changed, False, comment["status"], actor)
        return changed

    def create(self, request, post_id: int, *, content: str, status: str = "hold", parent: int = 0, author: int = 0,
               author_name: str = "", author_email: str = "", author_url: str = "", author_ip: str = "",
               author_user_agent: str = "", date_gmt=None, type: str = "comment", announce: bool = True) -> dict:
        if status not in COMMENT_STATUSES:
            raise ValueError(f"unknown comment status {status!r} (one of {', '.join(COMMENT_STATUSES)})")
        if get_post(self.app, request.session, int(post_id)) is None:
            raise LookupError(f"no post {post_id}")
        values = self._new_values(post_id, content=content, status=status, parent=parent, author=author,
                                  author_name=author_name, author_email=author_email, author_url=author_url,
                                  author_ip=author_ip, author_user_agent=author_user_agent, date_gmt=date_gmt, type=type)
        if not announce:  # a bulk import: the stored values are the answer, without reading the row back
            values["content_hash"] = content_hash(content)
            result = request.session.execute(self.app.db.prepared("core.insert_comment", comments_table(self.app).insert),
                                             values)
            return {**values, "id": int(result.inserted_primary_key[0])}
        comment = insert_comment(self.app, request.session, values)
        if announce:
            fire_saved(request, comment, True, "", getattr(getattr(request, "user", None), "id", 0))
        return comment

    def create_many(self, request, comments: list[dict[str, Any]]) -> list[dict]:
        """Many `create`s with `announce` False (comments brought from another site), in one multi-row
        INSERT: each entry is `create`'s keyword arguments with `post_id`. The parents named must be
        stored already (a reply goes in a later call than the comment it answers). LookupError or
        ValueError for any entry writes nothing; answers the stored values with their ids, in order."""
        app, session = self.app, request.session
        for entry in comments:
            if entry.get("status", "hold") not in COMMENT_STATUSES:
                raise ValueError(f"unknown comment status {entry['status']!r} (one of {', '.join(COMMENT_STATUSES)})")
        found = get_posts(app, session, list({int(entry["post_id"]) for entry in comments}))
        missing = sorted({int(entry["post_id"]) for entry in comments} - set(found))
        if missing:
            raise LookupError(f"no post {missing[0]}")
        rows = []
        for entry in comments:
            arguments = dict(entry)
            values = self._new_values(arguments.pop("post_id"), **arguments)
            values["content_hash"] = content_hash(values["content"])
            rows.append(values)
        if not rows:
            return []
        ids = reserve_comment_ids(app, session, len(rows))
        if ids is None:  # no way to reserve ids here: one insert after another
            return [self.create(request, **entry, announce=False) for entry in comments]
        for values, comment_id in zip(rows, ids):
            values["id"] = comment_id
        session.execute(app.db.prepared("core.insert_comments", lambda: comments_table(app).insert()), rows)
        return rows

    def _new_values(self, post_id: int, *, content: str, status: str = "hold", parent: int = 0, author: int = 0,
                    author_name: str = "", author_email: str = "", author_url: str = "", author_ip: str = "",
                    author_user_agent: str = "", date_gmt=None, type: str = "comment") -> dict[str, Any]:
        """The row `create` stores (lengths cut to the columns'), but its id and content hash."""
        when = dates.utcnow() if date_gmt is None else date_gmt
        return {
            "post": int(post_id), "parent": int(parent), "author": int(author) or None, "author_name": author_name[:245],
            "author_email": author_email[:100], "author_url": author_url[:200], "author_ip": author_ip[:100],
            "author_user_agent": author_user_agent[:255], "date": dates.utc_to_local(when, self.app.timezone()),
            "date_gmt": when, "content": content, "status": status, "pre_trash_status": "",
            "type": (type or "comment")[:20], "spam_guid": ""}


def reserve_comment_ids(app, session, count: int) -> list[int] | None:
    """`count` ids for new comments, ascending, taken now so one executemany INSERT needs no RETURNING
    (whose row order SQLite does not promise). SQLite: the write transaction holds the file's lock,
    so the ids above the highest are ours; PostgreSQL: from the sequence. None elsewhere."""
    dialect = app.db.engine.dialect.name
    if dialect == "sqlite":
        first = session.execute(app.db.prepared("core.reserve_comment_id", lambda: sql_text(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'comments'), 0), "
            "coalesce((SELECT max(id) FROM comments), 0)) + 1"))).scalar()
        return list(range(int(first), int(first) + count))
    if dialect == "postgresql":
        statement = app.db.prepared("core.reserve_comment_ids", lambda: sql_text(
            "SELECT nextval(pg_get_serial_sequence('comments', 'id')) FROM generate_series(1, :count)"))
        return sorted(int(value) for value in session.scalars(statement, {"count": count}))
    return None


__all__ = ["CoreCommentService", "can_edit_comment", "can_read_comment", "visible_clause"]


DEMO_COMMENTS = [
    # (post title, author name, email, text, status, reply to the comment at this index or None)
    ("Welcome back for the autumn term", "Helen Carter", "helen.carter@example.org",
     "Thank you! Is the breakfast club running from the first day?", "approved", None),
    ("Welcome back for the autumn term", "Riverside School office", "office@riverside-school.example",
     "Yes, breakfast club opens at 7:45 from Wednesday.", "approved", 0),
    ("Football team reaches county final", "Tom Okafor", "tom.okafor@example.org",
     "Brilliant result, well done to the whole squad!", "approved", None),
    ("Football team reaches county final", "Aisha Rahman", "aisha.rahman@example.org",
     "Will there be a coach for supporters to the final?", "hold", None),
]


def write_demo_comments(app, session) -> None:
    """A few parents' comments (one answered by the office, one waiting for moderation) on the demo news."""
    posts = tables(app)["posts"]
    now = dates.utcnow()
    tz = app.timezone()
    made: list[int] = []
    for index, (title, name, email, text, status, reply_to) in enumerate(DEMO_COMMENTS):
        post_id = session.execute(select(posts.c.id).where(posts.c.title == title, posts.c.type == "post")).scalar()
        if post_id is None:
            made.append(0)
            continue
        when = now - datetime.timedelta(hours=len(DEMO_COMMENTS) - index)
        result = session.execute(comments_table(app).insert().values(
            post=post_id, parent=made[reply_to] if reply_to is not None else 0, author=None, author_name=name,
            author_email=email, author_url="", author_ip="198.51.100.7", author_user_agent="Mozilla/5.0",
            date=dates.utc_to_local(when, tz), date_gmt=when, content=text, content_hash=content_hash(text),
            status=status, pre_trash_status="", type="comment", spam_guid=""))
        made.append(int(result.inserted_primary_key[0]))
