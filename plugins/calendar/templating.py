"""Jinja2 templates of the calendar's public pages, from the plugin's own `templates/` folder.

Autoescape is on and undefined names are errors (a misspelt variable fails the page's test
instead of showing nothing), as the host's admin templates do.
"""

from __future__ import annotations

from functools import lru_cache

import jinja2
from markupsafe import Markup


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(template: str, context: dict) -> Markup:
    return Markup(environment().get_template(template).render(**context))
