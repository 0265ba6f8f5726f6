"""The site's kit: global colours and typography, element defaults, and the CSS custom
properties rendered pages carry.

A site has one kit (the "active kit"), a row of `builder_kits` created at startup. Its
`version` changes with every change to the kit and with every `DELETE cache`, and is part of
the render cache key of every builder document, so pages never show an old palette.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass

from marshmallow import Schema, ValidationError, fields, validate
from sqlalchemy import insert, select, update

from host import RestError, invalid_param

from .tables import KITS, table

COLOR_KINDS = {"colors": ("system_colors", "custom_colors"),
               "typography": ("system_typography", "custom_typography")}
SYSTEM_IDS = ("primary", "secondary", "text", "accent")
MAX_CUSTOM_ENTRIES = 100
MAX_TITLE_LENGTH = 100
DEFAULT_SETTINGS = {
    "system_colors": [
        {"_id": "primary", "title": "Primary", "color": "#1F4E79"},
        {"_id": "secondary", "title": "Secondary", "color": "#F2A900"},
        {"_id": "text", "title": "Text", "color": "#333333"},
        {"_id": "accent", "title": "Accent", "color": "#2E8540"},
    ],
    "custom_colors": [],
    "system_typography": [
        {"_id": "primary", "title": "Primary", "typography_typography": "custom",
         "typography_font_family": "Georgia, serif", "typography_font_weight": "700"},
        {"_id": "secondary", "title": "Secondary", "typography_typography": "custom",
         "typography_font_family": "Georgia, serif", "typography_font_weight": "400"},
        {"_id": "text", "title": "Text", "typography_typography": "custom",
         "typography_font_family": "system-ui, sans-serif", "typography_font_weight": "400"},
        {"_id": "accent", "title": "Accent", "typography_typography": "custom",
         "typography_font_family": "system-ui, sans-serif", "typography_font_weight": "600"},
    ],
    "custom_typography": [],
}

# Colours: #hex, rgb()/rgba()/hsl()/hsla() of plain numbers, or a CSS keyword. Bounded input, no nesting.
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNCTION = re.compile(r"(?:rgb|rgba|hsl|hsla)\([0-9., %/deg]{1,60}\)")
_KEYWORDS = frozenset({"transparent", "currentcolor", "black", "white", "red", "green", "blue", "navy", "gold",
                       "gray", "grey", "orange", "purple", "teal", "maroon", "silver", "yellow"})
FONT_FAMILY = re.compile(r"[A-Za-z0-9 ,'\"-]{1,100}\Z")  # anchored: marshmallow's Regexp only matches a prefix
UNITS = ("px", "em", "rem", "vw", "vh", "%")


def is_color(value) -> bool:
    if not isinstance(value, str) or len(value) > 64:
        return False
    text = value.strip()
    return bool(_HEX.fullmatch(text) or _FUNCTION.fullmatch(text.lower()) or text.lower() in _KEYWORDS)


class SizeSchema(Schema):
    unit = fields.String(load_default="px", validate=validate.OneOf(UNITS + ("",)))
    size = fields.Float(required=True, allow_nan=False, validate=validate.Range(min=-1000, max=1000))
    sizes = fields.List(fields.Raw(), load_default=list, validate=validate.Length(max=0))


class TypographySchema(Schema):
    """The typography settings a global font (or a kit default) may hold; anything else is refused."""

    typography_typography = fields.String(validate=validate.OneOf(["custom", ""]))
    typography_font_family = fields.String(validate=validate.Regexp(FONT_FAMILY))
    typography_font_size = fields.Nested(SizeSchema)
    typography_font_weight = fields.String(validate=validate.OneOf(
        ["100", "200", "300", "400", "500", "600", "700", "800", "900", "normal", "bold", ""]))
    typography_line_height = fields.Nested(SizeSchema)
    typography_letter_spacing = fields.Nested(SizeSchema)
    typography_text_transform = fields.String(validate=validate.OneOf(
        ["none", "uppercase", "lowercase", "capitalize", ""]))
    typography_font_style = fields.String(validate=validate.OneOf(["normal", "italic", "oblique", ""]))


def checked_typography(value) -> dict:
    """`value` as stored typography settings, or 400 naming what is wrong."""
    if not isinstance(value, dict):
        raise invalid_param({"value": "value must be an object of typography settings."})
    try:
        loaded = TypographySchema().load(value)
    except ValidationError as error:
        raise invalid_param({"value": f"value has invalid typography settings: {error.messages}"}) from None
    if isinstance(value.get("typography_font_weight"), int):
        loaded["typography_font_weight"] = str(value["typography_font_weight"])
    return loaded


@dataclass(frozen=True)
class Kit:
    id: int
    title: str
    settings: dict
    element_defaults: dict
    version: int


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def ensure_kit(app) -> None:
    """Create the site's kit when there is none (startup)."""
    kits = table(app, KITS)
    with app.db.session(write=True) as session, session.begin():
        if session.execute(select(kits.c.id).limit(1)).first() is None:
            session.execute(insert(kits).values(title="Default Kit", settings=json.dumps(DEFAULT_SETTINGS),
                                                element_defaults="{}", version=1, modified_gmt=_now()))


