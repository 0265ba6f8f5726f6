"""create_app(settings) -> App, a WSGI application built from the enabled plugins.

Each App has its own plugin manager, registry and database engine (no module globals),
so tests and the CLI build as many differently configured apps as they need.
"""

from __future__ import annotations

import datetime
import functools
import logging
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import bottle
from markupsafe import Markup
from marshmallow import Schema, fields
from sqlalchemy import MetaData, delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .args import in_order
from .config import ConfigError, Settings, check_plugin_tables, load_settings, plugin_settings
from .content import ContentService
from .comments import CommentService
from .db import Database, insert_if_absent
from .kept import Kept, kept_of
from .health import HEALTH_PATH, probe as health_probe
from .proxies import forwarded, trusted_networks
from .plugin_state import apply_stored_set
from .signing import Signer
from .site_secrets import read_or_make as read_or_make_secret
from .openapi import REFERENCE_PATH, add_reference_pages
from .plugins import PluginRecord, apply_requirements, build_plugin_manager, unload
from .registry import Registry, Route, StartupError
from .rest.batch import BatchArgs, handle_batch
from .rest.response import RestError
from .rest.server import PreparedDocument, RestServer, encode_json
from .auth.models import define_auth_tables
from .services import Services
from .stash import JOBS_SERVICE, MAIL_SERVICE, STORAGE, Stash
from .theme import STATIC_FOLDER as THEME_STATIC_FOLDER, STATIC_NAME as THEME_STATIC_NAME, render, render_page
from .migrations import HOST, migrate
from .upgrades import record_release
from .state import define_host_tables
from .users import ANONYMOUS, UserService
from .rest.request import RestRequest
from .page_cache import WireForms, answer_cacheable, answer_page, kept_page
from .answer import deliver
from .request import PageRequest, environ_headers
from .auth import sessions

log = logging.getLogger("sitehost")
_SITE_URL = "sitehost.site_url"  # environ: the request's site_url, worked out once per request

# The site address (App.site_address): `sitehost serve`'s default listen address until one is recorded,
# and the site_state keys of the recorded address, an operator's choice, and the first guid's address
# that older versions recorded.
DEFAULT_SITE_ADDRESS = "http://127.0.0.1:8080"
RECORDED_ADDRESS_KEY = "site_address"
CHOSEN_ADDRESS_KEY = "site_address.chosen"
LEGACY_GUID_ADDRESS_KEY = "guid_site_url"
SITE_IDENTITY_KEYS = {"name": "site_name", "description": "site_description"}  # rows of site_state
SITE_ADDRESS_SECONDS = 2.0  # how long a process keeps the address it read before reading it again

# Registration runs in two phases over the plugins in order: first what describes content
# (tables, namespaces, statuses, types, meta, capabilities, schemas) for every plugin, then
# what serves it (routes, pages, authentication). So `register_routes(app)` can build its
# enums from `app.registry`, including statuses that plugins later in the order add.
DESCRIBING_HOOKS = (
    ("register_namespaces", "add_namespace"),
    ("register_statuses", "statuses"),
    ("register_post_types", "post_types"),
    ("register_taxonomies", "taxonomies"),
    ("register_meta", "meta"),
    ("register_capabilities", "capabilities"),
    ("register_schemas", "schemas"),
    ("register_health_tests", "health_tests"),
    ("register_ability_categories", "ability_categories"),
    ("register_abilities", "abilities"),
)
SERVING_HOOKS = (
    ("register_routes", "add_route"),
    ("register_pages", "pages"),
    ("register_admin_pages", "admin_pages"),
    ("register_authentication", "authentication"),
)
REGISTRATION_HOOKS = DESCRIBING_HOOKS + SERVING_HOOKS
_KIND_NAMES = {"statuses": "status", "post_types": "post type", "taxonomies": "taxonomy",
               "health_tests": "health test", "abilities": "ability", "ability_categories": "ability category"}
_KEY_OF = {"ability_categories": "slug"}  # the attribute that names an item, when it is not `name`

HTML_SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; "
                               "frame-ancestors 'self'; form-action 'self' https: http://127.0.0.1:* http://localhost:*",
    "X-Frame-Options": "SAMEORIGIN",
}


class IndexArgs(Schema):
    """The root and namespace indexes: `context` untyped, as the reference declares it."""

    context = fields.Raw(load_default="view")


@functools.lru_cache(maxsize=256)
def namespace_index_args(namespace: str) -> type[Schema]:
    """The args of a namespace's index: `namespace` (defaulting to its name) and `context`.

    One class per namespace name for the whole process, so its converted args are kept
    (host.registry.compile_args) and every app after the first skips converting them again.
    Namespaces come from plugins, never from requests; the bound only guards against a leak.
    """
    return in_order(IndexArgs.from_dict({"namespace": fields.Raw(load_default=namespace)},
                                        name="NamespaceIndexArgs"), "namespace")


