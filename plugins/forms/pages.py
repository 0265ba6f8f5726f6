"""The form in HTML: its own page (/contact-forms/ID) and `[contact-form-7 id="…"]` inside posts and pages."""

from __future__ import annotations

import re
from typing import Iterator

import bottle

from host import Page, linear
from host.rest.request import RestRequest

from . import render, store
from .feedback import nonce
from .settings import settings_of

SHORTCODE = re.compile(r"\[(?P<name>contact-form(?:-7)?)\s")
# name="value", name='value' or name=value, as WordPress's shortcode_parse_atts reads them (RE2: linear time)
ATTRIBUTE = linear.pattern(r"""(?P<name>[\w-]+)\s*=\s*(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)'|(?P<bare>[^\s"']+))""")
MAX_ATTRIBUTES = 2000  # characters of one shortcode's attributes read: the rest is not a form's


def detached_request(app, environ: dict | None = None) -> RestRequest:
    """A read-only request for the content service outside the REST pipeline (pages, rendering)."""
    environ = environ or {}
    return RestRequest(app, "GET", "/", [], {}, environ=environ,
                       base_url=app.rest_base_url(environ) if environ else app.settings.rest_prefix)


def form_page(app, request, form_id):
    """GET /contact-forms/ID: the form alone in the site layout (404 when it is not published)."""
    reader = detached_request(app, request.environ)
    try:
        form = store.load(reader, int(form_id))
    finally:
        reader.finish(success=True)
    if form is None:
        bottle.response.status = 404
        return app.render_html_page("Page not found", "<p>There is no such form.</p>")
    user = app.page_user(request.environ)
    token = nonce(app, user.id, form.id) if settings_of(app).verify_nonce and user.is_authenticated else ""
    bottle.response.set_header("Cache-Control", "no-store")  # a quiz question and a nonce are for one visit
    body = render.render_form(app, form, app.rest_base_url(request.environ), 0, 1, token)
    return app.render_html_page(form.title or "Contact form", body)


def page() -> Page:
    return Page("/contact-forms/<form_id:int>", ("GET", "HEAD"), form_page, name="forms-contact-form")


def shortcodes(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end after the "]", name, attributes) of each `[contact-form-7 ...]` or `[contact-form ...]`
    in `text`: the reference registers both names for the same form tag."""
    position = 0
    while True:
        found = SHORTCODE.search(text, position)
        if found is None:
            return
        end = text.find("]", found.end())
        if end == -1:
            return
        yield found.start(), end + 1, found.group("name"), text[found.end():end]
        position = end + 1


def attributes_of(attributes: str) -> dict[str, str]:
    """A shortcode's attributes (`id="12" title="Contact form 1"`), quotes as written or as texturize made them."""
    for entity in QUOTE_ENTITIES:
        attributes = attributes.replace(entity, '"')
    return {match.group("name").lower(): next(value for value in match.group("double", "single", "bare")
                                              if value is not None)
            for match in ATTRIBUTE.finditer(attributes[:MAX_ATTRIBUTES])}


def replace_shortcodes(app, item: dict, text: str) -> str:
    """`[contact-form-7 id="…" title="…"]` and `[contact-form id="…"]` become the rendered form; one pass.
    The form is found as the reference finds it (`store.find`: the hash's start, the id, the title)."""
    if "[contact-form" not in text:
        return text
    out: list[str] = []
    position = 0
    counter = 0
    reader = detached_request(app)
    try:
        for start, end, name, attributes in shortcodes(text):
            if start < position:
                continue
            named = attributes_of(attributes)
            # A shortcode alone in its paragraph: the form replaces the paragraph (a <form> inside a
            # <p> is invalid HTML; core's autop wrapped it), as WordPress's shortcode_unautop does.
            alone = text[max(position, start - 3):start] == "<p>" and text[end:end + 4] == "</p>"
            out.append(text[position:start - 3] if alone else text[position:start])
            form = store.find(reader, named.get("id", ""), named.get("title", ""))
            if form is None:
                out.append(f'<p class="forms-missing">[{name} 404 "Not Found"]</p>')
            else:
                counter += 1
                # Renderings are stored: the form posts to the site address, not to a request's host.
                out.append(render.render_form(app, form, app.site_address() + app.settings.rest_prefix,
                                              int(item.get("id") or 0), counter))
            position = end + 4 if alone else end
        out.append(text[position:])
    finally:
        reader.finish(success=True)
    return "".join(out)


# Core's texturize has already turned the shortcode's quotes into curly ones by the time we see it.
QUOTE_ENTITIES = ("&#8220;", "&#8221;", "&#8243;", "&#8242;", "&#8216;", "&#8217;", "&quot;", "&#039;", "&#39;")