def load_kit(app, session) -> Kit:
    """The active kit, or 404 `not-found` when the site has none (its row was removed)."""
    kits = table(app, KITS)
    row = session.execute(app.db.prepared("builder.kit", lambda: select(kits).order_by(kits.c.id).limit(1))).first()
    if row is None:
        raise RestError("not-found", "Kit doesn't exist.", 404)
    return Kit(row.id, row.title, json.loads(row.settings), json.loads(row.element_defaults), row.version)


KIT_KEEP_SECONDS = 60.0  # a bound for what no commit shows (a database file swapped under the site)


def current_kit(request) -> Kit:
    """The active kit for a request that only reads it: kept in process with the database's commit
    mark (host `request.commit_mark`) and served again while nothing at all was committed since
    (for at most KIT_KEEP_SECONDS), so a GET of the globals reads no row; after any commit (this
    kit's changes included) it is read again. Where there is no mark (PostgreSQL) it is read
    every time. Never mutate it."""
    app = request.app
    mark = request.commit_mark()
    kept = app.kept("builder.kept_kit", 1, KIT_KEEP_SECONDS)
    kit = kept.get("active", mark)
    if kit is None:
        kit = load_kit(app, request.session)
        kept.put("active", mark, kit)
    return kit


def kit_version(app, session) -> int:
    kits = table(app, KITS)
    found = session.execute(app.db.prepared(
        "builder.kit_version", lambda: select(kits.c.version).order_by(kits.c.id).limit(1))).scalar()
    return int(found or 0)


def save_kit(app, session, kit: Kit, settings: dict | None = None, element_defaults: dict | None = None) -> None:
    kits = table(app, KITS)
    values = {"version": kits.c.version + 1, "modified_gmt": _now()}
    if settings is not None:
        values["settings"] = json.dumps(settings)
    if element_defaults is not None:
        values["element_defaults"] = json.dumps(element_defaults)
    session.execute(update(kits).where(kits.c.id == kit.id).values(**values))


def bump_version(app, session) -> None:
    """Make every rendered builder document stale (DELETE cache)."""
    kits = table(app, KITS)
    session.execute(update(kits).values(version=kits.c.version + 1, modified_gmt=_now()))


# --- globals ---------------------------------------------------------------------------

def entry_value(kind: str, entry: dict):
    if kind == "colors":
        return entry.get("color", "")
    return {key: value for key, value in entry.items() if key.startswith("typography_")}


def global_item(kind: str, entry: dict) -> dict:
    return {"id": entry["_id"], "title": entry.get("title", ""), "value": entry_value(kind, entry)}


def global_items(kit: Kit, kind: str) -> dict[str, dict]:
    """{id: {id, title, value}}: system entries first, then custom ones (a custom id never hides a system one)."""
    system_key, custom_key = COLOR_KINDS[kind]
    items: dict[str, dict] = {}
    for key in (system_key, custom_key):
        for entry in kit.settings.get(key, []):
            items.setdefault(entry["_id"], global_item(kind, entry))
    return items


# --- CSS custom properties -------------------------------------------------------------------

def css_variables(app, kit: Kit) -> str:
    """`--builder-color-ID:VALUE;--builder-font-ID-family:...` for every global, kept by kit version."""
    return app.kept("builder.css_vars", 4).get_or_build(kit.id, kit.version, lambda: _css_variables(kit))


def _css_variables(kit: Kit) -> str:
    parts = []
    for entry_id, item in global_items(kit, "colors").items():
        if is_color(item["value"]):
            parts.append(f"--builder-color-{entry_id}:{item['value'].strip()}")
    for entry_id, item in global_items(kit, "typography").items():
        parts.extend(f"--builder-font-{entry_id}-{name}:{value}" for name, value in typography_css(item["value"]))
    return ";".join(parts)


def size_css(value) -> str | None:
    if not isinstance(value, dict) or not isinstance(value.get("size"), (int, float)) \
            or isinstance(value.get("size"), bool):
        return None
    unit = value.get("unit", "px")
    if unit not in UNITS + ("",):
        return None
    number = value["size"]
    if not -1000 <= number <= 1000:
        return None
    text = f"{number:g}"
    return text + unit


def typography_css(settings: dict) -> list[tuple[str, str]]:
    """(property suffix, CSS value) pairs of valid typography settings; invalid ones are left out."""
    found = []
    family = settings.get("typography_font_family")
    if isinstance(family, str) and FONT_FAMILY.fullmatch(family):
        found.append(("family", family))
    for key, name in (("typography_font_size", "size"), ("typography_line_height", "line-height"),
                      ("typography_letter_spacing", "letter-spacing")):
        css = size_css(settings.get(key))
        if css is not None:
            found.append((name, css))
    weight = str(settings.get("typography_font_weight", ""))
    if weight in ("100", "200", "300", "400", "500", "600", "700", "800", "900", "normal", "bold"):
        found.append(("weight", weight))
    for key, name, allowed in (("typography_text_transform", "transform", ("none", "uppercase", "lowercase",
                                                                           "capitalize")),
                               ("typography_font_style", "style", ("normal", "italic", "oblique"))):
        if settings.get(key) in allowed:
            found.append((name, settings[key]))
    return found
