"""The oembed plugin's templates (its templates/ folder), autoescaped."""

from __future__ import annotations

import jinja2

TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                               undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
