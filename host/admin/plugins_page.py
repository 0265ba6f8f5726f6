"""Plugins: every installed plugin with its version, source, state, namespaces and load error.

Enable and disable go through host.plugin_state.change_plugin, the function
`sitehost plugins enable/disable` uses: the set is stored for the site in its database,
and `sitehost serve` reloads its workers when it changes.
"""

from __future__ import annotations

from ..plugins import describe_unloaded
from ..plugin_state import PluginChangeRefused, change_plugin, read_stored_disabled
from .framework import AdminAnswer, AdminRequest, escape, hidden, table

ACTIONS = ("enable", "disable")


def plugins_page(page: AdminRequest):
    status = 200
    if page.method == "POST":
        name = page.form.get("plugin", "")
        try:
            change_plugin(page.app.settings, page.app.db.engine, name, enable=page.action == "enable")
            page.notice(f"<p><strong>{escape(name)}</strong> {'enabled' if page.action == 'enable' else 'disabled'}. "
                        "The site reloads in a moment; requests in progress are not interrupted.</p>")
        except PluginChangeRefused as refused:
            status = 409
            blockers = "".join(f"<li>{escape(blocker)}</li>" for blocker in refused.blockers)
            message = str(refused)
            page.notice(f"<p>{escape(message[:1].upper() + message[1:])}. Nothing was changed.</p>"
                        + (f"<ul>{blockers}</ul>" if blockers else ""), "error")
    body = plugin_table(page)
    return AdminAnswer(body, status)


def plugin_table(page: AdminRequest) -> str:
    app = page.app
    with app.db.engine.connect() as connection:
        stored = read_stored_disabled(connection)
    wanted_disabled = set(app.settings.disabled if stored is None else stored)
    rows = []
    for record in app.plugin_records:
        describe_unloaded(record)
        wanted_enabled = record.name not in wanted_disabled
        state = record.state
        pending = wanted_enabled != record.enabled
        state_html = f"<span class=\"status status-{escape(state)}\">{escape(state)}</span>"
        if pending:
            state_html += f" <span class=\"muted\">({'enabling' if wanted_enabled else 'disabling'}: reloading)</span>"
        action = "disable" if wanted_enabled else "enable"
        button = (f"<form method=\"post\" action=\"/admin/plugins\" aria-label=\"{action.title()} {escape(record.name)}\">"
                  f"{page.csrf_field()}{hidden('action', action)}{hidden('plugin', record.name)}"
                  f"<button type=\"submit\" class=\"{'danger' if action == 'disable' else ''}\">"
                  f"{action.title()}<span class=\"visually-hidden\"> {escape(record.name)}</span></button></form>")
        requires = ", ".join(record.requires)
        rows.append([
            f"<strong>{escape(record.name)}</strong>"
            + (f"<br><span class=\"muted\">{escape(record.description)}</span>" if record.description else "")
            + (f"<br><span class=\"muted\">requires {escape(requires)}</span>" if requires else ""),
            escape(record.version), escape(record.source), state_html,
            "<br>".join(f"<code>{escape(namespace)}</code>" for namespace in record.namespaces) or "&ndash;",
            escape(record.error) if record.error else "&ndash;", button,
        ])
    return ("<p>The admin area, sign-in and outgoing mail are part of the host and are always on.</p>"
            + table(["Plugin", "Version", "Source", "State", "Namespaces", "Load error", "Change"], rows)
            )
