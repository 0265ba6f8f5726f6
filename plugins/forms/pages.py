"""The form in HTML: its own page (/contact-forms/ID) and `[contact-form-7 id="…"]` (or `[contact-form ...]`)
inside posts and pages.

Both post to the form's page, `POST /contact-forms/ID`, when the browser runs no JavaScript: the page
runs the feedback route itself (one code path: spam check, validation, files, rate limit, nonce,
quiz, mail) and shows the form again with the result. With JavaScript, static/forms.js sends the
same form to the feedback route and shows the answer in place.
"""

from __future__ import annotations

import re
from typing import Iterator
from urllib.parse import urlencode, urlsplit

from host import HtmlView, Page, RestRequest, client_address, linear, theme

from . import render, store
from .feedback import nonce
from .settings import settings_of

SHORTCODE = re.compile(r"\[(?P<name>contact-form(?:-7)?)\s")
# name="value", name='value' or name=value, as WordPress's shortcode_parse_atts reads them (RE2: linear time)
ATTRIBUTE = linear.pattern(r"""(?P<name>[\w-]+)\s*=\s*(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)'|(?P<bare>[^\s"']+))""")
MAX_ATTRIBUTES = 2000  # characters of one shortcode's attributes read: the rest is not a form's
FEEDBACK_ROUTE = "/forms/v1/contact-forms/{form_id}/feedback"
REFUSED_ORIGIN = "This form can only be sent from this site's own pages."


def detached_request(app, environ: dict | None = None) -> RestRequest:
    """A read-only request for the content service outside the REST pipeline (pages, rendering)."""
    environ = environ or {}
    return RestRequest(app, "GET", "/", [], {}, environ=environ,
                       base_url=app.rest_base_url(environ) if environ else app.settings.rest_prefix)


def _load(app, environ: dict, form_id: int) -> store.Form | None:
    reader = detached_request(app, environ)
    try:
        return store.load(reader, form_id)
    finally:
        reader.finish(success=True)


def form_page(app, request, form_id):
    """GET /contact-forms/ID: the form alone in the site layout (404 when it is not published);
    POST: a submission sent without JavaScript, answered with the form and its result."""
    form = _load(app, request.environ, int(form_id))
    if form is None:
        return app.render_view(HtmlView("Page not found", render.templates(app).get_template("forms_missing.html")
                                        .render(), status=404))
    if request.method == "POST":
        return _submitted(app, request, form)
    return _show(app, request, form)


def _show(app, request, form: store.Form, outcome: render.Outcome | None = None, status: int = 200,
          container_post: int = 0, headers: tuple[tuple[str, str], ...] = ()) -> str:
    user = request.user
    token = nonce(app, user.id, form.id) if settings_of(app).verify_nonce and user.is_authenticated else ""
    if token or outcome is not None or any(tag.basetype == "quiz" for tag in form.parsed.tags):
        # A quiz question, a nonce and a visitor's own values are for one visit only.
        headers = (*headers, ("Cache-Control", "no-store"))
    rest_base = app.rest_base_url(request.environ)
    urls = render.addresses(request.site_url, rest_base, form.id)
    body = render.render_form(
        app, form, **urls, container_post=container_post, nonce=token, outcome=outcome,
        back_link=container_link(app, request.environ, container_post) if container_post else "")
    head = theme.render(app, __package__, "forms_head.html",
                        {"stylesheet": render.STYLESHEET_PATH, "script": render.SCRIPT_PATH})
    item = {"id": form.id, "type": store.POST_TYPE, "link": urls["action"], "title": form.title,
            "rest_url": f"{rest_base}/forms/v1/contact-forms/{form.id}"}
    return app.render_view(HtmlView(form.title or "Contact form", body, status=status, headers=headers,
                                    item=item, head_html=head))


def container_link(app, environ: dict, post_id: int) -> str:
    """The plain permalink of the published post or page a shortcode form was sent from, which the site
    answers with (or redirects to) its page; "" for anything a visitor may not open, so an id typed into
    the hidden field reveals nothing."""
    reader = detached_request(app, environ)
    try:
        item = app.content.get(reader, post_id)
    finally:
        reader.finish(success=True)
    registered = app.registry.post_types.get(item["type"]) if item else None
    if not item or not registered or not registered[0].public or item.get("status") != "publish" \
            or item.get("password"):
        return ""
    site = app.site_url(environ)
    plain = {"page": "page_id", "post": "p", "attachment": "attachment_id"}
    if item["type"] in plain:
        return f"{site}/?{plain[item['type']]}={post_id}"
    return f"{site}/?{urlencode({'post_type': item['type'], 'p': post_id})}"


