"""Jinja2 templates for admin pages: each plugin keeps its own in its package's `templates/` folder.

`AdminRequest.render("comments_queue.html", ...)` looks first in the folder of the package whose
handler serves the page, then in the host's `host/admin/templates/`, which holds `admin/macros.html`
(forms with the CSRF token, labelled fields, tables, pagination) for every page to import. Autoescape is
on and undefined names are errors, so a misspelt variable fails the page's test instead of
showing an empty cell. One environment per package, made on first use.
"""

from __future__ import annotations

import importlib
import sys
from functools import lru_cache

import jinja2
from markupsafe import Markup

HOST_TEMPLATES = jinja2.PackageLoader("host.admin", "templates")


@lru_cache(maxsize=64)
def environment(package: str) -> jinja2.Environment:
    """The template environment of `package` (its own templates first, then the host's)."""
    loaders: list[jinja2.BaseLoader] = []
    if package and package != "host.admin":
        try:
            loaders.append(jinja2.PackageLoader(package, "templates"))
        except ValueError:  # a plugin without a templates folder still gets the host's
            pass
    loaders.append(HOST_TEMPLATES)
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def package_of(handler) -> str:
    """The package a page handler belongs to (its module's package), where its templates live."""
    module = sys.modules.get(handler.__module__) or importlib.import_module(handler.__module__)
    return module.__package__ or handler.__module__


def render(package: str, template: str, context: dict) -> Markup:
    return Markup(environment(package).get_template(template).render(**context))
