"""The one request type every handler gets: REST routes, pages, admin pages, abilities and the HTML hooks.

`Request` holds what every handler reads the same way, whatever served it: `method`, `path`, `query`
(parsed the PHP way, `parse_query`), `headers` (lower-case names) and `header()`,
`cookies` and `cookie()`, `body`, `form`, `files`, `environ`, `site_url`, `client_address`, `user`, `app`
and `state`. A REST route gets a `host.RestRequest` (a Request with the REST pipeline's params, session
and internal requests), a page and the HTML hooks (`html_view`, `html_head` ...) a `PageRequest`, an admin
page a `host.admin.AdminRequest` (a PageRequest with the admin extras: the checked CSRF token, form helpers).
Plugins never see Bottle: the host builds these from the WSGI environ and turns a handler's answer
(host.answer) into the response.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl

import bottle

from .proxies import client_address
from .stash import RequestState
from .users import ANONYMOUS

# PHP's max_input_nesting_level: a key nested deeper (a[][][]... 5,000 times) is dropped, as PHP
# drops it, instead of recursing until Python's stack runs out.
MAX_QUERY_NESTING = 64

# The environ key under which one page request keeps its Request, so the page handler and every HTML hook
# of that request (html_view, html_head, site_head, site_menu_entries) see the same object.
ENVIRON_KEY = "sitehost.request"


def parse_query(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Query strings the PHP way: a[]=1&a[]=2 is a list, a[k]=v an object, a=1&a=2 keeps the last."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        bracket = key.find("[")
        if bracket <= 0 or not key.endswith("]"):
            result[key] = value
            continue
        keys = _bracket_keys(key, bracket)
        if keys is None:
            continue
        _assign(result, [key[:bracket], *keys], value)
    return result


def _bracket_keys(key: str, start: int) -> list[str] | None:
    """The names inside `[...]` from `start` on (`a[b][]` -> ["b", ""]); None past MAX_QUERY_NESTING.

    A plain scan: the pattern `\\[([^\\]]*)\\]` took quadratic time on a run of `[`.
    """
    keys: list[str] = []
    while True:
        opening = key.find("[", start)
        if opening < 0:
            return keys
        closing = key.find("]", opening + 1)
        if closing < 0:
            return keys
        keys.append(key[opening + 1:closing])
        if len(keys) >= MAX_QUERY_NESTING:
            return None
        start = closing + 1


def _assign(container: Any, keys: list[str], value: str) -> None:
    key = keys[0]
    if len(keys) == 1:
        if key == "":
            container.append(value)
        else:
            container[key] = value
        return
    wants_list = keys[1] == ""
    if key == "":
        child: Any = [] if wants_list else {}
        container.append(child)
    else:
        child = container.get(key)
        if wants_list and not isinstance(child, list):
            child = []
            container[key] = child
        elif not wants_list and not isinstance(child, dict):
            child = {str(index): item for index, item in enumerate(child)} if isinstance(child, list) else {}
            container[key] = child
    _assign(child, keys[1:], value)



def environ_headers(environ: dict) -> dict[str, str]:
    """A request's headers by lower-case name, as WSGI gives them (`HTTP_*`, and a non-empty Content-Type
    and Content-Length): what every request type of the host reads headers from."""
    headers = {key[5:].lower().replace("_", "-"): value for key, value in environ.items() if key.startswith("HTTP_")}
    content_type = environ.get("CONTENT_TYPE")
    if content_type:
        headers["content-type"] = content_type
    content_length = environ.get("CONTENT_LENGTH")
    if content_length:
        headers["content-length"] = content_length
    return headers

class Request:
    """What every handler reads of its request, whatever served it (REST route, page, admin page, ability).

    Subclasses set `app`, `method`, `path`, `query_pairs`, `query`, `headers` (lower-case names),
    `environ`, `remote_addr`, `user` and `state`; this class derives the rest from them.
    """

    app: Any
    method: str
    path: str
    query_pairs: list[tuple[str, str]]
    query: dict[str, Any]
    headers: dict[str, str]
    environ: dict
    remote_addr: str
    state: RequestState

    def header(self, name: str, default: str | None = None) -> str | None:
        """A request header by name, in any case (`Content-Type` and `content_type` alike)."""
        return self.headers.get(name.lower().replace("_", "-"), default)

    @property
    def cookies(self) -> dict[str, str]:
        """The request's cookies by name (a malformed Cookie header reads as none)."""
        try:
            parsed = SimpleCookie(self.header("cookie") or "")
        except CookieError:
            return {}
        return {name: morsel.value for name, morsel in parsed.items()}

    def cookie(self, name: str, default: str | None = None) -> str | None:
        return self.cookies.get(name, default)

    def query_text(self, name: str, default: str = "") -> str:
        """A query parameter as text; `default` when absent, empty or not text (`name[]=x` parses to a list)."""
        value = self.query.get(name)
        return value if isinstance(value, str) and value else default

    @property
    def query_string(self) -> str:
        return self.environ.get("QUERY_STRING", "")

    @property
    def site_url(self) -> str:
        """The base of this request's own links (App.site_url: `[site] url`, else the address it was sent to)."""
        return self.app.site_url(self.environ)

    @property
    def client_address(self) -> str:
        """The client's address (behind a trusted proxy, what the proxy forwarded)."""
        return self.remote_addr