def same_site(app, environ: dict) -> bool:
    """False for a browser's post from another site's page (its Origin, else its Referer, names another
    origin); a request that names neither (not a browser) is taken, as the feedback route takes it."""
    claimed = environ.get("HTTP_ORIGIN") or environ.get("HTTP_REFERER") or ""
    if not claimed:
        return True
    parts = urlsplit(claimed)
    own = urlsplit(app.site_url(environ))
    return (parts.scheme, parts.netloc) == (own.scheme, own.netloc)


def _submitted(app, request, form: store.Form) -> str:
    """Run the feedback route on the posted body, as the page's visitor, and show its answer."""
    environ = request.environ
    if not same_site(app, environ):
        return _show(app, request, form, render.Outcome("error", REFUSED_ORIGIN), status=403)
    status, outcome, container_post, headers = _run_feedback(app, environ, form.id)
    return _show(app, request, form, outcome, status=status, container_post=container_post, headers=headers)


def _run_feedback(app, environ: dict, form_id: int) -> tuple[int, render.Outcome, int, tuple[tuple[str, str], ...]]:
    """The feedback route run on this request's body as the page's visitor: (HTTP status of the page,
    the outcome to show, the container post, headers to pass on such as a rate limit's Retry-After).

    A processed submission answers 200, or 400 when the visitor must correct it (a field or an
    unchecked acceptance box); a refused body answers the route's own status (413, 429, 400).
    """
    limit = app.settings.max_body_bytes
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = -1
    if length < 0 or length > limit:
        return 413, render.Outcome("error", f"The form is larger than the limit of {limit:,} bytes."), 0, ()
    body = environ["wsgi.input"].read(length) if length else b""
    headers = {key[5:].lower().replace("_", "-"): value for key, value in environ.items() if key.startswith("HTTP_")}
    headers["content-type"] = environ.get("CONTENT_TYPE") or ""
    headers["content-length"] = str(len(body))
    feedback = RestRequest(app, "POST", FEEDBACK_ROUTE.format(form_id=form_id), [], headers, body=body,
                           environ=environ, base_url=app.rest_base_url(environ),
                           remote_addr=client_address(app, environ) or environ.get("REMOTE_ADDR", ""))
    feedback.user = app.page_user(environ)
    status, answer_headers, data = app.rest.run_and_shape(feedback)
    posted = feedback.form if isinstance(feedback.form, dict) else {}
    container = posted.get("_forms_container_post")
    container_post = int(container) if isinstance(container, str) and container.isdigit() and len(container) < 10 \
        else 0
    passed_on = tuple((name, value) for name, value in answer_headers.items() if name == "Retry-After")
    if status != 200 or not isinstance(data, dict) or "status" not in data:
        message = data.get("message") if isinstance(data, dict) else None
        return status, render.Outcome("error", message or "The form could not be sent.", values=posted), \
            container_post, passed_on
    invalid = {item["field"]: item["message"] for item in data.get("invalid_fields") or []}
    outcome = render.Outcome(data["status"], data["message"], invalid, posted)
    return (400 if data["status"] in ("validation_failed", "acceptance_missing") else 200), outcome, \
        container_post, passed_on


def page() -> Page:
    return Page("/contact-forms/<form_id:int>", ("GET", "HEAD", "POST"), form_page, name="forms-contact-form")


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
    # Renderings are stored: the form posts to the site address, not to a request's host.
    site = app.site_address()
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
                out.append(theme.render(app, __package__, "forms_shortcode_missing.html", {"name": name}))
            else:
                counter += 1
                out.append(render.render_form(
                    app, form, **render.addresses(site, site + app.settings.rest_prefix, form.id),
                    container_post=int(item.get("id") or 0), counter=counter, with_script=True))
            position = end + 4 if alone else end
        out.append(text[position:])
    finally:
        reader.finish(success=True)
    return "".join(out)


# Core's texturize has already turned the shortcode's quotes into curly ones by the time we see it.
QUOTE_ENTITIES = ("&#8220;", "&#8221;", "&#8243;", "&#8242;", "&#8216;", "&#8217;", "&quot;", "&#039;", "&#39;")
