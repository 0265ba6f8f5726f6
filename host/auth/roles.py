"""The five standard roles and the primitive capabilities each one holds."""

from __future__ import annotations

SUBSCRIBER = frozenset({"read"})

CONTRIBUTOR = SUBSCRIBER | {"edit_posts", "delete_posts"}

AUTHOR = CONTRIBUTOR | {
    "upload_files", "publish_posts", "edit_published_posts", "delete_published_posts",
}

EDITOR = AUTHOR | {
    "moderate_comments", "manage_categories", "manage_links", "unfiltered_html",
    "edit_others_posts", "delete_others_posts", "edit_private_posts", "read_private_posts",
    "delete_private_posts", "edit_pages", "edit_others_pages", "edit_published_pages", "publish_pages",
    "delete_pages", "delete_others_pages", "delete_published_pages", "edit_private_pages",
    "read_private_pages", "delete_private_pages",
}

ADMINISTRATOR = EDITOR | {
    "manage_options", "list_users", "create_users", "edit_users", "delete_users", "promote_users",
    "remove_users", "edit_theme_options", "switch_themes", "edit_dashboard", "activate_plugins",
    "edit_plugins", "install_plugins", "update_plugins", "delete_plugins", "import", "export",
    "customize", "unfiltered_upload",
}

ROLE_CAPABILITIES: dict[str, frozenset[str]] = {
    "administrator": ADMINISTRATOR,
    "editor": EDITOR,
    "author": AUTHOR,
    "contributor": CONTRIBUTOR,
    "subscriber": SUBSCRIBER,
}

ROLES = tuple(ROLE_CAPABILITIES)
