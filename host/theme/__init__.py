"""The default theme: the site layout every public page renders in, and templates plugins share.

`render_page` wraps a page's body in `layout.html` (skip link, header with the site name and
menu, `<main>`, footer) and links `theme.css` from `/static/theme/`. Pages of plugins build their
body with `render(app, package, template, context)`, which looks for the template first in the
operator's folder (`[site] templates_dir`), then in the plugin package's own `templates/`, then
here: an operator replaces any template by putting a file of the same name in that folder.
Autoescape is on and undefined names are errors.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup

THEME_FOLDER = Path(__file__).resolve().parent
STATIC_FOLDER = THEME_FOLDER / "static"
STATIC_NAME = "theme"  # served at /static/theme/<path>; no plugin may take this name for its own files


@lru_cache(maxsize=64)
def _environment(override_folder: str, package: str) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if override_folder:
        loaders.append(jinja2.FileSystemLoader(override_folder))
    if package:
        try:
            loaders.append(jinja2.PackageLoader(package, "templates"))
        except ValueError:  # a package without a templates folder still gets the theme's
            pass
    loaders.append(jinja2.FileSystemLoader(str(THEME_FOLDER / "templates")))
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              auto_reload=False)  # compiled once per process: no file checks per render


def override_folder(app) -> str:
    """The operator's template folder (`[site] templates_dir`), '' when none is set."""
    return str(app.settings.site.get("templates_dir") or "")


def environment(app, package: str = "") -> jinja2.Environment:
    return _environment(override_folder(app), package)


def render(app, package: str, template: str, context: dict) -> Markup:
    """`template` of `package` (a plugin's `__package__`), the operator's copy winning."""
    return Markup(environment(app, package).get_template(template).render(**context))


@lru_cache(maxsize=8)
def static_version(name: str) -> str:
    """A short digest of a theme file, so its address changes when the file does (long browser caching)."""
    return hashlib.sha1((STATIC_FOLDER / name).read_bytes()).hexdigest()[:10]


def menu_entries(app, request) -> list[dict]:
    """The header menu: every plugin's `site_menu_entries`, sorted by order then title, with site-relative
    paths made absolute and the entry of the current address marked."""
    site = app.site_url(request.environ)
    entries = [entry for answer in app.hook.site_menu_entries(app=app, request=request) if answer for entry in answer]
    entries.sort(key=lambda entry: (entry.order, entry.title.casefold()))
    query = request.environ.get("QUERY_STRING", "")
    current = site + (request.path or "/") + (f"?{query}" if query else "")
    menu = []
    for entry in entries:
        url = site + entry.url if entry.url.startswith("/") else entry.url
        menu.append({"title": entry.title, "url": url, "current": url.rstrip("/") == current.rstrip("/")})
    return menu


def render_page(app, request, title: str, body_html: str, head_html: str = "") -> str:
    """A whole page in the theme layout; `body_html` and `head_html` are trusted HTML of the caller's templates."""
    site = app.site_url(request.environ)
    identity = app.site_identity()
    stylesheets = [f"{site}/static/{STATIC_NAME}/theme.css?ver={static_version('theme.css')}"]
    stylesheets.extend(url for answer in app.hook.site_stylesheets(app=app, request=request) if answer for url in answer)
    context = {
        "title": title, "body_html": Markup(body_html), "head_html": Markup(head_html),
        "site_name": identity["name"], "site_description": identity["description"], "site_url": site,
        "rest_root": app.rest_base_url(request.environ) + "/", "stylesheets": stylesheets,
        "menu": menu_entries(app, request),
    }
    return environment(app).get_template("layout.html").render(**context) + "\n"
