"""Comments on the public pages: the approved ones, threaded under their post, and a comment form
that works without JavaScript.

The form posts to `/comment-post` (WordPress's wp-comments-post.php), which sends the visitor's
comment to `POST core/v2/comments` through the site's own REST pipeline, as an anonymous caller
from the visitor's address: the same permission check, flood rule, duplicate check, spam check and
moderation as any REST client. Then it answers in place: back to the post (303) with the comment
shown, or with "held for moderation"; a refusal shows the form again, filled in, with the reason.

A visitor signed in through the sign-in page (its session cookie) sees "Logged in as NAME" and no name
or email fields, and the comment is created as that user (author set; approved at once for a user who
may moderate comments or wrote the post, as WordPress's wp_allow_comment does). As WordPress's REST
cookie check: a session-cookie post must carry the session's nonce (`_wpnonce`); without one it is an
anonymous visitor's, and with a wrong one it is refused (403) and nothing is saved.
"""

from __future__ import annotations

import hmac
import io
import json

from sqlalchemy import select

from host import HtmlView, Page, PageRequest, RestRequest, redirect, theme

from . import comment_store as cs, store
from .comments import render as render_comment_text
from .public_links import link_of as _link_of, not_found_view, viewable as _viewable

MAX_SHOWN = 500  # approved comments a post page shows
MAX_DEPTH = 5  # thread depth shown, as WordPress's thread_comments_depth; deeper replies join their ancestor's list
FORM_FIELDS = ("author_name", "author_email", "content")
NONCE_LENGTH = 200  # a longer `_wpnonce` is no session's nonce
FIELD_LIMITS = {"author_name": 245, "author_email": 100, "content": 65525}
COPIED_ENVIRON = ("REMOTE_ADDR", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "wsgi.url_scheme",
                  "HTTP_USER_AGENT", "HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST",
                  "HTTP_FORWARDED", "SCRIPT_NAME")


def thread(app, post_id: int) -> list[dict]:
    """Approved comments of a post as a tree (oldest first), each {"id", "author", "url", "date", "html", "replies"}."""
    table = cs.comments_table(app)
    with app.db.session() as session:
        rows = session.execute(select(table.c.id, table.c.parent, table.c.author_name, table.c.author_url,
                                      table.c.date, table.c.content)
                               .where(table.c.post == post_id, table.c.status == "approved")
                               .order_by(table.c.date_gmt, table.c.id).limit(MAX_SHOWN)).all()
    nodes = {row.id: {"id": row.id, "parent": row.parent, "author": row.author_name or "Anonymous",
                      "url": row.author_url if row.author_url.startswith(("http://", "https://")) else "",
                      "date": row.date, "date_text": f"{row.date:%B} {row.date.day}, {row.date:%Y} at {row.date:%H:%M}",
                      "html": render_comment_text(row.content), "replies": [], "depth": 1} for row in rows}
    roots = []
    for node in nodes.values():
        parent = nodes.get(node["parent"])
        while parent is not None and parent["depth"] >= MAX_DEPTH:  # too deep: a sibling of its deepest shown ancestor
            parent = nodes.get(parent["parent"])
        if parent is None:
            roots.append(node)
        else:
            node["depth"] = parent["depth"] + 1
            parent["replies"].append(node)
    return roots


def section_context(app, request: PageRequest, item: dict, link: str, comments: list[dict], comment_list: str) -> dict:
    """What the comments section of a post page shows: the thread (`thread`) and its list's HTML
    (public_comment_list.html), whether the form is open, the notice."""
    notice = {"held": "Thank you: your comment is awaiting moderation.",
              "shown": "Thank you: your comment is published below."}.get(request.query_text("comment"), "")
    return {"comments": comments, "comment_list": comment_list, "open": item.get("comment_status") == "open",
            "post_id": item["id"], "action": f"{request.site_url}/comment-post", "notice": notice,
            "error": "", "values": dict.fromkeys(FORM_FIELDS, ""), "parent": 0,
            "reply_to": _reply_to(request), "link": link, **_signed_in(app, request)}


def _signed_in(app, request: PageRequest) -> dict:
    """`user` ({"name"}) and `nonce` of the visitor's sign-in session, or None and ""."""
    session = app.page_session(request.environ)
    if session is None:
        return {"user": None, "nonce": ""}
    user, csrf_token = session
    return {"user": {"name": user.display_name or user.login}, "nonce": csrf_token}


