"""core/v2/comments: list, create, read, update and delete comments, as the reference REST API has them.

Threads through `parent`; the post's `comment_status` opens or closes it. Visitors comment with
a name and an email address unless `[site] comment_registration` is on; signed-in users comment
as themselves. A new comment is approved, held or filed as spam by the reference's rules
(moderators and the post's author are approved; `comment_moderation` holds everything; with
`comment_previously_approved` a first comment is held), by flood control (`comment_flood`
seconds per address, 400 `comment_flood`), the duplicate check (409 `comment_duplicate`) and the
`check_spam` hook (a spam filter plugin), which may also discard the worst spam outright.

Reads: the public sees approved comments on posts it can read; signed-in users also see their
own comments and (authors) every comment on their own posts; moderators see all of them.
Lists count only what the caller may read, so totals leak nothing.
"""

from __future__ import annotations

import datetime
import html
import uuid
from typing import Any

from marshmallow import Schema, fields, validate
from sqlalchemy import and_, bindparam, case, func, or_, select

from host import RestError, RestResponse, Route, forbidden, invalid_param
from host.args import (
    CollectionArgs, ContextArgs, RenderedText, date_time, force_field, id_list, orderby_field,
)
from host.auth import users as user_service
from host.text import sanitize_text_field, sanitize_url

from . import comment_store as cs
from . import dates, store
from .changes import COMMENT_CHANGES
from .moderation_mail import notify_moderators
from .shaping import core_url, deleted_answer, permalink, rest_base
from .tables import tables

NAMESPACE = "core/v2"
MAX_LENGTHS = {"author_name": 245, "author_email": 100, "author_url": 200, "content": 65525}
LENGTH_CODES = {"author_name": "comment_author_column_length", "author_email": "comment_author_email_column_length",
                "author_url": "comment_author_url_column_length", "content": "comment_content_column_length"}
MAX_DEPTH = 10  # replies nest at most this deep (an outsider controls the chain)
MAX_POSTS_FILTER = 100  # posts one list may name (each is read for its permission check)
READ_STATUSES = {"approve": ("approved",), "approved": ("approved",), "hold": ("hold",), "spam": ("spam",),
                 "trash": ("trash",), "all": ("hold", "approved")}
WRITE_STATUSES = {"approved": "approved", "approve": "approved", "1": "approved", "hold": "hold", "0": "hold",
                  "spam": "spam", "trash": "trash"}
AVATAR_SIZES = (24, 48, 96)
AUTHOR_URL_SCHEMES = ("http", "https")  # an author's web site; javascript:, data: and the rest give ""


def _meta(description: str, context=("view", "edit", "embed"), **extra) -> dict:
    return {"description": description, "context": list(context), **extra}


# --- schemas ---------------------------------------------------------------------------------

class CommentSchema(Schema):
    """The comment resource; its writable fields are also the create and update args."""

    id = fields.Integer(dump_only=True, metadata=_meta("Unique identifier for the comment."))
    author = fields.Integer(metadata=_meta("The ID of the user object, if author was a user."))
    author_email = fields.String(validate=validate.Length(max=1000),
                                 metadata=_meta("Email address for the comment author.", ["edit"], format="email"))
    author_ip = fields.String(metadata=_meta("IP address for the comment author.", ["edit"], format="ip"))
    author_name = fields.String(validate=validate.Length(max=1000),
                                metadata=_meta("Display name for the comment author."))
    author_url = fields.String(validate=validate.Length(max=1000),
                               metadata=_meta("URL for the comment author.", format="uri"))
    author_user_agent = fields.String(validate=validate.Length(max=1000),
                                      metadata=_meta("User agent for the comment author.", ["edit"]))
    content = RenderedText("The content for the comment.", "Content for the comment, as it exists in the database.",
                           "HTML content for the comment, transformed for display.")
    date = date_time("The date the comment was published, in the site's timezone.")
    date_gmt = date_time("The date the comment was published, as GMT.")
    link = fields.String(dump_only=True, metadata=_meta("URL to the comment.", format="uri"))
    parent = fields.Integer(load_default=0, metadata=_meta("The ID for the parent of the comment."))
    post = fields.Integer(load_default=0, metadata=_meta("The ID of the associated post object.", ["view", "edit"]))
    status = fields.String(validate=validate.Length(max=20),
                           metadata=_meta("State of the comment.", ["view", "edit"]))
    type = fields.String(dump_only=True, metadata=_meta("Type of the comment.", default="comment"))
    author_avatar_urls = fields.Dict(dump_only=True, metadata=_meta("Avatar URLs for the comment author."))
    meta = fields.Dict(metadata=_meta("Meta fields.", ["view", "edit"]))


