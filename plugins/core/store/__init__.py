"""The content store: reading, filtering, searching and writing posts of every registered type.

Each module has one job: `query` (the filters of a collection), `search` (search terms and the
full-text clause), `items` (rows read as item dicts), `listing` (pages and their totals), `slugs`
and `writes`. This package re-exports the names the routes use, so `store.get_item` keeps working
wherever the function lives.
"""

from .items import (
    AUTOSAVE_SUFFIX, decode_meta, effective_status, get_item, get_items, item_select, meta_keys_for, post_exists,
    revisions_of, row_to_item, taxonomies_of, terms_by_id,
)
from .listing import DEEP_SEARCH_OFFSET, answer_version, content_version, list_page_ids, list_rows, rows_by_ids, sticky_items, totals_cache
from .rendered import fill_renderings, keep_rendering, stored_rendering, write_pending
from .query import PostQuery, ReadScope, TaxClause, filters, order_clauses
from .search import search_clause, split_search
from .slugs import MAX_SLUG, RESERVED_SLUGS, lock_slugs, sanitize_slug, unique_slug, unique_slugs
from .writes import (
    catch_up_sequence, delete_item, id_is_free, insert_item, insert_items, link_terms, new_item, reserve_id, reserve_ids, reserve_ids_above, set_meta, set_terms, update_item,
)

__all__ = [
    "AUTOSAVE_SUFFIX", "DEEP_SEARCH_OFFSET", "MAX_SLUG", "RESERVED_SLUGS", "PostQuery", "ReadScope", "TaxClause",
    "answer_version", "catch_up_sequence", "id_is_free", "content_version", "fill_renderings", "keep_rendering", "stored_rendering", "write_pending",
    "decode_meta", "delete_item", "effective_status", "filters", "get_item", "get_items", "insert_item", "lock_slugs",
    "item_select", "list_page_ids", "list_rows", "meta_keys_for", "new_item", "order_clauses", "post_exists",
    "reserve_id", "reserve_ids", "reserve_ids_above", "revisions_of", "insert_items", "link_terms", "unique_slugs",
    "row_to_item", "rows_by_ids", "sanitize_slug", "search_clause", "set_meta", "set_terms", "split_search",
    "sticky_items", "taxonomies_of", "terms_by_id", "totals_cache", "unique_slug", "update_item",
]