def _reply_to(request: PageRequest) -> int:
    value = request.query_text("replytocom")
    return int(value) if value.isdigit() and len(value) <= 10 else 0


def comment_post_page():
    return Page("/comment-post", ("POST",), submit_comment, name="core-comment-post")


def submit_comment(app, request: PageRequest):
    """The no-JavaScript comment form: one REST create, then back to the post or the form with the reason."""
    form = request.form
    values = {name: form.get(name, "")[:FIELD_LIMITS[name] + 1] for name in FORM_FIELDS}
    post_text, parent_text = form.get("post_id") or "", form.get("parent") or "0"
    if not post_text.isdigit() or len(post_text) > 10 or not parent_text.isdigit() or len(parent_text) > 10:
        return app.render_view(HtmlView("Bad request", theme.render(app, __package__, "public_message.html", {"done": "bad-form"}), status=400))

    with app.db.session() as session:
        item = store.get_item(app, session, int(post_text))
    if item is None or not _viewable(app, item) or item["type"] == "attachment":
        return app.render_view(not_found_view(app))
    link = _link_of(app, request, item)
    fields = {"post": item["id"], "parent": int(parent_text)}
    signed_in, nonce = app.page_session(request.environ), form.get("_wpnonce", "")[:NONCE_LENGTH]
    if signed_in is not None and nonce:  # a cookie-authenticated post: only with the session's nonce
        user, session_nonce = signed_in
        if not hmac.compare_digest(session_nonce.encode("utf-8"), nonce.encode("utf-8", "replace")):
            status, answer = 403, {"message": "This form has expired or was not sent from this site: nothing was "
                                              "saved. Post your comment again from this form."}
        else:
            status, answer = _create_as_user(app, request, user, {**fields, "content": values["content"]})
    else:
        status, answer = _create_through_rest(app, request, {
            **fields, **{key: value for key, value in values.items() if value}})
    if status == 201:
        outcome = "shown" if answer.get("status") == "approved" else "held"
        anchor = f"#comment-{answer['id']}" if outcome == "shown" else "#respond"
        return redirect(link + ("&" if "?" in link else "?") + f"comment={outcome}{anchor}",
                        headers={"Cache-Control": "no-store"})
    context = {"comments": [], "comment_list": "", "open": True, "post_id": item["id"], "action": f"{request.site_url}/comment-post",
               "notice": "", "error": answer.get("message") or "Your comment could not be saved.", "values": values,
               "parent": int(parent_text), "reply_to": int(parent_text), "link": link, **_signed_in(app, request)}
    body = theme.render(app, __package__, "public_comments.html", context)
    return app.render_view(HtmlView("Your comment was not saved", body, status=status if 400 <= status < 500 else 400,
                                    headers=(("Cache-Control", "no-store"),)))


def _create_as_user(app, request: PageRequest, user, fields: dict) -> tuple[int, dict]:
    """POST core/v2/comments through the REST pipeline as the signed-in `user`, from the visitor's address."""
    caller = RestRequest(app, "POST", request.path, [], {}, environ=request.environ,
                         base_url=app.rest_base_url(request.environ), remote_addr=request.client_address)
    caller.user = user
    try:
        answer = caller.internal_request("POST", "/core/v2/comments", body=fields,
                                         headers={"user-agent": request.environ.get("HTTP_USER_AGENT", "")})
    finally:
        caller.finish(success=True)
    return answer.status, answer.data if isinstance(answer.data, dict) else {}


def _create_through_rest(app, request: PageRequest, fields: dict) -> tuple[int, dict]:
    """POST core/v2/comments through the whole REST pipeline, as an anonymous caller from the visitor's address."""
    body = json.dumps(fields).encode("utf-8")
    environ = {key: request.environ[key] for key in COPIED_ENVIRON if key in request.environ}
    environ.update({"REQUEST_METHOD": "POST", "PATH_INFO": app.settings.rest_prefix + "/core/v2/comments",
                    "QUERY_STRING": "", "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
                    "wsgi.input": io.BytesIO(body), "wsgi.errors": request.environ.get("wsgi.errors"),
                    "wsgi.version": (1, 0), "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False})
    started = {}

    def start_response(status, headers, exc_info=None):
        started["status"] = int(status.split(" ", 1)[0])

    chunks = app(environ, start_response)
    try:
        data = b"".join(chunks)
    finally:
        getattr(chunks, "close", lambda: None)()
    try:
        answer = json.loads(data or b"{}")
    except ValueError:
        answer = {}
    return started.get("status", 500), answer if isinstance(answer, dict) else {}