class CommentCollectionArgs(CollectionArgs):
    after = date_time("Limit response to comments published after a given ISO8601 compliant date.")
    author = id_list("Limit result set to comments assigned to specific user IDs. Requires authorization.")
    author_exclude = id_list("Ensure result set excludes comments assigned to specific user IDs. Requires "
                             "authorization.")
    author_email = fields.String(validate=validate.Length(max=200), metadata={
        "description": "Limit result set to that from a specific author email. Requires authorization.",
        "format": "email"})
    before = date_time("Limit response to comments published before a given ISO8601 compliant date.")
    orderby = orderby_field(["date", "date_gmt", "id", "include", "post", "parent", "type"], "date_gmt",
                            "Sort collection by comment attribute.")
    parent = id_list("Limit result set to comments of specific parent IDs.")
    parent_exclude = id_list("Ensure result set excludes specific parent IDs.")
    post = id_list("Limit result set to comments assigned to specific post IDs.")
    status = fields.String(load_default="approve", validate=validate.Length(max=20), metadata={
        "description": "Limit result set to comments assigned a specific status. Requires authorization."})
    type = fields.String(load_default="comment", validate=validate.Length(max=20), metadata={
        "description": "Limit result set to comments assigned a specific type. Requires authorization."})
    password = fields.String(validate=validate.Length(max=255),
                             metadata={"description": "The password for the post if it is password protected."})


class CommentIdArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier for the comment."})


class CommentReadArgs(CommentIdArgs, ContextArgs):
    password = fields.String(validate=validate.Length(max=255), metadata={
        "description": "The password for the parent post of the comment (if the post is password protected)."})


class CommentDeleteArgs(CommentIdArgs):
    force = force_field()
    password = fields.String(validate=validate.Length(max=255), metadata={
        "description": "The password for the parent post of the comment (if the post is password protected)."})


class CommentUpdateArgs(CommentIdArgs, CommentSchema):
    pass


# --- helpers ---------------------------------------------------------------------------------

def invalid_id() -> RestError:
    return RestError("rest_comment_invalid_id", "Invalid comment ID.", 404)


def site_settings(request) -> dict:
    return request.app.settings.site


def load_comment(request, comment_id) -> tuple[dict, dict | None]:
    """(comment, its post) for the id in the URL, kept for the rest of the request; 404 when missing."""
    cache = request.state.setdefault("core_comments", {})
    key = int(comment_id)
    if key not in cache:
        # request.session: after the request's own transaction ended (the Allow header's and the
        # targetHints' checks), it is one fresh read session, shared by every later check.
        session = request.session
        comment = cs.get_comment(request.app, session, key) if key > 0 else None
        if comment is None:
            raise invalid_id()
        post = cs.get_post(request.app, session, comment["post"])
        if comment["post"] and post is None:
            raise RestError("rest_post_invalid_id", "Invalid post ID.", 404)
        cache[key] = (comment, post)
    return cache[key]


def valid_email(value: str) -> bool:
    """A plain address check (one @, a dotted domain, no spaces), linear in the length."""
    if not value or len(value) > 254 or any(character.isspace() for character in value):
        return False
    local, at, domain = value.rpartition("@")
    return bool(at and local and "." in domain.strip(".") and not domain.startswith(".") and "@" not in domain)


