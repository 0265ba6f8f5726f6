"""Settings: sitehost.toml, then SITEHOST_* environment variables, then explicit overrides.

Later sources win. A Settings object is plain data; create_app() reads it and never
looks at the environment again, so tests can build any number of differently
configured apps in one process.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Mapping

import tomli_w
from marshmallow import Schema, ValidationError, fields, post_load, validate

from .registry import StartupError
from .proxies import parse_networks

DEFAULT_CONFIG_FILE = "sitehost.toml"

DEFAULT_SITE = {
    "name": "Riverside School",
    "description": "News, events and learning at Riverside School",
    "url": "",  # empty: derived from each request's Host header
    "home": "",
    "timezone_string": "UTC",
    "permalink_structure": "",  # plain links (/?p=ID), as a fresh WordPress site
    "templates_dir": "",  # no operator templates: the default theme's
    "page_for_posts": 0,
    "page_on_front": 0,
    "show_on_front": "posts",
    # Discussion (core/v2/comments), with WordPress's option names and defaults.
    "comment_registration": False,
    "require_name_email": True,
    "comment_moderation": False,
    "comment_previously_approved": True,
    "comment_flood": 15,
    "disallowed_keys": [],
}


# What one client may hold of a server process (host.serving.ServerLimits).
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_CHANNEL_TIMEOUT = 30  # seconds
DEFAULT_CONNECTION_LIMIT = 100  # per server process
DEFAULT_CONNECTION_LIMIT_PER_ADDRESS = 20  # per client address and server process (0: no cap)


class ConfigError(Exception):
    """The configuration cannot be used; the message names every bad setting found and why.

    `problems`: one line per bad setting; the message joins them, so one error names them all.
    """

    def __init__(self, *problems: str):
        self.problems = list(problems)
        super().__init__("; ".join(problems) if len(problems) < 2
                         else f"{len(problems)} settings are not valid: " + "; ".join(problems))


@dataclass
class Settings:
    """Everything create_app() needs to know, in one place."""

    database_url: str = ""
    rest_prefix: str = "/wp-json"
    site: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_SITE))
    disabled: list[str] = field(default_factory=list)
    # Read the plugin set stored for the site (host.plugin_state); SITEHOST_DISABLE turns it off for a run.
    use_stored_plugins: bool = True
    # The file's (or environment's) set when the stored one replaced it: `sitehost serve` warns if they differ.
    disabled_in_file: list[str] | None = None
    # Plugins to load explicitly (module objects or import paths) besides built-ins and
    # entry points; tests and one-off setups use it.
    extra_plugins: list[Any] = field(default_factory=list)
    # Load only these built-ins / entry points (None = all). Tests use it to build small apps.
    only_plugins: list[str] | None = None
    load_entry_points: bool = True
    plugins: dict[str, dict[str, Any]] = field(default_factory=dict)
    uploads_dir: str = "uploads"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    channel_timeout: int = DEFAULT_CHANNEL_TIMEOUT
    connection_limit: int = DEFAULT_CONNECTION_LIMIT
    connection_limit_per_address: int = DEFAULT_CONNECTION_LIMIT_PER_ADDRESS
    max_json_depth: int = 64
    cors_origins: list[str] = field(default_factory=list)
    trace_plugins: bool = False
    config_file: str | None = None
    # The `[mail]` table (host.mail checks it at start-up; make_app(mail={...}) sets it in tests).
    mail: dict[str, Any] = field(default_factory=dict)
    # The `[storage]` table (host.storage checks it at start-up): local folders or an S3-compatible store.
    storage: dict[str, Any] = field(default_factory=dict)
    # Anything else from sitehost.toml, kept for subsystems that read their own table.
    extra: dict[str, Any] = field(default_factory=dict)
    # Lines to print at start-up: settings that are allowed but probably not meant.
    warnings: list[str] = field(default_factory=list)
    # SITEHOST_<TABLE>__<KEY> values of tables checked later ("mail", "auth", "plugins.NAME"), by table:
    # {key: (variable, text)}, so the check that knows the table's schema reads the text as its type.
    environment: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def plugin_config(self, name: str) -> dict[str, Any]:
        return self.plugins.get(name, {})

    def resolved_database_url(self) -> str:
        return self.database_url or "sqlite:///sitehost.db"


_SIMPLE_KEYS = {"database_url", "rest_prefix", "uploads_dir", "max_body_bytes", "max_json_depth", "cors_origins",
                "channel_timeout", "connection_limit", "connection_limit_per_address", "mail",
                "storage"}

# Variables read by the test suite and CI rather than by a site (no warning when they are set).
TOOL_VARIABLES = {"SITEHOST_TEST_DATABASE_URL", "SITEHOST_CI_POSTGRES", "SITEHOST_POSTGRES_URL",
                  "SITEHOST_FUZZ_EXAMPLES", "SITEHOST_CONCURRENCY_SECONDS"}
# Variables about one run rather than a setting; every other SITEHOST_<KEY> is a setting (see _apply_env).
ENVIRONMENT_VARIABLES = {"SITEHOST_CONFIG", "SITEHOST_DISABLE", "SITEHOST_NO_ENTRY_POINTS", "SITEHOST_TRACE_PLUGINS"}
ENVIRONMENT_PREFIX = "SITEHOST_"
NESTING = "__"  # SITEHOST_SITE__NAME is [site] name; SITEHOST_PLUGINS__CALENDAR__X is [plugins.calendar] x
MAX_ENVIRONMENT_DEPTH = 3  # top level, a table, a plugin's table


# --- what each setting may be ----------------------------------------------------
# Checked once when the settings are loaded, so a bad value stops the start with one line naming
# the key, the value and what is allowed, instead of starting and answering 500 to every request.

def _database_url(value: str) -> None:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        backend = make_url(value).get_backend_name()
    except ArgumentError:
        backend = ""
    if backend not in ("sqlite", "postgresql"):
        raise ValidationError("allowed: sqlite:///PATH.db or postgresql+psycopg://USER@HOST/DATABASE")


def _time_zone(value: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError("allowed: an IANA time zone such as Europe/London or UTC") from None


def _site_url(value: str) -> None:
    from urllib.parse import urlsplit

    if value and (urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc):
        raise ValidationError("allowed: empty (taken from each request) or an http(s) URL such as https://school.test")


def _count(minimum: int, maximum: int, unit: str = "", description: str = "") -> fields.Integer:
    allowed = f"allowed: a whole number from {minimum:,} to {maximum:,}{unit}"
    return fields.Integer(strict=True, validate=validate.Range(minimum, maximum, error=allowed),
                          error_messages={"invalid": allowed}, metadata={"description": description})


def _flag(description: str) -> fields.Boolean:
    return fields.Boolean(truthy={True}, falsy={False}, error_messages={"invalid": "allowed: true or false"},
                          metadata={"description": description})


def _text(description: str = "", **options) -> fields.String:
    return fields.String(error_messages={"invalid": "allowed: a string"}, metadata={"description": description},
                         **options)


def _networks(values: list[str]) -> None:
    try:
        parse_networks(values)
    except ValueError as error:
        raise ValidationError(f"{error}; allowed: IP addresses or networks such as 10.0.0.5 or 10.1.0.0/16") from None


PERMALINK_TAGS = ("%year%", "%monthnum%", "%day%", "%hour%", "%minute%", "%second%", "%postname%", "%post_id%",
                  "%category%", "%author%")
_PERMALINK_TEXT = re.compile(r"[A-Za-z0-9/_.-]*")


def _permalink_structure(value: str) -> None:
    """'' or a path of known tags and plain characters that names one post (%postname% or %post_id%)."""
    if value == "":
        return
    rest = value
    for tag in PERMALINK_TAGS:
        rest = rest.replace(tag, "/")
    if not value.startswith("/") or len(value) > 200 or not _PERMALINK_TEXT.fullmatch(rest) \
            or ("%postname%" not in value and "%post_id%" not in value):
        raise ValidationError("allowed: '' or a path such as /%year%/%monthnum%/%postname%/ of the tags "
                              + " ".join(PERMALINK_TAGS) + " that holds %postname% or %post_id%")


class SiteSettings(Schema):
    """`[site]`: what the root index and the settings describe."""

    name = _text("Site title (root index `name`, HTML views, oEmbed).")
    description = _text("Tagline (root index `description`).")
    url = _text("Public URL of the site: the base of guids, links in mails and calendar UIDs; empty: the "
                "address `sitehost serve` listened on at its first start (answers' own links follow the request).",
                validate=_site_url)
    home = _text("Home URL when it differs from `url`; empty: same as `url`.", validate=_site_url)
    permalink_structure = _text("Pretty permalinks of posts, as WordPress's `permalink_structure`: "
                                "`/%year%/%monthnum%/%postname%/`, `/%category%/%postname%/`, `/archives/%post_id%` ... "
                                "(tags %year% %monthnum% %day% %hour% %minute% %second% %postname% %post_id% "
                                "%category% %author%); pages then "
                                "live at `/<parent>/<child>/`. Empty: plain links (`/?p=ID`).", validate=_permalink_structure)
    templates_dir = _text("Folder of the operator's theme templates: a file there wins over the default theme's "
                          "or a plugin's template of the same name (`layout.html`, `site_header.html` ...); empty: none.")
    timezone_string = _text("IANA time zone of local dates (`date`, `after`, `before`).", validate=_time_zone)
    page_for_posts = _count(0, 2**31 - 1, description="Id of the page that lists posts (0: none).")
    page_on_front = _count(0, 2**31 - 1, description="Id of the page shown on the front (0: none).")
    show_on_front = _text("`posts` or `page`: what the front shows.",
                          validate=validate.OneOf(["posts", "page"], error="allowed: posts or page"))
    comment_registration = _flag("Only signed-in users may comment (false: visitors comment with a name and "
                                 "an email address).")
    require_name_email = _flag("A visitor's comment needs a name and an email address.")
    comment_moderation = _flag("Every comment is held for a moderator, whoever writes it.")
    comment_previously_approved = _flag("A visitor's comment is held unless the same name and email address "
                                        "already have an approved comment (so a first comment is held).")
    comment_flood = _count(0, 86_400, " (seconds)", "Seconds before the same address may comment again "
                           "(`comment_flood`, 400); 0: no limit. Moderators are never limited.")
    disallowed_keys = fields.List(_text(validate=validate.Length(min=1, max=200)), validate=validate.Length(max=1000),
                                  error_messages={"invalid": "allowed: a list of words and phrases"},
                                  metadata={"description": "Words and phrases (also e-mail addresses, IP addresses "
                                                           "and URL parts) that mark a comment, form entry or "
                                                           "sign-up as spam (read by the spam plugin)."})


# The [auth] table's defaults: host/auth/ratelimit.py's SignInLimits and the first administrator.
AUTH_DEFAULTS: dict[str, Any] = {"admin_login": "admin", "admin_email": "admin@school.invalid", "max_failures": 10,
                                 "max_failures_per_address": 50, "window_seconds": 900, "lockout_seconds": 900,
                                 "slow_after": 5, "slow_seconds": 1.0}
YEAR_SECONDS = 366 * 86400


class AuthSettings(Schema):
    """`[auth]`: the first administrator and the sign-in limits (host/auth/ratelimit.py)."""

    admin_login = _text("Login of the administrator the first start creates.",
                        validate=validate.Length(min=1, max=60, error="allowed: a login of 1 to 60 characters"))
    admin_email = _text("Email of that administrator.",
                        validate=validate.Length(min=3, max=100, error="allowed: an email address"))
    max_failures = _count(1, 1_000_000, description="Failed sign-ins on one account from one address before that "
                          "address is refused for it; also how many on the account from all addresses make it "
                          "'under attack'.")
    max_failures_per_address = _count(1, 1_000_000, description="Failed sign-ins from one address, any account, "
                                      "before it is refused.")
    window_seconds = _count(0, YEAR_SECONDS, " (seconds)", "How far back failures are counted.")
    lockout_seconds = _count(0, YEAR_SECONDS, " (seconds)", "How long a refused source stays refused after its "
                             "last failure.")
    slow_after = _count(0, 1_000_000, description="Failures after which each further one is answered late; under "
                        "attack, the failures allowed per address.")
    slow_seconds = fields.Float(validate=validate.Range(0, 60, error="allowed: a number of seconds from 0 to 60"),
                                error_messages={"invalid": "allowed: a number of seconds from 0 to 60"},
                                metadata={"description": "How late, in seconds."})


class HostSettings(Schema):
    """The top level of sitehost.toml (plugin tables are checked by their plugins at start-up)."""

    database_url = _text("`sqlite:///PATH.db` or `postgresql+psycopg://USER@HOST/DATABASE` "
                         "(also `SITEHOST_DATABASE_URL`).", validate=_database_url)
    rest_prefix = _text("Path under which the REST API answers.",
                        validate=validate.Regexp(r"^/[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$",
                                                 error="allowed: a path such as /wp-json, no trailing slash"))
    uploads_dir = _text("Folder of uploaded media files (also `SITEHOST_UPLOADS_DIR`).",
                        validate=validate.Length(min=1, error="allowed: a folder path"))
    max_body_bytes = _count(1, 2**40, " (bytes)", "Largest request body; larger answers 413 before it is read.")
    max_json_depth = _count(2, 512, description="Deepest nesting of a JSON body; deeper answers 400.")
    channel_timeout = _count(1, 3600, " (seconds)", "Seconds an idle connection stays open, and within which "
                             "a request's headers must arrive.")
    connection_limit = _count(1, 100_000, description="Open connections per server process; at the limit the "
                              "longest idle one is closed for a newcomer; with none idle, more wait in the listen "
                              "backlog.")
    connection_limit_per_address = _count(
        0, 100_000, description="Open connections one client address may hold per server process; beyond it its "
        "longest idle connection is closed (or the new one, when none is idle). 0: no cap. Not applied to "
        "`trusted_proxies` (every connection comes from the proxy, which must cap per client; see Running behind a "
        "reverse proxy).")
    cors_origins = fields.List(_text(validate=_site_url),
                               error_messages={"invalid": "allowed: a list of origins such as [\"https://app.school.test\"]"},
                               metadata={"description": "Origins CORS answers are given to; empty: any origin "
                                                        "(see Security below)."})
    trust_proxy = fields.Boolean(truthy={True}, falsy={False}, error_messages={"invalid": "allowed: true or false"},
                                 metadata={"description": "The older spelling of `trusted_proxies = [\"127.0.0.0/8\", "
                                                          "\"::1\"]` (a proxy on this machine); ignored when "
                                                          "`trusted_proxies` is set."})
    trusted_proxies = fields.List(
        _text(), validate=[validate.Length(max=1000), _networks],
        error_messages={"invalid": "allowed: a list of addresses or networks such as [\"10.0.0.5\", \"10.1.0.0/16\"]"},
        metadata={"description": "Addresses or networks of the load balancers and proxies in front: only a "
                                 "connection from one of them may set the client's address, scheme and host with "
                                 "X-Forwarded-For, X-Forwarded-Proto and X-Forwarded-Host (see docs/deploy/)."})
    site = fields.Dict(error_messages={"invalid": "allowed: a table"}, metadata={"description": "The `[site]` table."})
    plugins = fields.Dict(error_messages={"invalid": "allowed: a table"},
                          metadata={"description": "`disabled` (a list of plugin names) and one "
                                                   "`[plugins.NAME]` table per plugin."})
    auth = fields.Dict(error_messages={"invalid": "allowed: a table"},
                       metadata={"description": "The `[auth]` table: first administrator and sign-in limits."})
    jobs = fields.Dict(error_messages={"invalid": "allowed: a table"},
                       metadata={"description": "The `[jobs]` table: how background jobs are leased and run "
                                                "(see Background jobs)."})
    mail = fields.Dict(error_messages={"invalid": "allowed: a table"},
                       metadata={"description": "The `[mail]` table: the SMTP server and the outbox's retries "
                                                "(see Outgoing mail)."})
    storage = fields.Dict(error_messages={"invalid": "allowed: a table"},
                          metadata={"description": "The `[storage]` table: where uploads, form files and backups "
                                                   "are kept (local folders or an S3-compatible store; "
                                                   "docs/storage.md)."})


def settings_reference(schema: Schema, defaults: dict[str, Any] | None, table: str = "") -> list[str]:
    """Markdown table rows (key, default, meaning) of a settings schema, for the README.

    `defaults` None: each field's load_default (plugin schemas declare their defaults there).
    """
    rows = []
    for name, declared in schema.fields.items():
        default = defaults.get(name) if defaults is not None else declared.load_default
        default = default() if callable(default) else default
        if isinstance(default, dict) or default is None:
            shown = ""  # a table, described by its own rows
        else:
            shown = json.dumps(default)  # the TOML spelling for strings, numbers, booleans and lists
        key = f"`{table + '.' if table else ''}{name}`"
        rows.append(f"| {key} | {'`' + shown + '`' if shown else ''} | {declared.metadata.get('description', '')} |")
    return rows


def checked_table(schema: Schema, table: Any, name: str,
                  environment: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """A copy of the `[name]` table (absent: empty) after `check_section`: one ConfigError naming every
    bad key, or a table that is no table. For the host's own tables (`[mail]`, `[jobs]`)."""
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise ConfigError(f"[{name}] must be a table")
    table = dict(table)
    check_section(schema, table, f"[{name}]", environment)
    return table


