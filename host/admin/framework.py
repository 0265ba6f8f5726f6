"""The admin area's request handling: sign-in, sessions, CSRF, capabilities, layout and form helpers.

Every page is an `AdminPage` in `app.registry.admin_pages` (the host's own and those plugins
add through `register_admin_pages`); one dispatcher serves `/admin/...`:

- no session: GET goes to the sign-in page (303), POST is refused (403);
- a user without the page's capability gets 403; a POST whose CSRF token is not the session's
  gets 403, and a POST `action` the page does not declare gets 400, before the handler runs;
- answers carry the authorize page's security headers (CSP with `frame-ancestors 'self'` and
  `form-action 'self'`, nosniff) and `Cache-Control: no-store`.

Sign-in is the authorize page's (host.auth.pages.check_sign_in, with the sign-in limits):
the same server-side session cookie, HttpOnly and SameSite=Lax.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Sequence
from urllib.parse import quote

import bottle
from markupsafe import Markup

from ..auth import sessions
from ..auth.pages import BASE_CSP, SignInRefused, check_sign_in
from ..proxies import client_address
from . import templating
from .style import STYLESHEET
from ..rest.request import RestRequest

log = logging.getLogger("sitehost.admin")

ADMIN_PATH = "/admin"
SIGN_IN = "sign-in"
SIGN_OUT = "sign-out"
STYLESHEET_PATH = "style.css"
_SEGMENT = re.compile(r"^[a-z0-9-]{0,64}$")
MAX_FIELD_CHARS = 10000  # longer form values are cut: nothing an operator types needs more
ADMIN_HEADERS = {"Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-store",
                 "Content-Security-Policy": BASE_CSP, "X-Content-Type-Options": "nosniff",
                 "X-Frame-Options": "SAMEORIGIN", "Referrer-Policy": "same-origin"}


@dataclass
class AdminAnswer:
    """A handler's answer when the status is not 200 (a field error is 400, a refused change 409)."""

    body_html: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class AdminRequest:
    """What a page handler gets: the app, the signed-in user, the form and helpers to write forms."""

    def __init__(self, app, request, user, csrf: str, page, subpath: str):
        self.app = app
        self.request = request
        self.environ = request.environ
        self.user = user
        self.csrf = csrf
        self.page = page
        self.subpath = subpath
        self.method = request.method
        raw = request.forms.decode() if request.method == "POST" else {}
        self.form: dict[str, str] = {key: str(raw.get(key, ""))[:MAX_FIELD_CHARS] for key in raw.keys()}
        self.action = self.form.get("action", "")
        self.field_errors: dict[str, str] = {}
        self.notices: list[tuple[str, str]] = []

    # --- URLs and values -----------------------------------------------------------------

    def url(self, *parts: Any) -> str:
        segments = [self.page.path, *(str(part) for part in parts)]
        return ADMIN_PATH + "/" + "/".join(quote(segment, safe="") for segment in segments if segment != "")

    @property
    def site_url(self) -> str:
        return self.app.site_url(self.environ)

    @property
    def client_address(self) -> str:
        return client_address(self.app, self.environ)

    def value(self, name: str, default: str = "") -> str:
        """The submitted value of a field (forms keep what was typed after an error), else `default`."""
        return self.form.get(name, default) if self.method == "POST" else default

    def error(self, name: str, message: str) -> None:
        self.field_errors[name] = message

    def notice(self, text: str, kind: str = "success") -> None:
        """A message at the top of the page: kind is success, error or secret (shown once)."""
        self.notices.append((kind, text))

    # --- REST as the signed-in user --------------------------------------------------------

    def rest(self, method: str, path: str, body: dict | None = None, **query: Any):
        """Run a REST route of this site as the signed-in user; an InternalResponse (status, headers, data).

        Pages read other plugins this way (never by importing them): `page.rest("GET", "/cache/v1/status")`.
        """
        parent = RestRequest(self.app, "GET", "/", [], {}, environ=self.environ,
                             base_url=self.app.rest_base_url(self.environ), remote_addr=self.client_address)
        parent.user = self.user
        try:
            return parent.internal_request(method, path, body=body, **query)
        finally:
            parent.finish(success=True)

    def has_namespace(self, namespace: str) -> bool:
        return namespace in self.app.registry.namespaces

    # --- templates -------------------------------------------------------------------------

    def render(self, template: str, **context: Any) -> Markup:
        """The page body from a Jinja2 template in the handler's own package `templates/` folder.

        `page` (this request) is always in the context, for `admin/macros.html`'s forms and fields.
        """
        return templating.render(templating.package_of(self.page.handler), template, {"page": self, **context})

    # --- HTML helpers --------------------------------------------------------------------

    def csrf_field(self) -> str:
        return hidden("csrf_token", self.csrf)

    def form_html(self, action: str, inner: str, submit: str, *, url: str | None = None, danger: bool = False,
                  inline: bool = False, label: str = "", detail: str = "") -> str:
        """A POST form with the CSRF token and `action`; `label` names the form for screen readers.

        `detail` is added to the button's name for screen readers only ("Revoke" + " Phone"), so
        a list of identical buttons still says which row each acts on.
        """
        classes = " ".join(name for name, wanted in (("inline", inline), ("danger", danger)) if wanted)
        aria = f" aria-label=\"{escape(label)}\"" if label else ""
        return (f"<form method=\"post\" action=\"{escape(url or self.url(self.subpath))}\""
                f"{' class=' + chr(34) + classes + chr(34) if classes else ''}{aria}>"
                f"{self.csrf_field()}{hidden('action', action)}{inner}"
                f"<button type=\"submit\"{' class=' + chr(34) + 'danger' + chr(34) if danger else ''}>"
                f"{escape(submit)}{f'<span class=visually-hidden> {escape(detail)}</span>' if detail else ''}"
                "</button></form>")

    def field(self, name: str, label: str, *, value: str | None = None, kind: str = "text", required: bool = False,
              help_text: str = "", autocomplete: str = "", options: list[tuple[str, str]] | None = None,
              keep: bool = True, field_id: str = "", extra: dict[str, Any] | None = None) -> str:
        """A labelled input (or select) with its error beside it; keeps the submitted value unless `keep` is False.

        `kind="checkbox"` is ticked when `value` is "1" (after a POST: when the form sent it);
        `extra` adds attributes to the control (min, max).
        """
        field_id = field_id or f"field-{name}"
        shown = self.value(name, value or "") if keep else (value or "")
        if kind == "checkbox" and keep and self.method == "POST" and self.form:
            shown = self.form.get(name, "")  # an unticked box is not sent at all
        error = self.field_errors.get(name, "")
        described = []
        if help_text:
            described.append(f"{field_id}-help")
        if error:
            described.append(f"{field_id}-error")
        attributes = f" id=\"{field_id}\" name=\"{escape(name)}\""
        if described:
            attributes += f" aria-describedby=\"{' '.join(described)}\""
        if error:
            attributes += " aria-invalid=\"true\""
        if required:
            attributes += " required"
        if autocomplete:
            attributes += f" autocomplete=\"{escape(autocomplete)}\""
        for attribute, attribute_value in (extra or {}).items():
            attributes += f" {escape(attribute)}=\"{escape(attribute_value)}\""
        if options is not None:
            choices = "".join(f"<option value=\"{escape(option)}\"{' selected' if option == shown else ''}>"
                              f"{escape(text)}</option>" for option, text in options)
            control = f"<select{attributes}>{choices}</select>"
        elif kind == "checkbox":
            control = f"<input type=\"checkbox\"{attributes} value=\"1\"{' checked' if shown == '1' else ''}>"
        else:
            control = f"<input type=\"{kind}\"{attributes} value=\"{escape(shown) if kind != 'password' else ''}\">"
        help_html = f"<p class=\"help\" id=\"{field_id}-help\">{escape(help_text)}</p>" if help_text else ""
        error_html = (f"<p class=\"field-error\" id=\"{field_id}-error\">{escape(error)}</p>" if error else "")
        label_html = f"<label for=\"{field_id}\">{escape(label)}</label>"
        if kind == "checkbox":  # the box before its label, as people expect to find it
            return (f"<div class=\"field checkbox{' has-error' if error else ''}\">{control}{label_html}"
                    f"{error_html}{help_html}</div>")
        return (f"<div class=\"field{' has-error' if error else ''}\">{label_html}"
                f"{control}{error_html}{help_html}</div>")


