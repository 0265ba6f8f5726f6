"""Built-in plugins, in load order: {plugin name: module}. The name is also the folder name."""

BUILTIN: dict[str, str] = {
    "core": "plugins.core",
    "cache": "plugins.cache",
    "oembed": "plugins.oembed",
    "site_health": "plugins.site_health",
    "block_editor": "plugins.block_editor",
    "abilities": "plugins.abilities",
    "backup": "plugins.backup",
    "spam": "plugins.spam",
    "lms": "plugins.lms",
    "builder": "plugins.builder",
    "forms": "plugins.forms",
    "newsletter": "plugins.newsletter",
    "calendar": "plugins.calendar",
    "wordpress_migrate": "plugins.wordpress_migrate",
}