class PageRequest(Request):
    """A request to a page outside the REST root, or to the site's HTML addresses (the HTML hooks).

    `user` is who sends it (App.page_user: an application password, else the sign-in session's cookie;
    anonymous otherwise), worked out on first use. `form` holds the POSTed fields (the last value of a
    repeated one; `form_list` has them all), `files` the uploads (`.filename`, `.file`, `.content_type`).
    """

    def __init__(self, app, environ: dict):
        # Bottle parses the form and the uploads (multipart): its request of this environ, the one it serves.
        parser = environ.get("bottle.request")
        self.app = app
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET").upper()
        self.path = "/" + environ.get("PATH_INFO", "").lstrip("/")
        self.query_pairs = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        self.query = parse_query(self.query_pairs)
        self.headers = environ_headers(environ)
        self.remote_addr = client_address(app, environ)
        self.state = RequestState()
        self._parser = parser if isinstance(parser, bottle.BaseRequest) else bottle.BaseRequest(environ)
        self._user: Any = None
        self._form: dict[str, list[str]] | None = None
        self._last_values: dict[str, str] | None = None

    @classmethod
    def of(cls, app, environ: dict) -> "PageRequest":
        """The request of this environ: made once, then the same object for the handler and every hook."""
        known = environ.get(ENVIRON_KEY)
        if isinstance(known, cls):
            return known
        made = cls(app, environ)
        environ[ENVIRON_KEY] = made
        return made

    @property
    def user(self):
        if self._user is None:
            self._user = self.app.page_user(self.environ)
        return self._user

    @user.setter
    def user(self, value) -> None:
        self._user = value

    @property
    def body(self) -> bytes:
        """The raw request body (bounded by `max_body_bytes`: larger bodies were refused before)."""
        return self._parser.body.read()

    def _form_values(self) -> dict[str, list[str]]:
        """The POSTed fields, every value of each (read once)."""
        if self._form is None:
            self._form = {}
            if self.method not in ("GET", "HEAD"):
                forms = self._parser.forms.decode()
                self._form = {name: [str(value) for value in forms.getall(name)] for name in forms.keys()}
        return self._form

    @property
    def form(self) -> dict[str, str]:
        """The POSTed form fields (urlencoded or multipart), each its last value, as text: one dict per
        request, so a page that clears it (to show stored values after a save) clears it for its helpers too."""
        if self._last_values is None:
            self._last_values = {name: values[-1] for name, values in self._form_values().items() if values}
        return self._last_values

    def form_list(self, name: str) -> list[str]:
        """Every value the form sent for `name` (a list of checkboxes: `ids=3&ids=5`)."""
        return list(self._form_values().get(name, ()))

    @property
    def files(self) -> dict[str, Any]:
        """The uploaded files by field name (each with `.filename`, `.file`, `.content_type`)."""
        if self.method in ("GET", "HEAD"):
            return {}
        return dict(self._parser.files.items())


__all__ = ["ANONYMOUS", "ENVIRON_KEY", "PageRequest", "Request"]
