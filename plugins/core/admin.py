"""core's pages in the admin area: the comment moderation queue, and the posts and pages lists."""

from __future__ import annotations

from host import AdminPage

from . import admin_comments
from .admin_posts import ACTIONS as LIST_ACTIONS
from .admin_posts import ListPage


def admin_pages() -> list[AdminPage]:
    return [
        AdminPage("Posts", "posts", ListPage("post", "posts", "post", "posts"), capability="edit_posts",
                  actions=LIST_ACTIONS),
        AdminPage("Pages", "pages", ListPage("page", "pages", "page", "pages"), capability="edit_pages",
                  actions=LIST_ACTIONS),
        AdminPage("Comments", "comments", admin_comments.comments_page, capability="moderate_comments",
                  actions=admin_comments.ACTIONS, badge=admin_comments.pending_count, badge_label="pending"),
    ]
