"""Builder documents, templates and the kit to and from a WordPress export (the reference page builder's meta).

The reference keeps a page's element tree as JSON text in `_elementor_data`, marks the pages it
edits with `_elementor_edit_mode` = "builder", and keeps `_elementor_page_settings` (a
PHP-serialized array) and `_elementor_template_type`. Its saved templates are
`elementor_library` posts, and its kit (the site's global colours and fonts) is one of them with
`_elementor_template_type` = "kit", the colours and fonts in its page settings. Here the same
things are the `_builder_*` meta of posts, pages and `builder_library` items, and the kit row.
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Iterable

from marshmallow import ValidationError
from sqlalchemy import delete, insert, select, update

from host.wxr import WxrExport, WxrImport, WxrItem, php_serialize, php_unserialize
from host.wxr_content import (all_items, author_logins, content_request, date_text, export_request, item_label,
                              sync_post, writable_status, wxr_item)

from . import elements as tree
from .documents import DOCUMENT_TYPES, MAX_PAGE_SETTINGS_BYTES, template_types
from .kit import COLOR_KINDS, DEFAULT_SETTINGS, MAX_CUSTOM_ENTRIES, MAX_TITLE_LENGTH, TypographySchema, is_color, load_kit, save_kit
from .render import BUILDER_MODE
from .settings import settings_of
from .tables import DOCUMENTS, KITS, table

LIBRARY, LIBRARY_TYPE, KIT = "elementor_library", "builder_library", "kit"
WP_KEYS = {"_elementor_data": "_builder_data", "_elementor_edit_mode": "_builder_edit_mode",
           "_elementor_page_settings": "_builder_page_settings",
           "_elementor_template_type": "_builder_template_type"}
DEFAULT_KIT_TITLE = "Default Kit"  # kit.ensure_kit's
KIT_ID_BASE = 2_000_000_000  # the kit is a row here, not a post: its item id in a file stays clear of posts


def has_builder_meta(item: WxrItem) -> bool:
    return any(item.meta_value(key) is not None for key in WP_KEYS)


def builder_meta(app, item: WxrItem) -> dict[str, Any]:
    """The `_builder_*` meta of an item's `_elementor_*` meta; ValueError (with the reason) when unusable."""
    meta: dict[str, Any] = {}
    data = item.meta_value("_elementor_data")
    if data is not None:
        try:
            tree.parse_data(data, settings_of(app))
        except tree.TreeError as error:
            raise ValueError(f"_elementor_data {error}") from None
        meta["_builder_data"] = data
    mode = item.meta_value("_elementor_edit_mode")
    if mode is not None:
        meta["_builder_edit_mode"] = BUILDER_MODE if mode == BUILDER_MODE else ""
    settings = item.meta_value("_elementor_page_settings")
    if settings:
        meta["_builder_page_settings"] = page_settings(settings)
    kind = item.meta_value("_elementor_template_type")
    if kind is not None:
        if kind not in template_types(app):
            raise ValueError(f"the template type {kind[:40]!r} does not exist here")
        meta["_builder_template_type"] = kind
    return meta


def page_settings(raw: str) -> dict:
    if len(raw) > MAX_PAGE_SETTINGS_BYTES * 4:
        raise ValueError(f"_elementor_page_settings is longer than {MAX_PAGE_SETTINGS_BYTES * 4} bytes")
    value = php_unserialize(raw)
    value = {} if value == [] else value
    if not isinstance(value, dict):
        raise ValueError("_elementor_page_settings is not an array")
    if len(json.dumps(value)) > MAX_PAGE_SETTINGS_BYTES or tree._depth(value) > tree.MAX_SETTINGS_DEPTH:
        raise ValueError(f"_elementor_page_settings is over {MAX_PAGE_SETTINGS_BYTES} bytes of JSON or "
                         f"{tree.MAX_SETTINGS_DEPTH} levels deep")
    return value


