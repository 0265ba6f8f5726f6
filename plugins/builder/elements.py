"""The editor's element tree: which element types exist, what settings each supports, and the
bounded check every `_builder_data` passes before it is stored.

A document is a JSON array of elements, each
`{id, elType: section|column|container|widget, widgetType (widgets only), settings: {...}, elements: [...]}`.
The check bounds the text size, the number of elements, the nesting depth and the depth of
each element's settings, so no outsider can store a tree the renderer cannot walk cheaply.
Unknown widget types are accepted (an editor may carry widgets of a plugin that is not
enabled here); they render as nothing.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

CONTAINER_TYPES = ("section", "column", "container")
EL_TYPES = CONTAINER_TYPES + ("widget",)
MAX_ID_LENGTH = 40
MAX_WIDGET_TYPE_LENGTH = 60
MAX_SETTINGS_DEPTH = 6
CALENDAR_PLUGIN = "calendar"
EVENTS_WIDGET = "cal-events-list"

COMMON_SETTINGS = ("_element_id", "_css_classes", "__globals__")
# The settings each element type supports: kit defaults keep only these (plus COMMON_SETTINGS).
SUPPORTED_SETTINGS: dict[str, tuple[str, ...]] = {
    "section": ("background_color", "padding", "content_width", "gap", "html_tag", "min_height"),
    "column": ("_column_size", "background_color", "padding", "align"),
    "container": ("flex_direction", "background_color", "padding", "content_width", "gap", "html_tag", "min_height",
                  "align"),
    "heading": ("title", "header_size", "align", "title_color", "link", "typography_font_family",
                "typography_font_size", "typography_font_weight"),
    "text-editor": ("editor", "align", "text_color", "typography_font_family", "typography_font_size"),
    "image": ("image", "caption", "link", "align", "width"),
    "button": ("text", "link", "align", "size", "button_background_color", "button_text_color"),
    "spacer": ("space",),
    "divider": ("color", "weight", "width"),
    "video": ("video_type", "youtube_url", "vimeo_url", "title"),
    "icon-list": ("icon_list", "text_color"),
    EVENTS_WIDGET: ("title", "posts_per_page"),
}


def calendar_enabled(app) -> bool:
    """Whether a plugin named `calendar` is enabled in this app (read from the plugin registry)."""
    record = app.plugin(CALENDAR_PLUGIN)
    return record is not None and record.enabled and record.loaded and not record.error


def widget_types(app) -> tuple[str, ...]:
    """Widget types this site renders: the common ones, and the events list while the calendar is enabled."""
    names = [name for name in SUPPORTED_SETTINGS if name not in CONTAINER_TYPES and name != EVENTS_WIDGET]
    if calendar_enabled(app):
        names.append(EVENTS_WIDGET)
    return tuple(names)


def element_types(app) -> tuple[str, ...]:
    """Every registered element type: the structural ones and the widgets."""
    return CONTAINER_TYPES + widget_types(app)


def supported_settings(element_type: str, settings: dict) -> dict:
    """`settings` without the keys `element_type` does not support."""
    allowed = set(SUPPORTED_SETTINGS.get(element_type, ())) | set(COMMON_SETTINGS)
    return {key: value for key, value in settings.items() if key in allowed}


class TreeError(ValueError):
    """The element tree is not acceptable; the message says where and why."""


def parse_data(text: str, limits) -> list[dict]:
    """`_builder_data` text -> the checked element list ([] for an empty string). Raises TreeError."""
    if not isinstance(text, str):
        raise TreeError("must be a string holding the builder's JSON")
    if not text.strip():
        return []
    if len(text.encode("utf-8")) > limits.max_data_bytes:
        raise TreeError(f"is larger than {limits.max_data_bytes} bytes")
    try:
        data = json.loads(text)
    except RecursionError:
        raise TreeError("is nested too deeply") from None
    except ValueError as error:
        raise TreeError(f"is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    check_tree(data, limits)
    return data


def check_tree(data: Any, limits) -> None:
    """Raise TreeError unless `data` is a well-formed, bounded element list (iterative: no recursion)."""
    if not isinstance(data, list):
        raise TreeError("must be a JSON array of elements")
    count = 0
    stack: list[tuple[list, int, str]] = [(data, 1, "")]
    while stack:
        elements, depth, where = stack.pop()
        if depth > limits.max_depth:
            raise TreeError(f"nests elements deeper than {limits.max_depth} levels (at {where or 'the top'})")
        for index, element in enumerate(elements):
            path = f"{where}[{index}]"
            count += 1
            if count > limits.max_elements:
                raise TreeError(f"has more than {limits.max_elements} elements")
            children = _check_element(element, path)
            if children:
                stack.append((children, depth + 1, path + ".elements"))


def _check_element(element: Any, path: str) -> list:
    if not isinstance(element, dict):
        raise TreeError(f"{path} is not an object")
    element_id = element.get("id")
    if not isinstance(element_id, str) or not element_id or len(element_id) > MAX_ID_LENGTH \
            or not all(character.isalnum() or character in "-_" for character in element_id):
        raise TreeError(f"{path}.id must be a string of up to {MAX_ID_LENGTH} letters, digits, '-' or '_'")
    el_type = element.get("elType")
    if el_type not in EL_TYPES:
        raise TreeError(f"{path}.elType must be one of {', '.join(EL_TYPES)}")
    widget_type = element.get("widgetType")
    if el_type == "widget":
        if not isinstance(widget_type, str) or not widget_type or len(widget_type) > MAX_WIDGET_TYPE_LENGTH \
                or not all(character.isalnum() or character in "-_." for character in widget_type):
            raise TreeError(f"{path}.widgetType must name the widget (letters, digits, '-', '_', '.')")
    elif widget_type not in (None, ""):
        raise TreeError(f"{path}.widgetType is only for widgets")
    settings = element.get("settings", {})
    if isinstance(settings, list) and not settings:
        settings = {}  # PHP-encoded editors send an empty settings object as []
    if not isinstance(settings, dict):
        raise TreeError(f"{path}.settings must be an object")
    if _depth(settings) > MAX_SETTINGS_DEPTH:
        raise TreeError(f"{path}.settings nests deeper than {MAX_SETTINGS_DEPTH} levels")
    children = element.get("elements", [])
    if not isinstance(children, list):
        raise TreeError(f"{path}.elements must be an array")
    if el_type == "widget" and children:
        raise TreeError(f"{path} is a widget and cannot hold elements")
    return children


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value, iteratively (settings are small; the tree check bounds the size)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            deepest = max(deepest, depth)
            stack.extend((item, depth + 1) for item in current.values())
        elif isinstance(current, list):
            deepest = max(deepest, depth)
            stack.extend((item, depth + 1) for item in current)
    return deepest


def walk(elements: list[dict]):
    """Every element of the tree, depth first, in document order."""
    stack = list(reversed(elements))
    while stack:
        element = stack.pop()
        yield element
        stack.extend(reversed(element.get("elements") or []))


def new_element_id(taken: set[str]) -> str:
    """A fresh 7-hex-digit element id, as the editor makes them, not in `taken`."""
    while True:
        candidate = secrets.token_hex(4)[:7]
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def copy_with_new_ids(elements: list[dict], taken: set[str]) -> list[dict]:
    """A deep copy of `elements` in which every element has a new id (a template inserted twice stays unique)."""
    copied = json.loads(json.dumps(elements))
    for element in walk(copied):
        element["id"] = new_element_id(taken)
    return copied


def ids_of(elements: list[dict]) -> set[str]:
    return {element["id"] for element in walk(elements)}
