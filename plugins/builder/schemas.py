"""Route args (marshmallow, on host.args) and the resource shapes of the builder routes."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from host.args import ContextArgs, JsonSchemaField, PagedArgs, string_list

WORD_ID = r"^\w+$"
SLUG = r"^[A-Za-z0-9_.-]+$"
MAX_TOKEN_LENGTH = 2000


def _string(description: str, **keywords) -> fields.Field:
    return fields.String(metadata={"description": description}, **keywords)


class ListingArgs(PagedArgs):
    """context, page, per_page and search, as the editor's listings declare them."""

    context = fields.String(load_default="view", validate=validate.Length(max=20),
                            metadata={"description": "Scope under which the request is made."})
    search = fields.String(validate=validate.Length(max=200),
                           metadata={"description": "Limit results to those matching a string."})


class DocumentsIndexArgs(ContextArgs):
    namespace = fields.String(load_default="builder/v1/documents", metadata={"description": "The namespace."})


class DocumentIdArgs(Schema):
    id = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "Unique identifier of the builder document."})


class EditorDocumentArgs(Schema):
    id = fields.String(required=True, validate=[validate.Regexp(WORD_ID), validate.Length(max=20)],
                       metadata={"description": "Document id."})


class GlobalIdArgs(Schema):
    id = fields.String(required=True, validate=[validate.Regexp(WORD_ID), validate.Length(max=60)],
                       metadata={"description": "Identifier of the global entry (word characters)."})


class GlobalColorWriteArgs(GlobalIdArgs):
    title = _string("Name shown in the editor.", validate=validate.Length(max=100))
    value = fields.String(validate=validate.Length(max=64),
                          metadata={"description": "A CSS colour: #hex, rgb(), rgba(), hsl(), hsla() or a keyword."})


class GlobalTypographyWriteArgs(GlobalIdArgs):
    title = _string("Name shown in the editor.", validate=validate.Length(max=100))
    value = fields.Dict(metadata={"description": "Typography settings (typography_font_family, "
                                                 "typography_font_size {unit, size}, typography_font_weight ...)."})


class SettingKeyArgs(Schema):
    key = fields.String(required=True, validate=validate.Length(max=60),
                        metadata={"description": "Name of the builder setting."})


class SettingWriteArgs(SettingKeyArgs):
    value = JsonSchemaField({"description": "The new value; its type depends on the setting.",
                             "type": ["string", "integer", "number", "boolean", "array", "object", "null"]})


class PostListArgs(Schema):
    excluded_post_types = JsonSchemaField({
        "description": "Post types left out of the list.", "type": ["array", "string"],
        "items": {"type": "string"},
        "default": ["builder-floating-buttons", "builder-landing-page", "builder_library", "attachment"]})
    term = fields.String(load_default="", validate=validate.Length(max=200),
                         metadata={"description": "Search term the titles must match."})
    post_keys_conversion_map = JsonSchemaField({
        "description": "Renames keys of each returned item: a JSON object text {\"from\": \"to\"}, or an array "
                       "of `from:to` strings.", "type": ["array", "string"], "items": {"type": "string"},
        "default": ""})
    max_count = fields.Integer(load_default=100, validate=validate.Range(min=1, max=100),
                               metadata={"description": "Maximum number of returned items."})


class FavoriteArgs(Schema):
    id = fields.String(required=True, validate=[validate.Regexp(WORD_ID), validate.Length(max=40)],
                       metadata={"description": "Type of favorites (e.g. widgets)."})
    favorite = fields.String(required=True, validate=[validate.Regexp(SLUG), validate.Length(min=1, max=100)],
                             metadata={"description": "Slug of the favorite."})


class ElementTypeArgs(Schema):
    type = fields.String(required=True, validate=validate.Length(max=60),
                         metadata={"description": "Registered element or widget type."})


class ElementDefaultsArgs(ElementTypeArgs):
    settings = fields.Dict(required=True, metadata={"description": "Default settings for the element type."})


class RecentPostsArgs(Schema):
    posts_per_page = fields.Integer(required=True, validate=validate.Range(min=1, max=100),
                                    metadata={"description": "Number of posts to return."})
    post_type = string_list("Post types to include.", load_default=lambda: ["page", "post", "builder_library"],
                            default=["page", "post", "builder_library"], validate=validate.Length(max=20))
    post__not_in = fields.List(fields.Integer(), load_default=list, validate=validate.Length(max=100),
                               metadata={"description": "Ids to leave out.", "default": []})


class AddNewPostArgs(Schema):
    post_type = fields.String(load_default="post", validate=validate.Length(max=40),
                              metadata={"description": "Type of the new draft."})


