"""core's pages in the admin area: the comment moderation queue, and the posts and pages lists."""

from __future__ import annotations

from host import AdminPage

from . import admin_comments


def admin_pages() -> list[AdminPage]:
    return [
        AdminPage("Comments", "comments", admin_comments.comments_page, capability="moderate_comments",
                  actions=admin_comments.ACTIONS, badge=admin_comments.pending_count, badge_label="pending"),
    ]