def content_text(value: Any) -> str | None:
    """`content` as a string or `{raw}`; None when it was not sent; 400 for anything else."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = value.get("raw")
    if not isinstance(value, str):
        raise invalid_param({"content": "content is not of type string."})
    return value.strip()


def render(content: str) -> str:
    """Comment text for display: escaped, paragraphs at blank lines and line breaks inside them."""
    paragraphs = [part.strip() for part in content.replace("\r\n", "\n").split("\n\n") if part.strip()]
    return "".join("<p>" + "<br />\n".join(html.escape(line) for line in part.split("\n")) + "</p>\n"
                   for part in paragraphs)


def comment_url(request, comment_id: int) -> str:
    return core_url(request, f"comments/{comment_id}")


def prepare_comment(request, comment: dict, post: dict | None, context: str, has_children: bool) -> dict:
    tz = request.app.timezone()
    data: dict[str, Any] = {
        "id": comment["id"], "post": comment["post"], "parent": comment["parent"], "author": comment["author"],
        # Cleaned again on the way out: rows stored before names and URLs were cleaned on write.
        "author_name": sanitize_text_field(comment["author_name"]), "author_email": comment["author_email"],
        "author_url": sanitize_url(comment["author_url"], AUTHOR_URL_SCHEMES) if comment["author_url"] else "",
        "author_ip": comment["author_ip"],
        "author_user_agent": comment["author_user_agent"],
        "date": dates.fmt(dates.utc_to_local(comment["date_gmt"], tz)), "date_gmt": dates.fmt(comment["date_gmt"]),
        "content": {"rendered": render(comment["content"]), "raw": comment["content"]},
        "link": (permalink(request, post) if post else "") + f"#comment-{comment['id']}",
        "status": comment["status"], "type": comment["type"] or "comment",
        # No address-derived hash: a pupil's email must not be guessable from a public avatar URL.
        "author_avatar_urls": {str(size): f"https://secure.gravatar.com/avatar/?s={size}&d=mm&r=g"
                               for size in AVATAR_SIZES},
        "meta": {},
    }
    if context != "edit":
        for name in ("author_email", "author_ip", "author_user_agent"):
            del data[name]
        data["content"] = {"rendered": data["content"]["rendered"]}
    if context == "embed":
        for name in ("post", "date_gmt", "status", "meta"):
            del data[name]
    links: dict[str, list] = {"self": [{"href": comment_url(request, comment["id"])}],
                              "collection": [{"href": core_url(request, "comments")}]}
    if comment["author"]:
        links["author"] = [{"embeddable": True, "href": core_url(request, f"users/{comment['author']}")}]
    if post:
        links["up"] = [{"embeddable": True, "post_type": post["type"],
                        "href": core_url(request, f"{rest_base(request.app, post['type'])}/{post['id']}")}]
    if comment["parent"]:
        links["in-reply-to"] = [{"embeddable": True, "href": comment_url(request, comment["parent"])}]
    if has_children:
        links["children"] = [{"embeddable": True, "href": core_url(request, f"comments?parent={comment['id']}")}]
    data["_links"] = links
    return data


def with_children(app, session, ids: list[int]) -> set[int]:
    if not ids:
        return set()
    table = cs.comments_table(app)
    return set(session.execute(select(table.c.parent).where(table.c.parent.in_(ids)).distinct()).scalars())


# --- reading ---------------------------------------------------------------------------------

PROTECTED_PARAMS = ("author", "author_exclude", "author_email", "type", "status")


def check_list(request, posts: dict | None = None):
    """`posts`: their `cs.get_post` by id, when the caller read them already (embed batches)."""
    params, user = request.params, request.user
    requested = params.get("post") or []
    requested = requested if isinstance(requested, list) else [requested]  # (the Allow header asks with POST's)
    if len(requested) > MAX_POSTS_FILTER:
        raise invalid_param({"post": f"post names at most {MAX_POSTS_FILTER} posts."})
    for post_id in dict.fromkeys(requested):
        if post_id == 0:
            if not user.can("moderate_comments"):
                raise forbidden(user, "rest_cannot_read", "Sorry, you are not allowed to read comments without a post.")
            continue
        post = posts.get(post_id) if posts is not None else cs.get_post(request.app, request.session, post_id)
        if post is not None and not cs.post_readable(request, post, params.get("password")):
            raise forbidden(user, "rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.")
    if params.get("context") == "edit" and not user.can("moderate_comments"):
        raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to edit comments.")
    if not user.can("edit_posts"):
        refused = []
        for name in PROTECTED_PARAMS:
            value = params.get(name)
            if name == "status":
                if value != "approve":
                    refused.append(name)
            elif name == "type":
                if value != "comment":
                    refused.append(name)
            elif value:
                refused.append(name)
        if refused:
            raise forbidden(user, "rest_forbidden_param", f"Query parameter not permitted: {', '.join(refused)}")
    return True


def _filters(request, table, posts) -> list:
    params = request.params
    tz = request.app.timezone()
    conditions = []
    statuses = READ_STATUSES.get(params.get("status", "approve"), (params.get("status") or "",))
    conditions.append(table.c.status.in_(statuses))
    conditions.append(table.c.type == (params.get("type") or "comment"))
    for name, column in (("post", table.c.post), ("parent", table.c.parent), ("include", table.c.id),
                         ("author", func.coalesce(table.c.author, 0))):
        if params.get(name):
            conditions.append(column.in_(params[name]))
    for name, column in (("exclude", table.c.id), ("parent_exclude", table.c.parent),
                         ("author_exclude", func.coalesce(table.c.author, 0))):
        if params.get(name):
            conditions.append(column.not_in(params[name]))
    if params.get("author_email"):
        conditions.append(table.c.author_email == params["author_email"])
    for name, compare in (("after", "__gt__"), ("before", "__lt__")):
        if params.get(name):
            try:
                moment = dates.local_to_utc(dates.parse_local(params[name], tz), tz)
            except ValueError:
                raise invalid_param({name: "Invalid date."}) from None
            conditions.append(getattr(table.c.date_gmt, compare)(moment))
    search = params.get("search")
    if search:
        pattern = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        columns = [table.c.content, table.c.author_name, table.c.author_url]
        if cs.moderates(request.user):  # addresses are searchable only by those who may read them
            columns += [table.c.author_email, table.c.author_ip]
        conditions.append(or_(*(column.like(pattern, escape="\\") for column in columns)))
    return conditions


def list_comments(request):
    params = request.params
    app = request.app
    table, posts = cs.comments_table(app), tables(app)["posts"]
    password = params.get("password")
    unlocked = ()
    if password and len(params.get("post") or []) == 1:
        unlocked = (params["post"][0],)
        post = cs.get_post(app, request.session, unlocked[0])
        if post is None or post.get("password") != password:
            unlocked = ()
    where = and_(*_filters(request, table, posts), cs.visible_clause(request, unlocked))
    joined = table.join(posts, posts.c.id == table.c.post)
    session = request.session
    total = session.execute(select(func.count()).select_from(joined).where(where)).scalar() or 0
    per_page, page = params["per_page"], params["page"]
    offset = params["offset"] if params.get("offset") else (page - 1) * per_page
    rows = session.execute(select(*(table.c[name] for name in cs.COLUMNS)).select_from(joined).where(where)
                           .order_by(*_order(params, table)).limit(per_page).offset(offset)).all()
    found = [cs.row_to_comment(row) for row in rows]
    post_ids = {comment["post"] for comment in found}
    post_items = {post_id: cs.get_post(app, session, post_id) for post_id in post_ids}
    parents = with_children(app, session, [comment["id"] for comment in found])
    context = params.get("context", "view")
    items = [prepare_comment(request, comment, post_items.get(comment["post"]), context, comment["id"] in parents)
             for comment in found]
    return RestResponse.collection(request, items, total, per_page, page)


def _order(params, table) -> list:
    orderby = params.get("orderby", "date_gmt")
    descending = params.get("order", "desc") == "desc"
    columns = {"date": table.c.date_gmt, "date_gmt": table.c.date_gmt, "id": table.c.id, "post": table.c.post,
               "parent": table.c.parent, "type": table.c.type}
    if orderby == "include" and params.get("include"):
        return [case({value: index for index, value in enumerate(params["include"])}, value=table.c.id)]
    column = columns.get(orderby, table.c.date_gmt)
    order = [column.desc() if descending else column.asc()]
    if column is not table.c.id:
        order.append(table.c.id.desc() if descending else table.c.id.asc())
    return order


def embed_replies(parent, requests) -> list:
    """`_embed` of `replies` for a whole page: the comments of every post in one query.

    Answers only the links' own form (`?post=ID` with `context=embed`, first page, default
    filters and order); each gets `check_list`'s decision and what `list_comments` would list.
    """
    answers: list = [None] * len(requests)
    chosen = [index for index, request in enumerate(requests)
              if set(request.query) <= {"post", "context", "per_page"} and request.params.get("context") == "embed"
              and len(request.params.get("post") or []) == 1 and request.params["post"][0] > 0]
    if not chosen:
        return answers
    app, session = parent.app, parent.session
    post_ids = list(dict.fromkeys(requests[index].params["post"][0] for index in chosen))
    posts = cs.get_posts(app, session, post_ids)
    allowed = []
    for index in chosen:
        try:
            check_list(requests[index], posts)
        except RestError as error:
            answers[index] = error
        else:
            allowed.append(index)
    if not allowed:
        return answers
    # Every request of the page has the same caller and the same default filters and order:
    # one query, cut per post below.
    first = requests[allowed[0]]
    table, posts_table = cs.comments_table(app), tables(app)["posts"]
    wanted = list(dict.fromkeys(requests[index].params["post"][0] for index in allowed))
    scoped = {**first.params, "post": wanted}
    joined = table.join(posts_table, posts_table.c.id == table.c.post)
    where = and_(*_filters(_Scoped(first, scoped), table, posts_table), cs.visible_clause(first))
    rows = session.execute(select(*(table.c[name] for name in cs.COLUMNS)).select_from(joined).where(where)
                           .order_by(table.c.post, *_order(first.params, table))).all()
    by_post: dict[int, list[dict]] = {}
    for row in rows:
        comment = cs.row_to_comment(row)
        by_post.setdefault(comment["post"], []).append(comment)
    for post_id in by_post:
        by_post[post_id] = by_post[post_id][: first.params["per_page"]]
    parents = with_children(app, session, [comment["id"] for found in by_post.values() for comment in found])
    for index in allowed:
        request = requests[index]
        post_id = request.params["post"][0]
        answers[index] = [prepare_comment(request, comment, posts.get(post_id), "embed", comment["id"] in parents)
                          for comment in by_post.get(post_id, [])]
    return answers


class _Scoped:
    """A request's view with other params, for `_filters` (which reads params, app and user)."""

    def __init__(self, request, params: dict):
        self.params, self.app, self.user = params, request.app, request.user


