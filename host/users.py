"""Who is asking: the anonymous visitor, until an `authenticate` hook says otherwise.

Signed-in users come from host.auth; they share this small interface, which is all that
the pipeline and plugins rely on.
"""

from __future__ import annotations


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
