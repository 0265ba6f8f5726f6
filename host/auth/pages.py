"""The authorize page: a person signs in and approves (or rejects) an application.

GET shows the login form (not signed in) or the approve/reject form (signed in). Every
form carries a CSRF token: the session's own once signed in, a double-submit cookie
before that. Approving creates an application password for the signed-in user and
redirects to `success_url` with `site_url`, `user_login` and `password` (the 24 raw
characters), or shows the password once when there is no `success_url`. A request with
bad parameters gets an error page with HTTP 400.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Sequence
from urllib.parse import quote, urlencode, urlsplit

import bottle
from markupsafe import Markup

from . import ratelimit, sessions
from . import users as user_service
from .users import User
from .. import theme
from ..proxies import client_address
from ..text import strip_tags

AUTHORIZE_PATH = "/authorize-application"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_UNSAFE_URL_CHARACTERS = re.compile(r"[\x00-\x20\x7f]")
REQUEST_PARAMS = ("app_name", "app_id", "success_url", "reject_url")
BASE_CSP = ("default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'; "
            "form-action 'self'")


# --- validating the request ------------------------------------------------------------

def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redirect_url_error(url: str) -> tuple[str, str] | None:
    """(code, message) when `url` may not be redirected to, else None."""
    invalid = ("invalid_redirect_url_format", "The URL must be a valid URL.")
    if _UNSAFE_URL_CHARACTERS.search(url):
        return invalid
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return invalid
    scheme = parts.scheme.lower()
    if not scheme or not host or scheme in ("javascript", "data", "vbscript"):
        return invalid
    if scheme == "http" and not is_loopback_host(host):
        return ("invalid_redirect_scheme", "The URL must be served over a secure connection.")
    return None


def request_errors(params: dict[str, str]) -> list[tuple[str, str]]:
    errors = []
    if params["app_id"] and not _UUID.match(params["app_id"]):
        errors.append(("invalid_app_id", "The application ID must be a UUID."))
    for name in ("success_url", "reject_url"):
        if params[name]:
            problem = redirect_url_error(params[name])
            if problem:
                errors.append((problem[0], f"{name}: {problem[1]}"))
    return errors


def add_query_args(url: str, pairs: list[tuple[str, str]]) -> str:
    """Append pairs with `?` or `&` as needed, keeping a #fragment last."""
    base, hash_mark, fragment = url.partition("#")
    separator = "&" if "?" in base else "?"
    if base.endswith(("?", "&")):
        separator = ""
    return base + separator + urlencode(pairs, quote_via=quote) + (hash_mark + fragment)


def clean_name(value: str) -> str:
    """Tags stripped and white space collapsed, as application names are stored."""
    return " ".join(strip_tags(value).split())[:200]


# --- the page --------------------------------------------------------------------------

class _Context:
    """What one request to the page needs: params, cookies, the signed-in user."""

    def __init__(self, app, request):
        self.app = app
        self.request = request
        self.environ = request.environ
        self.params = {name: request.query_text(name) for name in REQUEST_PARAMS}
        self.form = request.form if request.method == "POST" else {}
        self.secure = app.site_url(self.environ).startswith("https://")
        self.session_token = request.cookie(sessions.SESSION_COOKIE)
        self.form_token = request.cookie(sessions.FORM_COOKIE)
        loaded = sessions.load_session(app, self.session_token)
        self.user: User | None
        self.csrf: str | None
        self.user, self.csrf = loaded if loaded else (None, None)
        self.action_url = AUTHORIZE_PATH + ("?" + self.environ["QUERY_STRING"] if self.environ.get("QUERY_STRING") else "")

    @property
    def client_address(self) -> str:
        return client_address(self.app, self.environ)

    def signed_in(self) -> tuple[User, str]:
        """The user and CSRF token on the pages only a signed-in person reaches (authorize_page checked)."""
        if self.user is None or self.csrf is None:
            raise RuntimeError("this page needs a signed-in user")
        return self.user, self.csrf

    def body(self, done: str, **context) -> Markup:
        """One of the page's bodies (templates/authorize_page.html), which `done` names."""
        return theme.render(self.app, __package__, "authorize_page.html",
                            {"done": done, "app_name": self.params["app_name"], "action_url": self.action_url,
                             "error": "", **context})

    def response(self, title: str, body_html: Markup, status: int = 200, headers: dict | None = None,
                 cookies: Sequence[str] = ()) -> bottle.HTTPResponse:
        page = self.app.render_html_page(title, body_html)
        response = bottle.HTTPResponse(page, status, headers={
            "Content-Type": "text/html; charset=UTF-8", "Cache-Control": "no-store", **(headers or {})})
        for cookie in cookies:
            response.add_header("Set-Cookie", cookie)
        return response

    def redirect(self, location: str, status: int = 302, cookies: Sequence[str] = ()) -> bottle.HTTPResponse:
        response = bottle.HTTPResponse("", status, headers={"Location": location, "Cache-Control": "no-store"})
        for cookie in cookies:
            response.add_header("Set-Cookie", cookie)
        return response