def check_read(request):
    comment, post = load_comment(request, request.params["id"])
    user = request.user
    if request.params.get("context") == "edit" and not user.can("moderate_comments"):
        raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to edit comments.")
    password = request.params.get("password")
    if not cs.can_read_comment(request, comment, post, password):
        raise forbidden(user, "rest_cannot_read", "Sorry, you are not allowed to read this comment.")
    if post is not None and not cs.post_readable(request, post, password) and not cs.moderates(user):
        raise forbidden(user, "rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.")
    return True


def get_comment(request):
    comment, post = load_comment(request, request.params["id"])
    children = with_children(request.app, request.session, [comment["id"]])
    return prepare_comment(request, comment, post, request.params.get("context", "view"), bool(children))


# --- creating --------------------------------------------------------------------------------

def _check_lengths(values: dict) -> None:
    for name, limit in MAX_LENGTHS.items():
        if len(values.get(name) or "") > limit:
            raise RestError(LENGTH_CODES[name], "Comment field exceeds maximum length allowed.", 400)


def _author_fields(request, values: dict) -> None:
    """`author` (a user id) fills the author's name, email and URL, as the reference does."""
    params = request.params
    if params.get("author") is not None and request.has_param("author"):
        found = user_service.get_user(request.app, request.session, int(params["author"])) \
            if params["author"] > 0 else None
        if found is None:
            raise RestError("rest_comment_author_invalid", "Invalid comment author ID.", 400)
        values.update(author=found.id, author_name=found.display_name, author_email=found.email,
                      author_url=found.url or "")
    for name in ("author_name", "author_email", "author_url"):
        if params.get(name) is not None and request.has_param(name):
            values[name] = str(params[name]).strip()
    _clean_author(values)
    if values.get("author_email") and not valid_email(values["author_email"]):
        raise invalid_param({"author_email": "Invalid email address."})


