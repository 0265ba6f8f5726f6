"""The content service: how a plugin reads and writes items of the post types it registered.

The content plugin (core) stores every registered post type and provides the service in
`startup`; a plugin reaches it as `app.content` (or `request.app.content`) and never imports
core's modules. Items are dicts with the stored columns (`id`, `type`, `status`, `title`,
`content`, `excerpt`, `slug`, `author`, `parent`, `menu_order`, `date`, `date_gmt`,
`modified`, `modified_gmt`, ...) plus `meta` (registered keys) and `terms` ({taxonomy:
[(id, slug), ...]}).

Every method takes the current `request`: reads and writes run in its transaction, and the
`content_saved` / `content_deleted` events fire after it commits. The service checks no
permissions: the calling route's own permission callable decides who may do what. Wrong
use (an unknown type, status or field) raises ValueError; a missing item gives None (get)
or LookupError (update, delete).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol

from .stash import StashKey

if TYPE_CHECKING:
    from .rest.request import RestRequest


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
              create: bool = False) -> list[dict]:
        """Terms of `taxonomy` by name (case-insensitive) or id: dicts with id, name, slug, taxonomy,
        description, parent and count (linked items). `create` adds the names that are missing."""

    def create(self, request: RestRequest, post_type: str, *, title: str = "", content: str = "",
               excerpt: str = "", status: str = "draft", author: int | None = None, parent: int = 0,
               menu_order: int = 0, slug: str = "", meta: dict[str, Any] | None = None,
               terms: Mapping[str, Iterable[int]] | None = None) -> dict:
        """Store a new item (author: the caller when None) and answer it as `get` would.

        `terms` ({taxonomy: [term ids]}) links it to terms of taxonomies registered for its type."""

    def update(self, request: RestRequest, item_id: int, **fields: Any) -> dict:
        """Change the named fields (title, content, excerpt, status, slug, author, parent, menu_order, meta,
        terms: {taxonomy: [term ids]} replaces the item's terms of each taxonomy named)."""

    def delete(self, request: RestRequest, item_id: int) -> None:
        """Delete the item for good, with its revisions, meta and term links."""


CONTENT_SERVICE = StashKey[ContentService]("content")


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