def authorize_page(app, request):
    """GET and POST of /authorize-application."""
    context = _Context(app, request)
    errors = request_errors(context.params)
    if errors:
        return context.response("Cannot authorize application", context.body("request-errors", errors=errors), status=400)
    if request.method != "POST":
        return login_form(context) if context.user is None else approve_form(context)
    action = context.form.get("action", "")
    if action == "login":
        return sign_in(context)
    if action not in ("approve", "reject", "logout"):
        return context.response("Cannot authorize application", context.body("unknown-action"), status=400)
    if context.user is None:
        return login_form(context, "Your session has ended. Sign in again to continue.")
    if not sessions.tokens_match(context.csrf, context.form.get("csrf_token")):
        return expired_form(context)
    if action == "logout":
        sessions.end_session(app, context.session_token)
        return context.redirect(context.action_url, 303, cookies=[
            sessions.cookie_header(sessions.SESSION_COOKIE, "", context.secure, 0)])
    if action == "reject":
        return reject(context)
    return approve(context)


def expired_form(context: _Context) -> bottle.HTTPResponse:
    return context.response("Form expired", context.body("expired"), status=403)


def login_form(context: _Context, error: str = "", status: int = 200) -> bottle.HTTPResponse:
    token = context.form_token if context.form_token and len(context.form_token) >= 32 else sessions.new_token()
    return context.response("Sign in", context.body("sign-in", error=error, token=token), status, cookies=[
        sessions.cookie_header(sessions.FORM_COOKIE, token, context.secure, None)])


class SignInRefused(Exception):
    """A sign-in that did not succeed: the message to show, its HTTP status and extra headers."""

    def __init__(self, message: str, status: int = 200, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.headers = headers or {}


def check_sign_in(app, identifier: str, password: str, address: str):
    """The user a login form's username (or email) and password sign in, with the sign-in limits.

    Shared by the authorize page and the admin area (host.admin): one argon2 check whatever
    happens, failures recorded per account and address, refusals while locked out.
    Raises SignInRefused.
    """
    identifier = (identifier or "").strip()
    if not identifier or not password:
        raise SignInRefused("Enter your username or email address and your password.", 400)
    with app.db.session() as session:
        user = user_service.find_user(app, session, identifier)
        stored_hash = user_service.login_password_hash(app, session, user.id) if user else ""
    account = ratelimit.account_subject(user, identifier)
    try:  # before the (slow) password check: a locked source costs no argon2 work
        recent_failures = ratelimit.check_allowed(app, account, address)
    except ratelimit.TooManyAttempts as refusal:
        ratelimit.record_failure(app, account, address, slow=False)
        raise SignInRefused(f"Too many failed sign-in attempts. Try again in "
                            f"{ratelimit.describe_wait(refusal.retry_after)}.", 429,
                            {"Retry-After": str(refusal.retry_after)}) from None
    # One argon2 verification whatever happens: an unknown login, or a user without a login
    # password, costs the same time as a wrong password.
    verified = user_service.verify_login_password(stored_hash or user_service.dummy_password_hash(), password) and bool(stored_hash)
    if user is None or not verified:
        ratelimit.record_failure(app, account, address)
        raise SignInRefused("The username, email address or password is incorrect.")
    if recent_failures:
        ratelimit.clear_failures(app, account, address)
    return user


def sign_in(context: _Context) -> bottle.HTTPResponse:
    app = context.app
    if not sessions.tokens_match(context.form_token, context.form.get("csrf_token")):
        return expired_form(context)
    try:
        user = check_sign_in(app, context.form.get("log") or "", context.form.get("pwd") or "", context.client_address)
    except SignInRefused as refused:
        if refused.status == 429:
            return context.response("Too many sign-in attempts", context.body("too-many", error=refused.message),
                                    status=429, headers=refused.headers)
        return login_form(context, refused.message, refused.status)
    token, _csrf = sessions.start_session(app, user.id)
    return context.redirect(context.action_url, 303, cookies=[
        sessions.cookie_header(sessions.SESSION_COOKIE, token, context.secure, int(sessions.SESSION_LIFETIME.total_seconds()))])


def _form_action_csp(context: _Context) -> dict[str, str]:
    """Let the approve form's redirect reach the client's URLs (browsers apply form-action to redirects)."""
    sources = []
    for name in ("success_url", "reject_url"):
        if context.params[name]:
            parts = urlsplit(context.params[name])
            sources.append(f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else f"{parts.scheme}:")
    return {"Content-Security-Policy": " ".join([BASE_CSP, *dict.fromkeys(sources)])}


def approve_form(context: _Context, error: str = "", status: int = 200, name: str | None = None) -> bottle.HTTPResponse:
    params = context.params
    user, csrf = context.signed_in()
    body = context.body("approve", error=error, login=user.login, app_id=params["app_id"], csrf=csrf,
                        name=params["app_name"] if name is None else name, success_url=params["success_url"])
    return context.response("Authorize application", body, status, headers=_form_action_csp(context))


def approve(context: _Context) -> bottle.HTTPResponse:
    app, params = context.app, context.params
    user, _csrf = context.signed_in()
    name = clean_name(context.form.get("name", ""))
    if not name:
        return approve_form(context, "An application name is required to create an application password.", 400, name="")
    with app.db.session(write=True) as session, session.begin():
        password, _record = user_service.create_application_password(app, session, user.id, name,
                                                                      params["app_id"])
    if params["success_url"]:
        raw = user_service.normalize_application_password(password)
        return context.redirect(add_query_args(params["success_url"], [
            ("site_url", app.site_address()), ("user_login", user.login), ("password", raw)]))
    return context.response("Application password created", context.body("created", name=name, password=password))


def reject(context: _Context) -> bottle.HTTPResponse:
    params = context.params
    if params["reject_url"]:
        return context.redirect(params["reject_url"])
    if params["success_url"]:
        return context.redirect(add_query_args(params["success_url"], [("success", "false")]))
    return context.response("Request rejected", context.body("rejected"))