def _clean_author(values: dict) -> None:
    """No markup in the author's name and only an http(s) author URL, as the reference keeps them:
    other people's pages show both (the name as text, the URL as a link)."""
    if values.get("author_name"):
        values["author_name"] = sanitize_text_field(values["author_name"])
    if values.get("author_url"):
        values["author_url"] = sanitize_url(values["author_url"], AUTHOR_URL_SCHEMES)


def _date_fields(request, values: dict) -> None:
    params, tz = request.params, request.app.timezone()
    try:
        if params.get("date"):
            local = dates.parse_local(params["date"], tz)
            values["date"], values["date_gmt"] = local, dates.local_to_utc(local, tz)
        elif params.get("date_gmt"):
            utc = dates.parse_utc(params["date_gmt"])
            values["date"], values["date_gmt"] = dates.utc_to_local(utc, tz), utc
    except ValueError:
        raise invalid_param({"date" if params.get("date") else "date_gmt": "Invalid date."}) from None


def _check_parent(request, post_id: int, parent_id: int, moving: int = 0) -> None:
    """A reply's parent: a comment on the same post that the caller may read (so a reply never
    reveals a held or spam comment), not the comment being moved nor one of its replies, and
    at most MAX_DEPTH levels deep."""
    if not parent_id:
        return
    depth, current = 0, parent_id
    while current:
        found = cs.get_comment(request.app, request.session, current)
        invalid = found is None or current == moving
        if not invalid and depth == 0:
            post = cs.get_post(request.app, request.session, found["post"])
            invalid = found["post"] != post_id or not cs.can_read_comment(request, found, post,
                                                                         request.params.get("password"))
        if invalid:
            raise RestError("rest_comment_invalid_parent", "Invalid comment parent: it must be a comment on the "
                            "same post, and not the comment itself or one of its replies.", 400)
        depth += 1
        if depth >= MAX_DEPTH:
            raise RestError("rest_comment_too_deep", f"Replies nest at most {MAX_DEPTH} levels deep.", 400)
        current = found["parent"]


