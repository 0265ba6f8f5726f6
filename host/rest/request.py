"""The REST request as handlers see it: merged, validated params, the user, a DB session."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..request import Request, environ_headers, parse_query
from ..stash import RequestState
from ..users import ANONYMOUS

if TYPE_CHECKING:  # annotations only: the registry imports this module
    from ..registry import CompiledRoute, Endpoint

GLOBAL_PARAMS = ("_fields", "_embed", "_envelope", "_method", "_jsonp", "_pretty")

# Set while the after-commit callbacks of one commit run (RestRequest.commit): its token.
_COMMIT_ROUND: ContextVar[object | None] = ContextVar("sitehost_commit_round", default=None)


def commit_round() -> object | None:
    """While the after-commit callbacks of one request's commit run (`content_saved` and the other
    events of what it wrote), a token of that commit, the same for each of them; None elsewhere.

    A listener whose work covers everything one commit wrote at once (a cache purge after a
    batch of 200 imported items) does it for the first event of a token and skips the others.
    """
    return _COMMIT_ROUND.get()


@contextmanager
def running_commit_round():
    """For RestRequest.commit: the callbacks run inside this see one new `commit_round()` token."""
    reset = _COMMIT_ROUND.set(object())
    try:
        yield
    finally:
        _COMMIT_ROUND.reset(reset)


class RestRequest(Request):
    """One request to a REST route, external or internal (embeds, batch items): a host.Request with the
    REST pipeline's validated `params`, its database `session` and internal requests."""

    def __init__(self, app, method: str, path: str, query_pairs: list[tuple[str, str]],
                 headers: dict[str, str] | None, body: bytes = b"", environ: dict | None = None,
                 base_url: str = "", remote_addr: str = "", internal: bool = False):
        self.app = app
        self.method = method
        self.path = path
        self.route_path = path
        self.query_pairs = query_pairs
        self.query = parse_query(query_pairs)
        self._headers = headers  # lower-case names; None: read from `environ` when first asked
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
        self.route: CompiledRoute | None = None  # set once the path matched a route
        self.endpoint: Endpoint | None = None
        self.application_password = None
        self.permitted: bool | None = None
        # Params a batch/v1 item was validated to before its batch ran, so `run` need not validate them again.
        self.validated_params: dict[str, Any] | None = None
        self.state = RequestState()  # what plugins keep for the rest of this request (host.stash)
        self._session = None
        self._finished = False
        self._committed = False  # the handler committed early (commit): later reads need no write lock
        self._after_commit: list[Callable[[], None]] = []
        # A batch/v1 item runs inside its batch's transaction, in a savepoint of its own (join_transaction).
        self._joined: "RestRequest | None" = None
        self._savepoint = None
        self._shares_savepoint = False  # a bulk batch run (Route.bulk_batch) undoes its own writes
        # A targetHints probe reads through this request's session (`read_through`) instead of its own.
        self._reads_through: "RestRequest | None" = None

    # --- headers and params --------------------------------------------------------------

    @property
    def headers(self) -> dict[str, str]:
        """Every header by lower-case name, gathered from the environ on first use: a cached hit reads
        only two or three, by `header`."""
        if self._headers is None:
            self._headers = environ_headers(self.environ)
        return self._headers

    @headers.setter
    def headers(self, value: dict[str, str]) -> None:
        self._headers = value

    def header(self, name: str, default: str | None = None) -> str | None:
        if self._headers is not None:
            return self._headers.get(name.lower().replace("_", "-"), default)
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):  # not HTTP_* in WSGI; an empty one counts as absent
            return self.environ.get(key) or default
        value = self.environ.get("HTTP_" + key)
        return default if value is None else value

    @property
    def content_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()

    @property
    def plain(self) -> bool:
        """An external request with none of the global parameters (_fields, _embed, _pretty, ...).

        Its answer is the handler's data as it is, so a handler may answer with items it
        encoded earlier (`host.encode_item`).
        """
        return not self.internal and self.query.keys().isdisjoint(GLOBAL_PARAMS)  # in C, not a generator

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
        return self.internal_request("GET", path, **query)

    def internal_request(self, method: str, path: str, *, body: dict | bytes | None = None,
                         headers: dict[str, str] | None = None, **query: Any) -> "InternalResponse":
        """Run another route of this site (any method) as this request's caller, like `internal_get`.

        `body` is a dict of parameters (as a JSON body would send them) or raw bytes (an upload
        to `/core/v2/media`, with its Content-Type and Content-Disposition in `headers`). The
        sub-request has its own transaction: what it wrote stays written even if this request
        later fails, so call it only for writes that stand on their own.
        """
        pairs = [(name, _query_text(value)) for name, value in query.items()]
        status, answer_headers, data = self.app.rest.dispatch_internal(self, method.upper(), path, pairs, body=body,
                                                                       headers=headers)
        return InternalResponse(status, answer_headers, data)

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
        if self._reads_through is not None:
            return self._reads_through.session
        if self._joined is not None:
            session = self._joined.session
            if self._joined._committed or self._shares_savepoint:
                return session  # the batch has committed: its items' answers are read without the write lock
            if self._savepoint is None or not self._savepoint.is_active:
                self._savepoint = session.begin_nested()
            return session
        if self._session is None:
            # After the request's own transaction ended, later reads (Allow checks) need no write lock.
            writes = self.method not in ("GET", "HEAD", "OPTIONS") and not self._finished and not self._committed
            # A reading request's session opens a transaction only if something in it writes (Database.read_session).
            self._session = self.app.db.session(write=True) if writes else self.app.db.read_session()
        return self._session

    def commit_mark(self) -> Any:
        """`app.db.commit_mark()` when everything this request reads from now on is at least as new
        as it (its session has not begun a transaction yet, so its snapshot starts later); else None.

        What a reading request builds from its reads may be kept with this mark, and served again
        while `app.db.commit_mark()` still equals it (nothing committed since). None: keep nothing by it.
        """
        if self._reads_through is not None or self._joined is not None:
            return None
        if self._session is not None and self._session.in_transaction():
            return None
        return self.app.db.commit_mark()

    @property
    def reads_only(self) -> bool:
        """Whether this request's session now only reads what is committed: its own transaction has
        ended (`finish`) or committed early (`commit`), so reading through it takes no write lock."""
        return self._joined is None and (self._finished or self._committed)

    def read_through(self, reader: "RestRequest") -> None:
        """Read through `reader`'s session (which `reads_only`) instead of a session of this request's own.

        A permission probe after a write's commit (the Allow header, targetHints) shares the one
        read session of its request: no pool checkout and, on SQLite, no BEGIN/ROLLBACK of its
        own. `reader` closes that session when it finishes; this request's `finish` leaves it be.
        """
        self._reads_through = reader

    def join_transaction(self, outer: "RestRequest") -> None:
        """Run in `outer`'s transaction (batch/v1): this request's writes go into a savepoint that
        `finish` releases or rolls back, and its after-commit callbacks wait for `outer`'s commit."""
        self._joined = outer

    def share_savepoint(self, shared: bool) -> None:
        """While `shared`, this batch item's reads and writes go to the batch's transaction without a
        savepoint of its own: a `Route.bulk_batch` run writes many items at once and undoes them itself."""
        self._shares_savepoint = shared

    def discard_state(self) -> None:
        """Forget what plugins kept and the after-commit callbacks: a bulk run that failed was undone."""
        self.state = RequestState()
        self._after_commit = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the request's transaction has committed (events, cache purges)."""
        self._after_commit.append(callback)

    def commit(self) -> None:
        """Commit the writes made so far and run the after-commit callbacks; later reads use a read session.

        A handler calls it once it has written everything, so that building its answer (rendering,
        links, permission probes) happens after the commit, without holding the write lock. Inside
        a batch the batch's transaction stays open: nothing happens until the batch commits.
        """
        if self._joined is not None:
            return
        self._committed = True
        session = self._session
        if session is not None:
            session.commit()
            # The same session goes on (a handler may hold it), reading without the write lock from here.
            session.bind = self.app.db.engine
        callbacks, self._after_commit = self._after_commit, []
        with running_commit_round():
            for callback in callbacks:
                callback()

    def answer_after_commit(self, build: Callable[[], Any]) -> Any:
        """Commit, then `build()` the answer (rendering, links, permission probes) without the write lock.

        A batch/v1 item cannot commit alone: it gets a `DeferredAnswer` that the batch builds
        after committing all its items, so that 25 answers are not rendered while the other
        writers wait. The handler returns what this returns, as its data.
        """
        if self._joined is None:
            self.commit()
            return build()
        return DeferredAnswer(build)

    def finish(self, success: bool) -> None:
        """Commit (or roll back) and close the session, then run the after-commit callbacks.

        Called again later, it closes the read session opened since (permission probes, embeds).
        """
        self._finished = True
        if self._reads_through is not None:
            return
        callbacks, self._after_commit = self._after_commit, []
        if self._joined is not None:
            savepoint, self._savepoint = self._savepoint, None
            if savepoint is not None and savepoint.is_active:
                savepoint.commit() if success else savepoint.rollback()
            if success:
                for callback in callbacks:
                    self._joined.after_commit(callback)
            return
        session, self._session = self._session, None
        if session is not None:
            try:
                # A session idle since `commit` (a create's answer is built from what it wrote) has nothing
                # to end; committing it anyway would begin and end an empty transaction of its own.
                if session.in_transaction():
                    if success:
                        session.commit()
                    else:
                        session.rollback()
            finally:
                session.close()
        if success:
            for callback in callbacks:
                callback()


class DeferredAnswer:
    """A batch item's answer, built by `build()` once its batch's transaction has committed."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[[], Any]):
        self.build = build


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
