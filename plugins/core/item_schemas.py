"""The item shapes core/v2 answers, as the `schema` of OPTIONS and of `context=help`.

One marshmallow Schema class per resource, built once from JSON-Schema property dicts
(host.args.JsonSchemaField) so that each property says its type, contexts and whether it is
read-only exactly as WordPress's controllers declare them. The keys are the keys the
controllers' `prepare` functions produce; tests/parity/test_item_schemas.py checks the two
against real items, so a field added to an item without its schema (or the reverse) fails.
"""

from __future__ import annotations

import functools
from typing import Any

from marshmallow import Schema

from host.args import JsonSchemaField

ALL = ["view", "edit", "embed"]
VIEW_EDIT = ["view", "edit"]
EDIT = ["edit"]


def prop(kind: Any, description: str, context: list[str], readonly: bool = False, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"description": description, "type": kind, **extra, "context": context}
    if readonly:
        schema["readonly"] = True
    return schema


def rendered_object(description: str, context: list[str], raw: bool = True, rendered_context=None,
                    **more: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if raw:
        properties["raw"] = prop("string", f"{description}, as it exists in the database.", EDIT)
    properties["rendered"] = prop("string", f"HTML {description.lower()}, transformed for display.",
                                  rendered_context or context, readonly=True)
    properties.update(more)
    return prop("object", description + ".", context, properties=properties)


def _schema(name: str, properties: dict[str, dict[str, Any]]) -> type[Schema]:
    return Schema.from_dict({key: JsonSchemaField(value) for key, value in properties.items()}, name=name)


def _dates(noun: str) -> dict[str, dict[str, Any]]:
    return {
        "date": prop(["string", "null"], f"The date the {noun} was published, in the site's timezone.", ALL,
                     format="date-time"),
        "date_gmt": prop(["string", "null"], f"The date the {noun} was published, as GMT.", VIEW_EDIT,
                         format="date-time"),
        "modified": prop("string", f"The date the {noun} was last modified, in the site's timezone.", VIEW_EDIT,
                         readonly=True, format="date-time"),
        "modified_gmt": prop("string", f"The date the {noun} was last modified, as GMT.", VIEW_EDIT,
                             readonly=True, format="date-time"),
    }


def _post_common(noun: str, statuses: list[str]) -> dict[str, dict[str, Any]]:
    return {
        "id": prop("integer", f"Unique identifier for the {noun}.", ALL, readonly=True),
        **_dates(noun),
        "guid": prop("object", f"The globally unique identifier for the {noun}.", VIEW_EDIT, readonly=True,
                     properties={"raw": prop("string", f"GUID for the {noun}, as it exists in the database.", EDIT,
                                             readonly=True),
                                 "rendered": prop("string", f"GUID for the {noun}, transformed for display.",
                                                  VIEW_EDIT, readonly=True)}),
        "link": prop("string", f"URL to the {noun}.", ALL, readonly=True, format="uri"),
        "slug": prop("string", f"An alphanumeric identifier for the {noun} unique to its type.", ALL),
        "status": prop("string", f"A named status for the {noun}.", VIEW_EDIT, enum=statuses),
        "type": prop("string", f"Type of {noun}.", ALL, readonly=True),
        "password": prop("string", "A password to protect access to the content and excerpt.", EDIT),
        "permalink_template": prop("string", f"Permalink template for the {noun}.", EDIT, readonly=True),
        "generated_slug": prop("string", f"Slug automatically generated from the {noun} title.", EDIT,
                               readonly=True),
        "class_list": prop("array", f"An array of the class names for the {noun} container element.", VIEW_EDIT,
                           readonly=True, items={"type": "string"}),
        "title": rendered_object(f"The title for the {noun}", ALL),
        "author": prop("integer", f"The ID for the author of the {noun}.", ALL),
        "featured_media": prop("integer", f"The ID of the featured media for the {noun}.", ALL),
        "comment_status": prop("string", f"Whether or not comments are open on the {noun}.", VIEW_EDIT,
                               enum=["open", "closed"]),
        "ping_status": prop("string", f"Whether or not the {noun} can be pinged.", VIEW_EDIT, enum=["open", "closed"]),
        "template": prop("string", f"The theme file to use to display the {noun}.", VIEW_EDIT),
        "meta": prop("object", "Meta fields.", VIEW_EDIT, properties={}),
    }


def _content(noun: str) -> dict[str, dict[str, Any]]:
    return {
        "content": rendered_object(f"The content for the {noun}", VIEW_EDIT, **{
            "block_version": prop("integer", f"Version of the content block format used by the {noun}.", EDIT,
                                  readonly=True),
            "protected": prop("boolean", "Whether the content is protected with a password.", VIEW_EDIT,
                              readonly=True)}),
        "excerpt": rendered_object(f"The excerpt for the {noun}", ALL, **{
            "protected": prop("boolean", "Whether the excerpt is protected with a password.", ALL, readonly=True)}),
    }


@functools.lru_cache(maxsize=None)
def post_schema(post_type: str, kind: str, statuses: tuple[str, ...]) -> type[Schema]:
    """A post type's item: `kind` "post" adds sticky, format, categories and tags; "page" parent and menu order."""
    properties = {**_post_common(post_type, list(statuses)), **_content(post_type)}
    if kind == "post":
        properties["sticky"] = prop("boolean", "Whether or not the post should be treated as sticky.", VIEW_EDIT)
        properties["format"] = prop("string", "The format for the post.", VIEW_EDIT, enum=[
            "standard", "aside", "chat", "gallery", "link", "image", "quote", "status", "video", "audio"])
        properties["categories"] = prop("array", "The terms assigned to the post in the category taxonomy.",
                                        VIEW_EDIT, items={"type": "integer"})
        properties["tags"] = prop("array", "The terms assigned to the post in the post_tag taxonomy.", VIEW_EDIT,
                                  items={"type": "integer"})
    elif kind == "page":
        properties["parent"] = prop("integer", "The ID for the parent of the post.", VIEW_EDIT)
        properties["menu_order"] = prop("integer", "The order of the post in relation to other posts.", VIEW_EDIT)
    return _schema(f"{post_type.title()}Item", properties)


@functools.lru_cache(maxsize=None)
def attachment_schema() -> type[Schema]:
    common = _post_common("post", ["publish", "future", "draft", "pending", "private", "inherit", "trash"])
    for absent in ("password", "content", "excerpt", "sticky", "format", "categories", "tags"):
        common.pop(absent, None)
    common["status"] = prop("string", "A named status for the post.", VIEW_EDIT,
                            enum=["publish", "future", "draft", "pending", "private", "inherit", "trash"])
    properties = {
        **common,
        "alt_text": prop("string", "Alternative text to display when attachment is not displayed.", ALL),
        "caption": rendered_object("The attachment caption", ALL),
        "description": rendered_object("The attachment description", VIEW_EDIT),
        "media_type": prop("string", "Attachment type.", ALL, readonly=True, enum=["image", "file"]),
        "mime_type": prop("string", "The attachment MIME type.", ALL, readonly=True),
        "media_details": prop("object", "Details about the media file, specific to its type.", ALL, readonly=True),
        "post": prop(["integer", "null"], "The ID for the associated post of the attachment.", VIEW_EDIT),
        "source_url": prop("string", "URL to the original attachment file.", ALL, readonly=True, format="uri"),
        "filename": prop("string", "The attachment's file name.", EDIT, readonly=True),
        "filesize": prop("integer", "The attachment's file size in bytes.", EDIT, readonly=True),
        "missing_image_sizes": prop("array", "List of the missing image sizes of the attachment.", EDIT,
                                    readonly=True, items={"type": "string"}),
    }
    return _schema("AttachmentItem", properties)


@functools.lru_cache(maxsize=None)
def revision_schema(parent_type: str, autosave: bool) -> type[Schema]:
    noun = "autosave" if autosave else "revision"
    properties = {
        "author": prop("integer", f"The ID for the author of the {noun}.", ALL),
        **{key: value for key, value in _dates(noun).items()},
        "guid": prop("object", "GUID for the post, as it exists in the database.", VIEW_EDIT, readonly=True,
                     properties={"raw": prop("string", "GUID for the post, as it exists in the database.", EDIT,
                                             readonly=True),
                                 "rendered": prop("string", "GUID for the post, transformed for display.",
                                                  VIEW_EDIT, readonly=True)}),
        "id": prop("integer", f"Unique identifier for the {noun}.", ALL),
        "parent": prop("integer", f"The ID for the parent of the {noun}.", ALL),
        "slug": prop("string", f"An alphanumeric identifier for the {noun} unique to its type.", ALL),
        "title": rendered_object("The title for the post", ALL),
        "content": rendered_object("The content for the post", VIEW_EDIT),
        "excerpt": rendered_object("The excerpt for the post", ALL),
        "meta": prop("object", "Meta fields.", VIEW_EDIT, properties={}),
    }
    if autosave:
        properties["preview_link"] = prop("string", "Preview link for the post.", EDIT, readonly=True, format="uri")
    return _schema(f"{parent_type.title()}{noun.title()}Item", properties)


@functools.lru_cache(maxsize=None)
def term_schema(taxonomy: str, hierarchical: bool) -> type[Schema]:
    properties = {
        "id": prop("integer", "Unique identifier for the term.", ALL, readonly=True),
        "count": prop("integer", "Number of published posts for the term.", VIEW_EDIT, readonly=True),
        "description": prop("string", "HTML description of the term.", VIEW_EDIT),
        "link": prop("string", "URL of the term.", ALL, readonly=True, format="uri"),
        "name": prop("string", "HTML title for the term.", ALL, required=True),
        "slug": prop("string", "An alphanumeric identifier for the term unique to its type.", ALL),
        "taxonomy": prop("string", "Type attribution for the term.", ALL, readonly=True, enum=[taxonomy]),
        "meta": prop("object", "Meta fields.", VIEW_EDIT, properties={}),
    }
    if hierarchical:
        properties["parent"] = prop("integer", "The parent term ID.", VIEW_EDIT)
    return _schema(f"{taxonomy.title().replace('_', '')}Item", properties)


@functools.lru_cache(maxsize=None)
def user_schema(roles: tuple[str, ...]) -> type[Schema]:
    properties = {
        "id": prop("integer", "Unique identifier for the user.", ALL, readonly=True),
        "username": prop("string", "Login name for the user.", EDIT),
        "name": prop("string", "Display name for the user.", ALL),
        "first_name": prop("string", "First name for the user.", EDIT),
        "last_name": prop("string", "Last name for the user.", EDIT),
        "email": prop("string", "The email address for the user.", EDIT, format="email"),
        "url": prop("string", "URL of the user.", ALL, format="uri"),
        "description": prop("string", "Description of the user.", ALL),
        "link": prop("string", "Author URL of the user.", ALL, readonly=True, format="uri"),
        "nickname": prop("string", "The nickname for the user.", EDIT),
        "slug": prop("string", "An alphanumeric identifier for the user.", ALL),
        "registered_date": prop("string", "Registration date for the user.", EDIT, readonly=True,
                                format="date-time"),
        "roles": prop("array", "Roles assigned to the user.", EDIT, items={"type": "string", "enum": list(roles)}),
        "password": prop("string", "Password for the user (never included).", []),
        "capabilities": prop("object", "All capabilities assigned to the user.", EDIT, readonly=True),
        "extra_capabilities": prop("object", "Any extra capabilities assigned to the user.", EDIT, readonly=True),
        "meta": prop("object", "Meta fields.", VIEW_EDIT, properties={}),
    }
    return _schema("UserItem", properties)


@functools.lru_cache(maxsize=None)
def application_password_schema() -> type[Schema]:
    properties = {
        "uuid": prop("string", "The unique identifier for the application password.", ALL, readonly=True,
                     format="uuid"),
        "app_id": prop("string", "A UUID provided by the application to uniquely identify it.", ALL, format="uuid"),
        "name": prop("string", "The name of the application password.", ALL, required=True, minLength=1,
                     pattern=r".*\S.*"),
        "password": prop("string", "The generated password. Only available after adding an application.", EDIT,
                         readonly=True),
        "created": prop("string", "The GMT date the application password was created.", VIEW_EDIT, readonly=True,
                        format="date-time"),
        "last_used": prop(["string", "null"], "The GMT date the application password was last used.", VIEW_EDIT,
                          readonly=True, format="date-time"),
        "last_ip": prop(["string", "null"], "The IP address the application password was last used by.",
                        VIEW_EDIT, readonly=True, format="ip"),
    }
    return _schema("ApplicationPasswordItem", properties)