def check_section(schema: Schema, data: dict[str, Any], where: str,
                  environment: dict[str, tuple[str, str]] | None = None) -> None:
    """Raise one ConfigError naming every unknown key and bad value of `data` (a table of `where`).

    `environment`: {key: (variable, text)} of the table's SITEHOST_* values; each is read as the type
    its field declares (environment_value), stored into `data`, and named by its variable when wrong.
    """
    problems = section_problems(schema, data, where, environment)
    if problems:
        raise ConfigError(*problems)


def section_problems(schema: Schema, data: dict[str, Any], where: str,
                     environment: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """check_section's findings, one line each (empty when the table is good); fills `data` from `environment`."""
    known = schema.fields
    problems = []
    for key, (_variable, text) in (environment or {}).items():
        data[key] = environment_value(text, known.get(key))
    named = {key: variable for key, (variable, _text) in (environment or {}).items()}
    for key, value in data.items():
        label = named.get(key, where)  # a value from the environment is named by its variable
        if key not in known:
            problems.append(f"{label}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
            continue
        try:
            known[key].deserialize(value)  # runs the field's type check and its validators
        except ValidationError as error:
            message = error.messages[0] if isinstance(error.messages, list) else str(error.messages)
            problems.append(f"{label}: {key} = {value!r} is not valid; {message}")
    return problems


def environment_value(text: str, declared: fields.Field | None) -> Any:
    """A SITEHOST_* variable's text as the type of the setting it sets (documented in the README).

    A string setting takes the text as it is; a list takes a JSON array or a comma list (`a, b`);
    any other (numbers, true/false, tables) and a setting whose type is not known take the text as
    JSON when it is JSON (`50`, `true`, `{"a": 1}`), else the text itself, which the check then names.
    """
    if isinstance(declared, fields.String):
        return text
    if isinstance(declared, fields.List):
        if text.lstrip().startswith("["):
            return _json_or_text(text)
        return [environment_value(part.strip(), declared.inner) for part in text.split(",") if part.strip()]
    return _json_or_text(text)


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


class PluginSettings(Schema):
    """Base of a plugin's settings schema, named in `PluginInfo(settings=...)`.

    The host checks the `[plugins.NAME]` table against the fields before anything starts, then loads
    it once into a typed object the plugin reads with `app.plugin_settings(NAME)`: an instance of
    `settings_class` (a frozen dataclass; None: the loaded dict). `prepare` derives values and checks
    what spans keys or needs the site (`self.host`: the host's Settings, such as `uploads_dir`); it
    raises `ValidationError({key: message, ...})` naming every bad key at once.
    """

    settings_class: ClassVar[Any] = None

    def __init__(self, *, host: Settings | None = None, **options: Any):
        super().__init__(**options)
        self.host = host if host is not None else Settings()

    def prepare(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    @post_load
    def _typed(self, data: dict[str, Any], **_options: Any) -> Any:
        data = self.prepare(data)
        return data if self.settings_class is None else self.settings_class(**data)


def plugin_settings(settings: Settings, name: str, module: Any) -> Any:
    """The typed settings of a plugin that declares a schema (`PluginInfo.settings`), loaded from its
    `[plugins.NAME]` table; None when it declares none. StartupError names every bad key at once."""
    declared = getattr(getattr(module, "PLUGIN", None), "settings", None)
    if declared is None:
        return None
    table = settings.plugins.get(name)
    schema = declared(host=settings) if issubclass(declared, PluginSettings) else declared()
    try:
        return schema.load(dict(table) if isinstance(table, dict) else {})
    except ValidationError as error:
        problems = "; ".join(f"{key}: {' '.join(map(str, messages)) if isinstance(messages, list) else messages}"
                             for key, messages in error.normalized_messages().items())
        raise StartupError(f"[plugins.{name}] is invalid: {problems}") from None


def check_plugin_tables(settings: Settings, modules: dict[str, Any]) -> None:
    """Check each `[plugins.NAME]` table against the Schema class its plugin declares (`PluginInfo.settings`).

    `modules`: plugin name -> module of the plugins that load. Raises one ConfigError naming every bad key
    of every table. SITEHOST_PLUGINS__NAME__KEY values are read as the types the schema declares.
    """
    problems = []
    for name, module in modules.items():
        declared = getattr(getattr(module, "PLUGIN", None), "settings", None)
        table = settings.plugins.get(name)
        if declared is not None and isinstance(table, dict):
            problems += section_problems(declared(), table, f"[plugins.{name}]",
                                         settings.environment.get(f"plugins.{name}"))
    if problems:
        raise ConfigError(*problems)


def load_settings(config_file: str | os.PathLike | None = None, env: dict[str, str] | None = None,
                  **overrides: Any) -> Settings:
    """Build Settings from the TOML file, the environment and keyword overrides.

    Every bad key of the file and of the SITEHOST_* variables is named in one ConfigError.
    """
    variables: Mapping[str, str] = os.environ if env is None else env
    path = Path(config_file or variables.get("SITEHOST_CONFIG") or DEFAULT_CONFIG_FILE)
    data = read_config_file(path)
    settings = Settings(config_file=str(path))
    _apply_file(settings, data, str(path), _environment_settings(variables, settings.warnings))
    _apply_run_variables(settings, variables)
    for key, value in overrides.items():
        if not hasattr(settings, key):
            raise ConfigError(f"unknown setting {key!r}")
        setattr(settings, key, value)
    return settings


def read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from error


def write_config_file(path: Path, data: dict[str, Any]) -> None:
    """Write the TOML file atomically so a crash never leaves half a config behind."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(tomli_w.dumps(data), encoding="utf-8")
    os.replace(temporary, path)


def _apply_file(settings: Settings, data: dict[str, Any], where: str = DEFAULT_CONFIG_FILE,
                environment: dict[tuple[str, ...], tuple[str, str]] | None = None) -> None:
    """Check the top level and `[site]` of the file merged with the environment's values, then keep them."""
    data = copy.deepcopy(data)
    by_table: dict[str, dict[str, tuple[str, str]]] = {}
    problems = []
    for path, (variable, text) in (environment or {}).items():
        table, key = (".".join(path[:-1]), path[-1]) if len(path) > 1 else ("", path[0])
        if table not in ("", "site", "mail", "storage", "auth", "jobs", "plugins") and not table.startswith("plugins."):
            problems.append(f"{variable}: {path[0]} is not a table")
            continue
        by_table.setdefault(table, {})[key] = (variable, text)
    for name in ("site", "mail", "storage", "auth", "jobs"):
        if name in by_table and not isinstance(data.setdefault(name, {}), dict):
            problems.append(f"{where}: {name} is not a table, so {', '.join(v for v, _ in by_table[name].values())} "
                            "cannot set a key of it")
            by_table.pop(name)
    problems += section_problems(HostSettings(), data, where, by_table.get(""))
    if isinstance(data.get("site"), dict):
        problems += section_problems(SiteSettings(), data["site"], f"{where} [site]", by_table.get("site"))
    if isinstance(data.get("auth"), dict):
        problems += section_problems(AuthSettings(), data["auth"], f"{where} [auth]", by_table.get("auth"))
    for table, values in by_table.items():
        if table in ("mail", "storage", "jobs") or table.startswith("plugins."):
            _place_for_later(settings, data, table, values)  # checked by whoever knows the table's schema
        elif table == "plugins":
            plugins = data.setdefault("plugins", {})
            for key, (variable, text) in values.items():
                if key != "disabled":
                    problems.append(f"{variable}: [plugins] takes only `disabled` and one table per plugin "
                                    f"(SITEHOST_PLUGINS__NAME__KEY), not {key!r}")
                elif isinstance(plugins, dict):
                    plugins["disabled"] = environment_value(text, fields.List(fields.String()))
    if problems:
        raise ConfigError(*problems)
    for key in _SIMPLE_KEYS:
        if key in data:
            setattr(settings, key, data.pop(key))
    site = data.pop("site", {})
    if not isinstance(site, dict):
        raise ConfigError("[site] must be a table")
    settings.site.update(site)
    plugins = data.pop("plugins", {})
    if not isinstance(plugins, dict):
        raise ConfigError("[plugins] must be a table")
    disabled = plugins.pop("disabled", [])
    if not isinstance(disabled, list) or not all(isinstance(name, str) for name in disabled):
        raise ConfigError("[plugins] disabled must be a list of plugin names")
    settings.disabled = list(disabled)
    settings.plugins = {name: table for name, table in plugins.items() if isinstance(table, dict)}
    settings.extra = data


def _place_for_later(settings: Settings, data: dict[str, Any], table: str,
                     values: dict[str, tuple[str, str]]) -> None:
    """Put SITEHOST_* values of `[mail]`, `[auth]` or `[plugins.NAME]` into the table (as JSON when they are
    JSON) and remember their text, which the table's own check reads again as its schema's types."""
    target = data
    for part in table.split("."):
        target = target.setdefault(part, {}) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return  # the file's value there is no table; the host check has named it
    for key, (_variable, text) in values.items():
        target[key] = environment_value(text, None)
    settings.environment.setdefault(table, {}).update(values)


def _environment_settings(env: Mapping[str, str], warnings: list[str]) -> dict[tuple[str, ...], tuple[str, str]]:
    """The settings among SITEHOST_* variables: {key path: (variable, text)}.

    SITEHOST_<KEY> is a top-level key; `__` goes one table down (SITEHOST_SITE__NAME,
    SITEHOST_PLUGINS__CALENDAR__IMPORT_BATCH_SIZE). A name that is no setting is a warning.
    """
    known = HostSettings().fields
    found = {}
    for variable in sorted(env):
        if not variable.startswith(ENVIRONMENT_PREFIX) or variable in ENVIRONMENT_VARIABLES | TOOL_VARIABLES:
            continue
        if env[variable] == "":  # set but empty, as `SITEHOST_X= sitehost ...` writes: the same as unset
            continue
        path = tuple(part.lower() for part in variable[len(ENVIRONMENT_PREFIX):].split(NESTING))
        if path[0] not in known or len(path) > MAX_ENVIRONMENT_DEPTH or not all(path):
            warnings.append(f"unknown environment variable {variable} ignored (a setting is SITEHOST_<KEY>, "
                            f"tables nested with __, such as SITEHOST_SITE__NAME; others: "
                            f"{', '.join(sorted(ENVIRONMENT_VARIABLES))})")
            continue
        found[path] = (variable, env[variable])
    return found


def _apply_run_variables(settings: Settings, env: Mapping[str, str]) -> None:
    """The variables about this run rather than a setting."""
    if "SITEHOST_DISABLE" in env:
        # For one run: replaces the file's list, so `SITEHOST_DISABLE=` enables everything.
        settings.disabled = [name.strip() for name in env["SITEHOST_DISABLE"].split(",") if name.strip()]
        settings.use_stored_plugins = False
    if env.get("SITEHOST_NO_ENTRY_POINTS") == "1":
        settings.load_entry_points = False
    if env.get("SITEHOST_TRACE_PLUGINS") == "1":
        settings.trace_plugins = True
