"""Services: what one plugin offers others as typed calls, reached as attributes of the app.

    item = request.app.content.get(request, 5)            # host.content.ContentService
    comment = request.app.comments.get(request, 7)        # host.comments.CommentService
    author = request.app.users.profile(request, 2)        # host.users.UserService

A plugin provides a service by answering `register_services(app)` with {name: implementation};
the implementation has the methods of the service's Protocol (SERVICES names them). The host
keeps it for the life of the app and drops it with its plugin (a plugin that fails to start).

A plugin that uses a service lists its provider in `PluginInfo(requires=...)`, the one place a
dependency is declared: the app refuses the access otherwise (ServiceNotRequired, raised where
the plugin's code asks for `app.content`), so a plugin that forgot it fails its own tests rather
than a site where the provider is disabled. The asking code belongs to a plugin when its module is
the plugin's module or, for a plugin that is a package, inside that package. Host code and tests
may use every service. While no
plugin provides a service, asking for it raises ServiceUnavailable, which names the plugin that
provides it.

The host's own services (`app.mail`, `app.jobs`, `app.storage`) are always there and need no
requirement.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import CodeType, ModuleType
from typing import Any, Iterable

from .registry import StartupError


@dataclass(frozen=True)
class ServiceSpec:
    """A service plugins may offer: its name (the app attribute whose type is its Protocol) and the
    built-in plugin that provides it."""

    name: str
    provider: str


SERVICES: dict[str, ServiceSpec] = {spec.name: spec for spec in (
    ServiceSpec("content", "core"),  # host.content.ContentService
    ServiceSpec("comments", "core"),  # host.comments.CommentService
    ServiceSpec("users", "core"),  # host.users.UserService
)}


class ServiceUnavailable(RuntimeError):
    """No enabled plugin provides the service asked for."""


class ServiceNotRequired(RuntimeError):
    """A plugin asked for a service of a plugin it does not list in `requires=`."""


class Services:
    """The services of one app: {name: (implementation, provider)}, and who may use them."""

    def __init__(self) -> None:
        self._provided: dict[str, tuple[Any, str]] = {}
        self._plugin_of_code: dict[CodeType, str] = {}  # the plugin whose module a caller's code is in ("" none)
        self._packages: list[tuple[str, str, bool]] = []  # (module name, plugin, is a package)
        self._requires: dict[str, frozenset[str]] = {}

    def know_plugins(self, plugins: Iterable[tuple[str, ModuleType, Iterable[str]]]) -> None:
        """The enabled plugins: (name, module, requires). Called again whenever the set changes."""
        plugins = list(plugins)
        # A plugin given as an object (a test's class instance) has no module of its own to attribute code to.
        self._packages = [(module.__name__, name, hasattr(module, "__path__")) for name, module, _requires in plugins
                          if isinstance(module, ModuleType)]
        self._requires = {name: frozenset(requires) for name, _module, requires in plugins}
        self._plugin_of_code = {}

    def provide(self, owner: str, provided: dict[str, Any]) -> None:
        for name, implementation in provided.items():
            if name not in SERVICES:
                raise StartupError(f"{owner!r} provides an unknown service {name!r} (known: {', '.join(SERVICES)})")
            if name in self._provided:
                raise StartupError(f"service {name!r} provided by {self._provided[name][1]!r} and {owner!r}")
            self._provided[name] = (implementation, owner)

    def withdraw(self, owner: str) -> None:
        """Forget what `owner` provides (it failed to start, or the app closes)."""
        for name in [name for name, (_implementation, provider) in self._provided.items() if provider == owner]:
            del self._provided[name]

    def clear(self) -> None:
        self._provided.clear()

    def provider(self, name: str) -> str | None:
        found = self._provided.get(name)
        return found[1] if found else None

    def get(self, name: str, depth: int = 1) -> Any:
        """The service `name` for the code `depth` frames above this one (2 from an app attribute), whose
        plugin, if it is in one, must be the provider or require it."""
        found = self._provided.get(name)
        if found is None:
            raise ServiceUnavailable(f"no {name} service: the {SERVICES[name].provider} plugin provides it, and it "
                                     "is disabled or has not started")
        implementation, provider = found
        frame = sys._getframe(depth)
        user = self._plugin_of_code.get(frame.f_code)  # one module lookup per call site
        if user is None:
            user = self._plugin_of_code[frame.f_code] = self._plugin_of(frame.f_globals.get("__name__", ""))
        if user and user != provider and provider not in self._requires.get(user, ()):
            raise ServiceNotRequired(f"plugin {user!r} uses the {name} service of plugin {provider!r} without "
                                     f"requiring it: add {provider!r} to requires= of its PluginInfo")
        return implementation

    def _plugin_of(self, module_name: str) -> str:
        for package, plugin, is_package in self._packages:
            if module_name == package or (is_package and module_name.startswith(package + ".")):
                return plugin
        return ""
