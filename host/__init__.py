"""sitehost's public API: everything a plugin author imports comes from here.

Besides the names below, these host modules are public API for plugins: `host.args` (base
schemas for route args), `host.stash` (app.stash keys, request.state), `host.content` (the
content service, `app.content`), `host.comments` (the comments service, for a spam filter),
`host.lru` (the LRU helper), `host.commands` (`open_site` for a plugin's subcommands), `host.server_lock`
(which `sitehost serve` processes hold a database; a restore holds it exclusively), `host.auth.users` (users,
roles and application passwords; core's users routes use it like any plugin would) and
`host.testing` (pytest fixtures). A plugin reads another plugin's data through
`request.internal_get(path, **query)`, `app.content`, or a hook, never by importing it.
The app's services for plugins: `app.content`, `app.mail` (host.mail), `app.stash`,
`app.plugin_config(name)` and `app.site_secret(name)` (a random key made once per site, host.site_secrets).
A plugin that writes the site's data outside the database (a backup) makes its folders with
`make_private_folder` (0700) and an SQLite file with `prepare_sqlite_file` (0600), as the host does.
"""

from .config import load_plugin_table
from .content import ContentDeleted, ContentSaved
from .db import PRIVATE_FILE, make_private_folder, prepare_sqlite_file
from .hookspecs import hookimpl
from .registry import (AdminPage, Ability, AbilityCategory, HealthResult, HealthTest, HtmlView, MetaKey, Namespace, Page, PluginInfo,
                       PostType, Route, StartupError, Status, Taxonomy)
from .rest.response import FileBody, RawBody, RestError, RestResponse, forbidden
from .rest.response import exact_bytes
from .rest.server import decode_item, encode_item
from .users import ANONYMOUS, AnonymousUser

__all__ = [
    "AdminPage", "Ability", "AbilityCategory", "HealthResult", "HealthTest",
    "ANONYMOUS", "AnonymousUser", "ContentDeleted", "ContentSaved", "FileBody", "HtmlView", "MetaKey", "Namespace", "Page", "PluginInfo", "PostType", "RawBody", "RestError",
    "RestResponse", "Route", "StartupError", "Status", "Taxonomy", "decode_item", "encode_item", "exact_bytes", "forbidden", "hookimpl", "load_plugin_table",
    "PRIVATE_FILE", "make_private_folder", "prepare_sqlite_file",
]
