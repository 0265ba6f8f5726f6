"""Plugins: every installed plugin with its version, source, state, namespaces and load error.

Enable and disable go through host.plugin_state.change_plugin, the function
`sitehost plugins enable/disable` uses: the set is stored for the site in its database,
and `sitehost serve` reloads its workers when it changes. The page is templates/plugins.html.
"""

from __future__ import annotations

from markupsafe import Markup

from ..plugins import describe_unloaded
from ..plugin_state import PluginChangeRefused, change_plugin, read_stored_disabled
from ..answer import PageAnswer
from .framework import AdminRequest

ACTIONS = ("enable", "disable")


def plugins_page(page: AdminRequest):
    status = 200
    if page.method == "POST":
        name = page.form.get("plugin", "")
        enabled = page.action == "enable"
        try:
            change_plugin(page.app.settings, page.app.db.engine, name, enable=enabled)
            page.notice(page.render("plugins_notice.html", name=name, enabled=enabled, refused=None, blockers=[]))
        except PluginChangeRefused as refused:
            status = 409
            page.notice(page.render("plugins_notice.html", name=name, enabled=enabled, refused=str(refused),
                                    blockers=refused.blockers), "error")
    return PageAnswer(plugin_table(page), status)


def plugin_table(page: AdminRequest) -> Markup:
    app = page.app
    with app.db.engine.connect() as connection:
        stored = read_stored_disabled(connection)
    wanted_disabled = set(app.settings.disabled if stored is None else stored)
    rows = []
    for record in app.plugin_records:
        describe_unloaded(record)
        wanted_enabled = record.name not in wanted_disabled
        rows.append({"record": record, "wanted_enabled": wanted_enabled, "pending": wanted_enabled != record.enabled,
                     "action": "disable" if wanted_enabled else "enable"})
    return page.render("plugins.html", rows=rows)