class StepIndexArgs(Schema):
    id = fields.String(required=True, validate=[validate.Regexp(r"^\d+$"), validate.Length(max=6)],
                       metadata={"description": "Position of the checklist step, from 1."})


class StepWriteArgs(Schema):
    id = fields.String(required=True, validate=[validate.Regexp(r"^[\w-]+$"), validate.Length(max=60)],
                       metadata={"description": "Identifier of the checklist step."})
    is_marked_completed = fields.Boolean(metadata={"description": "The user marked the step done."})
    is_absolute_completed = fields.Boolean(metadata={"description": "The step is done on the site."})
    is_immutable_completed = fields.Boolean(metadata={"description": "The step stays done for good."})


class TemplateCreateArgs(Schema):
    title = _string("Title of the template.", validate=validate.Length(max=200))
    content = JsonSchemaField({"description": "The template: {elements: [...], page_settings: {...}}.",
                               "type": "object"})


class TemplateInsertArgs(Schema):
    id = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "Template to insert."})
    document = fields.Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                              metadata={"description": "Builder document that receives a copy of the template."})
    position = fields.Integer(validate=validate.Range(min=0, max=100000),
                              metadata={"description": "Where to insert among the top-level elements (default: end)."})


class UserDataArgs(Schema):
    suppressedMessages = string_list("Editor messages the user chose not to see again.",
                                     validate=validate.Length(max=100))


class ConnectArgs(Schema):
    token = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TOKEN_LENGTH),
                          metadata={"description": "Access token of the template library account."})


class SendEventArgs(Schema):
    event_data = fields.Dict(required=True, metadata={"description": "The editor usage event."})


GLOBAL_CLASS_CONTEXTS = ["frontend", "preview"]
MAX_CLASS_IDS = 200  # ids an outsider may send in one write (the limit of 50 classes answers its own error)
CLASS_ID_LENGTH = 60


def _class_context() -> fields.Field:
    return fields.String(load_default="frontend", validate=validate.OneOf(GLOBAL_CLASS_CONTEXTS),
                         metadata={"description": "The copy of the classes: what visitors get, or the editor's "
                                                  "preview."})


def _class_ids(description: str) -> dict:
    return {"description": description, "type": "array", "required": True, "maxItems": MAX_CLASS_IDS,
            "items": {"type": "string", "maxLength": CLASS_ID_LENGTH}}


class GlobalClassesArgs(Schema):
    context = _class_context()


class GlobalClassesWriteArgs(Schema):
    context = _class_context()
    changes = JsonSchemaField({
        "description": "Ids of the classes added, deleted and modified: only these are saved.", "type": "object",
        "additionalProperties": False, "properties": {
            "added": _class_ids("Classes added."), "deleted": _class_ids("Classes deleted."),
            "modified": _class_ids("Classes modified.")}}, required=True)
    items = JsonSchemaField({
        "description": "Every class, by id: {id, type: class, label, variants}.", "type": "object",
        "maxProperties": MAX_CLASS_IDS, "additionalProperties": {
            "type": "object", "properties": {
                "id": {"type": "string", "required": True, "maxLength": CLASS_ID_LENGTH},
                "variants": {"type": "array", "required": True, "maxItems": 50,
                             "items": {"type": "object"}},
                "type": {"type": "string", "enum": ["class"], "required": True},
                "label": {"type": "string", "required": True, "minLength": 1, "maxLength": 50}}}}, required=True)
    order = JsonSchemaField(_class_ids("Every class id, in the order the editor lists them."), required=True)


# --- resource shapes (OpenAPI components) ----------------------------------------------------

class GlobalEntrySchema(Schema):
    id = fields.String(dump_only=True, metadata={"description": "Identifier."})
    title = fields.String(metadata={"description": "Name shown in the editor."})
    value = fields.Raw(metadata={"description": "A colour string, or typography settings."})


class BuilderDocumentSchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "Content item id."})
    type = fields.String(metadata={"description": "Post type."})
    title = fields.String(metadata={"description": "Title."})
    status = fields.String(metadata={"description": "Status."})
    template_type = fields.String(metadata={"description": "Builder template type."})
    modified_gmt = fields.String(metadata={"description": "Last change, GMT."})


class TemplateSchema(Schema):
    template_id = fields.Integer(dump_only=True, metadata={"description": "Template id."})
    source = fields.String(metadata={"description": "Always `local`."})
    type = fields.String(metadata={"description": "Template type."})
    title = fields.String(metadata={"description": "Title."})
    author = fields.String(metadata={"description": "Author's display name."})