def escape(value: Any) -> str:
    return html.escape(str(value), quote=True)


def hidden(name: str, value: str) -> str:
    return f"<input type=\"hidden\" name=\"{escape(name)}\" value=\"{escape(value)}\">"


def table(headers: list[str], rows: list[list[str]], caption: str = "") -> str:
    """A table whose cells are HTML already escaped by the caller.

    Each cell carries its column's label (`data-label`): on a phone the table stacks its cells
    and shows each label before its value, since the header row is hidden there.
    """
    head = "".join(f"<th scope=\"col\">{escape(name)}</th>" for name in headers)
    labels = [escape(name) for name in headers]
    body = "".join("<tr>" + "".join(f"<td data-label=\"{labels[index] if index < len(labels) else ''}\">{cell}</td>"
                                    for index, cell in enumerate(row)) + "</tr>" for row in rows)
    caption_html = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f"<div class=\"table-wrap\"><table class=\"stack\">{caption_html}<thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


# --- the dispatcher ---------------------------------------------------------------------------

def admin_root(app, request):
    return admin_dispatch(app, request, "")


def admin_dispatch(app, request, path: str = ""):
    """GET and POST of every /admin/ URL."""
    first, _slash, rest = path.partition("/")
    if first == STYLESHEET_PATH and not rest:
        return bottle.HTTPResponse(STYLESHEET, 200, headers={
            "Content-Type": "text/css; charset=UTF-8", "Cache-Control": "public, max-age=3600",
            "X-Content-Type-Options": "nosniff"})
    if not _SEGMENT.match(first):
        return _not_found(app, request)
    secure = app.site_url(request.environ).startswith("https://")
    session_token = request.get_cookie(sessions.SESSION_COOKIE)
    loaded = sessions.load_session(app, session_token)
    user, csrf = loaded if loaded else (None, None)
    if first == SIGN_IN and not rest:
        return sign_in_page(app, request, user, secure)
    if first == SIGN_OUT and not rest:
        return sign_out(app, request, user, csrf, session_token, secure)
    entry = app.registry.admin_pages.get(first)
    if entry is None:
        return _not_found(app, request, user)
    page = entry[0]
    if user is None or csrf is None:  # a session gives both or neither
        if request.method == "POST":
            return _simple(app, request, None, "Signed out", "<p>Your session has ended. "
                           f"<a href=\"{ADMIN_PATH}/{SIGN_IN}\">Sign in</a> and try again.</p>", 403)
        target = ADMIN_PATH + "/" + path
        return _redirect(f"{ADMIN_PATH}/{SIGN_IN}?next={quote(target, safe='/')}")
    if page.capability and not user.can(page.capability):
        return _simple(app, request, user, "Not allowed",
                       "<p>Your account may not use this page. Ask an administrator if you need it.</p>", 403)
    if request.method == "POST":
        form = request.forms.decode()
        if not sessions.tokens_match(csrf, form.get("csrf_token")):
            return _simple(app, request, user, "Form expired", "<p>This form has expired or was not sent from this "
                           f"site. <a href=\"{escape(ADMIN_PATH + '/' + path)}\">Reload the page</a> and try again.</p>",
                           403)
        if form.get("action", "") not in page.actions:
            return _simple(app, request, user, "Unknown action", "<p>The form sent an action this page does not know.</p>",
                           400)
    context = AdminRequest(app, request, user, csrf, page, rest)
    answer = page.handler(context)
    if isinstance(answer, bottle.HTTPResponse):
        return answer
    if not isinstance(answer, AdminAnswer):
        answer = AdminAnswer(str(answer))
    title = page.title
    return _respond(app, request, user, csrf, title, _notices(context) + str(answer.body_html), answer.status,
                    answer.headers)


