"""Who is asking, and the users service.

The anonymous visitor asks until an `authenticate` hook says otherwise. Signed-in users come
from host.auth; they share this small interface, which is all that the pipeline and plugins
rely on.

The users service shows users as the site shows them to its visitors; the content plugin (core)
provides it (`register_services`, host.services), and a plugin that lists "core" in `requires=`
reaches it as `app.users`. Accounts themselves (create, roles, passwords) are the host's
(host.auth.users).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .rest.request import RestRequest


class AnonymousUser:
    """A visitor who has not signed in: no capabilities at all."""

    id = 0
    login = ""
    is_authenticated = False
    roles: tuple[str, ...] = ()
    application_password_uuid = None

    def can(self, capability: str, *args) -> bool:
        return False

    def __repr__(self) -> str:
        return "AnonymousUser()"


ANONYMOUS = AnonymousUser()


class UserService(Protocol):
    """Stable signatures; keyword arguments may be added, never removed or renamed."""

    def profile(self, request: RestRequest, user_id: int, *, user: Any = None) -> dict | None:
        """The user as core/v2/users shows them in the view context, without `_links`: id, name, url,
        description, link (their author page), slug, avatar_urls (when the site has an avatar host) and
        meta. None when there is no such user. Reads as the system; with `user`, also None when `user`
        may not see them (core/v2/users' rule: one's own profile, users one may edit or list, and anyone
        with published items)."""
