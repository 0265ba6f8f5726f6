"""Global colours and fonts of the active kit, element defaults, and the typed builder settings."""

from __future__ import annotations

import copy
import json

from marshmallow import Schema, ValidationError, fields, validate

from host import RestError, Route, invalid_param

from .. import elements as tree
from ..kit import (COLOR_KINDS, FONT_FAMILY, MAX_CUSTOM_ENTRIES, SYSTEM_IDS, checked_typography,
                   current_kit, global_item, global_items, is_color, load_kit, save_kit)
from ..schemas import (ElementDefaultsArgs, ElementTypeArgs, GlobalColorWriteArgs, GlobalEntrySchema, GlobalIdArgs,
                       GlobalTypographyWriteArgs, SettingKeyArgs, SettingWriteArgs)
from ..store import get_option, set_option
from .common import NAMESPACE, READ, SITE, announce_kit_change

MAX_DEFAULTS_BYTES = 64 * 1024

# The builder settings a site may change, each with its marshmallow field (type, bounds) and default.
SETTINGS: dict[str, tuple[fields.Field, object]] = {
    "container_width": (fields.Integer(strict=True, validate=validate.Range(min=300, max=2400)), 1140),
    "space_between_widgets": (fields.Integer(strict=True, validate=validate.Range(min=0, max=200)), 20),
    "viewport_md": (fields.Integer(strict=True, validate=validate.Range(min=320, max=2000)), 768),
    "viewport_lg": (fields.Integer(strict=True, validate=validate.Range(min=480, max=3000)), 1025),
    "page_title_selector": (fields.String(validate=validate.Length(max=200)), "h1.entry-title"),
    "default_generic_fonts": (fields.String(validate=validate.Regexp(FONT_FAMILY)), "Sans-serif"),
    "lightbox_enable": (fields.String(validate=validate.OneOf(["yes", "no"])), "yes"),
    "css_print_method": (fields.String(validate=validate.OneOf(["external", "internal"])), "external"),
    "disable_color_schemes": (fields.Boolean(truthy={True}, falsy={False}), False),
    "disable_typography_schemes": (fields.Boolean(truthy={True}, falsy={False}), False),
}
SETTINGS_OPTION = "settings"


def _kind(request) -> str:
    return "typography" if "/globals/typography" in request.path else "colors"


# --- globals ------------------------------------------------------------------------------------

def globals_index(request):
    """The controller index (its child routes) with the current colours and fonts, for one round trip."""
    kit = current_kit(request)
    base = f"{request.base_url}/{NAMESPACE}/globals"
    return {"namespace": NAMESPACE, "controller": "globals",
            "routes": {"colors": {"href": base + "/colors"}, "typography": {"href": base + "/typography"}},
            "colors": global_items(kit, "colors"), "typography": global_items(kit, "typography"),
            "_links": {"up": [{"href": request.base_url + "/"}]}}


def list_globals(request):
    return global_items(current_kit(request), _kind(request))


def get_global(request):
    found = global_items(current_kit(request), _kind(request)).get(request.params["id"])
    if found is None:
        raise RestError("global_not_found", "There is no global with that id.", 404)
    return found


def save_global(request):
    kind, params = _kind(request), request.params
    kit = load_kit(request.app, request.session)
    if not str(params.get("title") or "").strip():
        raise RestError("invalid_title", "A global needs a title.", 400, {"params": {"title": "Missing title."}})
    if "value" not in params:
        raise invalid_param({"value": "value is required."})
    if kind == "colors":
        if not is_color(params["value"]):
            raise invalid_param({"value": "value must be a CSS colour (#hex, rgb(), rgba(), hsl(), hsla() or a name)."})
        fields_of = {"color": params["value"].strip()}
    else:
        fields_of = checked_typography(params["value"])
    system_key, custom_key = COLOR_KINDS[kind]
    settings = copy.deepcopy(kit.settings)
    entry = {"_id": params["id"], "title": params["title"].strip(), **fields_of}
    target = system_key if params["id"] in {item["_id"] for item in settings.get(system_key, [])} else custom_key
    entries = settings.setdefault(target, [])
    for index, existing in enumerate(entries):
        if existing["_id"] == params["id"]:
            entries[index] = entry
            break
    else:
        if len(entries) >= MAX_CUSTOM_ENTRIES:
            raise RestError("builder_too_many_globals", f"A kit holds at most {MAX_CUSTOM_ENTRIES} custom {kind}.", 400)
        entries.append(entry)
    save_kit(request.app, request.session, kit, settings=settings)
    announce_kit_change(request, kit.id)
    return global_item(kind, entry)


def delete_global(request):
    kind, entry_id = _kind(request), request.params["id"]
    kit = load_kit(request.app, request.session)
    system_key, custom_key = COLOR_KINDS[kind]
    if entry_id in {item["_id"] for item in kit.settings.get(system_key, [])}:
        raise RestError("builder_system_global", f"The system {kind} ({', '.join(SYSTEM_IDS)}) can be changed but "
                        "not deleted.", 400)
    settings = copy.deepcopy(kit.settings)
    entries = settings.get(custom_key, [])
    removed = next((entry for entry in entries if entry["_id"] == entry_id), None)
    if removed is None:
        raise RestError("global_not_found", "There is no global with that id.", 404)
    settings[custom_key] = [entry for entry in entries if entry["_id"] != entry_id]
    save_kit(request.app, request.session, kit, settings=settings)
    announce_kit_change(request, kit.id)
    return {"deleted": True, "previous": global_item(kind, removed)}


# --- kit element defaults ---------------------------------------------------------------------------