def _notices(context: AdminRequest) -> str:
    parts = []
    if context.field_errors:
        parts.append("<div class=\"notice error\" role=\"alert\"><p>Please correct the fields marked below.</p></div>")
    for kind, text in context.notices:
        role = "alert" if kind == "error" else "status"
        parts.append(f"<div class=\"notice {escape(kind)}\" role=\"{role}\">{text}</div>")
    return "".join(parts)


def _redirect(location: str, cookies: Sequence[str] = ()) -> bottle.HTTPResponse:
    response = bottle.HTTPResponse("", 303, headers={"Location": location, "Cache-Control": "no-store"})
    for cookie in cookies:
        response.add_header("Set-Cookie", cookie)
    return response


def _not_found(app, request, user=None) -> bottle.HTTPResponse:
    return _simple(app, request, user, "Page not found", "<p>The admin area has no such page.</p>", 404)


def _simple(app, request, user, title: str, body_html: str, status: int) -> bottle.HTTPResponse:
    loaded = sessions.load_session(app, request.get_cookie(sessions.SESSION_COOKIE)) if user else None
    csrf = loaded[1] if loaded else ""
    return _respond(app, request, user, csrf, title, body_html, status)


def _respond(app, request, user, csrf: str, title: str, body_html: str, status: int = 200,
             headers: dict | None = None, cookies: Sequence[str] = ()) -> bottle.HTTPResponse:
    page = render_layout(app, request, user, csrf, title, body_html)
    response = bottle.HTTPResponse(page, status, headers={**ADMIN_HEADERS, **(headers or {})})
    for cookie in cookies:
        response.add_header("Set-Cookie", cookie)
    return response


