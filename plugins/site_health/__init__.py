"""site-health/v1 and `sitehost doctor`: is this site well? Tests from every plugin, in one place.

The host's own tests (database, uploads, plugins, loopback, Authorization header, HTTPS) are
registered here through `register_health_tests`, the hook any plugin uses to add its own.
"""

from __future__ import annotations

from host import Namespace, PluginInfo, hookimpl

from .settings import SiteHealthConfigSchema
from .cli import doctor

PLUGIN = PluginInfo(name="site_health", version="0.1.0", settings=SiteHealthConfigSchema,
                    description="Site health tests for administrators, and `sitehost doctor`")


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_capabilities():
    from . import routes

    return {routes.CAPABILITY: ["administrator"]}


@hookimpl
def register_health_tests():
    from . import checks

    return checks.HEALTH_TESTS


@hookimpl
def register_routes(app):
    from . import routes

    return routes.routes(app)


@hookimpl
def register_commands(cli):
    cli.add_command(doctor)
