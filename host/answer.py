"""The one way a page handler answers: it returns its answer, and the host turns it into the response.

A page handler (`host.Page`), an `html_view` hook and an admin page return a `str` (the HTML body,
status 200) or a `PageAnswer`: a body with its status, headers and content type. `redirect(url)` and
`not_found()` make the two answers every site needs; `not_found()` shows the site's own 404 page (what
`html_not_found` answers at that address, else "Page not found"), as an unknown address would.
Handlers never write a response object or raise HTTP errors of the web framework.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any, Iterable

import bottle

REDIRECT_STATUSES = (301, 302, 303, 307, 308)


@dataclass
class PageAnswer:
    """A page's answer: `body` (str, bytes or an iterable of bytes, streamed), `status`, `headers` and
    `content_type` (None: `text/html; charset=UTF-8`, or the `Content-Type` among `headers`).

    `headers` is a list of (name, value) pairs, so a name may repeat (`Set-Cookie`); `set_header`
    replaces a name's values, `set_cookie` adds one cookie.
    """

    body: str | bytes | Iterable[bytes] = ""
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str | None = None
    not_found: bool = False  # answer with the site's 404 page (`not_found()`)

    def __post_init__(self) -> None:
        if isinstance(self.headers, dict):
            self.headers = list(self.headers.items())
        else:
            self.headers = list(self.headers)

    def header(self, name: str) -> str | None:
        """The last value of a header the answer carries, by name in any case."""
        wanted = name.lower()
        values = [value for key, value in self.headers if key.lower() == wanted]
        return values[-1] if values else None

    def set_header(self, name: str, value: str) -> "PageAnswer":
        wanted = name.lower()
        self.headers = [(key, old) for key, old in self.headers if key.lower() != wanted]
        self.headers.append((name, value))
        return self

    def set_cookie(self, name: str, value: str, *, path: str = "/", max_age: int | None = None,
                   httponly: bool = True, samesite: str = "Lax", secure: bool = False) -> "PageAnswer":
        """Add a `Set-Cookie` header (HttpOnly and SameSite=Lax unless told otherwise)."""
        cookie: SimpleCookie = SimpleCookie()
        cookie[name] = value
        morsel = cookie[name]
        morsel["path"] = path
        morsel["samesite"] = samesite
        if max_age is not None:
            morsel["max-age"] = str(max_age)
        if httponly:
            morsel["httponly"] = True
        if secure:
            morsel["secure"] = True
        self.headers.append(("Set-Cookie", morsel.OutputString()))
        return self


def redirect(location: str, status: int = 303, headers: dict[str, str] | None = None) -> PageAnswer:
    """Send the visitor to `location` (absolute, or a path of this site): 303 after a form, 301 when moved."""
    if status not in REDIRECT_STATUSES:
        raise ValueError(f"{status} is not a redirect status ({REDIRECT_STATUSES})")
    return PageAnswer("", status, [("Location", location), *(headers or {}).items()])


def not_found() -> PageAnswer:
    """The site's 404 page, as for an address nothing serves."""
    return PageAnswer("", 404, not_found=True)


def deliver(answer: Any) -> Any:
    """For the host: what a page handler returned, written to Bottle's response; the body to send.

    A str or bytes is a 200 HTML body; a PageAnswer sets its status and headers (`not_found()` raises
    Bottle's 404, which the host's 404 page answers); a Bottle response of a host helper (a stored
    file, host.storage) is sent as it is.
    """
    if not isinstance(answer, PageAnswer):
        return answer
    if answer.not_found:
        raise bottle.HTTPError(404)
    response = bottle.response
    response.status = answer.status
    if answer.content_type is not None:
        response.content_type = answer.content_type
    written: set[str] = set()
    for name, value in answer.headers:  # a name the answer repeats is sent each time; else it replaces
        if name.lower() in written or name.lower() == "set-cookie":
            response.add_header(name, value)
        else:
            response.set_header(name, value)
            written.add(name.lower())
    return answer.body
