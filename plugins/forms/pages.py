"""The form in HTML: its own page (/contact-forms/ID) and `[contact-form id="ID"]` inside posts and pages."""

from __future__ import annotations

import bottle

from host import Page
from host.rest.request import RestRequest

from . import render, store
from .feedback import nonce
from .settings import settings_of

SHORTCODE = "[contact-form "


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


def replace_shortcodes(app, item: dict, text: str) -> str:
    """`[contact-form id="12"]` (title=... ignored) becomes the rendered form; one pass."""
    if SHORTCODE not in text:
        return text
    out: list[str] = []
    position = 0
    counter = 0
    reader = detached_request(app)
    try:
        while True:
            start = text.find(SHORTCODE, position)
            if start == -1:
                out.append(text[position:])
                break
            end = text.find("]", start)
            if end == -1:
                out.append(text[position:])
                break
            form_id = _id_attribute(text[start + len(SHORTCODE):end])
            # A shortcode alone in its paragraph: the form replaces the paragraph (a <form> inside a
            # <p> is invalid HTML; core's autop wrapped it), as WordPress's shortcode_unautop does.
            alone = text[max(position, start - 3):start] == "<p>" and text[end + 1:end + 5] == "</p>"
            out.append(text[position:start - 3] if alone else text[position:start])
            form = store.load(reader, form_id) if form_id else None
            if form is None:
                out.append('<p class="forms-missing">[contact-form 404 "Not Found"]</p>')
            else:
                counter += 1
                # Renderings are stored: the form posts to the site address, not to a request's host.
                out.append(render.render_form(app, form, app.site_address() + app.settings.rest_prefix,
                                              int(item.get("id") or 0), counter))
            position = end + 5 if alone else end + 1
    finally:
        reader.finish(success=True)
    return "".join(out)


# Core's texturize has already turned the shortcode's quotes into curly ones by the time we see it.
QUOTE_ENTITIES = ("&#8220;", "&#8221;", "&#8243;", "&#8242;", "&#8216;", "&#8217;", "&quot;", "&#039;", "&#39;")


def _id_attribute(attributes: str) -> int | None:
    for entity in QUOTE_ENTITIES:
        attributes = attributes.replace(entity, '"')
    for word in attributes.split():
        name, equals, value = word.partition("=")
        if name == "id" and equals:
            value = value.strip("\"'")
            if value.isdigit() and len(value) < 10:
                return int(value)
    return None