class App:
    """One site: settings, plugins, registry, database and the WSGI entry point."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.trusted_proxies = trusted_networks(settings)  # who may set X-Forwarded-* (host.proxies)
        apply_stored_set(settings)  # the set stored for the site wins over sitehost.toml's
        self.pm, self.plugin_records = build_plugin_manager(settings)
        check_plugin_tables(settings, {record.name: record.module for record in self.plugin_records if record.loaded})
        self._plugin_settings: dict[str, Any] = {}  # app.plugin_settings, loaded once, before any hook reads them
        self._load_plugin_settings()
        for line in dict.fromkeys(settings.warnings):  # allowed, but probably not what the operator meant
            log.warning("warning: %s", line)
        self.hook = self.pm.hook
        self.db = Database(settings.resolved_database_url())
        self.stash = Stash()  # plugins' per-app state (host.stash); emptied after the shutdown hooks
        self.services = Services()  # what plugins provide one another (host.services): app.content ...
        self._site_secrets: dict[str, bytes] = {}  # app.site_secret, by name (they never change)
        self.page_wire_forms = WireForms()  # kept pages' hits ready to send (host.page_cache)
        self.registry = self._build_registry_until_stable()
        with self.db.startup_lock():  # workers and nodes starting together take turns at the DDL
            # Each owner's revisions (host.migrations), then the tables that do not exist yet. schema_changes_allowed:
            # False while a newer release than this one has changed the tables (host.upgrades).
            self.schema_changes_allowed, self.migrations = migrate(self)
            self._start_plugins()
            if self.schema_changes_allowed:
                record_release(self)
        self.rest = RestServer(self)
        self.bottle = self._build_bottle()
        self._closed = False
        self._site_address: tuple[str, float] | None = None  # (address, when read): see site_address
        self._site_identity: tuple[dict[str, str], float] | None = None  # (name and tagline, when read)

    # --- plugins -------------------------------------------------------------------------

    @property
    def enabled_plugins(self) -> list[PluginRecord]:
        return [record for record in self.plugin_records if record.loaded]

    def static_folder(self, plugin: str) -> Path | None:
        """The `static/` folder of an enabled plugin's package, served at `/static/<plugin>/`; None
        when the plugin is not enabled or has none. `theme` is the default theme's folder."""
        if plugin == THEME_STATIC_NAME:  # the default theme's stylesheet (host/theme/static)
            return THEME_STATIC_FOLDER
        record = self.plugin(plugin)
        if record is None or not record.loaded or record.module is None:
            return None
        origin = getattr(record.module, "__file__", None)
        folder = Path(origin).parent / "static" if origin else None
        return folder if folder is not None and folder.is_dir() else None

    def plugin(self, name: str) -> PluginRecord | None:
        for record in self.plugin_records:
            if record.name == name:
                return record
        return None

    @property
    def content(self) -> ContentService:
        """The content service (host.content): items of every registered post type, terms, media."""
        return self.services.get("content", depth=2)

    @property
    def comments(self) -> CommentService:
        """The comments service (host.comments): read, store and moderate comments."""
        return self.services.get("comments", depth=2)

    @property
    def users(self) -> UserService:
        """The users service (host.users): users as the site shows them (name, author page)."""
        return self.services.get("users", depth=2)

    @property
    def mail(self):
        """The outgoing mail service (host.mail.MailService): `app.mail.send(Message(...), session)`."""
        return self.stash[MAIL_SERVICE]

    @property
    def jobs(self):
        """The background jobs service (host.jobs.JobService): `app.jobs.enqueue(name, payload)`."""
        return self.stash[JOBS_SERVICE]

    @property
    def storage(self):
        """Where the site's files live (host.storage.Storage): `app.storage.area(name, folder)`."""
        return self.stash[STORAGE]

    def kept(self, name: str, entries: int, seconds: float | None = None, max_bytes: int | None = None,
             size_of: Callable[[Any], int] = len) -> Kept:
        """The app's in-process cache `name` (host.kept.Kept: at most `entries` values, and at most
        `max_bytes` of them by `size_of(value)`, each served while the version it was kept at is
        current, for at most `seconds`). Prefix `name` with your plugin's."""
        return kept_of(self, name, entries, seconds, max_bytes, size_of)

    def signer(self, purpose: str, secret: str | None = None,
               adopt: Callable[[Session], str | None] | None = None) -> Signer:
        """The token signer of `purpose` (host.signing): tokens made with `sign` are checked by `unsign`
        of the same purpose only. Keyed by the site secret `secret` (default: `purpose`; `adopt` as
        for site_secret). Prefix `purpose` with your plugin's name ("newsletter.confirm")."""
        return Signer(self.site_secret(secret or purpose, adopt), purpose)

    def site_secret(self, name: str, adopt: Callable[[Session], str | None] | None = None) -> bytes:
        """The site's random secret `name`, made once per site and the same in every process (host.site_secrets).

        Tokens are signed with `app.signer(purpose)`, keyed by one of these. Prefix `name` with your
        plugin's name ("newsletter.signing"). `adopt(session)`, called only while the site has no secret of that
        name yet, may answer a key the plugin kept itself before, which is then stored instead of
        a new one (links signed with it keep working). Read from the database once per app.
        """
        found = self._site_secrets.get(name)
        if found is None:
            found = self._site_secrets[name] = read_or_make_secret(self, name, adopt)
        return found

    def plugin_settings(self, name: str) -> Any:
        """The typed settings of an enabled plugin: its `[plugins.NAME]` table loaded at start through
        the schema it declares (`PluginInfo(settings=...)`, host.config.PluginSettings)."""
        try:
            return self._plugin_settings[name]
        except KeyError:
            raise LookupError(f"no settings of {name!r}: the plugin is not enabled or declares no "
                              "settings schema") from None

    def _load_plugin_settings(self) -> None:
        """Load each enabled plugin's declared settings; a table that cannot work leaves its plugin out
        (failed, with a StartupError naming every bad key), as a failed `startup` does."""
        for record in self.enabled_plugins:
            if not record.loaded:  # left out meanwhile: it needs a plugin whose settings failed
                continue
            try:
                loaded = plugin_settings(self.settings, record.name, record.module)
            except StartupError as error:
                log.error("plugin %s failed to start: %s", record.name, error)
                unload(record, f"startup failed: {error}", self.pm)
                apply_requirements(self.plugin_records, self.pm)
                continue
            if loaded is not None:
                self._plugin_settings[record.name] = loaded

    def plugin_config(self, name: str) -> dict[str, Any]:
        """The `[plugins.NAME]` table of sitehost.toml (empty when absent)."""
        return self.settings.plugin_config(name)

    def _ordered_hook_owners(self) -> list[str]:
        essential = [name for name, _plugin in self.pm.list_name_plugin() if name.startswith("host.")]
        return essential + [record.name for record in self.plugin_records if record.loaded]

    def _build_registry_until_stable(self) -> Registry:
        """Build the registry; a plugin whose registration fails is left out and we try again."""
        while True:
            try:
                return self._build_registry()
            except _PluginFailure as failure:
                record = self.plugin(failure.plugin)
                if record is None:  # a host-internal plugin failed: that is a bug, not a bad plugin
                    raise failure.error from failure.error
                unload(record, failure.reason, self.pm)
                apply_requirements(self.plugin_records, self.pm)

    def _build_registry(self) -> Registry:
        registry = Registry(self.settings.rest_prefix)
        metadata = MetaData()
        self.host_tables = define_host_tables(metadata)
        self.auth_tables = define_auth_tables(metadata)
        # Whose tables are whose (host.migrations runs each owner's revisions on its own tables).
        self.table_owners: dict[str, set[str]] = {HOST: set(metadata.tables)}
        implementations = self._implementations_by_plugin()
        registry.add_route(Route("", "", "GET", self._root_index, args=IndexArgs), "host", True)
        registry.add_route(Route("", "/batch/v1", "POST", handle_batch, args=BatchArgs), "host", True)
        owners = self._ordered_hook_owners()
        for owner in owners:
            impls = implementations.get(owner, {})
            before = set(metadata.tables)
            try:
                if "register_tables" in impls:
                    _call(impls["register_tables"], metadata=metadata)
                    self.table_owners.setdefault(HOST if owner.startswith("host.") else owner, set()).update(
                        set(metadata.tables) - before)
                self._register(registry, owner, impls, DESCRIBING_HOOKS)
            except Exception as error:  # any failure in one plugin's registration
                for name in set(metadata.tables) - before:
                    metadata.remove(metadata.tables[name])
                raise _PluginFailure.from_error(owner, error) from error
        self.registry = registry  # complete as a description; register_routes may read it
        for owner in owners:
            try:
                self._register(registry, owner, implementations.get(owner, {}), SERVING_HOOKS)
            except Exception as error:
                raise _PluginFailure.from_error(owner, error) from error
        self.db.metadata = metadata
        return registry

    def _register(self, registry: Registry, owner: str, impls: dict[str, Any], hooks) -> None:
        for hook_name, target in hooks:
            if hook_name in impls:
                result = _call(impls[hook_name], app=self)
                if result:
                    self._merge(registry, owner, target, result)

    def _implementations_by_plugin(self) -> dict[str, dict[str, Any]]:
        names = ["register_tables"] + [hook_name for hook_name, _target in REGISTRATION_HOOKS]
        result: dict[str, dict[str, Any]] = {}
        for hook_name in names:
            for implementation in getattr(self.pm.hook, hook_name).get_hookimpls():
                result.setdefault(implementation.plugin_name, {})[hook_name] = implementation
        return result

    def _merge(self, registry: Registry, owner: str, target: str, result: Any) -> None:
        if target == "add_namespace":
            for namespace in result:
                registry.add_namespace(namespace, owner)
                args = namespace_index_args(namespace.name)
                registry.add_route(Route(namespace.name, "", "GET", self._namespace_index, args=args), owner,
                                   automatic_index=True)
        elif target == "add_route":
            for route in result:
                registry.add_route(route, owner)
        elif target in ("statuses", "post_types", "taxonomies", "health_tests", "abilities", "ability_categories"):
            table = getattr(registry, target)
            for item in result:
                key = getattr(item, _KEY_OF.get(target, "name"))
                if key in table:
                    raise StartupError(f"{_KIND_NAMES[target]} {key!r} registered by "
                                       f"{table[key][1]!r} and {owner!r}")
                table[key] = (item, owner)
        elif target == "meta":
            registry.meta.extend((meta, owner) for meta in result)
        elif target == "capabilities":
            for capability, roles in result.items():
                registry.capabilities.setdefault(capability, set()).update(roles)
        elif target == "schemas":
            for name, schema in result.items():
                if name in registry.schemas:
                    raise StartupError(f"schema {name!r} registered by {registry.schemas[name][1]!r} and {owner!r}")
                registry.schemas[name] = (schema, owner)
        elif target == "pages":
            registry.pages.extend((page, owner) for page in result)
        elif target == "admin_pages":
            for page in result:
                if page.path in registry.admin_pages:
                    raise StartupError(f"admin page {page.path!r} registered by "
                                       f"{registry.admin_pages[page.path][1]!r} and {owner!r}")
                registry.admin_pages[page.path] = (page, owner)
        elif target == "authentication":
            registry.authentication.update(result)

    def _implementations_in_order(self, hook_name: str):
        """(owner, implementation) of one hook: host plugins first, then plugins in load order.

        pluggy calls implementations LIFO and does not say who returned what; the host calls
        them one by one so that a failure is reported by plugin name. A plugin unloaded while
        this runs is skipped from then on.
        """
        caller = getattr(self.pm.hook, hook_name)
        for owner in self._ordered_hook_owners():
            for implementation in caller.get_hookimpls():
                if implementation.plugin_name == owner:
                    yield owner, implementation

    def _know_plugins(self) -> None:
        self.services.know_plugins((record.name, record.module, record.requires) for record in self.enabled_plugins)

    def _start_plugins(self) -> None:
        self._know_plugins()
        for owner, implementation in self._implementations_in_order("register_services"):
            try:
                self.services.provide(owner, _call(implementation, app=self) or {})
            except Exception as error:
                self._leave_out(owner, error)
        for owner, implementation in self._implementations_in_order("startup"):
            try:
                _call(implementation, app=self)
            except Exception as error:
                self._leave_out(owner, error)
        for record in self.plugin_records:
            record.namespaces = self.registry.plugin_namespaces(record.name) if record.loaded else []

    def _leave_out(self, owner: str, error: Exception) -> None:
        """A plugin failed to start: leave it (and those that require it) out, with the services they provide."""
        record = self.plugin(owner)
        if record is None:
            raise error
        # A StartupError is the plugin's own clear reason (bad settings ...): one line, no traceback.
        log.error("plugin %s failed to start", owner, exc_info=None if isinstance(error, StartupError) else error)
        unload(record, f"startup failed: {error}", self.pm)
        apply_requirements(self.plugin_records, self.pm)
        for left_out in self.plugin_records:
            if not left_out.loaded:
                self.services.withdraw(left_out.name)
        self._know_plugins()
        self.registry = self._build_registry_until_stable()
        self.db.create_tables()

    def install_site(self, demo: bool = False) -> list[str]:
        """First start of an empty database: plugins' set-up and, with `demo`, sample content.

        Runs once per database (recorded in `site_state`); several processes starting
        together are serialised by the write transaction and the primary key.
        """
        site_state = self.host_tables["site_state"]
        lines: list[str] = []
        try:
            with self.db.session(write=True) as session, session.begin():
                done = session.execute(select(site_state.c.value).where(site_state.c.key == "installed")).first()
                if done is not None:
                    return []
                for _owner, implementation in self._implementations_in_order("site_installed"):
                    lines.extend(_call(implementation, app=self, session=session) or [])
                if demo:
                    for _owner, implementation in self._implementations_in_order("demo_content"):
                        _call(implementation, app=self, session=session)
                    lines.append("demo content written")
                session.execute(insert(site_state).values(
                    key="installed", value=datetime.datetime.now(datetime.timezone.utc).isoformat()))
        except IntegrityError:  # another process installed the site at the same moment
            return []
        return lines

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.hook.shutdown(app=self)
        self.stash.clear()
        self.services.clear()
        self.db.dispose()

    # --- site facts ----------------------------------------------------------------------

    def site_url(self, environ: dict | None = None) -> str:
        """The base of a request's own links: `[site] url`, else the scheme and host the request was made to.

        Behind load balancers (`trusted_proxies`), the scheme and host are those the balancer forwards
        (X-Forwarded-Proto, X-Forwarded-Host, else its Host); a request that reached this node around
        them gets the site address instead, so no outsider's Host header becomes a link. What is
        stored or mailed never follows a request (site_address).
        """
        configured = self.settings.site.get("url")
        if configured:
            return configured.rstrip("/")
        if environ is None:
            return self._request_site_url({})
        known = environ.get(_SITE_URL)  # asked again in the same request (a page's links, its discovery Link)
        if known is None:
            known = environ[_SITE_URL] = self._request_site_url(environ)
        return known

    def _request_site_url(self, environ: dict) -> str:
        view = forwarded(environ, self.trusted_proxies)
        if self.trusted_proxies and not view.via_proxy and environ.get("REMOTE_ADDR"):
            return self.site_address()
        scheme = view.scheme
        host = view.host
        if host and scheme == "http" and host.endswith(":80"):
            host = host[:-3]
        elif host and scheme == "https" and host.endswith(":443"):
            host = host[:-4]
        if not host:
            host = environ.get("SERVER_NAME", "localhost")
            port = environ.get("SERVER_PORT", "80")
            if (scheme, port) not in (("http", "80"), ("https", "443")):
                host = f"{host}:{port}"
        return f"{scheme}://{host}"

    def site_address(self, session: Session | None = None) -> str:
        """The site's own address: the base of everything stored, mailed or used as an identifier.

        Guids, links in mails, iCalendar UIDs and global ids are kept by others for ever, so they
        never follow a request's Host header (an outsider chooses it). In order: the address an
        operator chose in the settings (`core/v2/settings` `url`), `[site] url`, the address
        recorded at the site's first start (`record_site_address`), `sitehost serve`'s default
        listen address. Read from the database at most every few seconds per process, so every
        process follows a change made in another one.
        """
        now = time.monotonic()
        kept = self._site_address
        if kept is not None and now - kept[1] < SITE_ADDRESS_SECONDS:
            return kept[0]
        if session is None:
            with self.db.session() as own_session:
                stored = self._stored_addresses(own_session)
        else:
            stored = self._stored_addresses(session)
        address = (stored.get(CHOSEN_ADDRESS_KEY) or self.settings.site.get("url") or stored.get(RECORDED_ADDRESS_KEY)
                   or DEFAULT_SITE_ADDRESS).rstrip("/")
        self._site_address = (address, now)
        return address

    def choose_site_address(self, session: Session, address: str | None) -> None:
        """An operator's choice of the site address (None: back to `[site] url` or the recorded one).

        The caller checks that `address` is an absolute http(s) URL; it is written in the
        caller's transaction, and this process forgets the address it kept at once.
        """
        site_state = self.host_tables["site_state"]
        session.execute(delete(site_state).where(site_state.c.key == CHOSEN_ADDRESS_KEY))
        if address is not None:
            session.execute(insert(site_state).values(key=CHOSEN_ADDRESS_KEY, value=address))
        self._site_address = None

    def chosen_site_address(self, session: Session) -> str | None:
        """The site address as an operator wrote it (trailing slash and all), or None when none was chosen."""
        return self._stored_addresses(session).get(CHOSEN_ADDRESS_KEY)

    def site_identity(self, session: Session | None = None) -> dict[str, str]:
        """{"name", "description"}: the site title and tagline an operator chose (`core/v2/settings`
        `title`, `description`), else `[site]` name and description. The root index shows them; read
        from the database at most every few seconds per process, as the site address is."""
        now = time.monotonic()
        kept = self._site_identity
        if kept is not None and now - kept[1] < SITE_ADDRESS_SECONDS:
            return kept[0]
        site_state = self.host_tables["site_state"]
        query = select(site_state.c.key, site_state.c.value).where(site_state.c.key.in_(SITE_IDENTITY_KEYS.values()))
        if session is None:
            with self.db.session() as own_session:
                stored = dict(own_session.execute(query).all())
        else:
            stored = dict(session.execute(query).all())
        identity = {field: stored.get(key, self.settings.site.get(field, "")) for field, key in SITE_IDENTITY_KEYS.items()}
        self._site_identity = (identity, now)
        return identity

    def choose_site_identity(self, session: Session, **chosen: str | None) -> None:
        """An operator's site title and/or tagline (`name=`, `description=`; None: back to `[site]`).

        Written in the caller's transaction; this process forgets what it kept at once (others
        within a few seconds), and the root index, cached per identity, follows.
        """
        site_state = self.host_tables["site_state"]
        for field, value in chosen.items():
            key = SITE_IDENTITY_KEYS[field]
            session.execute(delete(site_state).where(site_state.c.key == key))
            if value is not None:
                session.execute(insert(site_state).values(key=key, value=value))
        self._site_identity = None

    def forget_site_identity(self) -> None:
        """Read the title and tagline again at the next use (after the writing transaction committed)."""
        self._site_identity = None

    def record_site_address(self, listening: str = DEFAULT_SITE_ADDRESS) -> str | None:
        """First start: record `[site] url`, else `listening` (where `sitehost serve` listens), once.

        A site recorded before (or one that recorded its first guid's address in older versions)
        keeps its address. Returns a warning line when the site's address is only the recorded
        one (no `[site] url`, no operator's choice), saying how to set it; None otherwise.
        """
        site_state = self.host_tables["site_state"]
        configured = (self.settings.site.get("url") or "").rstrip("/")
        with self.db.session(write=True) as session, session.begin():
            stored = self._stored_addresses(session)
            if RECORDED_ADDRESS_KEY not in stored:
                recorded = configured or stored.get(LEGACY_GUID_ADDRESS_KEY) or listening.rstrip("/")
                session.execute(insert_if_absent(session, site_state).values(key=RECORDED_ADDRESS_KEY,
                                                                             value=recorded))
                stored = self._stored_addresses(session)
        self._site_address = None
        if configured or stored.get(CHOSEN_ADDRESS_KEY):
            return None
        return (f"warning: [site] url is empty, so the site's address (links in mails, guids, calendar UIDs) is "
                f"{stored[RECORDED_ADDRESS_KEY]}, recorded at its first start; set `url` in the [site] table of "
                f"sitehost.toml, or the Site address (URL) on the admin Settings page (core/v2/settings `url`)")

    def _stored_addresses(self, session: Session) -> dict[str, str]:
        site_state = self.host_tables["site_state"]
        rows = session.execute(select(site_state.c.key, site_state.c.value).where(site_state.c.key.in_(
            (CHOSEN_ADDRESS_KEY, RECORDED_ADDRESS_KEY, LEGACY_GUID_ADDRESS_KEY))))
        return {key: value for key, value in rows if value}

    def page_user(self, environ: dict):
        """Who sends a request to a page (not a REST route), for pages that serve some callers only.

        The `authenticate` hooks read it as they read a REST request, so an application password
        over HTTP Basic signs in here too; else the browser session of the sign-in page (its
        cookie) does. No credentials, or refused ones, read as anonymous:
        such a page answers as it would to anyone, never with a sign-in error.
        """
        request = RestRequest(self, environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "/"), [],
                              environ_headers(environ),
                              environ=environ, base_url=self.rest_base_url(environ),
                              remote_addr=forwarded(environ, self.trusted_proxies).client)
        try:
            user = self.hook.authenticate(app=self, request=request)
        except RestError:
            return ANONYMOUS
        if user is None:
            signed_in = self.page_session(environ)
            if signed_in is None:
                return ANONYMOUS
            user = signed_in[0]
        environ["sitehost.user_id"] = user.id  # for the access log (host.logs)
        return user

    def page_session(self, environ: dict):
        """(user, CSRF token) of the browser session the sign-in page started (its cookie), or None.

        Public pages read who is signed in through `page_user`; a page whose form changes something
        for that user (enrolling in a course) checks the form's token against this CSRF token.
        """
        from http.cookies import CookieError, SimpleCookie

        try:
            cookies = SimpleCookie(environ.get("HTTP_COOKIE", ""))
        except CookieError:
            return None
        morsel = cookies.get(sessions.SESSION_COOKIE)
        return sessions.load_session(self, morsel.value) if morsel is not None else None

    def rest_base_url(self, environ: dict | None = None) -> str:
        return self.site_url(environ) + self.settings.rest_prefix

    def timezone(self) -> datetime.tzinfo:
        name = self.settings.site.get("timezone_string") or "UTC"
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"[site] timezone_string {name!r} is not a known IANA time zone") from None

    def gmt_offset(self) -> float | int:
        offset = datetime.datetime.now(self.timezone()).utcoffset() or datetime.timedelta(0)
        hours = offset.total_seconds() / 3600
        return int(hours) if hours.is_integer() else hours

    # --- discovery -----------------------------------------------------------------------

    def _root_index(self, request) -> dict[str, Any]:
        help_context = request.params.get("context") == "help"
        identity = self.site_identity()
        key = ("root", request.base_url, help_context, self.gmt_offset(), identity["name"], identity["description"])
        return self.registry.cached_document(key, lambda: PreparedDocument(self._build_root(request, help_context,
                                                                                            identity)))

    def _build_root(self, request, help_context: bool, identity: dict[str, str]) -> dict[str, Any]:
        site = self.settings.site
        site_url = request.base_url[: -len(self.settings.rest_prefix)] if self.settings.rest_prefix else request.base_url
        authentication: dict[str, Any] | list[Any] = self.registry.authentication or []  # none: [], as WordPress
        return {
            "name": identity["name"],
            "description": identity["description"],
            "url": site_url,
            "home": (site.get("home") or site_url).rstrip("/"),
            "gmt_offset": self.gmt_offset(),
            "timezone_string": site.get("timezone_string", ""),
            "page_for_posts": int(site.get("page_for_posts") or 0),
            "page_on_front": int(site.get("page_on_front") or 0),
            "show_on_front": site.get("show_on_front", "posts"),
            "namespaces": list(self.registry.namespaces),
            "authentication": _resolve_urls(authentication, site_url, request.base_url),
            "routes": self.registry.routes_map(request.base_url, help_context=help_context),
            "site_logo": int(site.get("site_logo") or 0),
            "site_icon": int(site.get("site_icon") or 0),
            "site_icon_url": site.get("site_icon_url", ""),
            "_links": {"help": [{"href": site_url + REFERENCE_PATH}]},
        }

    def _namespace_index(self, request) -> dict[str, Any]:
        namespace = request.params.get("namespace")
        if namespace not in self.registry.namespaces:
            raise RestError("rest_invalid_namespace", "The specified namespace could not be found.", 404)
        help_context = request.params.get("context") == "help"
        key = ("namespace", namespace, request.base_url, help_context)
        return self.registry.cached_document(key, lambda: PreparedDocument({
            "namespace": namespace,
            "routes": self.registry.routes_map(request.base_url, namespace, help_context),
            "_links": {"up": [{"href": request.base_url + "/"}]},
        }))

    # --- WSGI ----------------------------------------------------------------------------

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == HEALTH_PATH:
            return self._health(environ, start_response)
        route_path = self._rest_route_path(environ)
        if route_path is None:
            through = self._through_page_cache(environ)
            kept = kept_page(self, environ, through) if through else None
            if kept is None:
                return self.bottle(environ, start_response)
            status_line, header_list, kept_body = kept
            start_response(status_line, header_list)
            return [kept_body]
        if isinstance(route_path, RestError):
            error_body = encode_json(route_path.to_body())
            headers = list(self.rest.base_headers(environ).items())
            start_response("400 Bad Request", headers + [("Content-Length", str(len(error_body)))])
            return [error_body]
        status, headers, body = self.rest.handle(environ, route_path)
        start_response(status, headers)
        return body

    def _health(self, environ, start_response):
        """`/-/health` for load balancers: 200 `ok`, or 503 and the reason, as one line of text (host.health)."""
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [("Allow", "GET, HEAD"), ("Content-Type", "text/plain"),
                                                      ("Content-Length", "0"), ("Cache-Control", "no-store")])
            return []
        healthy, reason = health_probe(self)
        body = (reason + "\n").encode()
        start_response("200 OK" if healthy else "503 Service Unavailable", [
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
        return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]

    def _through_page_cache(self, environ) -> str | None:
        """How bottle would answer this request through `answer_cacheable`: "route" (the front page, a
        cacheable page), "not found" (an address no route serves: the not-found handler, core's pretty
        permalinks), or None (not through it)."""
        try:
            route, _args = self.bottle.router.match(environ)
        except bottle.HTTPError as error:
            return "not found" if error.status_code == 404 else None
        return "route" if getattr(route.callback, "through_page_cache", False) else None

    def add_site_headers(self, environ, headers) -> None:
        """What every page outside the REST root carries: the REST discovery Link and the security headers
        (a page's own policy stays). `headers` is bottle's response view or a dict of bottle's spelling."""
        link = f'<{self.rest_base_url(environ)}/>; rel="https://api.w.org/"'
        existing = headers.get("Link")
        headers["Link"] = f"{existing}, {link}" if existing else link
        for name, value in HTML_SECURITY_HEADERS.items():
            if name not in headers:  # (setdefault on bottle's view would raise and catch a KeyError)
                headers[name] = value

    def _rest_route_path(self, environ):
        raw = environ.get("PATH_INFO") or "/"
        prefix = self.settings.rest_prefix
        if raw == prefix or raw.startswith(prefix + "/"):
            path = raw[len(prefix):]
        elif raw in ("/", "/index.php") and "rest_route" in environ.get("QUERY_STRING", ""):
            pairs = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
            values = [value for key, value in pairs if key == "rest_route"]
            if any(key.startswith("rest_route[") for key, _value in pairs):
                return RestError("rest_path_invalid_type", "The REST route parameter must be a string.", 400)
            if not values:
                return None
            path = values[-1]
        else:
            return None
        path = path.encode("latin-1", "replace").decode("utf-8", "replace") if raw is not path else path
        path = "/" + path.lstrip("/") if path else "/"
        return path.rstrip("/") or "/"

    def _build_bottle(self) -> bottle.Bottle:
        web = bottle.Bottle(catchall=True)
        app = self

        @web.hook("after_request")
        def discovery_headers():
            app.add_site_headers(bottle.request.environ, bottle.response.headers)

        @web.route("/", method=["GET", "HEAD"])
        @web.route("/index.php", method=["GET", "HEAD"])
        def home():
            """The front page, and what plugins answer at its address (plain permalinks, archives, search),
            through the response cache for anonymous visitors (host.page_cache)."""
            def build():
                view = app.hook.html_view(app=app, request=app.page_request())
                if view is not None:
                    return app.render_view(view)
                return app.render_html_page(app.settings.site.get("name", ""),
                                            app.site_message("front", description=app.settings.site.get("description", "")))
            return answer_cacheable(app, bottle.request, build)
        home.through_page_cache = True  # type: ignore[attr-defined]

        add_reference_pages(web, app)  # /openapi.json and /api-reference, outside the plugin namespaces

        @web.route("/static/<plugin>/<path:path>", method=["GET", "HEAD"])
        def plugin_static(plugin, path):
            """A file of an enabled plugin's own `static/` folder (stylesheets, scripts, images)."""
            folder = app.static_folder(plugin)
            if folder is None:
                raise bottle.HTTPError(404)
            answer = bottle.static_file(path, root=str(folder))  # refuses paths that leave the folder
            if answer.status_code not in (200, 206, 304):  # outside the folder or unreadable: not found
                raise bottle.HTTPError(404)
            answer.set_header("Cache-Control", "public, max-age=3600")
            return answer
        for page, _owner in self.registry.pages:
            web.route(page.path, method=list(page.methods), callback=_page_callback(app, page),
                      name=page.name or None)

        @web.error(404)
        def not_found(_error):
            """What plugins answer at an address nothing else serves (core's pretty permalinks and archives),
            through the response cache for anonymous visitors; else the 404 page (never kept: not a 200)."""
            def build():
                bottle.response.content_type = "text/html; charset=UTF-8"
                if bottle.request.method in ("GET", "HEAD"):
                    view = app.hook.html_not_found(app=app, request=app.page_request())
                    if view is not None:
                        return app.render_view(view)
                return app.render_html_page("Page not found", app.site_message("not-found"))
            if bottle.request.method not in ("GET", "HEAD"):
                return build()
            return answer_cacheable(app, bottle.request, build)

        @web.error(500)
        def server_error(error):
            log.error("unexpected error on an HTML page: %s", getattr(error, "exception", error),
                      exc_info=getattr(error, "exception", None))
            bottle.response.content_type = "text/html; charset=UTF-8"
            return app.render_html_page("Something went wrong", app.site_message("server-error"))

        return web

    def page_request(self) -> PageRequest:
        """The host.Request of the page being served (one per request: its handler and every HTML hook share it)."""
        return PageRequest.of(self, bottle.request.environ)

    def render_view(self, view) -> str:
        """An HtmlView in the site layout, with the head tags plugins add for its item."""
        bottle.response.status = view.status
        for name, value in view.headers:
            bottle.response.add_header(name, value)
        head = [view.head_html]
        if view.item is not None:
            head.extend(part for part in self.hook.html_head(app=self, request=self.page_request(), item=view.item) if part)
        return self.render_html_page(view.title, view.body_html, "".join(head))

    def site_message(self, done: str, **context) -> Markup:
        """The body of one of the host's own short pages (the theme's site_message.html, which `done` names)."""
        return render(self, "", "site_message.html", {"done": done, **context})

    def render_html_page(self, title: str, body_html: str, head_html: str = "") -> str:
        """A page in the site's theme (host/theme: layout, menu, stylesheet), carrying the REST discovery link
        and the head tags plugins add to every page (`site_head`: feed discovery ...)."""
        request = self.page_request()
        head_html += "".join(part for part in self.hook.site_head(app=self, request=request) if part)
        return render_page(self, request, title, body_html, head_html)


class _PluginFailure(Exception):
    def __init__(self, plugin: str, reason: str, error: Exception):
        super().__init__(reason)
        self.plugin = plugin
        self.reason = reason
        self.error = error

    @classmethod
    def from_error(cls, plugin: str, error: Exception) -> "_PluginFailure":
        detail = str(error) if isinstance(error, StartupError) else f"{type(error).__name__}: {error}"
        return cls(plugin, f"registration failed: {detail}", error)


def _call(implementation, **kwargs):
    return implementation.function(**{name: kwargs[name] for name in implementation.argnames})


def _page_callback(app: App, page):
    if page.cacheable:
        def cached_callback(**url_params):
            return answer_page(app, page, bottle.request, url_params)
        cached_callback.through_page_cache = True  # type: ignore[attr-defined]
        return cached_callback

    def callback(**url_params):
        return deliver(page.handler(app, app.page_request(), **url_params))
    return callback


def _resolve_urls(value: Any, site_url: str, rest_url: str) -> Any:
    """Registered authentication blocks may use {site_url} and {rest_url} placeholders."""
    if isinstance(value, dict):
        return {key: _resolve_urls(item, site_url, rest_url) for key, item in value.items()}
    if isinstance(value, str):
        return value.replace("{site_url}", site_url).replace("{rest_url}", rest_url)
    return value


def create_app(settings: Settings | None = None, **overrides: Any) -> App:
    """Build the WSGI app; `overrides` replace single settings (database_url=..., disabled=[...])."""
    if settings is None:
        settings = load_settings(**overrides)
    else:
        for key, value in overrides.items():
            setattr(settings, key, value)
    return App(settings)