# --- import -----------------------------------------------------------------------------------------

def item_imported(app, item: WxrItem, new_id: int, run: WxrImport) -> None:
    """A post or page core imported: its `_elementor_*` meta becomes its builder document."""
    if not has_builder_meta(item):
        return
    request = content_request(run)
    current = app.content.get(request, new_id)
    if current is None or current["type"] not in DOCUMENT_TYPES:
        run.not_imported(f"{item_label(item)} builder data", "only posts and pages hold builder documents here")
        return
    try:
        meta = builder_meta(app, item)
    except ValueError as error:
        run.not_imported(f"{item_label(item)} builder data", f"{error}; the item keeps its HTML content")
        return
    changed = {key: value for key, value in meta.items() if current["meta"].get(key) != value}
    if changed:
        # The page keeps the last change core gave it (the file's): adding its builder meta is part of the import.
        app.content.update(request, new_id, meta=changed, modified_gmt=current["modified_gmt"])
    _index(run, new_id, current["type"], {**current["meta"], **meta})


def _index(run: WxrImport, post_id: int, post_type: str, meta: dict) -> None:
    """Keep `builder_documents` (written by the content events, which an import's writes do not fire)."""
    documents = table(run.app, DOCUMENTS)
    is_document = meta.get("_builder_edit_mode") == BUILDER_MODE
    row = run.session.execute(select(documents).where(documents.c.post_id == post_id)).first()
    template_type = str(meta.get("_builder_template_type") or "")
    if row is not None and (not is_document or row.template_type != template_type):
        run.session.execute(delete(documents).where(documents.c.post_id == post_id))
        row = None
    if is_document and row is None:
        run.session.execute(insert(documents).values(
            post_id=post_id, type=post_type, template_type=template_type,
            modified_gmt=datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)))


def import_item(app, item: WxrItem, run: WxrImport) -> bool | None:
    if item.post_type != LIBRARY:
        return None
    if item.meta_value("_elementor_template_type") == KIT:
        _import_kit(app, item, run)
        return True
    status = writable_status(run, item, LIBRARY_TYPE)
    if status is None:
        return True
    try:
        meta = builder_meta(app, item)
    except ValueError as error:
        run.not_imported(item_label(item), str(error))
        return True
    request = content_request(run)
    new_id, outcome = sync_post(run, request, item, LIBRARY_TYPE, status=status, meta=meta, content="")
    _index(run, new_id, LIBRARY_TYPE, app.content.get(request, new_id)["meta"])
    run.count(outcome)
    return True


def kit_settings(item: WxrItem) -> tuple[dict, list[str]]:
    """(the kit's colours and fonts, what of the reference's kit settings is left out)."""
    settings = page_settings(item.meta_value("_elementor_page_settings") or "a:0:{}")
    found: dict[str, list] = {}
    left_out = [str(name)[:60] for name in settings
                if name not in {key for keys in COLOR_KINDS.values() for key in keys}][:50]
    for kind, keys in COLOR_KINDS.items():
        for key in keys:
            if key not in settings:
                continue  # the site keeps what the file does not name
            entries = settings.get(key) or []
            entries = list(entries.values()) if isinstance(entries, dict) else entries
            found[key] = []
            for entry in entries[:MAX_CUSTOM_ENTRIES] if isinstance(entries, list) else []:
                checked = _kit_entry(kind, entry)
                if checked is None:
                    left_out.append(f"{key} entry {str(entry)[:60]}")
                else:
                    found[key].append(checked)
    return found, left_out


def _kit_entry(kind: str, entry: Any) -> dict | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("_id"), str) or not entry["_id"]:
        return None
    base = {"_id": entry["_id"][:40], "title": str(entry.get("title") or "")[:100]}
    if kind == "colors":
        return {**base, "color": entry["color"].strip()} if is_color(entry.get("color")) else None
    try:
        typography = TypographySchema().load({key: value for key, value in entry.items()
                                              if key.startswith("typography_")})
    except ValidationError:
        return None
    return {**base, **typography}


