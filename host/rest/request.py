"""The REST request as handlers see it: merged, validated params, the user, a DB session."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import parse_qsl

from ..stash import RequestState
from ..users import ANONYMOUS

_BRACKETS = re.compile(r"\[([^\]]*)\]")
# PHP's max_input_nesting_level: a key nested deeper (a[][][]... 5,000 times) is dropped, as PHP
# drops it, instead of recursing until Python's stack runs out.
MAX_QUERY_NESTING = 64
GLOBAL_PARAMS = ("_fields", "_embed", "_envelope", "_method", "_jsonp", "_pretty")


def parse_query(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Query strings the PHP way: a[]=1&a[]=2 is a list, a[k]=v an object, a=1&a=2 keeps the last."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        bracket = key.find("[")
        if bracket <= 0 or not key.endswith("]"):
            result[key] = value
            continue
        keys = _BRACKETS.findall(key[bracket:])
        if len(keys) >= MAX_QUERY_NESTING:
            continue
        _assign(result, [key[:bracket], *keys], value)
    return result


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


class RestRequest:
    """One request to a REST route, external or internal (embeds, batch items)."""

    def __init__(self, app, method: str, path: str, query_pairs: list[tuple[str, str]],
                 headers: dict[str, str], body: bytes = b"", environ: dict | None = None,
                 base_url: str = "", remote_addr: str = "", internal: bool = False):
        self.app = app
        self.method = method
        self.path = path
        self.route_path = path
        self.query_pairs = query_pairs
        self.query = parse_query(query_pairs)
        self.headers = headers  # lower-case names
        self.body = body
        self.environ = environ or {}
        self.base_url = base_url  # REST root without trailing slash
        self.remote_addr = remote_addr
        self.internal = internal
        self.json: Any = None
        self.form: dict[str, Any] = {}
        self.files: dict[str, Any] = {}
        self.url_params: dict[str, str] = {}
        self.params: dict[str, Any] = {}
        self.user = ANONYMOUS
        self.route = None
        self.endpoint = None
        self.application_password = None
        self.permitted: bool | None = None
        self.state = RequestState()  # what plugins keep for the rest of this request (host.stash)
        self._session = None
        self._finished = False
        self._after_commit: list[Callable[[], None]] = []

    # --- headers and params --------------------------------------------------------------

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower().replace("_", "-"), default)

    @property
    def content_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()

    @property
    def plain(self) -> bool:
        """An external request with none of the global parameters (_fields, _embed, _pretty, ...).

        Its answer is the handler's data as it is, so a handler may answer with items it
        encoded earlier (`host.encode_item`).
        """
        return not self.internal and not any(name in self.query for name in GLOBAL_PARAMS)

    def has_param(self, name: str) -> bool:
        """Whether the caller sent `name` at all (a JSON null counts as sent)."""
        if isinstance(self.json, dict) and name in self.json:
            return True
        return name in self.form or name in self.query or name in self.url_params

    def raw_param(self, name: str) -> Any:
        """The caller's value before validation: JSON > form > query > path (null falls through)."""
        for source in (self.json if isinstance(self.json, dict) else None, self.form, self.query, self.url_params):
            if source and source.get(name) is not None:
                return source[name]
        return None

    # --- reading other plugins' data ---------------------------------------------------------

    def internal_get(self, path: str, **query: Any) -> "InternalResponse":
        """GET another route of this site as this request's caller, through the normal pipeline.

        This is how a plugin reads another plugin's data without importing its modules: the
        route's own validation and permission checks run for the same user, so nothing the
        caller may not read comes back. `path` is relative to the REST root
        (`/core/v2/posts/5`); query values may be strings, numbers, booleans or lists.

            answer = request.internal_get("/core/v2/posts/5", context="view")
            if answer.ok:
                title = answer.data["title"]["rendered"]
        """
        pairs = [(name, _query_text(value)) for name, value in query.items()]
        status, headers, data = self.app.rest.dispatch_internal(self, "GET", path, pairs)
        return InternalResponse(status, headers, data)

    def internal_request(self, method: str, path: str, body: dict[str, Any] | None = None,
                         **query: Any) -> "InternalResponse":
        """Run another route of this site with any method, as this request's caller.

        Like `internal_get`, through the route's validation and permission checks; `body` holds
        the parameters a client would send as JSON. The sub-request runs in its own transaction,
        committed when it succeeds: call it before this request writes anything of its own.

            answer = request.internal_request("POST", "/core/v2/tags", {"name": "Sport"})
        """
        pairs = [(name, _query_text(value)) for name, value in query.items()]
        status, headers, data = self.app.rest.dispatch_internal(self, method.upper(), path, pairs, body=body or {})
        return InternalResponse(status, headers, data)

    # --- URLs ----------------------------------------------------------------------------

    def url_for_route(self, route_path: str) -> str:
        return self.base_url + route_path

    @property
    def rest_url(self) -> str:
        return self.base_url + "/"

    # --- database ------------------------------------------------------------------------

    @property
    def session(self):
        """The request's SQLAlchemy session: one transaction per request, opened on first use."""
        if self._session is None:
            # After the request's own transaction ended, later reads (Allow checks) need no write lock.
            writes = self.method not in ("GET", "HEAD", "OPTIONS") and not self._finished
            self._session = self.app.db.session(write=writes)
        return self._session

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the request's transaction has committed (events, cache purges)."""
        self._after_commit.append(callback)

    def finish(self, success: bool) -> None:
        """Commit (or roll back) and close the session, then run the after-commit callbacks."""
        self._finished = True
        session, self._session = self._session, None
        callbacks, self._after_commit = self._after_commit, []
        if session is not None:
            try:
                if success:
                    session.commit()
                else:
                    session.rollback()
            finally:
                session.close()
        if success:
            for callback in callbacks:
                callback()


@dataclass(frozen=True)
class InternalResponse:
    """What `request.internal_get` answers: the status, headers and data a client would get."""

    status: int
    headers: dict[str, str]
    data: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_query_text(item) for item in value)
    return str(value)
