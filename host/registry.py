"""What enabled plugins registered, merged in a fixed order, and the discovery documents.

Plugins return small frozen dataclasses from their registration hooks; the registry
checks them (a namespace has one owner, a route lives in a registered namespace, patterns
compile), compiles the route table, and builds the root and namespace indexes once per
base URL rather than once per request.
"""

from __future__ import annotations

import re
import weakref
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from marshmallow import Schema

from .args import handler_validated_args
from .kept import Kept
from .rest.response import forbidden
from .rest.schemas import args_from_schema, item_schema
from .rest.validation import GUARDS

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Discovery and OpenAPI documents kept per (kind, base URL, context): a site answers on one or
# two host names, each in a few document kinds.
DOCUMENT_CACHE_ENTRIES = 64


class StartupError(Exception):
    """A plugin cannot start with this configuration; the message says why."""


@dataclass(frozen=True)
class PluginInfo:
    """A plugin's identity, declared as `PLUGIN = PluginInfo(...)` in its module."""

    name: str
    version: str = "0"
    requires: tuple[str, ...] = ()
    description: str = ""
    # The marshmallow Schema class of the plugin's `[plugins.NAME]` table (host.config.PluginSettings).
    # The host checks the table against it before anything starts (unknown keys, wrong types, bad
    # values stop the start with one line naming every key), then loads it into the typed object
    # the plugin reads with `app.plugin_settings(NAME)`.
    settings: Any = None
    # The request headers the plugin's `authenticate` reads credentials from, such as
    # ("Authorization",). When every authenticator declares them, a GET that carries none of
    # them (and no cookie) is anonymous without asking the plugins, so an anonymous read, and a
    # cache hit above all, costs no authentication. None (the default): `authenticate` may look
    # anywhere, so it runs for every request.
    credential_headers: tuple[str, ...] | None = None


# The kinds of writes a response cache tells apart (Route.changes_with): items of any post type
# (`content_saved`/`content_deleted`), comments (the same hooks, type "comment"), terms
# (`terms_changed`), user accounts (`user_updated`, `user_deleted`) and the site's settings
# (`site_settings_changed`, which every answer is built from).
WRITE_KINDS = ("content", "comments", "terms", "users", "settings")


