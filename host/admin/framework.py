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

import logging
import re
from typing import Any, Sequence
from urllib.parse import quote

import bottle
from markupsafe import Markup, escape

from ..auth import sessions
from ..auth.pages import BASE_CSP, SignInRefused, check_sign_in
from . import templating
from .style import STYLESHEET
from ..answer import REDIRECT_STATUSES, PageAnswer
from ..request import PageRequest
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


class AdminRequest(PageRequest):
    """What an admin page handler gets: the host.Request of the page (query, form, files, cookies, the
    signed-in `user`, `app`) with the admin extras: the session's `csrf` token (already checked on a POST),
    the `page`, the `subpath` under it, the submitted `action`, and helpers to write forms."""

    def __init__(self, app, environ: dict, user, csrf: str, page, subpath: str):
        super().__init__(app, environ)
        self._cut_form: dict[str, list[str]] | None = None
        self.user = user
        self.csrf = csrf
        self.page = page
        self.subpath = subpath
        self.action = self.form.get("action", "")
        self.field_errors: dict[str, str] = {}
        self.notices: list[tuple[str, Markup | str]] = []

    def _form_values(self) -> dict[str, list[str]]:
        """The POSTed fields, each value cut at MAX_FIELD_CHARS (nothing an operator types needs more)."""
        if self._cut_form is None:
            self._cut_form = {name: [value[:MAX_FIELD_CHARS] for value in values]
                              for name, values in super()._form_values().items()}
        return self._cut_form

    @property
    def uncut_form(self) -> dict[str, str]:
        """The POSTed fields as sent, for the few that may be longer than MAX_FIELD_CHARS (a form's template)."""
        return {name: values[-1] for name, values in super()._form_values().items() if values}

    # --- URLs and values -----------------------------------------------------------------

    def url(self, *parts: Any) -> str:
        segments = [self.page.path, *(str(part) for part in parts)]
        return ADMIN_PATH + "/" + "/".join(quote(segment, safe="") for segment in segments if segment != "")

    def value(self, name: str, default: str = "") -> str:
        """The submitted value of a field (forms keep what was typed after an error), else `default`."""
        return self.form.get(name, default) if self.method == "POST" else default

    def error(self, name: str, message: str) -> None:
        self.field_errors[name] = message

    def notice(self, text: Markup | str, kind: str = "success") -> None:
        """A message at the top of the page: kind is success, error or secret (shown once).

        `text` is Markup from a template (`page.render("x_notice.html", ...)`); a plain str is escaped."""
        self.notices.append((kind, text))

    # --- REST as the signed-in user --------------------------------------------------------

    def rest(self, method: str, path: str, body: dict | None = None, **query: Any):
        """Run a REST route of this site as the signed-in user; an InternalResponse (status, headers, data).

        Pages read other plugins this way (never by importing them): `page.rest("GET", "/lunch/v1/menus")`.
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

    def form_html(self, action: str, inner: Markup, submit: str, *, url: str | None = None, danger: bool = False,
                  inline: bool = False, label: str = "", detail: str = "") -> Markup:
        """A POST form with the CSRF token and `action` around `inner` (Markup: fields from `field`);
        `label` names the form for screen readers. `admin/macros.html`'s post_form, for pages without templates.

        `detail` is added to the button's name for screen readers only ("Revoke" + " Phone"), so
        a list of identical buttons still says which row each acts on.
        """
        return _macros().post_form(self, action, submit, url=url, danger=danger, inline=inline, label=label,
                                   detail=detail, inner=escape(inner))

    def field(self, name: str, label: str, *, value: str | None = None, kind: str = "text", required: bool = False,
              help_text: str = "", autocomplete: str = "", options: list[tuple[str, str]] | None = None,
              extra: dict[str, Any] | None = None) -> Markup:
        """A labelled input (or select, with `options`) with its error beside it; keeps the submitted value.

        `kind="checkbox"` is ticked when `value` is "1" (after a POST: when the form sent it);
        `extra` adds attributes to the control (min, max). `admin/macros.html`'s field.
        """
        return _macros().field(self, name, label, value=value or "", kind="select" if options is not None else kind,
                               required=required, help=help_text, options=options, autocomplete=autocomplete,
                               attrs=extra or {})


def _macros():
    """The shared form macros (templates/admin/macros.html), callable from Python."""
    return templating.environment("host.admin").get_template("admin/macros.html").module


# --- the dispatcher ---------------------------------------------------------------------------

def admin_root(app, request: PageRequest):
    return admin_dispatch(app, request, "")


def admin_dispatch(app, request: PageRequest, path: str = ""):
    """GET and POST of every /admin/ URL."""
    first, _slash, rest = path.partition("/")
    if first == STYLESHEET_PATH and not rest:
        return bottle.HTTPResponse(STYLESHEET, 200, headers={
            "Content-Type": "text/css; charset=UTF-8", "Cache-Control": "public, max-age=3600",
            "X-Content-Type-Options": "nosniff"})
    if not _SEGMENT.match(first):
        return _not_found(app, request)
    secure = app.site_url(request.environ).startswith("https://")
    session_token = request.cookie(sessions.SESSION_COOKIE)
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
            return _simple(app, request, None, "Signed out", "signed-out", 403)
        target = ADMIN_PATH + "/" + path
        return _redirect(f"{ADMIN_PATH}/{SIGN_IN}?next={quote(target, safe='/')}")
    if page.capability and not user.can(page.capability):
        return _simple(app, request, user, "Not allowed", "not-allowed", 403)
    if request.method == "POST":
        form = request.form
        if not sessions.tokens_match(csrf, form.get("csrf_token")):
            return _simple(app, request, user, "Form expired", "page-expired", 403, reload=ADMIN_PATH + "/" + path)
        if form.get("action", "") not in page.actions:
            return _simple(app, request, user, "Unknown action", "unknown-action", 400)
    context = AdminRequest(app, request.environ, user, csrf, page, rest)
    answer = page.handler(context)
    if isinstance(answer, bottle.BaseResponse):  # a stored file, as host.storage serves it
        return answer
    if not isinstance(answer, PageAnswer):
        answer = PageAnswer(answer)
    if answer.not_found:
        return _not_found(app, request, user)
    if answer.status in REDIRECT_STATUSES or not (answer.content_type or answer.header("Content-Type")
                                                  or "text/html").startswith("text/html"):
        # A redirect or a download (CSV, JSON): sent as it is, never kept by a cache.
        return answer.set_header("Cache-Control", answer.header("Cache-Control") or "no-store") \
            .set_header("X-Content-Type-Options", "nosniff")
    # A handler's body and notices are its templates' output (Markup), shown as they are; a plain str is text.
    return _respond(app, request, user, csrf, page.title, escape(answer.body), answer.status, dict(answer.headers),
                    notices=[(kind, escape(text)) for kind, text in context.notices],
                    field_errors=bool(context.field_errors))


def _redirect(location: str, cookies: Sequence[str] = ()) -> bottle.HTTPResponse:
    response = bottle.HTTPResponse("", 303, headers={"Location": location, "Cache-Control": "no-store"})
    for cookie in cookies:
        response.add_header("Set-Cookie", cookie)
    return response


def _not_found(app, request, user=None) -> bottle.HTTPResponse:
    return _simple(app, request, user, "Page not found", "not-found", 404)


def _message(done: str, **context: Any) -> Markup:
    """One of the admin area's own short pages (templates/admin/messages.html)."""
    return templating.render("host.admin", "admin/messages.html", {"done": done, "admin_path": ADMIN_PATH, **context})


