"""The comments service: how a plugin (a spam filter) reads comments and changes their status.

The content plugin (core) stores comments and provides the service (`register_services`,
host.services); a plugin that lists "core" in `requires=` reaches it as `app.comments` and never
imports core's modules. Comments are dicts: `id`, `type` ("comment"),
`post`, `parent`, `author` (user id, 0 for a visitor), `author_name`, `author_email`,
`author_url`, `author_ip`, `author_user_agent`, `content`, `status` (hold, approved, spam,
trash), `date_gmt` and `spam_guid` (the guid of the `check_spam` submission that judged it).

Every method takes the current `request`: it reads and writes in the request's transaction,
and `content_saved` (type "comment") fires after it commits. The service checks no
permissions: the calling route decides who may do what.

Core fires `content_saved` for every comment written, with `event.type == "comment"` and
`event.item` holding the fields above plus `previous_status` (the status before the write,
"" for a new comment) and `changed_by` (the id of the user whose request changed it, or the
`actor` name given to `set_status`).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .rest.request import RestRequest

COMMENT_STATUSES = ("hold", "approved", "spam", "trash")


class CommentService(Protocol):
    """Stable signatures; keyword arguments may be added, never removed or renamed."""

    def get(self, request: RestRequest, comment_id: int) -> dict | None:
        """The comment, or None."""

    def find_by_guid(self, request: RestRequest, guid: str) -> list[dict]:
        """The comments stored with this spam-check guid (normally one)."""

    def set_status(self, request: RestRequest, comment_id: int, status: str, actor: str) -> dict:
        """Move the comment to `status` (one of COMMENT_STATUSES); `actor` names who did it
        (a plugin name). Raises LookupError for a missing comment, ValueError for a bad status."""


    def create(self, request: RestRequest, post_id: int, *, content: str, status: str = "hold", parent: int = 0,
               author: int = 0, author_name: str = "", author_email: str = "", author_url: str = "",
               author_ip: str = "", author_user_agent: str = "", date_gmt: datetime.datetime | None = None,
               type: str = "comment", announce: bool = True) -> dict:
        """Store a comment as given (an import: no duplicate or flood check, no spam check, no mail);
        `date_gmt` naive UTC (None: now); `announce` False: no `content_saved` for it (comments brought
        from another site in bulk, which nobody moderated here). Raises LookupError for a missing post,
        ValueError for a bad status."""

    def create_many(self, request: RestRequest, comments: list[dict[str, Any]]) -> list[dict]:
        """`create` with `announce` False for many comments at once (an import), in one multi-row INSERT:
        each entry holds `create`'s keyword arguments and `post_id`. The parents named must be stored
        already (a reply goes in a later call than the comment it answers). LookupError or ValueError
        for any entry writes nothing; answers the stored comments with their ids, in order."""