@dataclass(frozen=True)
class Namespace:
    """A versioned REST namespace such as `core/v2`."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class Route:
    """One REST endpoint: a pattern in a namespace, its methods and its handler.

    `pattern` is relative to the namespace (`/posts/(?P<id>[\\d]+)`; "" for the namespace
    itself) and uses Python named groups; a dot inside a word (`/events.ics`) is a literal dot.
    `args` is a marshmallow Schema class, usually a subclass of host.args.ContextArgs or CollectionArgs.
    `partial_args` strips defaults and `required` (update endpoints). `permission` is a
    callable(request) returning True, False or raising RestError; None means public.
    `schema` is the resource shape shown in help context and OPTIONS. `capability` names a
    primitive capability every caller must hold (checked before `permission`; 401/403 when
    missing); it is machine-readable, so tests and the OpenAPI document can tell who may call.
    A route whose whole check is "the caller can X" declares `capability="X"` and no `permission`.
    `refusal` is the (code, message) of that refusal where the real route words it its own way
    (default: rest_forbidden, "Sorry, you are not allowed to do that.").
    `cacheable` offers a GET endpoint's anonymous answers to a response cache (the cache plugin),
    which must then be told of every write that changes them (`content_saved`, `terms_changed`).
    `changes_with` names the kinds of writes (WRITE_KINDS) its answers are built from, so that a
    write of another kind leaves them cached (a comment leaves the categories list); empty: every
    kind. An `_embed` answer counts as built from every kind. `uncacheable` says why a GET that
    answers anonymous callers is not `cacheable` (per caller, time-dependent, a download): the
    cache test walks the registry and fails for a public GET that is neither.
    `embed_batch` lets a GET endpoint answer many `_embed` links of one page at once:
    `embed_batch(parent_request, requests) -> list`, one entry per request (its params already
    validated): the data, a RestError, or None to leave that link to a normal internal request.
    It must decide permissions and answer exactly as the handler would for each request.
    `bulk_batch` lets a write endpoint run several consecutive items of one batch/v1 call at once
    (multi-row inserts): `bulk_batch(parent_request, requests) -> list` answers a leading part of
    `requests` (params validated, in the batch's transaction), one entry per request served: the
    data or RestResponse, or a RestError (that item then writes nothing). The host runs the first
    request not served alone and offers the ones after it again. Permissions, hooks and answers
    must be exactly the handler's (`RestServer.check_permission` runs the endpoint's check).
    `answer_version(request) -> hashable | None` promises that a GET of one URL by a caller
    without credentials answers the same while it returns the same value (None: do not rely on
    it now); the host then keeps this endpoint's `_embed` answers and reuses them
    (host/rest/kept_embeds.py). It must change with every write its answers are built from.
    `expose_headers` names response headers of its own (`X-CAL-Total`) that scripts on other
    origins may read: its answers list them in Access-Control-Expose-Headers after the host's.
    `anonymous_refusal` is the status a refused anonymous caller gets: 401 by the house rule, 403
    where the real plugin refuses everyone with an explicit 403. The host uses it for refusals it
    makes itself (a False verdict, a missing `capability`); a permission callback that raises its
    own error must answer the same, and the permission matrix expects it.
    `show_schema=False` keeps `schema` out of OPTIONS and help context (the real route registers
    none) while the OpenAPI document still describes answers with it.
    `schema_links(base_url) -> list` gives the Link Description Objects that `schema` shows as
    its `links` (WordPress's action links of posts), with the REST root's URL.
    `multipart_body` is a marshmallow Schema class of the fields a route reads from a
    `multipart/form-data` body itself (request.form, request.files), such as a form submission;
    the OpenAPI document then gives the operation that body, so a generated client sends
    multipart. The handler validates those fields; they are not args (discovery shows none).
    """

    namespace: str
    pattern: str
    methods: Any
    handler: Callable
    args: Any = None
    partial_args: bool = False
    permission: Callable | None = None
    allow_batch: bool = False
    schema: Any = None
    title: str = ""
    hidden: bool = False
    capability: str = ""
    refusal: tuple[str, str] | None = None
    cacheable: bool = False
    changes_with: tuple[str, ...] = ()
    uncacheable: str = ""
    # The media type of a success answered as a RawBody (e.g. "text/calendar"), besides JSON errors:
    # the OpenAPI document declares it, so clients and the fuzzer expect it.
    content_type: str = ""
    embed_batch: Callable | None = None
    answer_version: Callable | None = None
    expose_headers: tuple[str, ...] = ()
    bulk_batch: Callable | None = None
    anonymous_refusal: int = 401
    show_schema: bool = True
    schema_links: Callable | None = None
    multipart_body: Any = None


@dataclass(frozen=True)
class Status:
    """A content status. `public` items are readable by anyone; `internal` ones are never listed."""

    name: str
    label: str = ""
    public: bool = False
    protected: bool = False
    private: bool = False
    internal: bool = False
    writable: bool = True  # part of the write enum of post types that take it
    post_types: tuple[str, ...] = ()  # empty: every type


@dataclass(frozen=True)
class PostType:
    """A content type stored by the content plugin (post, page, events, courses ...).

    `rewrite` is the first path segment of its published items' pretty permalinks (`"event"` gives
    `/event/<slug>/`): core's `link` then points there, and the plugin that registers the type serves
    that path (`register_pages`). Empty: the plain `/?post_type=<name>&p=<id>` link, as WordPress's
    types without rewrite rules. Unpublished items always keep the plain link (they have no pretty one).

    `public` False: the type has no public page (its plain link answers 404), and it stays out of
    search, sitemaps and feeds; its REST routes still answer by their permission checks.

    `text_access`, when given, is called with (request, item) before an item's text is shown to a
    caller who may read the item but not edit it (a lesson for its course's learners). False: core/v2
    answers the item without `content`, `excerpt` and `meta`, never keeps that answer for another
    caller, and its search matches such items by their title only.
    """

    name: str
    label: str = ""
    rest_base: str = ""
    hierarchical: bool = False
    capability_type: str = "post"
    supports: tuple[str, ...] = ("title", "editor", "author", "excerpt", "revisions")
    taxonomies: tuple[str, ...] = ()
    public: bool = True
    rewrite: str = ""
    text_access: Callable[[Any, dict], bool] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Taxonomy:
    """A term vocabulary (category, post_tag, event categories ...).

    `rewrite` is the path before a term's slug in its archive's address (`"events/category"` gives
    `/events/category/<slug>/`), served by the plugin that registers the taxonomy; empty: the plain
    `/?<taxonomy>=<slug>` link.
    """

    name: str
    label: str = ""
    rest_base: str = ""
    hierarchical: bool = False
    object_types: tuple[str, ...] = ()
    rewrite: str = ""


@dataclass(frozen=True)
class MetaKey:
    """A typed meta key shown under `meta` of an object type, with its JSON-Schema.

    `context` lists the contexts whose answers show the key (("edit",): only editors see it). A
    protected key (its name starts with `_`) is shown in edit context only, whatever it lists.
    `check`, when given, is called with each value about to be stored (never None) after the
    JSON-Schema passed; it raises ValueError with a message to refuse the value, and the write
    then answers 400 `rest_invalid_param` naming `meta` and changes nothing.
    """

    object_type: str
    key: str
    schema: dict = field(default_factory=lambda: {"type": "string", "default": ""})
    context: tuple[str, ...] = ("view", "edit")
    revisions: bool = False
    check: Callable[[Any], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Page:
    """An HTML page outside the REST root: a path (`/lunch/<day>`, `<id:int>`), its methods and a
    `handler(app, request, **url_params)`: `request` is a host.PageRequest, the answer a str (the HTML
    body) or a host.PageAnswer (status, headers, content type; `redirect(url)`, `not_found()`).

    `cacheable` offers its anonymous GET answers to the response cache (host.page_cache), which
    also gives them an ETag and answers conditional GETs with 304; leave it off for a page whose
    answer depends on anything but its address and the site's content (a form's result, a session).
    Only anonymous visitors without a cookie are served from the cache; an answer the handler marks
    `Cache-Control: no-store` or `private` is never kept. `keep_seconds` bounds how long an answer is
    kept when it also depends on what no content hook reports (time passing: "upcoming" events).
    """

    path: str
    methods: tuple[str, ...]
    handler: Callable
    name: str = ""
    cacheable: bool = False
    keep_seconds: float | None = None


@dataclass(frozen=True)
class AdminPage:
    """A page of the operator area at `/admin/<path>` (host.admin serves it in its layout and menu).

    Before `handler` runs the host has checked the sign-in (anonymous visitors are sent to
    the sign-in page), `capability` (others get 403; "" lets any signed-in user in) and, on
    POST, the form's CSRF token (403 when forged). `handler(page)` gets a host.admin.AdminRequest (a
    host.PageRequest with the admin extras) and returns the body HTML, shown in the admin layout, or
    a host.PageAnswer: its body in the layout with another status, or, for a redirect or a
    non-HTML content type (a CSV download), sent as it is. `actions` are the values
    of the `action` field its forms POST (the permission matrix sends each one as each role).
    `path` is one segment (`backup`); `/admin/backup/<rest>` reaches the same handler.
    `badge(app, user) -> int`, when given, is a count the menu shows beside the title (hidden at
    0), read as "Title, N <badge_label>" (e.g. "Comments, 3 pending"); it runs on every admin
    page the user opens, so keep it to one cheap query.
    """

    title: str
    path: str
    handler: Callable
    capability: str = "manage_options"
    actions: tuple[str, ...] = ()
    menu: bool = True
    badge: Callable[[Any, Any], int] | None = field(default=None, compare=False)
    badge_label: str = "pending"


@dataclass(frozen=True)
class HtmlView:
    """An HTML page to show, as a plugin answers `html_view`: the host wraps it in the site layout.

    `item` (a dict with at least `id`, `type`, `link` and `rest_url`) lets other plugins add
    head tags through `html_head`; `headers` are added to the response (e.g. a `Link`).
    """

    title: str
    body_html: str
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    item: dict | None = None
    head_html: str = ""


@dataclass(frozen=True)
class MenuEntry:
    """A link of the site menu in the theme's header, as a plugin answers `site_menu_entries`.

    `url` is absolute or a path under the site (`/events/`); entries show by `order`, then title.
    """

    title: str
    url: str
    order: int = 100


HEALTH_STATUSES = ("good", "recommended", "critical")


@dataclass(frozen=True)
class HealthResult:
    """What one health test found: `status` good, recommended or critical, and what to do about it.

    `description` and `actions` are plain text (the site-health routes escape them into the
    HTML paragraphs WordPress sends); `label` says the finding in one line.
    """

    status: str
    label: str
    description: str = ""
    actions: str = ""

    def __post_init__(self) -> None:
        if self.status not in HEALTH_STATUSES:
            raise ValueError(f"health status must be one of {HEALTH_STATUSES}, not {self.status!r}")


@dataclass(frozen=True)
class HealthTest:
    """A site-health test: served at `site-health/v1/tests/<name>` and run by `sitehost doctor`.

    `run(app, site_url)` returns a HealthResult; `site_url` is the address the site is reached
    at (the request's, or the one `sitehost doctor --url` was given). It should finish within a
    few seconds and raise nothing (an exception is reported as a critical result naming the
    test). `group` is the badge label (Performance, Security, ...).
    """

    name: str  # lower-case words joined by dashes
    label: str
    group: str
    run: Callable[[Any, str], HealthResult]

    def __post_init__(self) -> None:
        if not _is_slug(self.name):
            raise ValueError(f"health test name {self.name!r}: use lower-case letters, digits and dashes")


@dataclass(frozen=True)
class AbilityCategory:
    """A group of abilities (`abilities/v1/categories/<slug>`)."""

    slug: str
    label: str
    description: str
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _is_slug(self.slug):
            raise ValueError(f"ability category {self.slug!r}: use lower-case letters, digits and dashes")


@dataclass(frozen=True)
class Ability:
    """One action a machine may call through `abilities/v1`: `name` is `namespace/ability`.

    `input_schema` and `output_schema` are JSON Schemas, or marshmallow Schema classes turned into
    one. `permission(request, input)` returns True or False (or raises RestError);
    `execute(request, input)` returns the output. `readonly` abilities run with GET, the others
    with POST; `destructive` and `idempotent` are hints for clients, as in WordPress.
    """

    name: str
    label: str
    description: str
    category: str
    permission: Callable[[Any, Any], bool]
    execute: Callable[[Any, Any], Any]
    input_schema: Any = None
    output_schema: Any = None
    readonly: bool = False
    destructive: bool = False
    idempotent: bool = False

    def __post_init__(self) -> None:
        namespace, slash, name = self.name.partition("/")
        if not slash or not _is_slug(namespace) or not _is_slug(name):
            raise ValueError(f"ability name {self.name!r}: use namespace/ability, each lower-case letters, "
                             "digits and dashes")


def _is_slug(text: str, longest: int = 64) -> bool:
    """Lower-case ASCII letters, digits and dashes, 1 to `longest` characters (no regex: linear)."""
    return 0 < len(text) <= longest and all(character in _SLUG_CHARACTERS for character in text)


_SLUG_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass
class Endpoint:
    methods: tuple[str, ...]
    handler: Callable
    args: dict[str, dict[str, Any]]
    permission: Callable | None
    allow_batch: bool
    plugin: str
    hidden: bool = False
    capability: str = ""
    required: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)
    handler_validated: tuple[str, ...] = ()  # args the handler reads and checks itself (host.args.RenderedText)
    automatic_index: bool = False  # the namespace index the host adds; the namespace's owner may replace it
    cacheable: bool = False  # Route.cacheable: anonymous GET answers may be kept by a response cache
    changes_with: tuple[str, ...] = ()  # Route.changes_with
    uncacheable: str = ""  # Route.uncacheable
    prepared_defaults: dict[str, Any] | None = None  # the defaults validated and sanitized (rest/server.py)
    list_defaults: tuple[str, ...] = ()  # the prepared defaults that are lists or dicts, copied for each request
    content_type: str = ""  # Route.content_type
    embed_batch: Callable | None = None  # Route.embed_batch
    answer_version: Callable | None = None  # Route.answer_version
    expose_headers: tuple[str, ...] = ()  # Route.expose_headers
    bulk_batch: Callable | None = None  # Route.bulk_batch
    anonymous_refusal: int = 401  # Route.anonymous_refusal
    described: dict[str, dict[str, Any]] | None = None  # `args` as discovery shows them, worked out once
    multipart_body: Any = None  # Route.multipart_body
    arg_schema: Any = None  # Route.args, the class that loads the validated values (rest/loading.py)
    arg_loader: Any = None  # arg_schema's loader (rest/loading.py), found on first use

    def described_args(self) -> dict[str, dict[str, Any]]:
        """`args` without the host's guards (validation.GUARDS), as discovery and OPTIONS show them."""
        if self.described is None:
            self.described = {name: {key: value for key, value in arg.items() if key not in GUARDS}
                              if GUARDS.keys() & arg.keys() else arg for name, arg in self.args.items()}
        return self.described


# A dot between a letter or digit and a letter (`/events.ics`) is a literal dot: patterns are shown
# to clients as written (discovery), and a discovery client such as node-wpapi requests the
# literal parts it reads, so they are written unescaped and the registry escapes them here.
_WORD_DOT = re.compile(r"(?<=[A-Za-z0-9])\.(?=[A-Za-z])")


class _SegmentIndex:
    """A namespace's routes grouped by the first literal segment after the namespace.

    A route whose first segment is a pattern (or not plain text) may match any path, so it is
    in every group, at its place in registration order: the first route to match stays the same.
    """

    _PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")

    def __init__(self, namespace: str, routes: list["CompiledRoute"]):
        segments = [self._first_segment(route.path, namespace) for route in routes]
        self.anywhere = [route for route, segment in zip(routes, segments) if segment is None]
        self.by_segment = {segment: [route for route, own in zip(routes, segments) if own in (segment, None)]
                           for segment in set(segments) if segment is not None}

    @classmethod
    def _first_segment(cls, full: str, namespace: str) -> str | None:
        rest = full[len(namespace) + 1:]  # full is "/" + namespace + pattern
        if not rest:
            return ""  # the namespace index
        if not rest.startswith("/"):
            return None
        segment = rest[1:].split("/", 1)[0].lower()
        return segment if set(segment) <= cls._PLAIN else None

    def routes_for(self, segment: str) -> list["CompiledRoute"]:
        return self.by_segment.get(segment, self.anywhere)


@dataclass
class CompiledRoute:
    path: str  # full pattern: "/core/v2/posts/(?P<id>[\d]+)"
    namespace: str
    regex: re.Pattern
    endpoints: list[Endpoint]
    schema: Any = None
    title: str = ""
    has_variables: bool = False
    number_groups: frozenset[str] = frozenset()  # path groups of digits only (number_groups())
    show_schema: bool = True  # Route.show_schema of the route that gave `schema`
    schema_links: Callable | None = None  # Route.schema_links

    def endpoint_for(self, method: str) -> Endpoint | None:
        for endpoint in self.endpoints:
            if method in endpoint.methods:
                return endpoint
        if method == "HEAD":
            return self.endpoint_for("GET")
        return None


def normalize_methods(methods: Any) -> tuple[str, ...]:
    if isinstance(methods, str):
        methods = [part.strip() for part in methods.split(",")]
    result = tuple(method.upper() for method in methods if method)
    if not result:
        raise ValueError("a route needs at least one method")
    return result


# Converted args by Schema class, then by `partial`: most routes of every app a process builds
# use the same module-level classes (a test suite builds thousands of apps, a server one per
# worker), and converting them was a third of building an app. Classes made per app
# (Schema.from_dict) are dropped with the app. The dicts are shared: nothing writes to them.
_compiled_args: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def compile_args(route: Route) -> dict[str, dict[str, Any]]:
    """The route's args as JSON-Schema dicts; `route.args` must be a marshmallow Schema class."""
    if route.args is None:
        return {}
    if not (isinstance(route.args, type) and issubclass(route.args, Schema)):
        raise StartupError(f"route {route.namespace}{route.pattern!r}: args must be a marshmallow Schema class "
                           f"(subclass host.args.ContextArgs or CollectionArgs), not {type(route.args).__name__}")
    by_partial = _compiled_args.setdefault(route.args, {})
    partial = bool(route.partial_args)
    if partial not in by_partial:
        by_partial[partial] = args_from_schema(route.args, partial=partial)
    return by_partial[partial]


_handler_validated: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _handler_validated_args(schema: type[Schema] | None) -> tuple[str, ...]:
    """handler_validated_args, once per Schema class (as _compiled_args)."""
    if schema is None:
        return ()
    found = _handler_validated.get(schema)
    if found is None:
        found = _handler_validated[schema] = handler_validated_args(schema)
    return found


# A named group of digits only: `(?P<id>[\d]+)`, `(?P<id>\d+)`, `(?P<id>[0-9]+)`.
_NUMBER_GROUP = re.compile(r"\(\?P<(\w+)>(?:\[\\d\]|\\d|\[0-9\])[+*]\)")


def number_groups(pattern: str) -> frozenset[str]:
    """Names of the path groups of a route pattern that match digits only: numbers, usually ids.

    The host refuses one past MAX_INTEGER (RestServer.prepare_params), whether or not the route
    declares it as an integer arg, and /openapi.json describes it as an integer in 0..MAX_INTEGER.
    """
    return frozenset(_NUMBER_GROUP.findall(pattern))


def _write_kinds(full: str, plugin: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """Route.changes_with, checked: a misspelt kind would leave answers cached after its writes."""
    unknown = sorted(set(kinds) - set(WRITE_KINDS))
    if unknown:
        raise StartupError(f"route {full!r} of {plugin!r}: changes_with names unknown kinds {unknown}; "
                           f"the kinds are {list(WRITE_KINDS)}")
    return tuple(kinds)


def _multipart_body(route: Route) -> Any:
    """Route.multipart_body, checked at startup: a marshmallow Schema class, on a route that takes a body."""
    body = route.multipart_body
    if body is None:
        return None
    if not (isinstance(body, type) and issubclass(body, Schema)):
        raise StartupError(f"route {route.namespace}{route.pattern!r}: multipart_body must be a marshmallow "
                           f"Schema class, not {type(body).__name__}")
    if not set(normalize_methods(route.methods)) & {"POST", "PUT", "PATCH"}:
        raise StartupError(f"route {route.namespace}{route.pattern!r}: multipart_body needs POST, PUT or PATCH")
    return body


def _require_capability(route: Route) -> Callable:
    """A permission callback that demands `route.capability` first, then asks the route's own callback."""
    capability, permission, refusal, anonymous_status = (route.capability, route.permission, route.refusal,
                                                         route.anonymous_refusal)

    def check(request):
        if not request.user.can(capability):
            if not refusal:
                return False  # the host's refusal (RestServer._check_permission)
            error = forbidden(request.user, *refusal)
            if not request.user.is_authenticated:
                error.status = anonymous_status
            raise error
        return True if permission is None else permission(request)
    return check


class Registry:
    """Everything the enabled plugins registered, in plugin order."""

    def __init__(self, rest_prefix: str):
        self.rest_prefix = rest_prefix
        self.namespaces: dict[str, tuple[Namespace, str]] = {}
        self.routes: dict[str, CompiledRoute] = {}
        self.statuses: dict[str, tuple[Status, str]] = {}
        self.post_types: dict[str, tuple[PostType, str]] = {}
        self.taxonomies: dict[str, tuple[Taxonomy, str]] = {}
        self.meta: list[tuple[MetaKey, str]] = []
        self._meta_in_context: dict[tuple[str, str], frozenset[str]] = {}
        self.schemas: dict[str, tuple[Any, str]] = {}
        self.capabilities: dict[str, set[str]] = {}
        self.pages: list[tuple[Page, str]] = []
        self.admin_pages: dict[str, tuple[AdminPage, str]] = {}
        self.authentication: dict[str, Any] = {}
        self.health_tests: dict[str, tuple[HealthTest, str]] = {}
        self.abilities: dict[str, tuple[Ability, str]] = {}
        self.ability_categories: dict[str, tuple[AbilityCategory, str]] = {}
        self._routes_by_namespace: dict[str, list[CompiledRoute]] = {}
        self._global_routes: list[CompiledRoute] = []
        # Per namespace (lowered prefix): its routes by first literal path segment, built at first match.
        # Namespace prefixes ("core/v2/") with their segment index, grouped by the prefix's first
        # segment ("core") in registration order: a path is compared with its own group only.
        self._namespace_prefixes: dict[str, list[tuple[str, _SegmentIndex]]] | None = None
        # Keyed by base URL, which comes from the Host header: bounded, so a client sending a new
        # Host with every request cannot grow it (200 hosts once held 30 MB for ever). Built from the
        # registrations alone (version `()`); a new plugin set makes a new one (`finish`).
        self._index_cache: Kept[dict] = Kept(DOCUMENT_CACHE_ENTRIES, name="host.discovery")

    # --- adding --------------------------------------------------------------------------

    def add_namespace(self, namespace: Namespace, plugin: str) -> None:
        if namespace.name in self.namespaces:
            owner = self.namespaces[namespace.name][1]
            raise StartupError(f"namespace {namespace.name!r} registered by {owner!r} and {plugin!r}")
        self.namespaces[namespace.name] = (namespace, plugin)

    def add_route(self, route: Route, plugin: str, host_route: bool = False, automatic_index: bool = False) -> None:
        """Add one endpoint. A plugin's own GET on the path of its namespace replaces the automatic
        namespace index there (that handler then answers for the namespace, index included)."""
        if not host_route and route.namespace not in self.namespaces:
            raise StartupError(f"route {route.pattern!r} of {plugin!r} is in unregistered namespace {route.namespace!r}")
        pattern = route.pattern
        if pattern and not pattern.startswith("/"):
            pattern = "/" + pattern
        full = ("/" + route.namespace if route.namespace else "") + pattern
        full = full or "/"
        try:
            regex = re.compile("^" + _WORD_DOT.sub(r"\\.", full) + "$", re.IGNORECASE)
        except re.error as error:
            raise StartupError(f"route {full!r} of {plugin!r} does not compile: {error}") from error
        args = compile_args(route)
        endpoint = Endpoint(
            methods=normalize_methods(route.methods), handler=route.handler, args=args,
            permission=_require_capability(route) if route.capability else route.permission,
            allow_batch=route.allow_batch, plugin=plugin, hidden=route.hidden, capability=route.capability,
            required=tuple(name for name, arg in args.items() if arg.get("required")),
            defaults={name: arg["default"] for name, arg in args.items() if "default" in arg},
            handler_validated=_handler_validated_args(route.args), cacheable=route.cacheable,
            changes_with=_write_kinds(full, plugin, route.changes_with), uncacheable=route.uncacheable,
            automatic_index=automatic_index, content_type=route.content_type, embed_batch=route.embed_batch,
            answer_version=route.answer_version,
            expose_headers=tuple(route.expose_headers), bulk_batch=route.bulk_batch,
            anonymous_refusal=route.anonymous_refusal, multipart_body=_multipart_body(route), arg_schema=route.args,
        )
        compiled = self.routes.get(full)
        if compiled is not None and not automatic_index:
            compiled.endpoints = [existing for existing in compiled.endpoints
                                  if not (existing.automatic_index and existing.plugin == plugin
                                          and set(existing.methods) & set(endpoint.methods))]
        if compiled is None:
            compiled = CompiledRoute(full, route.namespace, regex, [], route.schema, route.title,
                                     has_variables="(?P<" in full, show_schema=route.show_schema,
                                     number_groups=number_groups(full))
            self.routes[full] = compiled
            if route.namespace and not host_route:
                self._routes_by_namespace.setdefault(route.namespace, []).append(compiled)
            else:
                self._global_routes.append(compiled)
        compiled.endpoints.append(endpoint)
        self._namespace_prefixes = None  # rebuilt at the next match
        if route.schema is not None and compiled.schema is None:
            compiled.schema = route.schema
            compiled.title = route.title
            compiled.show_schema = route.show_schema
        if route.schema_links is not None and compiled.schema_links is None:
            compiled.schema_links = route.schema_links

    def withdraw(self, plugins: set[str]) -> None:
        """Stop serving the namespaces and routes `plugins` registered, at once (their routes answer 404).

        For the moments between a plugin being disabled in another process and this process's
        reload (host.serving.ReloadingSite): building the new site takes seconds, and a disabled
        plugin should not answer meanwhile. Copies are swapped in whole, so a request reading the
        registry at the same moment sees the old or the new tables, never a half-changed one.
        """
        self.namespaces = {name: entry for name, entry in self.namespaces.items() if entry[1] not in plugins}
        routes: dict[str, CompiledRoute] = {}
        for path, route in self.routes.items():
            endpoints = [endpoint for endpoint in route.endpoints if endpoint.plugin not in plugins]
            if len(endpoints) != len(route.endpoints):
                route = dataclasses.replace(route, endpoints=endpoints)
            if endpoints:
                routes[path] = route
        self._global_routes = [routes[route.path] for route in self._global_routes if route.path in routes]
        self._routes_by_namespace = {
            name: [routes[route.path] for route in members if route.path in routes]
            for name, members in self._routes_by_namespace.items() if name in self.namespaces}
        self.routes = routes
        self._namespace_prefixes = None
        self._index_cache = Kept(DOCUMENT_CACHE_ENTRIES, name="host.discovery")

    # --- queries -------------------------------------------------------------------------

    def candidate_routes(self, path: str) -> list[CompiledRoute]:
        """Routes to try for `path`, in registration order: those of every namespace the path
        starts with whose first segment after the namespace could match, else all.

        Every request (and every embedded link and targetHints probe) matches its path, so a
        namespace's routes are indexed by their first literal segment (`posts` of
        `/core/v2/posts/(?P<id>...)`): a path tries only the routes of its own segment and the
        few whose first segment is a pattern, not every route of the namespace.
        """
        lowered = path.lower().lstrip("/") + "/"
        found: list[CompiledRoute] = []
        groups = self._namespace_prefixes
        if groups is None:
            groups = {}
            for name, routes in self._routes_by_namespace.items():
                prefix = name.lower() + "/"
                groups.setdefault(prefix.split("/", 1)[0], []).append((prefix, _SegmentIndex(name, routes)))
            self._namespace_prefixes = groups
        # A path that starts with a prefix has the prefix's first segment as its own.
        for prefix, index in groups.get(lowered.split("/", 1)[0], ()):
            if lowered.startswith(prefix):
                found.extend(index.routes_for(lowered[len(prefix):].split("/", 1)[0]))
        if found:
            return found
        everything = list(self._global_routes)
        for routes in self._routes_by_namespace.values():
            everything.extend(routes)
        return everything

    def match(self, path: str, method: str):
        """Return (route, endpoint, url_params) for the first route and endpoint that fit."""
        for route in self.candidate_routes(path):
            found = route.regex.match(path)
            if not found:
                continue
            endpoint = route.endpoint_for(method)
            if endpoint is not None:
                return route, endpoint, {k: v for k, v in found.groupdict().items() if v is not None}
        return None

    def first_route_for(self, path: str):
        for route in self.candidate_routes(path):
            if route.regex.match(path):
                return route
        return None

    def status_names(self, post_type: str | None = None, writable_only: bool = False) -> list[str]:
        names = []
        for status, _plugin in self.statuses.values():
            if writable_only and not status.writable:
                continue
            if post_type and status.post_types and post_type not in status.post_types:
                continue
            names.append(status.name)
        return names

    def meta_keys(self, object_type: str) -> list[MetaKey]:
        return [meta for meta, _plugin in self.meta if meta.object_type == object_type]

    def meta_keys_in_context(self, object_type: str, context: str) -> frozenset[str]:
        """Names of the meta keys of `object_type` that answers in `context` show (cached per pair)."""
        found = self._meta_in_context.get((object_type, context))
        if found is None:
            # A protected key (leading `_`, a plugin's internal state) shows only in edit context,
            # which only those who may edit the item reach, whatever contexts it declares.
            found = frozenset(meta.key for meta in self.meta_keys(object_type) if context in meta.context
                              and (context == "edit" or not meta.key.startswith("_")))
            self._meta_in_context[(object_type, context)] = found
        return found

    def plugin_namespaces(self, plugin: str) -> list[str]:
        return [name for name, (_ns, owner) in self.namespaces.items() if owner == plugin]

    # --- discovery documents -------------------------------------------------------------

    def describe_route(self, route: CompiledRoute, base_url: str, help_context: bool = False) -> dict[str, Any] | None:
        endpoints = [endpoint for endpoint in route.endpoints if not endpoint.hidden]
        if not endpoints:
            return None
        methods: list[str] = []
        described = []
        for endpoint in endpoints:
            methods.extend(endpoint.methods)
            entry: dict[str, Any] = {"methods": list(endpoint.methods)}
            if endpoint.allow_batch:
                entry["allow_batch"] = {"v1": True}
            entry["args"] = endpoint.described_args() if endpoint.args else []
            described.append(entry)
        descriptor: dict[str, Any] = {"namespace": route.namespace, "methods": methods, "endpoints": described}
        if help_context and route.schema is not None and route.show_schema:
            descriptor["schema"] = item_schema(route.schema, route.title or route.path.rsplit("/", 1)[-1])
            if route.schema_links is not None:
                descriptor["schema"]["links"] = route.schema_links(base_url)
        if not route.has_variables:
            descriptor["_links"] = {"self": [{"href": base_url + route.path}]}
        return descriptor

    def routes_map(self, base_url: str, namespace: str | None = None, help_context: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for path, route in self.ordered_routes():
            if namespace is not None and route.namespace != namespace:
                continue
            descriptor = self.describe_route(route, base_url, help_context)
            if descriptor is not None:
                result[path] = descriptor
        return result

    def ordered_routes(self):
        """Registration order: global routes (/ and batch) first, then each namespace's index and routes."""
        for route in self._global_routes:
            yield route.path, route
        for routes in self._routes_by_namespace.values():
            for route in routes:
                yield route.path, route

    def cached_document(self, key: tuple, build: Callable[[], dict]) -> dict:
        """Discovery documents are built once per registry and base URL, not per request."""
        return self._index_cache.get_or_build(key, (), build)