def menu_pages(app, user) -> list:
    """The pages `user` may open, in registration order (the host's first)."""
    return [page for page, _owner in app.registry.admin_pages.values()
            if page.menu and (not page.capability or user.can(page.capability))]


def badge_count(app, user, page) -> int:
    """The page's menu count for `user` (0 without a badge, or when counting fails: the menu must show)."""
    if page.badge is None:
        return 0
    try:
        return max(0, int(page.badge(app, user)))
    except Exception:  # a broken count must not take every admin page down with it
        log.exception("admin menu badge of %r failed", page.path)
        return 0


def menu_label(app, user, page) -> str:
    """The rest of a menu link's start tag and its text: the title, and the count with its spoken label."""
    count = badge_count(app, user, page)
    if not count:
        return f">{escape(page.title)}"
    spoken = f"{page.title}, {count} {page.badge_label}".strip()
    return (f" aria-label=\"{escape(spoken)}\">{escape(page.title)} "
            f"<span class=\"menu-count\" aria-hidden=\"true\">{count:,}</span>")


def render_layout(app, request, user, csrf: str, title: str, body_html: str) -> str:
    site_name = app.settings.site.get("name", "") or "sitehost"
    current = request.path
    nav = ""
    if user is not None:
        links = []
        for page in menu_pages(app, user):
            href = ADMIN_PATH + "/" + page.path if page.path else ADMIN_PATH + "/"
            active = current.rstrip("/") == href.rstrip("/") or (page.path and current.startswith(href + "/"))
            current_mark = " aria-current=\"page\"" if active else ""
            links.append(f"<li><a href=\"{escape(href)}\"{current_mark}{menu_label(app, user, page)}</a></li>")
        nav = (f"<nav aria-label=\"Admin\"><ul>{''.join(links)}</ul></nav>"
               f"<form method=\"post\" action=\"{ADMIN_PATH}/{SIGN_OUT}\" class=\"sign-out\">{hidden('csrf_token', csrf)}"
               f"<span>Signed in as <strong>{escape(user.login)}</strong></span> "
               "<button type=\"submit\">Sign out</button></form>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)} | {escape(site_name)} admin</title>"
        f"<link rel=\"stylesheet\" href=\"{ADMIN_PATH}/{STYLESHEET_PATH}\"></head><body>"
        "<a class=\"skip\" href=\"#main\">Skip to content</a>"
        f"<header class=\"top\"><p class=\"site\"><a href=\"{ADMIN_PATH}/\">{escape(site_name)}</a> "
        f"<span>admin</span></p>{nav}</header>"
        f"<main id=\"main\" tabindex=\"-1\"><h1>{escape(title)}</h1>{body_html}</main></body></html>\n"
    )


# --- signing in and out -------------------------------------------------------------------------

# A clean same-site `next`: the admin path, then only the characters RFC 3986 allows unescaped in a path
# and query. Nothing else may reach the Location header: a control character there (a decoded `%0d%0a`)
# answered 500, after the POST sign-in had already started the session whose cookie it then lost.
_CLEAN_NEXT = re.compile(r"/admin/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*")
_DOT_SEGMENT = re.compile(r"(^|/)\.{1,2}(/|$)")


