"""core/v2 users and application-password routes, as the reference REST API has them.

Users: list (everyone with `list_users`; others see only users with published content),
read, create, update, delete (force + reassign), and `users/me`. Application passwords:
list, create (the only response with the password), read, rename, delete one or all,
and `introspect`. Password hashes never leave host.auth: records are built field by field.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from marshmallow import Schema, fields, validate

from host.args import CollectionArgs, ContextArgs, JsonSchemaField, enum_field, force_field, orderby_field, string_list

from host import RestError, RestResponse, Route, forbidden, ParamError, invalid_param
from host.auth import users as user_service
from host.args import MAX_INTEGER
from host.auth.users import ROLES
from host.text import strip_tags

from . import store
from .changes import USER_CHANGES
from .shaping import deleted_answer
from .settings import settings_of

NAMESPACE = "core/v2"
USERNAME = r"^[A-Za-z0-9 _.@-]+$"
AVATAR_SIZES = (24, 48, 96)


# --- schemas (shapes and args) ----------------------------------------------------------

def _meta(description: str, context=("embed", "view", "edit"), **extra) -> dict:
    return {"description": description, "context": list(context), **extra}


class UserSchema(Schema):
    id = fields.Integer(dump_only=True, metadata=_meta("Unique identifier for the user."))
    username = fields.String(required=True, metadata=_meta("Login name for the user.", ["edit"]))
    name = fields.String(metadata=_meta("Display name for the user."))
    first_name = fields.String(metadata=_meta("First name for the user.", ["edit"]))
    last_name = fields.String(metadata=_meta("Last name for the user.", ["edit"]))
    email = fields.String(required=True, metadata=_meta("The email address for the user.", ["edit"], format="email"))
    url = fields.String(metadata=_meta("URL of the user.", format="uri"))
    description = fields.String(metadata=_meta("Description of the user."))
    link = fields.String(dump_only=True, metadata=_meta("Author URL of the user.", format="uri"))
    nickname = fields.String(metadata=_meta("The nickname for the user.", ["edit"]))
    slug = fields.String(metadata=_meta("An alphanumeric identifier for the user."))
    registered_date = fields.String(dump_only=True, metadata=_meta("Registration date for the user.", ["edit"],
                                                                   format="date-time"))
    roles = fields.List(fields.String(), metadata=_meta("Roles assigned to the user.", ["edit"]))
    password = fields.String(required=True, metadata=_meta("Password for the user (never included).", []))
    capabilities = fields.Dict(dump_only=True, metadata=_meta("All capabilities assigned to the user.", ["edit"]))
    extra_capabilities = fields.Dict(dump_only=True, metadata=_meta("Any extra capabilities assigned to the user.",
                                                                    ["edit"]))
    avatar_urls = JsonSchemaField({
        "description": "Avatar URLs for the user.", "type": "object", "context": ["embed", "view", "edit"],
        "readonly": True,
        "properties": {str(size): {"description": f"Avatar URL with image size of {size} pixels.", "type": "string",
                                   "format": "uri", "context": ["embed", "view", "edit"]} for size in AVATAR_SIZES}},
        dump_only=True)
    meta = fields.Dict(metadata=_meta("Meta fields.", ["view", "edit"]))


class UserCollectionArgs(CollectionArgs):
    order = enum_field(["asc", "desc"], "Order sort attribute ascending or descending.", "asc")
    orderby = orderby_field(["id", "include", "name", "registered_date", "slug", "include_slugs", "email", "url"],
                            "name", "Sort collection by user attribute.")
    slug = string_list("Limit result set to users with one or more specific slugs.")
    roles = string_list("Limit result set to users matching at least one specific role provided. Accepts csv list "
                        "or single role.")
    capabilities = string_list("Limit result set to users matching at least one specific capability provided. "
                               "Accepts csv list or single capability.")
    who = enum_field(["authors"], "Limit result set to users who are considered authors.")
    search_columns = fields.List(fields.String(validate=validate.OneOf(["email", "name", "id", "username", "slug"])),
                                 load_default=list, metadata={"description": "Array of column names to be searched.",
                                                              "default": []})


# search_columns names, as WordPress's users route takes them, and the user columns they search.
SEARCH_COLUMN_NAMES = {"id": "id", "username": "login", "slug": "slug", "email": "email", "name": "display_name"}


class UserIdArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier for the user."})


class UserItemArgs(UserIdArgs, ContextArgs):
    pass


class UserDeleteArgs(Schema):
    force = force_field("Required to be true, as users do not support trashing.")
    # An integer user id, or false to reassign nothing (the reference accepts "false" here too).
    reassign = JsonSchemaField({"description": "Reassign the deleted user's posts and links to this user ID.",
                                "type": ["integer", "boolean"]}, required=True)


class UserItemDeleteArgs(UserDeleteArgs, UserIdArgs):  # the last base's fields come first: id, force, reassign
    pass


class ApplicationPasswordSchema(Schema):
    uuid = fields.String(dump_only=True, metadata=_meta("The unique identifier for the application password.",
                                                        ["view", "edit", "embed"], format="uuid"))
    app_id = fields.String(metadata=_meta("A UUID provided by the application to uniquely identify it. It is "
                                          "recommended to use an UUID v5 with the URL or DNS namespace.",
                                          ["view", "edit", "embed"], format="uuid"))
    name = fields.String(required=True, metadata=_meta("The name of the application password.",
                                                       ["view", "edit", "embed"], minLength=1, pattern=r".*\S.*"))
    password = fields.String(dump_only=True, metadata=_meta("The generated password. Only available after adding an "
                                                            "application.", ["edit"]))
    created = fields.String(dump_only=True, metadata=_meta("The GMT date the application password was created.",
                                                           ["view", "edit"], format="date-time"))
    last_used = fields.String(dump_only=True, allow_none=True, metadata=_meta(
        "The GMT date the application password was last used.", ["view", "edit"], format="date-time"))
    last_ip = fields.String(dump_only=True, allow_none=True, metadata=_meta(
        "The IP address the application password was last used by.", ["view", "edit"], format="ip"))


# --- helpers ----------------------------------------------------------------------------

def not_logged_in() -> RestError:
    return RestError("rest_not_logged_in", "You are not currently logged in.", 401)


def invalid_user() -> RestError:
    return RestError("rest_user_invalid_id", "Invalid user ID.", 404)


def target_user(request, key: str = "id"):
    """The user named in the URL (`me` is the caller); raises 401/404 as the reference does."""
    raw = str(request.url_params.get(key, request.params.get(key, "")))
    if raw == "me":
        if not request.user.is_authenticated:
            raise not_logged_in()
        raw = str(request.user.id)
    cached = request.state.setdefault("core_target_users", {})
    if raw in cached:
        return cached[raw]
    user = None
    if raw.isdigit() and len(raw) <= 19 and 0 < int(raw) <= MAX_INTEGER:  # no user has a larger id
        # A short read session of its own: permission checks also run for the Allow header
        # after the request's transaction has ended.
        with request.app.db.session() as session:
            user = user_service.get_user(request.app, session, int(raw))
    if user is None:
        raise invalid_user()
    cached[raw] = user
    return user


def _me(request) -> None:
    """users/me: route it as users/<own id> (401 when anonymous)."""
    if not request.user.is_authenticated:
        raise not_logged_in()
    request.url_params = {**request.url_params, "id": str(request.user.id)}


def site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    return request.base_url[: -len(prefix)] if prefix and request.base_url.endswith(prefix) else request.base_url


def user_url(request, user_id: int) -> str:
    return f"{request.base_url}/{NAMESPACE}/users/{user_id}"


def avatar_urls(app, email: str) -> dict[str, str] | None:
    """`{"24": url, "48": url, "96": url}` from the email's hash, as WordPress builds them; None without an avatar host.

    The hash is SHA-256 of the trimmed, lower-cased address (what WordPress sends since 6.8);
    `d=mm` (the mystery person when the address has no avatar) and `r=g` are its defaults.
    """
    base = settings_of(app).avatar_url
    if not base:
        return None
    digest = hashlib.sha256(email.strip().lower().encode("utf-8")).hexdigest()
    return {str(size): f"{base}{digest}?s={size}&d=mm&r=g" for size in AVATAR_SIZES}


def user_meta_keys(app) -> list:
    return app.registry.meta_keys("user")


def user_meta_values(request, users: list) -> dict[int, dict[str, Any]]:
    """Registered meta of each user, defaults for keys never written; one statement for all of them."""
    keys = user_meta_keys(request.app)
    if not keys:
        return {user.id: {} for user in users}
    with request.app.db.session() as session:
        stored = user_service.user_meta(request.app, session, [user.id for user in users], [key.key for key in keys])
    values = {}
    for user in users:
        found = stored.get(user.id, {})
        values[user.id] = {key.key: found[key.key] if key.key in found else key.schema.get("default")
                           for key in keys}
    return values


def prepare_user(request, user, context: str, known_public: bool = False,
                 meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The user object in `context` (embed, view or edit); never any password or hash.

    `known_public`: the caller already knows the user has published posts (a list filtered
    so), which the targetHints checks then need not read again. `meta`: the user's registered
    meta, when the caller read it for a whole page at once.
    """
    data = user_fields(request, user, context, meta)
    self_url = user_url(request, user.id)
    prime: dict[str, Any] = {"core_target_users": {str(user.id): user}}
    if known_public:
        prime["core_public_users"] = {user.id}
    hints = request.app.rest.target_hints(request, self_url, prime=prime)
    data["_links"] = {
        "self": [{"href": self_url, "targetHints": hints} if hints else {"href": self_url}],
        "collection": [{"href": f"{request.base_url}/{NAMESPACE}/users"}],
    }
    return data


