"""Per-app and per-request state that plugins keep, instead of module-level dicts keyed by app.

    TODAY = StashKey[Menu]("lunch.today")

    @hookimpl
    def startup(app):
        app.stash[TODAY] = read_menu(app)

    def today(app) -> Menu:
        return app.stash[TODAY]

`app.stash` exists from the moment the app is built (so startup hooks can fill it) and is
emptied after the `shutdown` hooks ran, like pytest's `config.stash`. A key is an object, so
two plugins can never collide on a name, and its type parameter tells a type checker what the
value is. Per-request state goes on `request.state` (attributes, dropped with the request).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

if TYPE_CHECKING:  # the services' keys below: annotations only
    from .jobs.service import JobService
    from .mail.outbox import MailService
    from .storage import Storage

T = TypeVar("T")


class StashKey(Generic[T]):
    """A key of `app.stash`; `name` is shown in errors and reprs only."""

    __slots__ = ("name",)

    def __init__(self, name: str = ""):
        self.name = name

    def __repr__(self) -> str:
        return f"StashKey({self.name!r})"


class Stash:
    """Values by StashKey. Reads take no lock; `setdefault` creates a value once across threads."""

    def __init__(self) -> None:
        self._values: dict[StashKey[Any], Any] = {}
        self._lock = threading.Lock()

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._values[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        try:
            return self._values[key]
        except KeyError:
            raise KeyError(f"{key!r} is not in the stash (is its plugin enabled and started?)") from None

    def get(self, key: StashKey[T], default: T | None = None) -> T | None:
        return self._values.get(key, default)

    def setdefault_by(self, key: StashKey[T], create: Callable[[], T]) -> T:
        """The value under `key`, made by `create()` on first use (once, whatever the threads)."""
        found = self._values.get(key)
        if found is None:
            with self._lock:
                found = self._values.get(key)
                if found is None:
                    found = self._values[key] = create()
        return found

    def pop(self, key: StashKey[T], default: T | None = None) -> T | None:
        return self._values.pop(key, default)

    def __contains__(self, key: StashKey[Any]) -> bool:
        return key in self._values

    def clear(self) -> None:
        self._values.clear()


class RequestState:
    """`request.state`: attributes a plugin sets for the rest of one request (caches, primed objects).

    Name attributes after the plugin (`core_items`), as other plugins share the object.
    """

    def get(self, name: str, default: Any = None) -> Any:
        return self.__dict__.get(name, default)

    def setdefault(self, name: str, default: Any) -> Any:
        return self.__dict__.setdefault(name, default)

    def update(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"RequestState({', '.join(sorted(vars(self)))})"


# The host's services, kept here so that `app.mail`, `app.jobs` and `app.storage` (host.app) reach
# them without importing the services' packages, whose commands build an app (host.commands).
MAIL_SERVICE: StashKey[MailService] = StashKey("host.mail")
JOBS_SERVICE: StashKey[JobService] = StashKey("host.jobs")
STORAGE: StashKey[Storage] = StashKey("host.storage")