def _safe_next(value: str, user=None) -> str:
    """`value` if it is a clean path inside the admin area, else the dashboard.

    Never another host (`//evil`, `/\\evil`, `https://`), never a dot segment that leaves the
    area, never a control, space or non-ASCII character (they would break the Location header).
    """
    path = value.partition("?")[0]
    if _CLEAN_NEXT.fullmatch(value) and not _DOT_SEGMENT.search(path) \
            and SIGN_IN not in value and SIGN_OUT not in value:
        return value
    return ADMIN_PATH + "/"


def _landing(app, user, wanted: str) -> str:
    """Where a signed-in user goes: the asked page, else the dashboard, else (no manage_options) the profile."""
    if wanted != ADMIN_PATH + "/":
        return wanted
    dashboard = app.registry.admin_pages.get("")
    if dashboard is not None and user.can(dashboard[0].capability):
        return wanted
    return ADMIN_PATH + "/profile"


def sign_in_page(app, request, user, secure: bool) -> bottle.HTTPResponse:
    wanted = _safe_next(request.query.decode().get("next", "") or "")
    if request.method == "GET" and user is not None:
        return _redirect(_landing(app, user, wanted))
    form_token = request.get_cookie(sessions.FORM_COOKIE) or ""
    if request.method != "POST":
        return _sign_in_form(app, request, wanted, secure)
    form = request.forms.decode()
    if not sessions.tokens_match(form_token, form.get("csrf_token")):
        return _simple(app, request, None, "Form expired", "<p>This form has expired or was not sent from this site. "
                       f"<a href=\"{ADMIN_PATH}/{SIGN_IN}\">Reload the page</a> and try again.</p>", 403)
    login = str(form.get("log", ""))[:MAX_FIELD_CHARS]
    try:
        signed_in = check_sign_in(app, login, str(form.get("pwd", ""))[:MAX_FIELD_CHARS],
                                  client_address(app, request.environ))
    except SignInRefused as refused:
        return _sign_in_form(app, request, wanted, secure, refused.message, refused.status, refused.headers, login)
    token, _csrf = sessions.start_session(app, signed_in.id)
    return _redirect(_landing(app, signed_in, wanted), cookies=[
        sessions.cookie_header(sessions.SESSION_COOKIE, token, secure, int(sessions.SESSION_LIFETIME.total_seconds()))])


def _sign_in_form(app, request, wanted: str, secure: bool, error: str = "", status: int = 200,
                  headers: dict | None = None, login: str = "") -> bottle.HTTPResponse:
    existing = request.get_cookie(sessions.FORM_COOKIE) or ""
    token = existing if len(existing) >= 32 else sessions.new_token()
    message = f"<div class=\"notice error\" role=\"alert\"><p>{escape(error)}</p></div>" if error else ""
    action = f"{ADMIN_PATH}/{SIGN_IN}?next={quote(wanted, safe='/')}"
    body = (f"{message}<form method=\"post\" action=\"{escape(action)}\" class=\"sign-in\">"
            f"{hidden('csrf_token', token)}"
            "<div class=\"field\"><label for=\"log\">Username or email address</label>"
            f"<input id=\"log\" name=\"log\" autocomplete=\"username\" required value=\"{escape(login)}\"></div>"
            "<div class=\"field\"><label for=\"pwd\">Password</label>"
            "<input id=\"pwd\" name=\"pwd\" type=\"password\" autocomplete=\"current-password\" required></div>"
            "<button type=\"submit\">Sign in</button></form>")
    return _respond(app, request, None, "", "Sign in", body, status, headers,
                    cookies=[sessions.cookie_header(sessions.FORM_COOKIE, token, secure, None)])


def sign_out(app, request, user, csrf, session_token, secure: bool) -> bottle.HTTPResponse:
    if request.method != "POST":
        return _simple(app, request, user, "Sign out", "<p>Use the Sign out button at the top of any admin page.</p>",
                       405)
    if user is not None and not sessions.tokens_match(csrf, request.forms.decode().get("csrf_token")):
        return _simple(app, request, user, "Form expired", "<p>This form has expired or was not sent from this site.</p>",
                       403)
    sessions.end_session(app, session_token)
    return _redirect(f"{ADMIN_PATH}/{SIGN_IN}", cookies=[
        sessions.cookie_header(sessions.SESSION_COOKIE, "", secure, 0)])
