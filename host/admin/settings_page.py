"""Settings: the `[site]` table of sitehost.toml (no REST `settings` route exists yet), read-only."""

from __future__ import annotations

import json

from ..config import SiteSettings
from .framework import AdminRequest, escape, table


def settings_page(page: AdminRequest) -> str:
    site = page.app.settings.site
    descriptions = {name: (field.metadata or {}).get("description", "") for name, field in SiteSettings().fields.items()}
    rows = [[f"<code>{escape(name)}</code>", f"<code>{escape(json.dumps(value, ensure_ascii=False))}</code>",
             escape(descriptions.get(name, ""))] for name, value in sorted(site.items())]
    config = page.app.settings.config_file or "sitehost.toml"
    return ("<p>The site's settings come from the <code>[site]</code> table of "
            f"<code>{escape(config)}</code>. Change them there and restart the site; the REST API has no "
            "settings route yet to change them from here.</p>"
            + table(["Setting", "Value", "Meaning"], rows, caption="[site]"))
