"""The content service: how a plugin reads and writes items of the post types it registered.

The content plugin (core) stores every registered post type and provides the service
(`register_services`, host.services); a plugin that lists "core" in `requires=` reaches it as
`app.content` (or `request.app.content`) and never imports core's modules. Items are dicts
with the stored columns (`id`, `type`, `status`, `title`, `content`, `excerpt`, `slug`,
`author`, `parent`, `menu_order`, `date`, `date_gmt`,
`modified`, `modified_gmt`, `password`, `featured_media`, `pre_trash_status`, ...) plus
`meta` (registered keys) and `terms` ({taxonomy: [(id, slug), ...]}).

Every method takes the current `request`: reads and writes run in its transaction, and the
`content_saved` / `content_deleted` events fire after it commits. A method reads and writes as
the system, checking no permissions (the calling route's own permission callable decides who may
do what), unless it takes a `user`: then it answers only what that user may read. Wrong
use (an unknown type, status or field) raises ValueError; a missing item gives None (get)
or LookupError (update, delete).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Protocol, Sequence

from .rest.request import RestRequest, commit_round as commit_round  # commit_round: re-exported, plugins read it here


class ItemIdsTaken(ValueError):
    """`create_many(keep_ids=True)`: items hold some of the ids asked for (`ids`); nothing was written."""

    def __init__(self, ids: list[int]):
        super().__init__(f"item ids held by other items: {', '.join(map(str, ids[:10]))}"
                         + (f" and {len(ids) - 10} more" if len(ids) > 10 else ""))
        self.ids = ids


class ContentService(Protocol):
    """Stable signatures; keyword arguments may be added, never removed or renamed."""

    def get(self, request: RestRequest, item_id: int, post_type: str | None = None) -> dict | None:
        """The item, or None when there is none (of `post_type`, when given)."""

    def query(self, request: RestRequest, post_type: str, *, status: Iterable[str] = ("publish",),
              search: str = "", include: Iterable[int] = (), exclude: Iterable[int] = (),
              author: Iterable[int] = (), parent: Iterable[int] | None = None, per_page: int = 10, page: int = 1,
              orderby: str = "date", order: str = "desc", terms: Mapping[str, Iterable[int]] | None = None,
              terms_relation: str = "AND", meta_key: str = "") -> tuple[list[dict], int]:
        """(items of the page, total) of `post_type`, filtered and ordered as the REST collections do.

        `terms` ({taxonomy: [term ids]}) keeps items linked to any of a taxonomy's ids; with
        several taxonomies, `terms_relation` ("AND" or "OR") combines them. orderby
        "meta_value_num" sorts by the number stored under the registered meta key `meta_key`.
        """

    def version(self, request: RestRequest) -> int | None:
        """A number that changes whenever any item, its terms or term links change (in the writer's
        transaction, whichever process writes); None where the store keeps none. What a plugin builds
        from items may be kept while it is unchanged."""

    def terms(self, request: RestRequest, taxonomy: str, *, names: Iterable[str] = (), ids: Iterable[int] = (),
              create: bool = False, slugs: Iterable[str] = ()) -> list[dict]:
        """Terms of `taxonomy` by name (case-insensitive), id or slug (sanitized as core/v2's term routes do),
        in id order: dicts with id, name, slug, taxonomy, description, parent, count (linked items) and
        published_count (linked published items: the `count` the term routes show). `create` adds the
        names that are missing. Terms are public: anyone may read them."""

    def view(self, request: RestRequest, item_id: int, *, user: Any, post_type: str | None = None) -> dict | None:
        """The item as core/v2's item route answers `user` in the view context, without `_links`: rendered
        title, content and excerpt (blank while a password protects them), link, author, featured_media ...;
        a media item's source_url and media_details. None when there is no such item (of `post_type`, when
        given) or `user` may not read it (core/v2's read check: published, or a status `user` may read)."""

    def view_many(self, request: RestRequest, item_ids: Iterable[int], post_type: str, *, user: Any) -> dict[int, dict]:
        """{id: `view`} of the items among `item_ids` that exist, are of `post_type` and `user` may read (one
        read for all of them); `post_type` may be `attachment`."""

    def media_by_url(self, request: RestRequest, url: str, *, user: Any) -> dict | None:
        """The media item whose file is at `url` (its `source_url`, an address under this site's uploads) as
        `view` answers it to `user`; None when no media item is there or `user` may not read it."""

    def rest_url(self, request: RestRequest, item: Mapping[str, Any]) -> str:
        """The address of the item's own REST route (core/v2/<rest_base>/<id>, its `self` link) under the
        request's REST root."""

    def get_many(self, request: RestRequest, item_ids: Iterable[int], post_type: str) -> dict[int, dict]:
        """{id: item} of the items among `item_ids` that exist and are of `post_type` (one query);
        `post_type` may be `attachment` (reading only, as in `get_by_slug`)."""

    def get_by_slug(self, request: RestRequest, post_type: str, slug: str, *,
                    status: Iterable[str] | None = None) -> dict | None:
        """The item of `post_type` with that slug (a trashed item answers to its slug too), or None.

        `post_type` may be `attachment` here (a media item, with its `file` under uploads/). `status`:
        only items in these stored statuses (the oldest first), for a hierarchical type whose slugs are
        unique among siblings only (a public page wants the published item, not an older draft)."""

    def matching_ids(self, request: RestRequest, post_type: str, *, status: Iterable[str] | None = None,
                     search: str = "", terms: Mapping[str, Iterable[int]] | None = None,
                     order: str | None = None, descending: bool = False) -> Any:
        """A SQLAlchemy SELECT of the ids of `post_type` items matching every filter given, for a plugin
        to use as a subquery in its own tables' queries (`my_table.c.post_id.in_(select)`).

        status: only these stored statuses (None: any); search: the collections' search; terms:
        {taxonomy: term ids}, an item matches a taxonomy when it has any of its ids; order: "title",
        "date", "modified", "menu_order" or "id" (ascending, then id; `descending` reverses both) when the
        SELECT is run for a page rather than used as a subquery.
        """

    def create(self, request: RestRequest, post_type: str, *, title: str = "", content: str = "",
               excerpt: str = "", status: str = "draft", author: int | None = None, parent: int = 0,
               menu_order: int = 0, slug: str = "", meta: dict[str, Any] | None = None, password: str = "",
               featured_media: int = 0, date_gmt: datetime.datetime | None = None,
               terms: Mapping[str, Iterable[int]] | None = None, item_id: int | None = None,
               comment_status: str = "", ping_status: str = "", sticky: bool = False, format: str = "",
               template: str = "", date: datetime.datetime | None = None,
               modified_gmt: datetime.datetime | None = None) -> dict:
        """Store a new item (author: the caller when None) and answer it as `get` would.

        date_gmt: the publication date (naive UTC; None: now, or none while draft/pending);
        terms: {taxonomy: [term ids]} links it to terms of taxonomies registered for its type (ids
        not of that taxonomy are dropped). For imports: item_id, the id to give it when no item has
        it (otherwise a new one: read the answer's `id`); comment_status/ping_status ("open" or
        "closed", "" for the default), sticky, format (a post format), template; date, the local
        date of a draft without date_gmt; modified_gmt, the last change (None: now).
        """

    def create_many(self, request: RestRequest, items: Sequence[Mapping[str, Any]], *,
                    keep_ids: bool = False) -> list[dict]:
        """`create` for many items at once (an import): each entry holds `create`'s keyword arguments and
        `post_type`. The same checks, filtering, kept ids, unique slugs (each item sees the slugs given
        to those before it), meta, term links and `content_saved` events as one `create` after
        another, written with one multi-row INSERT for the rows, one for the meta and one for the term
        links. A ValueError for any entry writes nothing. Answers the items in order, as `get` would.
        keep_ids: each `item_id` given must be kept (no item holds it, nor an earlier entry), else
        ItemIdsTaken naming those that are not, and nothing is written (an import that already wrote
        links to the ids it expects gives those entries no item_id and tries again)."""

    def create_attachment(self, request: RestRequest, name: str, data: bytes, *, title: str = "",
                          caption: str = "", description: str = "", alt_text: str = "", parent: int = 0,
                          author: int | None = None, status: str = "inherit", slug: str = "",
                          date_gmt: datetime.datetime | None = None, item_id: int | None = None,
                          comment_status: str = "open", modified_gmt: datetime.datetime | None = None) -> dict:
        """Store a media item and its file `data` (named `name`; stored under uploads/YYYY/MM/ of its
        date), refused with ValueError when core/v2/media would refuse the file for the request's user.
        item_id as for `create`. Answers the item as `get` would (`file`, `mime_type`, `media_details`)."""

    def clean_html(self, request: RestRequest, html: str) -> str:
        """`html` filtered as core/v2 filters the content written by a user without unfiltered_html
        (scripts, event handlers and unknown tags removed): for HTML a plugin stores from outside."""

    def update(self, request: RestRequest, item_id: int, *, revision: bool = False, **fields: Any) -> dict:
        """Change the named fields (title, content, excerpt, status, slug, author, parent, menu_order, meta,
        password, featured_media, date_gmt, terms, comment_status, ping_status, sticky, format, template,
        alt_text, modified_gmt: the time of the change, now when not given); `revision`: then keep a revision of the new state, as
        core/v2 updates do, when the type supports revisions and title, content or excerpt changed."""

    def trash(self, request: RestRequest, item_id: int) -> dict:
        """Move the item to the trash (its status is kept to restore it) and answer it; fires
        `content_deleted` with force False. LookupError when missing, ValueError when already trashed."""

    def delete(self, request: RestRequest, item_id: int) -> None:
        """Delete the item for good, with its revisions, meta and term links."""

    def create_term(self, request: RestRequest, taxonomy: str, name: str, *, slug: str = "",
                    description: str = "", parent: int = 0) -> int:
        """Store a term of a registered taxonomy and answer its id (an unused slug is made from the name).
        For code outside the REST routes (demo content, imports); routes use core/v2's term routes."""


def service_request(app: Any, session: Any, user: Any) -> Any:
    """A request for the content service outside the REST pipeline (demo content, commands).

    Reads and writes go to `session`, whose transaction the caller owns; `user` (a host
    User) is the author of what is created. The after-commit events (`content_saved` ...)
    are collected and never fired: nothing listens while a site is being installed.
    """
    request = RestRequest(app, "POST", "/", [], {}, base_url=app.site_address(session) + app.settings.rest_prefix)
    request.user = user
    request._session = session
    return request


@dataclass(frozen=True)
class ContentSaved:
    """What `content_saved` listeners receive: which item, whether it is new, and its fields."""

    id: int
    type: str
    status: str
    created: bool
    item: Mapping[str, Any]  # the stored fields (read-only), as the plugin that stored it knows them

    @classmethod
    def of(cls, item: Mapping[str, Any], created: bool) -> "ContentSaved":
        return cls(int(item["id"]), str(item["type"]), str(item["status"]), created, MappingProxyType(dict(item)))


@dataclass(frozen=True)
class ContentDeleted:
    """What `content_deleted` listeners receive: the item as it was, and whether it is gone for good."""

    id: int
    type: str
    status: str
    force: bool  # False: moved to the trash; True: deleted for good
    item: Mapping[str, Any]

    @classmethod
    def of(cls, item: Mapping[str, Any], force: bool) -> "ContentDeleted":
        return cls(int(item["id"]), str(item["type"]), str(item["status"]), force, MappingProxyType(dict(item)))