def _check_create_permission(request, post: dict | None) -> None:
    """The reference's create permission check; run by the handler, since visitors may comment."""
    params, user = request.params, request.user
    if not user.is_authenticated and site_settings(request).get("comment_registration"):
        raise RestError("rest_comment_login_required", "Sorry, you must be logged in to comment.", 401)
    moderator = user.can("moderate_comments")
    if request.has_param("author") and params.get("author") != user.id and not moderator:
        raise forbidden(user, "rest_comment_invalid_author", "Sorry, you are not allowed to edit 'author' for comments.")
    if request.has_param("author_ip") and not moderator and params.get("author_ip") != request.remote_addr:
        raise forbidden(user, "rest_comment_invalid_author_ip",
                        "Sorry, you are not allowed to edit 'author_ip' for comments.")
    if request.has_param("status") and not moderator:
        raise forbidden(user, "rest_comment_invalid_status", "Sorry, you are not allowed to edit 'status' for comments.")
    if post is None:
        raise forbidden(user, "rest_comment_invalid_post_id",
                        "Sorry, you are not allowed to create this comment without a post.")
    if post["status"] == "draft":
        raise forbidden(user, "rest_comment_draft_post", "Sorry, you are not allowed to create a comment on this post.")
    if post["status"] == "trash":
        raise forbidden(user, "rest_comment_trash_post", "Sorry, you are not allowed to create a comment on this post.")
    if not cs.post_readable(request, post, params.get("password")):
        raise forbidden(user, "rest_cannot_read_post", "Sorry, you are not allowed to read the post for this comment.")
    if post.get("comment_status") != "open":
        raise forbidden(user, "rest_comment_closed", "Sorry, comments are closed for this item.")


def _is_duplicate(request, values: dict) -> bool:
    table = cs.comments_table(request.app)
    by = tuple(name for name in ("author_name", "author_email") if values.get(name))
    if not by:
        return False
    # Prepared once per combination of sender fields (built per request it cost more than it ran).
    statement = request.app.db.prepared("core.duplicate_comment:" + ",".join(by), lambda: select(table.c.id).where(
        table.c.post == bindparam("post"), table.c.content_hash == bindparam("content_hash"),
        table.c.parent == bindparam("parent"), table.c.status != "trash",
        or_(*[table.c[name] == bindparam(name) for name in by]), table.c.content == bindparam("content")).limit(1))
    found = request.session.execute(statement, {
        "post": values["post"], "content_hash": cs.content_hash(values["content"]), "parent": values["parent"],
        "content": values["content"], **{name: values[name] for name in by}}).first()
    return found is not None


def _is_flood(request, values: dict, now: datetime.datetime) -> bool:
    seconds = int(site_settings(request).get("comment_flood") or 0)
    if seconds <= 0 or request.user.can("moderate_comments"):
        return False
    table = cs.comments_table(request.app)
    since = now - datetime.timedelta(seconds=seconds)
    # As the reference: a signed-in user is limited by account, a visitor by address.
    if request.user.is_authenticated:
        same = table.c.author == request.user.id
    elif values.get("author_ip"):
        same = table.c.author_ip == values["author_ip"]
    else:
        return False
    return request.session.execute(select(table.c.id).where(same, table.c.date_gmt > since).limit(1)).first() \
        is not None


def _approval(request, values: dict, post: dict) -> str:
    """approved or hold, by the reference's rules (check_comment without the link and word lists,
    which the spam filter applies)."""
    user, site = request.user, site_settings(request)
    if user.is_authenticated and (user.can("moderate_comments") or (post.get("author") and post["author"] == user.id)):
        return "approved"
    if site.get("comment_moderation"):
        return "hold"
    if site.get("comment_previously_approved", True):
        table = cs.comments_table(request.app)
        by_account = bool(values.get("author"))
        by_name = bool(values.get("author_name") and values.get("author_email"))
        if not (by_account or by_name):
            return "hold"

        def build():
            who = [table.c.author == bindparam("author")] if by_account else []
            if by_name:
                who.append(and_(table.c.author_name == bindparam("author_name"),
                                table.c.author_email == bindparam("author_email")))
            return select(table.c.id).where(table.c.author_email == bindparam("author_email"),
                                            table.c.status == "approved", or_(*who)).limit(1)

        statement = request.app.db.prepared(f"core.previously_approved:{by_account:d}{by_name:d}", build)
        approved = request.session.execute(statement, {
            "author": values.get("author") or 0, "author_name": values.get("author_name") or "",
            "author_email": values.get("author_email") or ""}).first()
        return "approved" if approved is not None else "hold"
    return "approved"


