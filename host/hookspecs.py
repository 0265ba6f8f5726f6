"""Every hook of sitehost: when it runs, what it receives, what it returns.

Implementations take only the arguments they use (pluggy passes by name), and never give
them defaults. Registration hooks return lists of small frozen dataclasses from `host`;
the host validates and merges them and owns the resulting registry.

`docs/hooks.md` is generated from this module (`python -m host.hookdocs`); a test fails
when the two differ, when a hook has no docstring, or when a hook has no `test_hook_<name>`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Iterable

import pluggy

if TYPE_CHECKING:  # annotations only: importing these here would make cycles
    import click
    from marshmallow import Schema
    from sqlalchemy import MetaData
    from sqlalchemy.orm import Session

    from .app import App
    from .auth.users import User
    from .content import ContentDeleted, ContentSaved
    from .jobs import Job
    from .registry import (AdminPage, Ability, AbilityCategory, HealthTest, HtmlView, MenuEntry, MetaKey, Namespace, Page, PostType, Route,
                           Status, Taxonomy)
    from .request import PageRequest
    from .rest.request import RestRequest
    from .rest.response import RestResponse
    from .wxr import WxrExport, WxrImport, WxrItem

hookspec = pluggy.HookspecMarker("sitehost")
hookimpl = pluggy.HookimplMarker("sitehost")  # the one marker; plugins import it from `host`


# --- registration: once per app in create_app; first every plugin's descriptions, then routes and pages --

@hookspec
def register_tables(metadata: MetaData) -> None:
    """Add the plugin's SQLAlchemy tables to `metadata`.

    When: once per app, before the database is opened; the revisions in the plugin's `migrations/`
    folder that the site has not had then run, and the tables of every enabled plugin are created
    when missing (host.migrations; the guide's "Table migrations").
    Arguments: `metadata`, the app's `sqlalchemy.MetaData` (each app has its own, so find
    your table again through `request.app.db.metadata.tables[name]`). Describe the newest tables.
    Returns: nothing. A disabled plugin's tables are never created, migrated or dropped.
    """


@hookspec
def register_namespaces(app: App) -> list[Namespace] | None:
    """Declare the REST namespaces the plugin serves (for example `cal/events/v1`).

    When: once per app, first of the registration hooks.
    Arguments: `app`, the `host.app.App` being built (settings, `plugin_config(name)`).
    Returns: a list of `host.Namespace`. A namespace belongs to exactly one plugin; when two
    plugins register the same one, the second is left out with an error naming both. Each
    namespace gets its index route (`GET /wp-json/<namespace>`) and is listed in the root
    index's `namespaces`.
    """


@hookspec
def register_statuses(app: App) -> list[Status] | None:
    """Declare content statuses with their public/protected/private/internal flags.

    When: once per app, after namespaces.
    Arguments: `app`.
    Returns: a list of `host.Status`. Status enums in route args are built from the
    registered set (`app.registry.status_names(post_type)`), so a disabled plugin's
    statuses vanish from them. A name registered twice leaves the second plugin out.
    """


@hookspec
def register_post_types(app: App) -> list[PostType] | None:
    """Declare content types stored by the content plugin (events, courses, forms ...).

    When: once per app, after statuses.
    Arguments: `app`.
    Returns: a list of `host.PostType`. A name registered twice leaves the second plugin out.
    """


@hookspec
def register_taxonomies(app: App) -> list[Taxonomy] | None:
    """Declare term vocabularies (categories, tags, event categories ...).

    When: once per app, after post types.
    Arguments: `app`.
    Returns: a list of `host.Taxonomy`. A name registered twice leaves the second plugin out.
    """


@hookspec
def register_meta(app: App) -> list[MetaKey] | None:
    """Declare typed meta keys of an object type, shown under the object's `meta`.

    When: once per app, after taxonomies.
    Arguments: `app`.
    Returns: a list of `host.MetaKey` (object type, key, JSON-Schema with a default,
    contexts). Content routes read them back with `app.registry.meta_keys(object_type)`.
    The object type is a post type's name, or `user` for the users of core/v2.
    """


@hookspec
def register_capabilities(app: App) -> dict[str, list[str]] | None:
    """Grant extra primitive capabilities to roles.

    When: once per app, after meta keys.
    Arguments: `app`.
    Returns: a dict {capability: [role, ...]}; every user holding one of those roles then
    passes `request.user.can(capability)`. Grants from several plugins add up.
    """


@hookspec
def register_health_tests(app: App) -> list[HealthTest] | None:
    """Add tests of the plugin's own health to site-health/v1 and `sitehost doctor`.

    When: once per app, after capabilities (a describing hook: the site-health plugin builds one
    route per registered test).
    Arguments: `app`.
    Returns: a list of `host.HealthTest` (name, label, group, run(app, site_url) -> `host.HealthResult`).
    A test should answer within a few seconds; one that raises is shown as critical.
    `sitehost doctor --help` also calls it with `app=None` to list the test names (no site is opened);
    an implementation that raises without an app is left out of that list only.
    """


@hookspec
def register_ability_categories(app: App) -> list[AbilityCategory] | None:
    """Declare groups for abilities (`abilities/v1/categories`).

    When: once per app, after health tests.
    Arguments: `app`.
    Returns: a list of `host.AbilityCategory` (slug, label, description). A slug registered
    twice leaves the second plugin out.
    """


@hookspec
def register_abilities(app: App) -> list[Ability] | None:
    """Offer the plugin's actions to machines through abilities/v1.

    When: once per app, after ability categories.
    Arguments: `app`.
    Returns: a list of `host.Ability`: a `namespace/ability` name, label, description, a
    registered category, input and output schemas, `permission(request, input)` (the same
    rule as the plugin's routes) and `execute(request, input)`. An ability is never executed
    for a caller its permission refuses.
    """


@hookspec
def register_schemas(app: App) -> dict[str, type[Schema]] | None:
    """Name the plugin's resource shapes (they become OpenAPI components).

    When: once per app, after capabilities.
    Arguments: `app`.
    Returns: a dict {name: marshmallow Schema class}. A name registered twice leaves the
    second plugin out with an error naming both.
    """


@hookspec
def register_routes(app: App) -> list[Route] | None:
    """Declare the plugin's REST endpoints.

    When: once per app, after EVERY enabled plugin's namespaces, statuses, types, meta,
    capabilities and schemas are registered (routes and pages form a second phase).
    Arguments: `app`. `app.registry` already holds every plugin's statuses, post types,
    taxonomies and meta keys, so enums in args can be built from it (a disabled plugin's
    statuses are then absent from them).
    Returns: a list of `host.Route`, each in a namespace the same plugin registered.
    Several Route objects with the same namespace and pattern form one route with several
    endpoints, tried in registration order. Their args appear in the discovery documents
    and are enforced on every request.
    """


@hookspec
def register_pages(app: App) -> list[Page] | None:
    """Declare HTML pages of the site outside the REST root.

    When: once per app, after routes.
    Arguments: `app`.
    Returns: a list of `host.Page` (a path such as `/lunch/<day>`, methods and a
    `handler(app, request, **url_params)` that gets a `host.PageRequest` and returns the body
    as a str, or a `host.PageAnswer`: `redirect(url)`, `not_found()`, another status, headers or
    content type). Every page answers with the REST discovery `Link` header and the HTML security headers.
    """


@hookspec
def register_admin_pages(app: App) -> list[AdminPage] | None:
    """Add pages to the operator area at `/admin/` (a menu entry each).

    When: once per app, after `register_pages`.
    Arguments: `app`.
    Returns: a list of `host.AdminPage(title, path, handler, capability="manage_options",
    actions=())`. `handler(page)` receives a `host.admin.AdminRequest` (a host.PageRequest with the
    signed-in `user`, `form`, `field_errors`, `rest(method, path, ...)` to call REST routes as that
    user, and helpers for forms with their CSRF token) and returns the page's body HTML, or a
    `host.PageAnswer` (another status; a redirect or a download is sent as it is). Sign-in,
    the capability and CSRF are checked before it runs; each `actions` value is sent by the
    permission matrix as every role.
    """


@hookspec
def register_authentication(app: App) -> dict[str, Any] | None:
    """Advertise an authentication scheme in the root index's `authentication` object.

    When: once per app, last of the registration hooks.
    Arguments: `app`.
    Returns: a dict merged into `authentication`, for example
    {"application-passwords": {"endpoints": {"authorization": "{site_url}/authorize"}}}
    (`{site_url}` and `{rest_url}` are filled per request), or None when unavailable.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the `sitehost` command line.

    When: the first time `sitehost --help` lists commands or an unknown command is asked
    for; the plugin set comes from sitehost.toml and the environment.
    Arguments: `cli`, the `sitehost` click.Group; call `cli.add_command(...)` or use
    `@cli.command()`.
    Returns: nothing.
    """


# --- lifecycle -------------------------------------------------------------------------

@hookspec
def register_services(app: App) -> dict[str, Any] | None:
    """Provide services other plugins call (host.services): `{"content": MyContentService(app)}`.

    When: once per app, after the registry is complete and the tables exist, before any plugin's
    `startup`, in plugin order.
    Arguments: `app`.
    Returns: {service name: implementation}; the names are those of host.services.SERVICES
    (content, comments, users) and the implementation has the methods of the service's Protocol
    (host.content.ContentService, host.comments.CommentService, host.users.UserService). Others
    reach it as `app.content` ... and list your plugin in their `requires=`. A name another plugin
    provides already, or an unknown one, fails your plugin's start. What you provide is dropped
    when your plugin fails to start.
    """


@hookspec
def startup(app: App) -> None:
    """Check configuration and prepare the plugin, once the app is built.

    When: once per app, after the registry is complete and the tables exist, in plugin order.
    Arguments: `app`; your settings are already loaded: `app.plugin_settings(name)` is the
    `[plugins.NAME]` table loaded through the schema `PluginInfo(settings=...)` declares.
    Returns: nothing. Raise `host.StartupError` for a configuration that cannot work: the
    plugin is then listed as failed with that reason (and its namespaces and routes are
    gone), and the site starts without it.
    """


@hookspec
def serve_started(app: App) -> None:
    """The app is about to serve requests in this process, under `sitehost serve`.

    When: once per serving process, after `startup`, just before the server accepts
    connections: in the single process, or in each worker after it was forked. Apps built
    by tests, by other commands or by internal tools never get it, so this is where a plugin
    starts background work that belongs to a running site only (a schedule, a poller).
    Arguments: `app`.
    Returns: nothing. Stop what you started in `shutdown`.
    """


@hookspec
def shutdown(app: App) -> None:
    """Release what the plugin holds (connections, threads) when the app closes.

    When: once, on `app.close()` (server stop, end of a test).
    Arguments: `app`.
    Returns: nothing.
    """


@hookspec
def register_jobs(app: App) -> list[Job] | None:
    """Declare the plugin's background jobs: periodic work and work queued with `app.jobs.enqueue`.

    When: the first time `app.jobs` needs the list (a serving process's worker, `enqueue`,
    `sitehost jobs`), after every plugin started.
    Arguments: `app`.
    Returns: a list of `host.jobs.Job(name, run, every=None, lease_seconds=None)`. `run(context)`
    receives a `host.jobs.JobContext` (`app`, `payload`, `check()` to stop when the server stops).
    A job with `every` (seconds) runs once per interval across every process and node of the site;
    one without is queued by `app.jobs.enqueue(name, payload, run_at=None, key=None, session=None)`
    and runs once. Jobs run in the worker threads of `sitehost serve` (and `sitehost jobs run`) under a
    lease in the database, renewed while they run: a job whose node dies runs again once its lease
    expired, never while it holds. Names are prefixed with the plugin's name ("library.remind").
    """


@hookspec
def site_installed(app: App, session: Session) -> list[str] | None:
    """Do first-time set-up of a new site (for example create the first administrator).

    When: once per database, the first time `sitehost serve` or `sitehost init` runs on it
    (`app.install_site()`), inside one write transaction with `demo_content`.
    Arguments: `app`; `session`, a SQLAlchemy session in that transaction (do not commit).
    Returns: a list of lines to print to the operator, or None.
    """


@hookspec
def demo_content(app: App, session: Session) -> None:
    """Write realistic sample data for a demonstration site.

    When: with `sitehost init --demo` (and `sitehost serve` on an empty database), right
    after `site_installed` and in the same transaction, once per database.
    Arguments: `app`; `session`, a SQLAlchemy session in that transaction (do not commit).
    Returns: nothing.
    """


# --- request pipeline ------------------------------------------------------------------

@hookspec(firstresult=True)
def authenticate(app: App, request: RestRequest) -> User | None:
    """Decide who sends a REST request.

    When: for every REST request, before routing.
    Arguments: `app`; `request`, the `host.rest.request.RestRequest` (headers through
    `request.header(name)`).
    Returns: a user object (see host.auth.users.User) or None for "no opinion"; without an
    answer the caller is anonymous. Raise `host.RestError` to refuse the request before
    routing (for example a wrong application password: 401).
    firstresult: the first non-None answer wins.
    Declare the headers your credentials travel in (`PluginInfo(credential_headers=("X-Key",))`):
    then a GET without any of them (and without a cookie) is anonymous without calling the hook,
    which keeps anonymous reads and cache hits cheap. Without the declaration the hook runs for
    every request of the site.
    """


@hookspec(firstresult=True)
def handle_exception(app: App, request: RestRequest, exception: Exception) -> RestResponse | None:
    """Answer an unexpected exception raised by a handler.

    When: a handler raised something other than `host.RestError`; the request's
    transaction has already been rolled back.
    Arguments: `app`; `request`; `exception`, the exception raised.
    Returns: a `host.RestResponse`, or None. Without an answer the host sends 500
    `internal_server_error` (the traceback goes only to the log).
    firstresult: the first non-None answer wins.
    """


@hookspec(firstresult=True)
def map_meta_capability(app: App, user: User, capability: str, args: tuple) -> list[str] | None:
    """Map a meta capability on an object to the primitive capabilities it needs.

    When: every `user.can(capability, *args)` on a signed-in user.
    Arguments: `app`; `user`; `capability`, the name asked for (for example "edit_post");
    `args`, the tuple of objects given to `can` (for example the post dict).
    Returns: a list of primitive capabilities the user must all hold (["do_not_allow"]
    refuses everyone), or None when the capability is not yours: it is then checked as a
    primitive capability.
    firstresult: the first non-None answer wins.
    """


@hookspec
def response_headers(app: App, request: RestRequest, response: dict[str, str]) -> None:
    """Add or change headers of a finished REST response before it is sent.

    When: for every REST response, errors included.
    Arguments: `app`; `request`; `response`, the dict of headers (change it in place).
    Returns: nothing.
    """


@hookspec(firstresult=True)
def cached_response(app: App, request: RestRequest) -> tuple[int, dict[str, str], bytes] | None:
    """Answer an anonymous GET from a cache.

    When: anonymous GET requests, after authentication and before routing.
    Arguments: `app`; `request`.
    Returns: a finished (status, headers, body) triple sent as it is (status an int,
    headers a dict, body bytes), or None to let the request run. A response cache
    implements this together with `store_response`. The caller never changes the headers
    dict, so a cache may hand every hit of one entry the same dict; the host memoizes a
    kept page's finished headers by that dict (host.page_cache.WireForms).
    firstresult: the first non-None answer wins.
    """


@hookspec
def store_response(app: App, request: RestRequest, status: int, headers: dict[str, str], body: bytes) -> None:
    """See the final answer to an anonymous GET (to cache it).

    When: after an anonymous GET was answered by the pipeline (not by `cached_response`).
    Arguments: `app`; `request`; `status` (int), `headers` (dict), `body` (bytes).
    Returns: nothing.
    """


@hookspec
def request_finished(app: App, request: RestRequest, status: int) -> None:
    """Observe every finished REST request (metrics, logs).

    When: after each REST request (and each batch or embed sub-request) has its response,
    after its transaction was committed or rolled back.
    Arguments: `app`; `request`; `status`, the HTTP status (int).
    Returns: nothing.
    """


@hookspec(firstresult=True)
def html_view(app: App, request: PageRequest) -> HtmlView | None:
    """Answer a request for the site's front page address that carries a query (plain permalinks).

    When: for every GET or HEAD of `/` or `/index.php` that is not a REST request
    (`?rest_route=`), before the host's own front page.
    Arguments: `app`; `request`, the page's host.Request (`request.query` holds `p`, `page_id` ...).
    Returns: a `host.HtmlView` to show, or None when the request is not yours.
    firstresult: the first view wins; with none, the host shows its front page.
    """


@hookspec(firstresult=True)
def html_not_found(app: App, request: PageRequest) -> HtmlView | None:
    """Answer a GET or HEAD of a site address that nothing serves, before the "Page not found" page
    (an imported site's old permalinks redirect to their new addresses this way).

    When: only for addresses outside the REST root that no route, page or plugin page matched.
    Arguments: `app`; `request`, the page's host.Request (`request.path`, `request.query_string`).
    Returns: a `host.HtmlView` (e.g. status 301 with a `Location` header), or None to leave the 404.
    firstresult: the first view wins.
    """


@hookspec
def html_head(app: App, request: PageRequest, item: dict[str, Any]) -> str | None:
    """Add tags to the `<head>` of an HTML view of a content item (discovery links, meta tags).

    When: each time an `HtmlView` that names an item is rendered.
    Arguments: `app`; `request`, the page's host.Request; `item`, the view's item dict (`id`,
    `type`, `status`, `link`, `rest_url` ...).
    Returns: a string of HTML to place in the head, or None. Escape every value you insert.
    """


@hookspec
def site_head(app: App, request: PageRequest) -> str | None:
    """Add tags to the `<head>` of every HTML page of the site, whatever it shows (the site's feed
    discovery links); tags about one item go through `html_head`.

    When: each time the host renders an HTML page in the site layout.
    Arguments: `app`; `request`, the page's host.Request.
    Returns: a string of HTML to place in the head, or None. Escape every value you insert.
    """


@hookspec
def site_menu_entries(app: App, request: PageRequest) -> list[MenuEntry] | None:
    """Add links to the site menu in the theme's header ("Events", "Courses", the top-level pages).

    When: each time the theme renders a public page (host/theme), so answer from what is cheap to
    read; entries show sorted by `order`, then `title`.
    Arguments: `app`; `request`, the page's host.Request.
    Returns: a list of `host.MenuEntry` (`url` absolute or a path under the site), or None.
    """


@hookspec
def site_stylesheets(app: App, request: PageRequest) -> list[str] | None:
    """Link stylesheets of yours after the theme's on every public page (the builder's kit colours
    and fonts, as CSS custom properties the theme reads: `--builder-color-primary` ...).

    When: each time the theme renders a public page.
    Arguments: `app`; `request`, the page's host.Request.
    Returns: a list of stylesheet addresses served by the site itself (CSP `default-src 'self'`), or None.
    """


@hookspec(firstresult=True)
def editor_url(app: App, item: dict[str, Any], rest_url: str) -> str | None:
    """Say where a content item is edited, for the "Edit" links of the admin area's posts and pages lists.

    When: for each row of those lists (keep it cheap: decide from `item` alone).
    Arguments: `app`; `item`, the item's core/v2 answer in the edit context (`id`, `type`,
    `status`, `meta`, `link`, `_links` ...); `rest_url`, the REST root without its final slash.
    Returns: the absolute URL of the editor that edits this item (a page builder's, for its
    documents), or None when it is not yours; without an answer the list links the item's
    REST URL.
    firstresult: the first non-None answer wins.
    """


# --- cross-plugin events ---------------------------------------------------------------

@hookspec
def content_saved(app: App, event: ContentSaved) -> None:
    """React to a content item that was written (purge a cache, index it, send a digest).

    Comments fire it too, with `event.type == "comment"` (see host/comments.py for their fields).

    When: fired by the plugin that stored the item, after its transaction committed
    (through `request.after_commit`), so listeners never see rolled-back data. Fire it as
    `app.hook.content_saved(app=app, event=ContentSaved.of(item, created))`. The events of one
    commit (a batch of imported items) share a `host.content.commit_round()` token: work that
    covers the whole commit at once (a cache purge) is done for the first of them only.
    Arguments: `app`; `event`, a `host.ContentSaved`: `id`, `type`, `status`, `created`
    (True for a new item, False for an update) and `item` (its fields, read-only).
    Returns: nothing.
    """


@hookspec
def content_deleted(app: App, event: ContentDeleted) -> None:
    """React to a content item that was trashed or deleted.

    When: fired by the plugin that stored the item, after its transaction committed, as
    `app.hook.content_deleted(app=app, event=ContentDeleted.of(item, force))`.
    Arguments: `app`; `event`, a `host.ContentDeleted`: `id`, `type`, `status` and `item`
    as they were before deletion, and `force` (False when trashed, True when deleted for good).
    Returns: nothing.
    """


@hookspec
def user_created(app: App, session: Session, user: User) -> None:
    """React to a new user account (grant what was bought or promised to its email address).

    When: fired by `host.auth.users.create_user` for every path that makes an account (the
    core/v2 users route, the admin Users page, `sitehost users create`, install and demo content),
    right after the row is inserted and INSIDE the creating transaction.
    Arguments: `app`; `session`, the creating transaction: write through it so that your rows
    commit or roll back with the account (never commit it yourself); `user`, the new `User`.
    Returns: nothing. An exception rolls the account's creation back, so keep listeners to
    writes that cannot fail for the caller's input.
    """


@hookspec
def user_updated(app: App, session: Session, user: User, changed: list[str]) -> None:
    """React to a changed user account (a new email, display name, role or password).

    When: fired by `host.auth.users.update_user` for every path that changes an account (the
    core/v2 users routes, the admin Users and Profile pages, `sitehost users ...`), after the
    row is updated and INSIDE the changing transaction; not fired when nothing changed.
    Arguments: `app`; `session`, the changing transaction (write through it, never commit it);
    `user`, the account as it is now; `changed`, the names of what changed (`email`,
    `display_name`, `roles`, `password` ...), sorted.
    Returns: nothing. An exception rolls the change back.
    """


@hookspec
def user_deleted(app: App, session: Session, user: User, reassign_to: int | None) -> None:
    """Remove what your plugin keeps for a user account that is being deleted.

    When: fired by `host.auth.users.delete_user` for every path that deletes an account (the
    core/v2 users route, the admin Users page, `sitehost users delete`), INSIDE the deleting
    transaction, before the user's content is reassigned and the row is deleted (so the row is
    still there to read). Delete the user's own records (keys, enrolments, favourites); keep
    records that are history (payments, stored messages). A later account may receive the same
    id on SQLite, so a row left behind would become that account's.
    Arguments: `app`; `session`, the deleting transaction (write through it, never commit it);
    `user`, the account being deleted; `reassign_to`, the id of the user who takes over the
    content, or None when the user authored none.
    Returns: nothing. An exception rolls the deletion back.
    """


@hookspec
def terms_changed(app: App, taxonomy: str, term_id: int, deleted: bool) -> None:
    """React to a term that was created, changed or deleted (purge a cache that shows terms).

    When: fired by the plugin that wrote the term, after the write committed, as
    `app.hook.terms_changed(app=app, taxonomy=..., term_id=..., deleted=...)`. core fires it for
    every term its `core/v2` term routes create, change or delete (the calendar's event categories
    and tags are written through them).
    Arguments: `app`; `taxonomy`; `term_id`; `deleted` (True when the term is gone).
    Returns: nothing.
    """


@hookspec
def site_settings_changed(app: App, keys: list[str]) -> None:
    """React to site settings that were written (purge a cache that shows the site's name or tagline).

    When: fired by the plugin that owns the settings, after the write committed, as
    `app.hook.site_settings_changed(app=app, keys=[...])`. core fires it for `core/v2/settings`;
    the root index (name, description) follows `app.site_identity()` by itself. The host fires it
    with `keys=["plugins.disabled"]` in each serving process that notices the site's plugin set
    changed (the root index lists the namespaces), before that process reloads.
    Arguments: `app`; `keys`, the names of the settings that were written.
    Returns: nothing.
    """


@hookspec(firstresult=True)
def check_spam(app: App, submission: dict[str, Any]) -> dict[str, Any] | None:
    """Judge a form entry, comment or sign-up before it is stored.

    When: fired by the plugin receiving the submission, before it writes anything (it may be
    called while the caller's write transaction is open: an implementation must not wait for
    the database's write lock; write through `submission["request"].session` or later).
    Arguments: `app`; `submission`, a dict of strings: `type` ("comment", "form" or
    "signup"), `author` (the name given, may be ""), `email`, `content` (the text; for a
    form, its fields joined; for a sign-up, ""), `ip` (the client address), `user_agent`
    and `guid` (a fresh unique id the caller stores with the item, so a later verdict can
    find it). Optional: `url` (the author's website), `honeypot` (the value of the form's
    hidden trap field: present means the form has one, non-empty means a robot filled it),
    `elapsed_seconds` (a number: seconds between showing the form and submitting it), and
    `request` (the REST request it came with: a filter may then record its verdict in that
    request's transaction, so the verdict is kept exactly when the item is).
    Returns: a dict {"spam": bool, "reason": str, "score": float 0..1, "discard": bool,
    "guid": str} or None for "no opinion"; without an answer the submission is not spam.
    Store spam where moderators can review it (a spam status); when `discard` is true (the
    site's strictness setting and the worst spam), store nothing and refuse the submission.
    firstresult: the first non-None answer wins.
    """


@hookspec
def render_content(app: App, item: dict[str, Any], content: dict[str, str]) -> None:
    """Rewrite the rendered HTML of a content item (shortcodes, embeds, lazy images).

    When: fired by the plugin rendering the item, each time it builds `rendered` output.
    Arguments: `app`; `item`, the item dict; `content`, a dict whose key `html` holds the
    HTML so far: change `content["html"]` in place; every implementation sees the previous
    one's result (a chain).
    Returns: nothing.
    """


@hookspec
def render_cache_key(app: App, item: dict[str, Any]) -> Hashable | None:
    """Name what else an item's rendered HTML depends on, so that cached output is not stale.

    Core keeps rendered content and excerpts per (item id, type, modified time, raw text),
    in memory and, for single reads, in the database (`rendered_content`, shared by every
    process and kept across restarts). A `render_content` implementation whose output
    depends on other data (an "upcoming events" block reads the events) must say so here,
    or readers get the old output until the item itself changes. The stored renderings are
    also keyed by each implementing plugin's name, module source and settings, so enabling,
    upgrading or reconfiguring a plugin never serves what its predecessor rendered.
    When: each time core renders an item's content or excerpt, before its cache lookup,
    and each time a list page reuses an item encoded earlier to which some plugin added a
    value (the item is encoded afresh when the key changed); only while some plugin
    implements this hook. Keep it cheap: it runs for every such item of every list page.
    An item to which no plugin added anything depends on its row alone, so its encoding is
    reused until the content changes without asking again.
    Arguments: `app`; `item`, the item dict.
    Returns: a hashable value that changes whenever your output for this item would (the
    newest event's modified time, a settings version); `False` to have this item rendered
    afresh every time; or None when your output depends on nothing else. Only values built
    of str, int, float, bool, None, bytes, tuples and lists key a stored rendering (their
    repr is the same in every process); any other value keeps the item's output in memory only.
    """


@hookspec
def oembed_providers(app: App) -> list[tuple[str, str]] | None:
    """Name the external oEmbed providers the site may call.

    When: fired by the plugin that resolves embeds, when it needs the provider list.
    Arguments: `app`.
    Returns: a list of (url_pattern, endpoint_url) pairs; url_pattern is a regular
    expression matched against the URL to embed. The lists of all plugins are joined.
    """


# --- WordPress migration: host.wxr's shapes; the wordpress_migrate plugin runs them ---

@hookspec(firstresult=True)
def import_wordpress_item(app: App, item: WxrItem, run: WxrImport) -> bool | None:
    """Import an item of a WordPress export (WXR) whose post type your plugin owns.

    When: `sitehost import wordpress` (or the admin page, or the `wordpress/import` ability) calls it
    for every <item> of the file, in the file's order, before core's own types (post, page,
    attachment, nav_menu_item and the post types registered in this site by name).
    Arguments: `app`; `item`, a `host.wxr.WxrItem` with the OLD site's ids, post type and raw meta
    strings; `run`, the `host.wxr.WxrImport` of this run: write through `run.session` (one transaction
    per batch; never commit it), look up `run.new_id("post", item.post_id)` first and count
    "unchanged" when nothing differs (a second run of the same file, or one resumed after a kill,
    must create nothing twice), `run.remember("post", old_id, new_id, item.link)` so the old link
    redirects, `run.clean_html`/`run.rewrite_links` for HTML, `run.count(...)` for what you wrote,
    `run.not_imported(label, reason)` for what you cannot keep, `run.after_all(callback)` for
    references to items further down the file.
    Returns: True when the item was yours (imported, unchanged, or named as not imported), None to
    leave it to the others. An item nobody claims is listed as not imported.
    firstresult: the first True wins.
    """


@hookspec
def wordpress_item_imported(app: App, item: WxrItem, new_id: int, run: WxrImport) -> None:
    """Add your part to a post or page that core just imported from a WordPress export (a page
    builder turns `_elementor_data` meta into its document).

    When: after core imported (created, updated or found unchanged) a post, page or other post type
    it stores, in the same batch transaction.
    Arguments: `app`; `item`, the `host.wxr.WxrItem` as read; `new_id`, the item's id on this site;
    `run`, the `host.wxr.WxrImport` (write through `run.session`, count what you write).
    Returns: nothing.
    """


@hookspec
def wordpress_taxonomies(app: App) -> dict[str, str] | None:
    """Say which WordPress taxonomies your plugin's terms come from and go to.

    When: once per import and per export run, before items are read or written.
    Arguments: `app`.
    Returns: {WordPress taxonomy name: this site's taxonomy name}, e.g. {"tribe_events_cat": ...};
    the answers are merged (core maps category and post_tag to themselves). On import, terms of a
    taxonomy nobody maps are listed as not imported; on export the map is read in reverse.
    """


@hookspec
def export_wordpress_items(app: App, export: WxrExport) -> Iterable[WxrItem] | None:
    """Give the items of the post types your plugin owns, in WordPress's shape, for a WXR export.

    When: `sitehost export wordpress` calls it once per run, after the authors and terms are written.
    Arguments: `app`; `export`, the `host.wxr.WxrExport` of this run (`session` to read through,
    `base_url`, `site_zone`, `link(post_id)`).
    Returns: an iterable (a generator is best: the file is written as it goes) of `host.wxr.WxrItem`
    with THIS site's ids and WordPress's post type names and meta keys (`tribe_events` with
    `_EventStartDate` ...), or None. Core gives posts, pages and attachments.
    """


@hookspec
def wordpress_item_exported(app: App, item: WxrItem, post_id: int, export: WxrExport) -> None:
    """Add your meta to a core item on its way into a WXR export (a page builder adds
    `_elementor_data`, `_elementor_edit_mode` and `_elementor_page_settings` to a page it has a
    document for).

    When: for each post, page or attachment core exports, before it is written.
    Arguments: `app`; `item`, the `host.wxr.WxrItem` about to be written (append to `item.meta`);
    `post_id`, its id on this site; `export`, the `host.wxr.WxrExport`.
    Returns: nothing.
    """


@hookspec(historic=True)
def add_hookspecs(plugin_manager: pluggy.PluginManager) -> None:
    """Publish hooks of the plugin's own, for other plugins to implement.

    When: once for each plugin as it is registered (historic: plugins registered later
    still receive the call).
    Arguments: `plugin_manager`, the app's pluggy PluginManager; call
    `plugin_manager.add_hookspecs(module_or_class)` with specs marked by
    `pluggy.HookspecMarker("sitehost")`. Call them with `app.hook.<name>(...)`.
    Returns: nothing.
    """