def list_element_defaults(request):
    return load_kit(request.app, request.session).element_defaults or {}


def _registered_type(request) -> str:
    element_type = request.params["type"]
    if element_type not in tree.element_types(request.app):
        raise invalid_param({"type": f"type must be a registered element type: "
                                    f"{', '.join(tree.element_types(request.app))}."})
    return element_type


def save_element_defaults(request):
    element_type = _registered_type(request)
    settings = tree.supported_settings(element_type, request.params["settings"])
    text = json.dumps(settings)
    if len(text) > MAX_DEFAULTS_BYTES or tree._depth(settings) > tree.MAX_SETTINGS_DEPTH:
        raise invalid_param({"settings": f"settings must be at most {MAX_DEFAULTS_BYTES} bytes and "
                                        f"{tree.MAX_SETTINGS_DEPTH} levels deep."})
    kit = load_kit(request.app, request.session)
    defaults = dict(kit.element_defaults)
    defaults[element_type] = settings
    save_kit(request.app, request.session, kit, element_defaults=defaults)
    announce_kit_change(request, kit.id)
    return {}


def delete_element_defaults(request):
    element_type = _registered_type(request)
    kit = load_kit(request.app, request.session)
    defaults = dict(kit.element_defaults)
    if defaults.pop(element_type, None) is not None:
        save_kit(request.app, request.session, kit, element_defaults=defaults)
        announce_kit_change(request, kit.id)
    return {}


# --- settings ------------------------------------------------------------------------------------

def _setting(request, value) -> dict:
    key = request.params["key"]
    return {"key": key, "value": value, "default": SETTINGS[key][1]}


def _known_key(request) -> str:
    key = request.params["key"]
    if key not in SETTINGS:
        raise invalid_param({"key": f"key must be one of {', '.join(SETTINGS)}."})
    return key


def get_setting(request):
    stored = get_option(request, SETTINGS_OPTION, {})
    key = _known_key(request)
    return _setting(request, stored.get(key, SETTINGS[key][1]))


def save_setting(request):
    key = _known_key(request)
    if "value" not in request.params:
        raise invalid_param({"value": "value is required."})
    field, _default = SETTINGS[key]
    try:
        value = Schema.from_dict({"value": copy.deepcopy(field)})().load({"value": request.params["value"]})["value"]
    except ValidationError as error:
        raise invalid_param({"value": f"value is not valid for {key}: {' '.join(map(str, error.messages['value']))}"}) \
            from None
    stored = get_option(request, SETTINGS_OPTION, {})
    stored[key] = value
    set_option(request, SETTINGS_OPTION, stored)
    kit = load_kit(request.app, request.session)
    save_kit(request.app, request.session, kit)  # settings shape the rendered pages: a new kit version
    announce_kit_change(request, kit.id)
    return _setting(request, value)


def routes(app) -> list[Route]:
    key_field = {"key": fields.String(required=True, validate=validate.Length(max=60), metadata={
        "description": f"Name of the builder setting: {', '.join(SETTINGS)}."})}
    key_args = SettingKeyArgs.from_dict(key_field, name="BuilderSettingKeyArgs")
    write_args = SettingWriteArgs.from_dict(key_field, name="BuilderSettingWriteArgs")
    type_field = {"type": fields.String(required=True, validate=validate.Length(max=60), metadata={
        "description": f"Registered element or widget type: {', '.join(tree.element_types(app))}."})}
    colors = r"/globals/colors/(?P<id>[\w]+)"
    typography = r"/globals/typography/(?P<id>[\w]+)"
    defaults = r"/kit-elements-defaults/(?P<type>[\w-]+)"
    setting = r"/settings/(?P<key>[\w-]+)"
    return [
        Route(NAMESPACE, "/globals", "GET", globals_index, capability=READ),
        Route(NAMESPACE, "/globals/colors", "GET", list_globals, capability=READ, schema=GlobalEntrySchema,
              title="builder-global"),
        Route(NAMESPACE, "/globals/typography", "GET", list_globals, capability=READ, schema=GlobalEntrySchema,
              title="builder-global"),
        Route(NAMESPACE, colors, "GET", get_global, args=GlobalIdArgs, capability=READ, schema=GlobalEntrySchema,
              title="builder-global"),
        Route(NAMESPACE, colors, "POST", save_global, args=GlobalColorWriteArgs, capability=SITE),
        Route(NAMESPACE, colors, "DELETE", delete_global, args=GlobalIdArgs, capability=SITE),
        Route(NAMESPACE, typography, "GET", get_global, args=GlobalIdArgs, capability=READ,
              schema=GlobalEntrySchema, title="builder-global"),
        Route(NAMESPACE, typography, "POST", save_global, args=GlobalTypographyWriteArgs, capability=SITE),
        Route(NAMESPACE, typography, "DELETE", delete_global, args=GlobalIdArgs, capability=SITE),
        Route(NAMESPACE, "/kit-elements-defaults", "GET", list_element_defaults, capability=READ),
        Route(NAMESPACE, defaults, ("POST", "PUT", "PATCH"), save_element_defaults,
              args=ElementDefaultsArgs.from_dict(type_field, name="BuilderElementDefaultsArgs"), capability=SITE),
        Route(NAMESPACE, defaults, "DELETE", delete_element_defaults,
              args=ElementTypeArgs.from_dict(type_field, name="BuilderElementTypeArgs"), capability=SITE),
        Route(NAMESPACE, setting, "GET", get_setting, args=key_args, capability=READ),
        Route(NAMESPACE, setting, ("POST", "PUT", "PATCH"), save_setting, args=write_args, capability=SITE),
    ]
