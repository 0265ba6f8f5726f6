"""sitehost's public API: the names below, and the host modules listed with them in the plugin guide.

The one list of what a plugin may import is docs/plugin-guide.md, section "The public surface"
(`host` and a short, named list of modules: host.args, host.stash, host.content, ...); import-linter's
contracts in pyproject.toml hold plugins to it.
Services are typed attributes of the app, one way for each: core's `app.content`
(host.content.ContentService), `app.comments` (host.comments.CommentService) and `app.users`
(host.users.UserService), which a plugin uses only when it lists "core" in `requires=` (the app
refuses them otherwise, host.services); the host's own `app.mail` (host.mail), `app.jobs`
(host.jobs) and `app.storage` (host.storage); and `app.stash`, `app.plugin_settings(name)` (the typed `[plugins.NAME]` table,
loaded through the plugin's `PluginSettings` schema), `app.plugin_config(name)` and
`app.site_secret(name)` (a random key made once per site). A plugin reads another plugin's data
through those services or a hook, and `request.internal_get(path, **query)` only where it wants
that route's REST answer; never by importing it.
"""

# The public names are loaded when first used (PEP 562 `__getattr__`), not when `host` is imported:
# `import host.cli` then costs no SQLAlchemy, marshmallow or waitress, so `sitehost --help` and each
# command start fast; `from host import Route` loads host.registry at that moment, as before.
_PUBLIC = {
    "ConfigError": "config", "PluginSettings": "config", "ContentDeleted": "content", "ContentSaved": "content",
    "PRIVATE_FILE": "db", "make_private_folder": "db", "prepare_sqlite_file": "db", "hookimpl": "hookspecs",
    **dict.fromkeys(("AdminPage", "Ability", "AbilityCategory", "HealthResult", "HealthTest", "HtmlView", "MenuEntry",
                     "MetaKey", "Namespace", "Page", "PluginInfo", "PostType", "Route", "StartupError", "Status", "Taxonomy",
                     "WRITE_KINDS"),
                    "registry"),
    **dict.fromkeys(("FileBody", "RawBody", "RestError", "RestResponse", "forbidden", "exact_bytes", "invalid_param"),
                    "rest.response"),
    "ParamError": "rest.validation",
    "decode_item": "rest.server", "encode_item": "rest.server", "ANONYMOUS": "users", "AnonymousUser": "users",
    "RestRequest": "rest.request", "Request": "request", "PageRequest": "request",
    "PageAnswer": "answer", "redirect": "answer", "not_found": "answer", "client_address": "proxies", "basic_credentials": "auth",
    "Kept": "kept", "create_app": "app", "openapi_document": "openapi", "schema_report": "health",
}


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'host' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = [
    "AdminPage", "Ability", "AbilityCategory", "HealthResult", "HealthTest",
    "ANONYMOUS", "AnonymousUser", "ConfigError", "ContentDeleted", "ContentSaved", "FileBody", "HtmlView", "MenuEntry", "MetaKey", "Namespace", "Page", "ParamError", "PluginInfo", "PostType", "RawBody", "RestError",
    "RestResponse", "Route", "StartupError", "Status", "Taxonomy", "WRITE_KINDS", "decode_item", "encode_item", "exact_bytes", "forbidden", "hookimpl", "invalid_param", "PluginSettings",
    "PRIVATE_FILE", "make_private_folder", "prepare_sqlite_file",
    "Request", "PageRequest", "PageAnswer", "redirect", "not_found",
    "RestRequest", "client_address", "basic_credentials", "Kept", "create_app", "openapi_document",
    "schema_report",
]