def _import_kit(app, item: WxrItem, run: WxrImport) -> None:
    try:
        settings, left_out = kit_settings(item)
    except ValueError as error:
        run.not_imported(item_label(item), f"the kit's settings cannot be read: {error}")
        return
    for name in left_out:
        run.not_imported(f"{item_label(item)} {name}", "the kit here keeps global colours and fonts only")
    kit = load_kit(app, run.session)
    merged = dict(kit.settings)
    for key, entries in settings.items():
        if key.startswith("system_"):
            # System entries are fixed ids (primary, secondary, text, accent): the file's replace the same ids.
            given = {entry["_id"]: entry for entry in entries}
            kept = [given.pop(entry["_id"], entry) for entry in kit.settings.get(key, [])]
            merged[key] = kept + list(given.values())
        else:
            merged[key] = entries
    title = item.title.strip()[:MAX_TITLE_LENGTH] or kit.title
    if (merged, title) == (kit.settings, kit.title):
        run.count("unchanged")
        return
    save_kit(app, run.session, kit, settings=merged)
    if title != kit.title:
        kits = table(app, KITS)
        run.session.execute(update(kits).where(kits.c.id == kit.id).values(title=title))
    run.count("updated")


# --- export -----------------------------------------------------------------------------------------

def export_meta(meta: dict) -> list[tuple[str, str]]:
    found = [("_elementor_edit_mode", meta.get("_builder_edit_mode") or "")]
    if meta.get("_builder_template_type"):
        found.append(("_elementor_template_type", meta["_builder_template_type"]))
    found.append(("_elementor_data", meta.get("_builder_data") or ""))
    if meta.get("_builder_page_settings"):
        found.append(("_elementor_page_settings", php_serialize(meta["_builder_page_settings"])))
    return found


def item_exported(app, item: WxrItem, post_id: int, export: WxrExport) -> None:
    """A core post or page with a builder document gets its `_elementor_*` meta."""
    if item.post_type not in ("post", "page"):
        return
    stored = app.content.get(export_request(export), post_id)
    if stored is None or not any(stored["meta"].get(key) for key in WP_KEYS.values()):
        return
    item.meta = [(key, value) for key, value in item.meta if key not in WP_KEYS and key not in WP_KEYS.values()]
    item.meta += export_meta(stored["meta"])


def export_items(app, export: WxrExport) -> Iterable[WxrItem]:
    items = list(all_items(export, LIBRARY_TYPE))
    logins = author_logins(export, {item["author"] for item in items})
    for item in items:
        yield wxr_item(export, item, LIBRARY, logins, content="", meta=export_meta(item["meta"]))
    kit = load_kit(app, export.session)
    settings = {key: kit.settings.get(key, []) for keys in COLOR_KINDS.values() for key in keys}
    if settings == {key: DEFAULT_SETTINGS.get(key, []) for key in settings} and kit.title == DEFAULT_KIT_TITLE:
        return  # an untouched kit is what a new site has: nothing to carry (and no item WordPress lacks a type for)
    kits = table(app, KITS)
    when = date_text(export.session.execute(select(kits.c.modified_gmt).where(kits.c.id == kit.id)).scalar())
    link = f"{export.base_url}/?elementor_library=default-kit"
    yield WxrItem(post_id=KIT_ID_BASE + kit.id, post_type=LIBRARY, title=kit.title, slug="default-kit",
                  status="publish", content="", excerpt="", date=when, date_gmt=when, modified=when, modified_gmt=when,
                  author_login="", parent=0, menu_order=0, password="", is_sticky=False, comment_status="closed",
                  ping_status="closed", guid=link, link=link,
                  meta=[("_elementor_edit_mode", BUILDER_MODE), ("_elementor_template_type", KIT),
                        ("_elementor_page_settings", php_serialize(settings))])
