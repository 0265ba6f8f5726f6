"""What core's public reads are built from, so the response cache keeps them across other writes.

Each is a Route's `changes_with` (host.WRITE_KINDS); the site's settings are part of every answer.
"""

# An item and its links: a permalink may name the item's category and author.
ITEM_CHANGES = ("content", "terms", "users")
# A term, with its count of published items.
TERM_CHANGES = ("content", "terms")
# An account; the public list shows the authors of published items only.
USER_CHANGES = ("content", "users")
# A comment is hidden with its post, and shows a registered author's name and avatar.
COMMENT_CHANGES = ("comments", "content", "users")
# Search results are items, with their permalinks.
SEARCH_CHANGES = ITEM_CHANGES
