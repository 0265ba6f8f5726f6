"""What the admin list pages (posts, pages, comments) read from their address: filter, search and page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from host.admin import AdminRequest

MAX_SEARCH = 200
MAX_PAGE_DIGITS = 6


class ListQuery:
    """The list's status filter, search and page from the address; `problem` names a bad value.

    `statuses` are the filters the page offers; `unknown` is what to say of any other.
    """

    def __init__(self, page: AdminRequest, statuses, unknown: str):
        self.status = page.query_text("status", "all")
        self.search = page.query_text("s")[: MAX_SEARCH + 1]
        raw_page = page.query_text("paged", "1")
        self.page = int(raw_page) if raw_page.isdigit() and len(raw_page) <= MAX_PAGE_DIGITS else 0
        self.problem = ""
        if self.status not in statuses:
            self.problem = unknown
        elif len(self.search) > MAX_SEARCH:
            self.problem = f"Search for at most {MAX_SEARCH} characters."
        elif self.page < 1:
            self.problem = "The page number must be a whole number from 1."

    def url(self, base: str, **changes: Any) -> str:
        """This list's address with `changes` (status, s, paged), leaving out the defaults."""
        values = {"status": self.status, "s": self.search, "paged": self.page, **changes}
        shown = {key: value for key, value in values.items()
                 if value not in ("", None) and not (key == "paged" and value == 1)
                 and not (key == "status" and value == "all")}
        return base + ("?" + urlencode(shown) if shown else "")