def _simple(app, request, user, title: str, done: str, status: int, **context: Any) -> bottle.HTTPResponse:
    loaded = sessions.load_session(app, request.cookie(sessions.SESSION_COOKIE)) if user else None
    csrf = loaded[1] if loaded else ""
    return _respond(app, request, user, csrf, title, _message(done, **context), status)


def _respond(app, request, user, csrf: str, title: str, body: Markup, status: int = 200,
             headers: dict | None = None, cookies: Sequence[str] = (), notices: Sequence[tuple[str, Markup]] = (),
             field_errors: bool = False) -> bottle.HTTPResponse:
    page = render_layout(app, request, user, csrf, title, body, notices, field_errors)
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


def render_layout(app, request, user, csrf: str, title: str, body: Markup,
                  notices: Sequence[tuple[str, Markup]] = (), field_errors: bool = False) -> str:
    """The whole page in the admin layout (templates/admin/layout.html)."""
    links = []
    if user is not None:
        current = request.path
        for page in menu_pages(app, user):
            href = ADMIN_PATH + "/" + page.path if page.path else ADMIN_PATH + "/"
            count = badge_count(app, user, page)
            links.append({"href": href, "title": page.title, "count": count,
                          "spoken": f"{page.title}, {count} {page.badge_label}".strip(),
                          "current": current.rstrip("/") == href.rstrip("/")
                          or bool(page.path and current.startswith(href + "/"))})
    return templating.render("host.admin", "admin/layout.html", {
        "title": title, "site_name": app.settings.site.get("name", "") or "sitehost", "admin_path": ADMIN_PATH,
        "user": user, "csrf": csrf, "links": links, "notices": notices, "field_errors": field_errors,
        "body": body}) + "\n"


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
    wanted = _safe_next(str(request.query.get("next", "") or ""))
    if request.method == "GET" and user is not None:
        return _redirect(_landing(app, user, wanted))
    form_token = request.cookie(sessions.FORM_COOKIE) or ""
    if request.method != "POST":
        return _sign_in_form(app, request, wanted, secure)
    form = request.form
    if not sessions.tokens_match(form_token, form.get("csrf_token")):
        return _simple(app, request, None, "Form expired", "sign-in-expired", 403)
    login = str(form.get("log", ""))[:MAX_FIELD_CHARS]
    try:
        signed_in = check_sign_in(app, login, str(form.get("pwd", ""))[:MAX_FIELD_CHARS],
                                  request.client_address)
    except SignInRefused as refused:
        return _sign_in_form(app, request, wanted, secure, refused.message, refused.status, refused.headers, login)
    token, _csrf = sessions.start_session(app, signed_in.id)
    return _redirect(_landing(app, signed_in, wanted), cookies=[
        sessions.cookie_header(sessions.SESSION_COOKIE, token, secure, int(sessions.SESSION_LIFETIME.total_seconds()))])


def _sign_in_form(app, request, wanted: str, secure: bool, error: str = "", status: int = 200,
                  headers: dict | None = None, login: str = "") -> bottle.HTTPResponse:
    existing = request.cookie(sessions.FORM_COOKIE) or ""
    token = existing if len(existing) >= 32 else sessions.new_token()
    body = _message("sign-in", error=error, token=token, login=login,
                    action=f"{ADMIN_PATH}/{SIGN_IN}?next={quote(wanted, safe='/')}")
    return _respond(app, request, None, "", "Sign in", body, status, headers,
                    cookies=[sessions.cookie_header(sessions.FORM_COOKIE, token, secure, None)])


def sign_out(app, request, user, csrf, session_token, secure: bool) -> bottle.HTTPResponse:
    if request.method != "POST":
        return _simple(app, request, user, "Sign out", "sign-out-get", 405)
    if user is not None and not sessions.tokens_match(csrf, request.form.get("csrf_token")):
        return _simple(app, request, user, "Form expired", "form-expired", 403)
    sessions.end_session(app, session_token)
    return _redirect(f"{ADMIN_PATH}/{SIGN_IN}", cookies=[
        sessions.cookie_header(sessions.SESSION_COOKIE, "", secure, 0)])
