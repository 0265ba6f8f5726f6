"""The mail to moderators when a new comment is held (WordPress's wp_notify_moderator).

Sent when a new comment is stored with status `hold` and the site setting `moderation_notify`
(core/v2/settings, default on) is on, to the site's administration address (the setting `email`,
by default the first administrator's) and to the post's author when they may edit the comment and
have another address. It is queued in the comment's own transaction (`app.mail.send` with the
request's session): no comment, no mail. Its links go to the comment's page in the admin area,
which asks before it approves, files as spam or trashes (a link in a mail must not act by itself),
and are built on the site's own address, never on the request's Host header.
"""

from __future__ import annotations

import logging

from sqlalchemy import func, select

from host.auth import users as user_service
from host.mail import Message

from . import comment_store as cs
from . import site_settings, store
from .shaping import permalink

log = logging.getLogger("sitehost.core")
ADMIN_COMMENTS = "/admin/comments"
MAX_QUOTED = 2000  # characters of the comment quoted in the mail


def wants_notice(request, comment: dict) -> bool:
    return comment["status"] == "hold" and bool(site_settings.setting(request, "moderation_notify"))


def site_admin_email(request) -> str:
    """The setting `email` (WordPress's admin_email; by default the first administrator's address)."""
    return str(site_settings.setting(request, "email") or "")


def recipients(request, comment: dict, post: dict) -> list[str]:
    addresses = [address for address in [site_admin_email(request)] if address]
    author = user_service.get_user(request.app, request.session, post["author"]) if post.get("author") else None
    if author is not None and author.email and (author.can("moderate_comments")
                                                or author.can("edit_comment", {**comment, "_post": post})):
        if all(author.email.lower() != address.lower() for address in addresses):
            addresses.append(author.email)
    return addresses


def held_count(request) -> int:
    table = cs.comments_table(request.app)
    return request.session.execute(select(func.count()).select_from(table).where(
        table.c.status == "hold", table.c.type == "comment")).scalar() or 0


def message_text(request, comment: dict, post: dict, link: str, admin: str) -> str:
    quoted = comment["content"] if len(comment["content"]) <= MAX_QUOTED else comment["content"][:MAX_QUOTED] + "..."
    waiting = held_count(request)
    return "\n".join([
        f"A new comment on the post \"{post.get('title') or '(no title)'}\" is waiting for your approval",
        link, "",
        f"Author: {comment['author_name']} (IP address: {comment['author_ip']})",
        f"Email: {comment['author_email']}",
        f"URL: {comment['author_url']}",
        "Comment:", quoted, "",
        f"Approve it: {admin}/{comment['id']}?confirm=approve",
        f"Trash it: {admin}/{comment['id']}?confirm=trash",
        f"Spam it: {admin}/{comment['id']}?confirm=spam",
        f"Currently {waiting} comment{'s are' if waiting != 1 else ' is'} waiting for approval. "
        "Please visit the moderation panel:",
        f"{admin}?status=hold", ""])


def notify_moderators(request, comment: dict) -> int | None:
    """Queue the mail about the held `comment` (a new one); its outbox id, or None when none is due."""
    if not wants_notice(request, comment):
        return None
    app = request.app
    post = store.get_item(app, request.session, int(comment["post"]))
    if post is None:
        return None
    to = recipients(request, comment, post)
    if not to:
        return None
    site = app.site_address(request.session).rstrip("/")
    link = f"{permalink(request, post, site)}#comment-{comment['id']}"
    name = app.settings.site.get("name", "") or "sitehost"
    title = " ".join(str(post.get("title") or "").split())[:200]
    message = Message(to=to, subject=f"[{name}] Please moderate: \"{title}\"",
                      text=message_text(request, comment, post, link, site + ADMIN_COMMENTS))
    try:
        return app.mail.send(message, session=request.session)
    except ValueError:  # an address the outbox refuses must not lose the visitor's comment
        log.warning("moderation mail for comment %s not queued", comment["id"], exc_info=True)
        return None
