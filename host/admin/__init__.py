"""The operator area at /admin/: dashboard, plugins, users, profile and settings pages.

An essential part of the host (never disabled, so no one can switch off the page that
switches plugins on). It registers its pages through `register_admin_pages` like any
plugin, and reads plugins only through REST routes run as the signed-in user
(`AdminRequest.rest`), never by importing them. host.admin.framework has the sign-in,
CSRF and layout; each page is one module here.
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..registry import AdminPage, Page

__all__ = ["ADMIN_PATH", "AdminRequest"]


def __getattr__(name: str):
    """The framework's public names, loaded when first used (PEP 562): it imports bottle and the
    users service, which `sitehost --help` has no use for."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import framework

    return getattr(framework, name)


@hookimpl
def register_pages(app):
    from .framework import ADMIN_PATH, admin_dispatch, admin_root

    methods = ("GET", "POST")
    return [Page(ADMIN_PATH, methods, admin_root, name="admin-root"),
            Page(ADMIN_PATH + "/", methods, admin_root, name="admin"),
            Page(ADMIN_PATH + "/<path:path>", methods, admin_dispatch, name="admin-page")]


@hookimpl
def register_admin_pages(app):
    from . import dashboard, plugins_page, profile, settings_page, users_page

    return [
        AdminPage("Dashboard", "", dashboard.dashboard),
        AdminPage("Plugins", "plugins", plugins_page.plugins_page, actions=plugins_page.ACTIONS),
        AdminPage("Users", "users", users_page.users_page, actions=users_page.ACTIONS),
        AdminPage("Settings", "settings", settings_page.settings_page, actions=settings_page.ACTIONS),
        AdminPage("Your profile", "profile", profile.profile_page, capability="", actions=profile.ACTIONS),
    ]