def user_fields(request, user, context: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The user object's fields in `context`, without `_links` (prepare_user)."""
    data: dict[str, Any] = {"id": user.id}
    if context == "edit":
        data["username"] = user.login
    data["name"] = user.display_name
    if context == "edit":
        data.update(first_name=user.first_name, last_name=user.last_name, email=user.email)
    data["url"] = user.url
    data["description"] = user.description
    data["link"] = f"{site_url(request)}/author/{user.slug}/"
    if context == "edit":
        data["nickname"] = user.nickname or user.login
    data["slug"] = user.slug
    if context == "edit":
        data["roles"] = list(user.roles)
        data["registered_date"] = user.registered.isoformat() + "+00:00"
        capabilities = {capability: True for capability in sorted(user.capabilities)}
        capabilities.update({role: True for role in user.roles})
        data["capabilities"] = capabilities
        data["extra_capabilities"] = {role: True for role in user.roles}
    avatars = avatar_urls(request.app, user.email)
    if avatars is not None:
        data["avatar_urls"] = avatars
    if context != "embed":
        if meta is None:
            meta = user_meta_values(request, [user])[user.id]
        data["meta"] = {key.key: meta.get(key.key) for key in user_meta_keys(request.app)
                        if context in key.context}
    return data


def rest_post_types(app) -> list[str]:
    """Post types with core/v2 routes (WordPress's `show_in_rest` types)."""
    return [name for name, (post_type, _owner) in app.registry.post_types.items() if post_type.rest_base]


def write_user_meta(request, session, user_id: int) -> None:
    """Store the registered user meta keys sent in `meta` (null deletes a key)."""
    if not request.has_param("meta"):
        return
    sent = request.raw_param("meta")
    meta = request.params.get("meta")
    if not isinstance(sent, dict) or not isinstance(meta, dict):
        return
    for key in user_meta_keys(request.app):
        if key.key not in sent:
            continue
        if key.key.startswith("_") and not request.user.can("edit_user", user_id):
            raise forbidden(request.user, "rest_cannot_update",
                            f"Sorry, you are not allowed to edit the {key.key} custom field.")
        user_service.set_user_meta(request.app, session, user_id, key.key, meta.get(key.key))


def visible_to_public(request, user) -> bool:
    if user.id in request.state.get("core_public_users", ()):
        return True
    with request.app.db.session() as session:
        return user_service.has_published(request.app, session, user.id)


# --- users: permissions -----------------------------------------------------------------

def can_list_users(request):
    user = request.user
    params = request.params
    if params.get("roles") and not user.can("list_users"):
        raise forbidden(user, "rest_user_cannot_view", "Sorry, you are not allowed to filter users by role.")
    if params.get("capabilities") and not user.can("list_users"):
        raise forbidden(user, "rest_user_cannot_view", "Sorry, you are not allowed to filter users by capability.")
    if params.get("context") == "edit" and not user.can("list_users"):
        raise forbidden(user, "rest_forbidden_context", "Sorry, you are not allowed to list users.")
    if params.get("orderby") in ("email", "registered_date") and not user.can("list_users"):
        raise forbidden(user, "rest_forbidden_orderby", "Sorry, you are not allowed to order users by this parameter.")
    if params.get("who") == "authors" and not user.can("edit_posts"):
        raise forbidden(user, "rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.")
    return True


def can_read_user(request):
    target = target_user(request)
    user = request.user
    if user.is_authenticated and user.id == target.id:
        return True
    if request.params.get("context") == "edit" and not user.can("edit_user", target.id):
        raise forbidden(user, "rest_user_cannot_view", "Sorry, you are not allowed to list users.")
    if not may_view(request, user, target):
        raise forbidden(user, "rest_user_cannot_view", "Sorry, you are not allowed to list users.")
    return True


def may_view(request, user, target) -> bool:
    """Whether `user` may see `target` in the view context: themselves, users they may edit or list,
    and anyone with published items."""
    return ((user.is_authenticated and user.id == target.id) or user.can("edit_user", target.id)
            or user.can("list_users") or visible_to_public(request, target))


class CoreUserService:
    """core's users service (host.users.UserService), provided as `app.users`."""

    def __init__(self, app):
        self.app = app

    def profile(self, request, user_id: int, *, user: Any = None) -> dict | None:
        found = 0 < int(user_id) <= MAX_INTEGER
        target = user_service.get_user(self.app, request.session, int(user_id)) if found else None
        if target is None or (user is not None and not may_view(request, user, target)):
            return None
        return user_fields(request, target, "view")



def can_update_user(request):
    target = target_user(request)
    user = request.user
    if request.has_param("roles") and not user.can("promote_user", target.id):
        raise forbidden(user, "rest_cannot_edit_roles", "Sorry, you are not allowed to edit roles of this user.")
    if not user.can("edit_user", target.id):
        raise forbidden(user, "rest_cannot_edit", "Sorry, you are not allowed to edit this user.")
    return True


def can_delete_user(request):
    target = target_user(request)
    if not request.user.can("delete_user", target.id):
        raise forbidden(request.user, "rest_user_cannot_delete", "Sorry, you are not allowed to delete this user.")
    return True


def _me_permission(check):
    def permission(request):
        _me(request)
        return check(request)
    return permission


# --- users: handlers --------------------------------------------------------------------

def list_users(request):
    params = request.params
    user = request.user
    may_list = user.can("list_users")
    per_page, page = params["per_page"], params["page"]
    offset = params["offset"] if params.get("offset") else (page - 1) * per_page
    search_columns = ("id", "login", "url", "email", "slug", "display_name") if may_list else \
        ("id", "login", "slug", "display_name")
    if params.get("search_columns"):  # only the asked columns the caller may search (email needs list_users)
        asked = {SEARCH_COLUMN_NAMES[name] for name in params["search_columns"]}
        search_columns = tuple(column for column in search_columns if column in asked) or search_columns
    published = params.get("has_published_posts")
    if published is True:
        published_types = rest_post_types(request.app)
    elif isinstance(published, list):
        published_types = published
    else:
        published_types = []
    found, total = user_service.query_users(
        request.app, request.session, include=params.get("include") or [], exclude=params.get("exclude") or [],
        search=params.get("search") or "", search_columns=search_columns, slugs=params.get("slug") or [],
        roles=params.get("roles") or [], capabilities=params.get("capabilities") or [],
        any_of_roles=user_service.roles_with_capability(request.app, "edit_posts") if params.get("who") == "authors" else None,
        published_only=not may_list, published_types=published_types, orderby=params["orderby"],
        order=params["order"], limit=per_page, offset=offset)
    meta = user_meta_values(request, found) if params["context"] != "embed" else {}
    items = [prepare_user(request, item, params["context"], known_public=not may_list or bool(published_types),
                          meta=meta.get(item.id)) for item in found]
    return RestResponse.collection(request, items, total, per_page, page)


def get_user(request):
    return prepare_user(request, target_user(request), request.params.get("context", "view"))


def embed_users(parent, requests) -> list:
    """`_embed` of `author` links for a whole page: the users and whether they published, in two
    queries; each request then runs `can_read_user` and `get_user` on them as it would alone."""
    answers: list = [None] * len(requests)
    chosen = [index for index, request in enumerate(requests)
              if set(request.query) <= {"context"} and str(request.url_params.get("id", "")).isdigit()]
    ids = [int(requests[index].url_params["id"]) for index in chosen]
    if not ids:
        return answers
    session = parent.session
    found = user_service.get_users(parent.app, session, ids)
    public = user_service.with_published(parent.app, session, list(found))
    for index in chosen:
        request = requests[index]
        raw = str(request.url_params["id"])
        user = found.get(int(raw))
        if user is None:
            continue  # the normal path answers the 404
        request.state.update({"core_target_users": {raw: user}})
        if user.id in public:
            request.state.update({"core_public_users": {user.id}})
        try:
            if can_read_user(request) is not True:
                raise forbidden(request.user)
            answers[index] = get_user(request)
        except RestError as error:
            answers[index] = error
    return answers


def get_me(request):
    _me(request)
    return get_user(request)


def check_password_value(password: str) -> None:
    if not password:
        raise RestError("rest_user_invalid_password", "Passwords cannot be empty.", 400)
    if "\\" in password:
        raise RestError("rest_user_invalid_password", 'Passwords cannot contain the "\\" character.', 400)


def check_roles(request, roles: list[str], target_id: int | None) -> None:
    """Unknown role: 400; a role above the caller's own, or self-demotion out of edit_users: 403."""
    for role in roles:
        if role not in ROLES:
            raise RestError("rest_user_invalid_role", f"The role {role} does not exist.", 400)
    app, user = request.app, request.user
    for role in roles:
        if target_id == user.id and "edit_users" not in user_service.role_capabilities(app, role):
            raise forbidden(user, "rest_user_invalid_role", "Sorry, you are not allowed to give users that role.")
        if not user_service.role_capabilities(app, role) <= user.capabilities:
            raise forbidden(user, "rest_user_invalid_role", "Sorry, you are not allowed to give users that role.")


def profile_values(params: dict[str, Any]) -> dict[str, Any]:
    names = {"name": "display_name", "first_name": "first_name", "last_name": "last_name", "email": "email",
             "url": "url", "description": "description", "nickname": "nickname", "slug": "slug"}
    values = {column: params[key] for key, column in names.items() if params.get(key) is not None}
    if "slug" in values:  # slugs end up in URLs (`link`): same alphabet as generated ones
        values["slug"] = user_service.slugify_login(values["slug"])
    return values


def create_user(request):
    params = request.params
    if request.has_param("id"):
        raise RestError("rest_user_exists", "Cannot create existing user.", 400)
    login = params["username"].strip()
    if len(login) > 60:
        raise RestError("user_login_too_long", "Username may not be longer than 60 characters.", 400)
    if not login or not re.match(USERNAME, login):
        raise RestError("rest_user_invalid_username", "This username is invalid because it uses illegal characters. "
                        "Please enter a valid username.", 400)
    check_password_value(params["password"])
    roles = params.get("roles") or ["subscriber"]
    if params.get("roles"):
        check_roles(request, roles, None)
    values = profile_values(params)
    email = values.pop("email")
    display_name = values.pop("display_name", "")
    try:
        created = user_service.create_user(request.app, request.session, login, email, roles, params["password"],
                                           display_name=display_name, **values)
    except user_service.UserError as error:
        codes = {"login": ("existing_user_login", "Sorry, that username already exists!"),
                 "email": ("existing_user_email", "Sorry, that email address is already used!"),
                 "slug": ("rest_user_invalid_slug", "Invalid slug.")}
        code, message = codes.get(error.field, ("rest_user_invalid_role", error.message))
        raise RestError(code, message, 400) from error
    write_user_meta(request, request.session, created.id)
    return RestResponse.created(prepare_user(request, created, "edit", meta=_meta_in(request, created)),
                                user_url(request, created.id))


def _meta_in(request, user) -> dict[str, Any]:
    """The user's registered meta as the request's own transaction sees it (just written)."""
    keys = user_meta_keys(request.app)
    stored = user_service.user_meta(request.app, request.session, [user.id], [key.key for key in keys])[user.id]
    return {key.key: stored[key.key] if key.key in stored else key.schema.get("default") for key in keys}


def update_user(request):
    params = request.params
    target = target_user(request)
    if params.get("username") is not None and params["username"] != target.login:
        raise RestError("rest_user_invalid_argument", "Username isn't editable.", 400)
    values = profile_values(params)
    if "password" in params and params["password"] is not None:
        check_password_value(params["password"])
        values["password"] = params["password"]
    if params.get("roles") is not None:
        check_roles(request, params["roles"], target.id)
        values["roles"] = params["roles"]
    try:
        updated = user_service.update_user(request.app, request.session, target.id, values)
    except user_service.UserError as error:
        codes = {"email": ("rest_user_invalid_email", "Invalid email address."),
                 "slug": ("rest_user_invalid_slug", "Invalid slug.")}
        code, message = codes.get(error.field, ("rest_user_invalid_role", error.message))
        raise RestError(code, message, 400) from error
    write_user_meta(request, request.session, target.id)
    return prepare_user(request, updated, "edit", meta=_meta_in(request, updated))


def update_me(request):
    _me(request)
    return update_user(request)


def delete_user(request):
    params = request.params
    target = target_user(request)
    if not params.get("force"):
        raise RestError("rest_trash_not_supported", "Users do not support trashing. Set 'force' to true to delete.", 501)
    reassign = params.get("reassign")
    if reassign is True:
        # WordPress's check_reassign refuses it as the arg's validate_callback: has_valid_params wraps that.
        raise invalid_param({"reassign": ParamError("rest_invalid_param", "Invalid user parameter(s).", {"status": 400})})
    reassign_to = int(reassign) if reassign not in (False, None, 0) else None
    if reassign_to is not None and (reassign_to == target.id
                                    or user_service.get_user(request.app, request.session, reassign_to) is None):
        raise RestError("rest_user_invalid_reassign", "Invalid user ID for reassignment.", 400)
    previous = prepare_user(request, target, "edit")
    try:
        user_service.delete_user(request.app, request.session, target.id, reassign_to)
    except user_service.UserError as error:
        raise RestError("rest_user_invalid_reassign", "This user has authored content. Set 'reassign' to the ID of "
                        "the user who takes it over.", 400) from error
    return deleted_answer(previous)


def delete_me(request):
    _me(request)
    return delete_user(request)


# --- application passwords --------------------------------------------------------------

def _app_password_check(capability: str, code: str, message: str, with_uuid: bool = False):
    def permission(request):
        target = target_user(request, "user_id")
        args = (target.id, request.url_params.get("uuid")) if with_uuid else (target.id,)
        if not request.user.can(capability, *args):
            raise forbidden(request.user, code, message)
        return True
    return permission


def can_introspect(request):
    target = target_user(request, "user_id")
    if not request.user.is_authenticated or request.user.id != target.id:
        raise forbidden(request.user, "rest_cannot_introspect_app_password_for_non_authenticated_user",
                        "The authenticated application password can only be introspected for the current user.")
    return True


def _timestamp(value) -> str | None:
    return value.isoformat() if value is not None else None


def prepare_record(request, user_id: int, record: dict, context: str, password: str | None = None) -> dict:
    """A password record in `context`; the hash is never copied, `password` only on create."""
    data = {"uuid": record["uuid"], "app_id": record["app_id"], "name": record["name"]}
    if context != "embed":
        data.update(created=_timestamp(record["created"]), last_used=_timestamp(record["last_used"]),
                    last_ip=record["last_ip"])
    if password is not None:
        data["password"] = password
    data["_links"] = {"self": [{"href": f"{user_url(request, user_id)}/application-passwords/{record['uuid']}"}]}
    return data


def _record_or_404(request, user_id: int, uuid: str) -> dict:
    record = user_service.get_application_password(request.app, request.session, user_id, uuid)
    if record is None:
        raise RestError("rest_application_password_not_found", "Application password not found.", 404)
    return record


def clean_app_password_name(value: Any) -> str:
    return " ".join(strip_tags(str(value or "")).split())


def list_app_passwords(request):
    target = target_user(request, "user_id")
    context = request.params.get("context", "view")
    return [prepare_record(request, target.id, record, context)
            for record in user_service.list_application_passwords(request.app, request.session, target.id)]


def create_app_password(request):
    target = target_user(request, "user_id")
    name = clean_app_password_name(request.params.get("name"))
    if not name:
        raise RestError("application_password_empty_name",
                        "An application name is required to create an application password.", 400)
    password, record = user_service.create_application_password(request.app, request.session, target.id, name,
                                                                 request.params.get("app_id") or "")
    location = f"{user_url(request, target.id)}/application-passwords/{record['uuid']}"
    return RestResponse.created(prepare_record(request, target.id, record, "edit", password), location)


def delete_app_passwords(request):
    target = target_user(request, "user_id")
    count = user_service.delete_all_application_passwords(request.app, request.session, target.id)
    return {"deleted": True, "count": count}


def introspect_app_password(request):
    target = target_user(request, "user_id")
    uuid = request.user.application_password_uuid
    if not uuid:
        raise RestError("rest_no_authenticated_app_password", "Cannot introspect application password.", 404)
    record = _record_or_404(request, target.id, uuid)
    return prepare_record(request, target.id, record, request.params.get("context", "view"))


def get_app_password(request):
    target = target_user(request, "user_id")
    record = _record_or_404(request, target.id, request.url_params["uuid"])
    return prepare_record(request, target.id, record, request.params.get("context", "view"))


def update_app_password(request):
    target = target_user(request, "user_id")
    record = _record_or_404(request, target.id, request.url_params["uuid"])
    if request.params.get("name") is not None:
        name = clean_app_password_name(request.params["name"])
        if not name:
            raise RestError("application_password_empty_name",
                            "An application name is required to create an application password.", 400)
        user_service.rename_application_password(request.app, request.session, target.id, record["uuid"], name)
        record = {**record, "name": name}
    return prepare_record(request, target.id, record, "edit")


def delete_app_password(request):
    target = target_user(request, "user_id")
    record = _record_or_404(request, target.id, request.url_params["uuid"])
    previous = prepare_record(request, target.id, record, "edit")
    user_service.delete_application_password(request.app, request.session, target.id, record["uuid"])
    return deleted_answer(previous)


# --- the route table --------------------------------------------------------------------

def user_write_args(app) -> type[Schema]:
    """UserSchema whose `meta` declares the registered user meta keys (null deletes a key)."""
    properties = {}
    for key in user_meta_keys(app):
        schema = dict(key.schema)
        kind = schema.get("type", "string")
        schema["type"] = (kind if isinstance(kind, list) else [kind]) + (["null"] if "null" not in kind else [])
        schema["context"] = list(key.context)
        properties[key.key] = schema
    meta = JsonSchemaField({"description": "Meta fields.", "type": "object", "context": ["view", "edit"],
                            "properties": properties})
    return type("UserSchema", (UserSchema,), {"meta": meta})


def user_collection_args(app) -> type[Schema]:
    """UserCollectionArgs with `has_published_posts`, whose values are the post types with routes."""
    published = JsonSchemaField({"description": "Limit result set to users who have published posts.",
                                 "type": ["boolean", "array"],
                                 "items": {"type": "string", "enum": rest_post_types(app)}})
    return type("UserCollectionArgs", (UserCollectionArgs,), {"has_published_posts": published})


def routes(app):
    users = "/users"
    item = r"/users/(?P<id>[\d]+)"
    passwords = r"/users/(?P<user_id>(?:[\d]+|me))/application-passwords"
    UserSchema = user_write_args(app)  # noqa: N806 (the route table below reads as before)
    UserCollectionArgs = user_collection_args(app)  # noqa: N806
    common = {"schema": UserSchema, "title": "user"}
    batchable = {**common, "allow_batch": True}  # users and users/<id>, as WordPress; not users/me
    record = {"schema": ApplicationPasswordSchema, "title": "application-password"}
    return [
        Route(NAMESPACE, users, "GET", list_users, args=UserCollectionArgs, permission=can_list_users,
              cacheable=True, changes_with=USER_CHANGES, **batchable),
        Route(NAMESPACE, users, "POST", create_user, args=UserSchema, capability="create_users",
              refusal=("rest_cannot_create_user", "Sorry, you are not allowed to create new users."), **batchable),
        Route(NAMESPACE, item, "GET", get_user, args=UserItemArgs, permission=can_read_user,
              embed_batch=embed_users, answer_version=store.answer_version, cacheable=True,
              changes_with=USER_CHANGES, **batchable),
        Route(NAMESPACE, item, ("POST", "PUT", "PATCH"), update_user, args=UserSchema, partial_args=True,
              permission=can_update_user, **batchable),
        Route(NAMESPACE, item, "DELETE", delete_user, args=UserItemDeleteArgs, permission=can_delete_user, **batchable),
        Route(NAMESPACE, "/users/me", "GET", get_me, args=ContextArgs, **common),
        Route(NAMESPACE, "/users/me", ("POST", "PUT", "PATCH"), update_me, args=UserSchema, partial_args=True,
              permission=_me_permission(can_update_user), **common),
        Route(NAMESPACE, "/users/me", "DELETE", delete_me,
              args=UserDeleteArgs,
              permission=_me_permission(can_delete_user), **common),
        Route(NAMESPACE, passwords, "GET", list_app_passwords, args=ContextArgs, permission=_app_password_check(
            "list_app_passwords", "rest_cannot_list_application_passwords",
            "Sorry, you are not allowed to list application passwords for this user."), **record),
        Route(NAMESPACE, passwords, "POST", create_app_password, args=ApplicationPasswordSchema,
              permission=_app_password_check(
                  "create_app_password", "rest_cannot_create_application_passwords",
                  "Sorry, you are not allowed to create application passwords for this user."), **record),
        Route(NAMESPACE, passwords, "DELETE", delete_app_passwords, permission=_app_password_check(
            "delete_app_passwords", "rest_cannot_delete_application_passwords",
            "Sorry, you are not allowed to delete application passwords for this user."), **record),
        Route(NAMESPACE, passwords + "/introspect", "GET", introspect_app_password, args=ContextArgs,
              permission=can_introspect, **record),
        Route(NAMESPACE, passwords + r"/(?P<uuid>[\w\-]+)", "GET", get_app_password, args=ContextArgs,
              permission=_app_password_check(
                  "read_app_password", "rest_cannot_read_application_password",
                  "Sorry, you are not allowed to read this application password.", True), **record),
        Route(NAMESPACE, passwords + r"/(?P<uuid>[\w\-]+)", ("POST", "PUT", "PATCH"), update_app_password,
              args=ApplicationPasswordSchema, partial_args=True, permission=_app_password_check(
                  "edit_app_password", "rest_cannot_edit_application_password",
                  "Sorry, you are not allowed to edit this application password.", True), **record),
        Route(NAMESPACE, passwords + r"/(?P<uuid>[\w\-]+)", "DELETE", delete_app_password,
              permission=_app_password_check(
                  "delete_app_password", "rest_cannot_delete_application_password",
                  "Sorry, you are not allowed to delete this application password.", True), **record),
    ]