def spam_verdict(request, values: dict, guid: str) -> dict | None:
    """Ask the `check_spam` hook (a spam filter plugin) about this comment; None without an opinion."""
    submission = {"type": "comment", "author": values.get("author_name", ""), "email": values.get("author_email", ""),
                  "url": values.get("author_url", ""), "content": values["content"], "ip": values.get("author_ip", ""),
                  "user_agent": values.get("author_user_agent", ""), "guid": guid, "post": values["post"],
                  "parent": values["parent"], "user_id": values.get("author") or 0, "request": request}
    verdict = request.app.hook.check_spam(app=request.app, submission=submission)
    return verdict if isinstance(verdict, dict) else None


def create_comment(request):
    params, user, app = request.params, request.user, request.app
    post = cs.get_post(app, request.session, params.get("post") or 0)
    _check_create_permission(request, post)
    if request.has_param("id"):
        raise RestError("rest_comment_exists", "Cannot create existing comment.", 400)
    content = content_text(params.get("content"))
    if not content:
        raise RestError("rest_comment_content_invalid", "Invalid comment content.", 400)
    now = dates.utcnow()
    values: dict[str, Any] = {"post": post["id"], "parent": int(params.get("parent") or 0), "content": content,
                              "date_gmt": now, "date": dates.utc_to_local(now, app.timezone()), "type": "comment",
                              "author_name": "", "author_email": "", "author_url": ""}
    _author_fields(request, values)
    if user.is_authenticated and not any(values.get(name) for name in ("author", "author_name", "author_email",
                                                                       "author_url")):
        values.update(author=user.id, author_name=user.display_name, author_email=user.email or "",
                      author_url=getattr(user, "url", "") or "")
        _clean_author(values)
    if site_settings(request).get("require_name_email", True) and not (values["author_name"]
                                                                       and values["author_email"]):
        raise RestError("rest_comment_author_data_required",
                        "Creating a comment requires valid author name and email values.", 400)
    values["author_ip"] = params["author_ip"] if (params.get("author_ip") and user.can("moderate_comments")) \
        else (request.remote_addr or "127.0.0.1")
    values["author_user_agent"] = (params.get("author_user_agent") or request.header("user-agent") or "")[:255]
    _date_fields(request, values)
    _check_lengths(values)
    _check_parent(request, post["id"], values["parent"])
    if _is_duplicate(request, values):
        raise RestError("comment_duplicate", "Duplicate comment detected; it looks as though you\u2019ve already "
                        "said that!", 409)
    if _is_flood(request, values, now):
        raise RestError("comment_flood", "You are posting comments too quickly. Slow down.", 400)
    values["status"] = _approval(request, values, post)
    guid = str(uuid.uuid4())
    if not user.can("moderate_comments"):
        verdict = spam_verdict(request, values, guid)
        if verdict and verdict.get("discard"):
            raise RestError("rest_comment_discarded", "Your comment was not accepted: it looks like spam.", 403)
        if verdict and verdict.get("spam"):
            values["status"] = "spam"
        if verdict:
            values["spam_guid"] = str(verdict.get("guid") or guid)[:64]
    comment = cs.insert_comment(app, request.session, values)
    if request.has_param("status") and params.get("status") is not None:
        comment = _apply_status(request, comment, params["status"])
    notify_moderators(request, comment)
    cs.fire_saved(request, comment, True, "", user.id if user.is_authenticated else 0)
    context = "edit" if user.can("moderate_comments") else "view"
    return RestResponse.created(prepare_comment(request, comment, post, context, False),
                                comment_url(request, comment["id"]))


def _apply_status(request, comment: dict, requested: str) -> dict:
    """The reference's status words: approve(d)/1, hold/0, spam, unspam, trash, untrash; others: 400."""
    requested = str(requested).strip().lower()
    if requested in ("unspam", "untrash"):
        if comment["status"] != requested[2:]:
            return comment
        target = comment["pre_trash_status"] or "hold" if requested == "untrash" else "hold"
    elif requested in WRITE_STATUSES:
        target = WRITE_STATUSES[requested]
    else:
        raise invalid_param({"status": "status is not one of approved, hold, spam, unspam, trash and untrash."})
    if target == comment["status"]:
        return comment
    return cs.update_comment(request.app, request.session, comment["id"], cs.status_values(comment, target))


