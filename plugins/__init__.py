"""Built-in plugins, in load order: {plugin name: module}. The name is also the folder name."""

BUILTIN: dict[str, str] = {
    "core": "plugins.core",
    "cache": "plugins.cache",
    "oembed": "plugins.oembed",
    "calendar": "plugins.calendar",
}