# --- updating and deleting -------------------------------------------------------------------

def check_update(request):
    comment, post = load_comment(request, request.params["id"])
    if not cs.can_edit_comment(request, comment, post):
        raise forbidden(request.user, "rest_cannot_edit", "Sorry, you are not allowed to edit this comment.")
    return True


def check_delete(request):
    comment, post = load_comment(request, request.params["id"])
    if not cs.can_edit_comment(request, comment, post):
        raise forbidden(request.user, "rest_cannot_delete", "Sorry, you are not allowed to delete this comment.")
    return True


def update_comment(request):
    params, app = request.params, request.app
    comment, post = load_comment(request, params["id"])
    comment = cs.get_comment(app, request.session, comment["id"])  # fresh, inside this transaction
    values: dict[str, Any] = {}
    if request.has_param("post") and params.get("post") and params["post"] != comment["post"]:
        post = cs.get_post(app, request.session, params["post"])
        if post is None:
            raise RestError("rest_comment_invalid_post_id", "Invalid post ID.", 403)
        values["post"] = post["id"]
    if request.has_param("parent") and params.get("parent") is not None and params["parent"] != comment["parent"]:
        _check_parent(request, values.get("post", comment["post"]), int(params["parent"]), moving=comment["id"])
        values["parent"] = int(params["parent"])
    content = content_text(params.get("content")) if request.has_param("content") else None
    if content is not None:
        if not content:
            raise RestError("rest_comment_content_invalid", "Invalid comment content.", 400)
        values["content"] = content
    _author_fields(request, values)
    if request.has_param("author_ip") and params.get("author_ip") and request.user.can("moderate_comments"):
        values["author_ip"] = params["author_ip"]
    if request.has_param("author_user_agent") and params.get("author_user_agent") is not None:
        values["author_user_agent"] = params["author_user_agent"][:255]
    _date_fields(request, values)
    _check_lengths(values)
    previous = comment["status"]
    updated = cs.update_comment(app, request.session, comment["id"], values)
    if request.has_param("status") and params.get("status") is not None:
        updated = _apply_status(request, updated, params["status"])
    cs.fire_saved(request, updated, False, previous, request.user.id)
    children = with_children(app, request.session, [updated["id"]])
    return prepare_comment(request, updated, post, "edit", bool(children))


def delete_comment(request):
    params, app = request.params, request.app
    comment, post = load_comment(request, params["id"])
    comment = cs.get_comment(app, request.session, comment["id"])
    children = bool(with_children(app, request.session, [comment["id"]]))
    if params.get("force"):
        previous = prepare_comment(request, comment, post, "edit", children)
        cs.delete_comment(app, request.session, comment)
        cs.fire_deleted(request, comment, True, request.user.id)
        return deleted_answer(previous)
    if comment["status"] == "trash":
        raise RestError("rest_already_trashed", "The comment has already been trashed.", 410)
    trashed = cs.update_comment(app, request.session, comment["id"], cs.status_values(comment, "trash"))
    cs.fire_deleted(request, trashed, False, request.user.id)
    return prepare_comment(request, trashed, post, "edit", children)


def routes() -> list[Route]:
    collection, item = "/comments", r"/comments/(?P<id>[\d]+)"
    shape = {"schema": CommentSchema, "title": "comment"}
    return [
        Route(NAMESPACE, collection, "GET", list_comments, args=CommentCollectionArgs, permission=check_list,
              embed_batch=embed_replies, answer_version=store.answer_version, cacheable=True,
              changes_with=COMMENT_CHANGES, **shape),
        # Public: visitors may comment; the handler runs the reference's create checks (comment_registration ...).
        Route(NAMESPACE, collection, "POST", create_comment, args=CommentSchema, permission=None, **shape),
        Route(NAMESPACE, item, "GET", get_comment, args=CommentReadArgs, permission=check_read,
              answer_version=store.answer_version, cacheable=True, changes_with=COMMENT_CHANGES, **shape),
        Route(NAMESPACE, item, ("POST", "PUT", "PATCH"), update_comment, args=CommentUpdateArgs, partial_args=True,
              permission=check_update, **shape),
        Route(NAMESPACE, item, "DELETE", delete_comment, args=CommentDeleteArgs, permission=check_delete, **shape),
    ]

