"""The REST request pipeline.

authenticate -> match route (404 rest_no_route) -> parse body (400 rest_invalid_json)
-> required params -> validate and sanitize from args -> load with the args class (its own
validators, typed values; rest/loading.py) -> permission (401/403) -> handler
-> Allow header, _fields, _embed, _envelope -> JSON. Handlers return data or a
RestResponse and raise RestError; they never format errors or common headers by hand.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import io
import json
import logging
import re
import uuid
from typing import Any
from urllib.parse import parse_qsl

import orjson
from sqlalchemy.exc import DataError

from ..plugins import ESSENTIAL
from ..compression import KEPT_LEVEL, MIN_BYTES, accepts_gzip, add_vary, gzip_bytes, gzip_etag, holds_etag, negotiate
from ..proxies import forwarded
from .request import GLOBAL_PARAMS, DeferredAnswer, RestRequest, parse_query
from .response import FileBody, RawBody, RestError, RestResponse, exact_bytes, forbidden, invalid_param
from .kept_embeds import KeptEmbeds
from .loading import load_args
from .shaping import compact_links, embed_links, embed_target, embeddable_links, fields_tree, filter_fields, parse_names
from .validation import MAX_INTEGER, ParamError, sanitize_value, validate_value

log = logging.getLogger("sitehost.rest")

JSON_CONTENT_TYPE = "application/json; charset=UTF-8"
_JSONP_CALLBACK = re.compile(r"^[\w.]+$")
_JSON_TYPE = re.compile(r"^application/([\w!#$&.+^-]+\+)?json(\+oembed)?$")
NO_CACHE_HEADERS = {
    "Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private",
    "Expires": "Wed, 11 Jan 1984 05:00:00 GMT",
}
STATUS_TEXT = {
    200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 207: "Multi-Status",
    301: "Moved Permanently", 302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized",
    403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone",
    412: "Precondition Failed", 413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
    429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
    501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
}
MAX_QUERY_BYTES = 16 * 1024
# Answers at least this large are handed to the server as a file to read from (wsgi.file_wrapper)
# rather than as one bytes chunk: waitress copies a chunk into a per-connection buffer before sending
# it (a 379 kB root index, an 800 kB iCalendar feed once per connection in flight), while a file it
# reads in socket-sized pieces. Smaller answers go as one chunk, sent with their headers in one write.
LARGE_BODY_BYTES = 32 * 1024


def _body_iterable(environ: dict, body: bytes):
    """The WSGI body of an answer: a large one as the server's file wrapper over the same bytes.

    io.BytesIO over bytes shares them until written to, so every connection sending a kept
    answer (a cached page, a kept feed) reads the one copy instead of holding its own.
    """
    wrapper = environ.get("wsgi.file_wrapper")
    if wrapper is None or len(body) < LARGE_BODY_BYTES or not isinstance(body, bytes):
        return [body]
    return wrapper(io.BytesIO(body))


def json_default(value: Any) -> Any:
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (uuid.UUID,)):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, RawBody):  # a raw body inside a batch or embed answer: its text
        return value.body.decode("utf-8", "replace")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def encode_json(data: Any, pretty: bool = False) -> bytes:
    """Compact JSON through orjson (several times faster on a list page); the standard encoder
    for `_pretty` (4-space indent) and for what orjson refuses (integers beyond 64 bits)."""
    if not pretty:
        try:
            return orjson.dumps(data, default=json_default, option=_ORJSON_OPTIONS)
        except orjson.JSONEncodeError:
            pass
    if pretty:
        return json.dumps(data, default=json_default, ensure_ascii=False, indent=4).encode("utf-8")
    return json.dumps(data, default=json_default, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class PreparedDocument(dict):
    """A document built once (the discovery indexes); its JSON is encoded and gzipped only once.

    A handler returning the same PreparedDocument for every request lets `_render` reuse the
    bytes when the request asks for no shaping (`_fields`, `_embed`, `_envelope`, ...), so a
    large index costs a dictionary lookup instead of a JSON encode per request, and its gzip
    form (the default for a client that accepts gzip) a lookup instead of a compression. The
    ETag, the hash of the JSON, lets a client that kept the index revalidate it for a 304.
    """

    __slots__ = ("encoded", "etag", "_gzipped")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.encoded: bytes | None = None
        self.etag = ""
        self._gzipped: bytes | None = None

    def keep_encoded(self, body: bytes) -> None:
        body = exact_bytes(body)  # orjson's result holds its whole write buffer: megabytes for the root index
        self.etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        self.encoded = body

    def gzipped(self) -> bytes:
        """The gzip form, compressed on first use (two threads may both compress: the same bytes)."""
        if self._gzipped is None:
            self._gzipped = gzip_bytes(self.encoded or b"", KEPT_LEVEL)
        return self._gzipped


class _Outcome:
    """The result of running one request through routing and the handler."""

    __slots__ = ("status", "headers", "data", "route", "is_error")

    def __init__(self, status: int, headers: dict[str, str], data: Any, route=None, is_error: bool = False):
        self.status = status
        self.headers = headers
        self.data = data
        self.route = route
        self.is_error = is_error


def error_outcome(error: RestError, route=None) -> _Outcome:
    return _Outcome(error.status, dict(error.headers), error.to_body(), route, True)


class RestServer:
    """Serves the REST root of one app."""

    def __init__(self, app):
        self.app = app
        self.registry = app.registry
        self.hook = app.pm.hook
        self._credential_keys = self._declared_credential_keys()
        self.kept_embeds = KeptEmbeds(self.registry, encode_json)

    def _declared_credential_keys(self) -> tuple[str, ...] | None:
        """The WSGI keys of every header an authenticator reads credentials from; None if unknown.

        The host's own authenticators read the Authorization header and the session cookie; a
        plugin's declare theirs in `PluginInfo.credential_headers` (None: anywhere, so always ask).
        """
        keys = {"HTTP_AUTHORIZATION", "HTTP_COOKIE"}
        for implementation in self.hook.authenticate.get_hookimpls():
            if implementation.plugin_name in ESSENTIAL:
                continue
            record = self.app.plugin(implementation.plugin_name)
            info = getattr(getattr(record, "module", None), "PLUGIN", None)
            declared = getattr(info, "credential_headers", None)
            if declared is None:
                return None
            keys.update("HTTP_" + name.upper().replace("-", "_") for name in declared)
        return tuple(sorted(keys))

    # --- WSGI edge -----------------------------------------------------------------------

    def handle(self, environ: dict, route_path: str) -> tuple[str, list[tuple[str, str]], list[bytes]]:
        """Answer one HTTP request whose REST route path is `route_path`."""
        try:
            status, headers, body = self._handle(environ, route_path)
        except Exception:  # the pipeline itself failed: still answer in the interface's shape
            log.exception("unexpected failure in the REST pipeline")
            error = RestError("internal_server_error", "The server encountered an unexpected error.", 500)
            status, headers, body = 500, {"Content-Type": JSON_CONTENT_TYPE}, encode_json(error.to_body())
            try:
                headers["Link"] = self.discovery_link(environ)
            except Exception:  # the site URL itself could not be worked out: answer without it
                log.exception("no discovery link for the failed REST answer")
        if not isinstance(body, FileBody):
            headers, body = negotiate(environ, status, headers, body)
        header_list = [(name, str(value)) for name, value in headers.items()]
        if isinstance(body, FileBody):  # a download: streamed, never held in memory
            header_list.append(("Content-Length", str(body.size)))
            if environ.get("REQUEST_METHOD") == "HEAD":
                body.handle.close()
                return f"{status} {STATUS_TEXT.get(status, 'Unknown')}", header_list, [b""]
            return f"{status} {STATUS_TEXT.get(status, 'Unknown')}", header_list, body.chunks()
        # HEAD: the GET's headers, its Content-Length included (RFC 9110 9.3.2), and no body.
        header_list.append(("Content-Length", str(len(body))))
        if environ.get("REQUEST_METHOD") == "HEAD":
            body = b""
        return f"{status} {STATUS_TEXT.get(status, 'Unknown')}", header_list, _body_iterable(environ, body)

    def _handle(self, environ: dict, route_path: str):
        query_string = environ.get("QUERY_STRING", "")
        base_url = self.app.rest_base_url(environ)  # worked out once: the Link header and the request share it
        headers = self.base_headers(environ, base_url)
        if len(query_string) > MAX_QUERY_BYTES:
            error = RestError("rest_query_too_long", "The query string is too long.", 414)
            return self._finish_error(error, headers)
        pairs = parse_qsl(query_string, keep_blank_values=True)
        method = environ.get("REQUEST_METHOD", "GET").upper()
        override = [value for key, value in pairs if key == "_method"]
        if override:
            method = override[-1].upper()
        elif environ.get("HTTP_X_HTTP_METHOD_OVERRIDE"):
            method = environ["HTTP_X_HTTP_METHOD_OVERRIDE"].upper()
            headers.update(NO_CACHE_HEADERS)  # WordPress adds these for 4xx; harmless on all
        request = RestRequest(
            self.app, method, route_path, pairs, None, environ=environ,
            base_url=base_url, remote_addr=forwarded(environ, self.app.trusted_proxies).client,
        )
        try:
            body = self._read_body(environ)
        except RestError as error:
            return self._finish_error(error, headers)
        request.body = body
        # Only an answer whose parameters all came from the URL may be shared through a response
        # cache: a GET with a JSON body or a method override carries parameters the URL does not
        # show, so it is never answered from, nor stored in, a cache.
        cacheable = method == "GET" and not body and not override and "HTTP_X_HTTP_METHOD_OVERRIDE" not in environ
        # When every authenticator declared where its credentials travel, a GET carrying none of those
        # headers is anonymous for sure: it skips the hook, and a cache hit costs no authentication.
        if not cacheable or self._credential_keys is None \
                or not environ.keys().isdisjoint(self._credential_keys):
            try:
                user = self.hook.authenticate(app=self.app, request=request)
            except RestError as error:
                headers.update(self._anonymous_allow(request))
                return self._finish_error(error, headers)
            if user is not None:
                request.user = user
                environ["sitehost.user_id"] = user.id  # for the access log (host.logs)
        if request.user.is_authenticated:
            headers.update(NO_CACHE_HEADERS)
            cacheable = False
        # A hook no plugin implements (no response cache enabled) is not called: a pluggy call is six Python calls.
        if cacheable and self.hook.cached_response.get_hookimpls():
            cached = self.hook.cached_response(app=self.app, request=request)
            if cached is not None:
                status, cached_headers, cached_body = cached
                headers.update(cached_headers)
                if status == 200 and holds_etag(environ.get("HTTP_IF_NONE_MATCH"), headers.get("ETag", "")):
                    return 304, not_modified_headers(headers), b""
                return status, headers, cached_body
        try:
            if method == "OPTIONS":
                outcome = self._options(request)
            else:
                outcome = self.run(request)
            status, response_headers, body = self._render(request, outcome, headers)
        finally:
            request.finish(success=False)  # closed by _render already, unless it failed
        if cacheable and self.hook.store_response.get_hookimpls():
            self.hook.store_response(app=self.app, request=request, status=status, headers=response_headers, body=body)
        return status, response_headers, body

    def _anonymous_allow(self, request: RestRequest) -> dict[str, str]:
        """`Allow` of a refused sign-in: WordPress still dispatches it to its route, as nobody, so the
        answer lists what an anonymous caller may do there (GET on users/me)."""
        matched = self.registry.match(request.path, request.method)
        if matched is None:
            return {}
        request.route, request.endpoint, request.url_params = matched
        request.params = _path_params(request.url_params, request.endpoint.args)
        return self.refused_allow(request)

    def refused_allow(self, request: RestRequest) -> dict[str, str]:
        """`Allow` of a refused request that matched a route (a refused sign-in, a batch item refused
        before it ran): WordPress answers it through that route, so it lists the caller's methods there."""
        if request.route is None:
            return {}
        if not request.params:  # the Allow checks read the path's values (`id`), as for a request that ran
            if request.endpoint is None:  # a matched route always comes with its endpoint
                raise RuntimeError(f"{request.method} {request.path}: a route without an endpoint")
            request.params = _path_params(request.url_params, request.endpoint.args)
        try:
            allowed = self.allowed_methods(request, request.route)
        finally:
            request.finish(success=False)  # the read session of the permission checks, if any
        return {"Allow": ", ".join(allowed)} if allowed else {}

    def _finish_error(self, error: RestError, headers: dict[str, str]):
        headers.update(error.headers)
        return error.status, headers, encode_json(error.to_body())

    def discovery_link(self, environ: dict, base_url: str | None = None) -> str:
        """`Link: <REST root/>; rel="https://api.w.org/"`, which every REST answer carries."""
        return f'<{base_url or self.app.rest_base_url(environ)}/>; rel="https://api.w.org/"'

    def base_headers(self, environ: dict, base_url: str | None = None) -> dict[str, str]:
        """Headers of every REST answer, errors included: discovery Link, nosniff and CORS.

        CORS is open as in WordPress: REST signs callers in from the Authorization header
        only, never from cookies, so a page on another origin gains nothing a script could
        not already send without the browser's help. `cors_origins`, when set, narrows the
        origins that are answered to that list.
        """
        headers = {
            "Content-Type": JSON_CONTENT_TYPE,
            "X-Robots-Tag": "noindex",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "strict-origin-when-cross-origin",
            "Link": self.discovery_link(environ, base_url),
            "Access-Control-Expose-Headers": EXPOSED_HEADERS,
            "Access-Control-Allow-Headers": "Authorization, Content-Type, Content-Disposition, Content-MD5",
        }
        origin = environ.get("HTTP_ORIGIN")
        restricted = self.app.settings.cors_origins
        if origin and (not restricted or origin in restricted):
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Allow-Methods"] = "OPTIONS, GET, POST, PUT, PATCH, DELETE"
            headers["Access-Control-Allow-Credentials"] = "true"
            headers["Vary"] = "Origin"
        return headers

    def _read_body(self, environ: dict) -> bytes:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            raise RestError("rest_invalid_content_length", "The Content-Length header is not a number.", 400) from None
        limit = self.app.settings.max_body_bytes
        if length > limit:
            raise RestError("rest_request_too_large", f"The request body is larger than the limit of {limit} bytes.", 413)
        if length <= 0:
            return b""
        body = environ["wsgi.input"].read(length)
        return body

    # --- routing and dispatch ------------------------------------------------------------

    def run(self, request: RestRequest) -> _Outcome:
        """Match, validate, check permission and call the handler for `request`."""
        matched = self.registry.match(request.path, request.method)
        if matched is None:
            outcome = error_outcome(RestError("rest_no_route", "No route was found matching the URL and request method.", 404))
            self.hook.request_finished(app=self.app, request=request, status=outcome.status)
            return outcome
        route, endpoint, url_params = matched
        request.route, request.endpoint, request.url_params = route, endpoint, url_params
        # Until validation replaces them, params hold the path's values (Allow checks read `id`).
        request.params = _path_params(url_params, endpoint.args)
        try:
            self._parse_body(request)
            prevalidated, request.validated_params = request.validated_params, None
            request.params = prevalidated if prevalidated is not None else self.prepare_params(request, endpoint)
            self._check_permission(request, endpoint)
            result = endpoint.handler(request)
            if isinstance(result, RestResponse):
                outcome = _Outcome(result.status, dict(result.headers), result.data, route)
            else:
                outcome = _Outcome(200, {}, result, route)
            request.finish(success=True)
        except RestError as error:
            request.finish(success=False)
            outcome = error_outcome(error, route)
        except (OverflowError, DataError) as exception:
            # A value valid for its arg but beyond what the database column holds: bad input, not a crash.
            request.finish(success=False)
            log.warning("value out of the database's range in %s %s: %s", request.method, request.path, exception)
            outcome = error_outcome(RestError("rest_value_out_of_range",
                                              "A value is out of the range this site can store.", 400), route)
        except Exception as exception:
            request.finish(success=False)
            outcome = self._unexpected(request, exception, route)
        return self._close(request, route, outcome)

    def run_bulk(self, parent: RestRequest, requests: list[RestRequest]) -> list[_Outcome]:
        """Run a leading part of `requests` (batch items of one endpoint, prevalidated, in `parent`'s
        transaction) through the endpoint's `bulk_batch`; the outcomes of those it served, each
        finished as `run` finishes one. An exception from `bulk_batch` (which must have undone its
        writes) serves none: the host runs each item alone, as without it."""
        for request in requests:
            if request.validated_params is None:
                raise RuntimeError("run_bulk takes prevalidated batch items only")
            request.params = request.validated_params
            request.share_savepoint(True)  # the bulk writes all items at once, in a savepoint of its own
        try:
            endpoint = requests[0].endpoint
            if endpoint is None or endpoint.bulk_batch is None:
                raise RuntimeError("run_bulk takes items of an endpoint with bulk_batch")
            answers = endpoint.bulk_batch(parent, requests)
        except Exception as exception:
            log.warning("bulk batch of %s %s fell back to one item at a time", requests[0].method, requests[0].path,
                        exc_info=exception)
            answers = None
        finally:
            for request in requests:
                request.share_savepoint(False)
        if answers is None:
            for request in requests:  # nothing it did stands: no events, no kept items
                request.discard_state()
            return [self.run(request) for request in requests]
        outcomes = []
        for request, answer in zip(requests, answers):
            request.validated_params = None
            if isinstance(answer, RestError):
                request.finish(success=False)
                outcome = error_outcome(answer, request.route)
            elif isinstance(answer, RestResponse):
                request.finish(success=True)
                outcome = _Outcome(answer.status, dict(answer.headers), answer.data, request.route)
            else:
                request.finish(success=True)
                outcome = _Outcome(200, {}, answer, request.route)
            outcomes.append(self._close(request, request.route, outcome))
        return outcomes

    def check_permission(self, request: RestRequest) -> None:
        """The permission check of the request's endpoint, as `run` makes it (for `Route.bulk_batch`)."""
        self._check_permission(request, request.endpoint)

    def _close(self, request: RestRequest, route, outcome: _Outcome) -> _Outcome:
        """After the handler: `request_finished`, then the Allow header."""
        self.hook.request_finished(app=self.app, request=request, status=outcome.status)
        if _deleted_for_good(request, outcome):
            return outcome  # the item is gone: no method is allowed on it any more
        # The permission checks read through the finished request's read session, which stays open
        # for the answer's targetHints probes; whoever answers the request closes it (finish) at the end.
        allowed = self.allowed_methods(request, route)
        if allowed:
            outcome.headers.setdefault("Allow", ", ".join(allowed))
        return outcome

    def _unexpected(self, request: RestRequest, exception: Exception, route) -> _Outcome:
        answer = self.hook.handle_exception(app=self.app, request=request, exception=exception)
        if isinstance(answer, RestResponse):
            return _Outcome(answer.status, dict(answer.headers), answer.data, route, answer.status >= 400)
        log.error("unexpected error in %s %s", request.method, request.path, exc_info=exception)
        return error_outcome(RestError("internal_server_error", "The server encountered an unexpected error.", 500), route)

    def _parse_body(self, request: RestRequest) -> None:
        body = request.body
        content_type = request.content_type
        if body and _JSON_TYPE.match(content_type):
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                raise RestError("rest_invalid_json", "Invalid JSON body passed.", 400,
                                {"json_error_code": 5, "json_error_message": "Malformed UTF-8 characters"}) from None
            if text.strip():
                try:
                    request.json = json.loads(text)
                except RecursionError:
                    raise RestError("rest_invalid_json", "Invalid JSON body passed.", 400,
                                    {"json_error_code": 1, "json_error_message": "Maximum stack depth exceeded"}) from None
                except ValueError:
                    raise RestError("rest_invalid_json", "Invalid JSON body passed.", 400,
                                    {"json_error_code": 4, "json_error_message": "Syntax error"}) from None
                if _depth(request.json) > self.app.settings.max_json_depth:
                    raise RestError("rest_invalid_json", "Invalid JSON body passed.", 400,
                                    {"json_error_code": 1, "json_error_message": "Maximum stack depth exceeded"})
        elif request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if content_type == "multipart/form-data" and request.method == "POST":
                request.form, request.files = parse_multipart(request)
            elif body and content_type in ("", "application/x-www-form-urlencoded"):
                try:
                    text = body.decode("utf-8")
                except UnicodeDecodeError:
                    raise RestError("rest_invalid_body", "The request body is not valid UTF-8.", 400) from None
                request.form = parse_query(parse_qsl(text, keep_blank_values=True))

    def prepare_params(self, request: RestRequest, endpoint) -> dict[str, Any]:
        sent: dict[str, Any] = {}
        sources = [request.url_params, request.query, request.form]
        if isinstance(request.json, dict):
            sources.append(request.json)
        for source in sources:
            for key, value in source.items():
                if value is not None:
                    sent[key] = value
        for name in sent.keys() & _NOT_ARGS:
            del sent[name]
        params = _default_params(endpoint)
        params.update(sent)
        missing = [name for name in endpoint.required if params.get(name) is None]
        if missing:
            raise RestError("rest_missing_callback_param", f"Missing parameter(s): {', '.join(missing)}", 400,
                            {"params": missing})
        invalid: dict[str, ParamError] = {}
        self._check_path_numbers(request, endpoint, invalid)
        args = endpoint.args
        unchecked = endpoint.handler_validated  # passed on as sent (host.args.RenderedText)
        # The args sent, not every arg of the endpoint: a list takes some thirty and is mostly sent none.
        checked = [name for name in sent if name in args and name not in unchecked]
        refused: dict[str, ParamError] = {}
        for name in checked:
            try:
                validate_value(sent[name], args[name], name)
            except ParamError as error:
                refused[name] = error
        if refused:  # named in the order the endpoint declares its args, whatever order they were sent in
            invalid.update((name, refused[name]) for name in args if name in refused)
        if invalid:
            raise invalid_param(invalid)
        for name in checked:
            params[name] = sanitize_value(sent[name], args[name])
        return load_args(endpoint, params, set(sent))

    @staticmethod
    def _check_path_numbers(request: RestRequest, endpoint, invalid: dict[str, ParamError]) -> None:
        """A number in the path past what a database column holds, where the route declares no arg for it."""
        route = request.route
        for name in route.number_groups if route is not None else ():
            value = request.url_params.get(name)
            if name in endpoint.args or not isinstance(value, str) or len(value) < 19:
                continue
            digits = value.lstrip("0")
            if len(digits) <= 19 and int(digits or "0") <= MAX_INTEGER:  # never int() of thousands of digits
                continue
            message = f"{name} must be between 0 (inclusive) and {MAX_INTEGER} (inclusive)"
            invalid[name] = ParamError("rest_out_of_bounds", message)

    def _check_permission(self, request: RestRequest, endpoint) -> None:
        if endpoint.permission is None:
            request.permitted = True
            return
        verdict = endpoint.permission(request)
        request.permitted = verdict is True
        if verdict is True:
            return
        if isinstance(verdict, RestError):
            raise verdict
        refusal = forbidden(request.user)
        if not request.user.is_authenticated:
            refusal.status = endpoint.anonymous_refusal
        raise refusal

    def allowed_methods(self, request: RestRequest, route) -> list[str]:
        """Methods of `route` the caller may use, for the Allow header."""
        allowed: list[str] = []
        for endpoint in route.endpoints:
            if endpoint.permission is None:
                permitted = True
            elif endpoint is request.endpoint and request.permitted is not None:
                permitted = request.permitted
            else:
                try:
                    permitted = endpoint.permission(request) is True
                except RestError:
                    permitted = False
                except Exception:
                    log.exception("permission check failed while building the Allow header")
                    permitted = False
            if permitted:
                allowed.extend(method for method in endpoint.methods if method not in allowed)
        return allowed

    def target_hints(self, request: RestRequest, href: str, prime: dict[str, Any] | None = None) -> dict | None:
        """WordPress's `targetHints` of a `self` link: `{"allow": [...]}` for the caller, or None.

        The methods come from the same permission checks as the Allow header, run for a GET
        probe of the link's route. `prime` is set on the probe request before the checks, so a
        plugin can hand over the object it has in hand (its per-request caches) and the checks
        read nothing again: on a list page that saves a database round trip per item.
        """
        base = request.base_url
        if not href.startswith(base + "/"):
            return None
        path = href[len(base):].split("?", 1)[0].rstrip("/") or "/"
        route = self.registry.first_route_for(path)
        if route is None:
            return None
        found = route.regex.match(path)
        probe = RestRequest(self.app, "GET", path, [], {}, base_url=base, remote_addr=request.remote_addr,
                            internal=True, environ=request.environ)
        probe.user = request.user
        probe.application_password = request.application_password
        probe.route = route
        probe.url_params = {key: value for key, value in found.groupdict().items() if value is not None}
        endpoint = route.endpoint_for("GET") or route.endpoints[0]
        probe.params = _path_params(probe.url_params, endpoint.args)
        if prime:
            probe.state.update(prime)
        if request.reads_only:
            probe.read_through(request)  # no session of its own: the request's reads see what it committed
        try:
            allowed = self.allowed_methods(probe, route)
        finally:
            probe.finish(success=False)
        return {"allow": allowed} if allowed else None

    def _with_target_hints(self, request: RestRequest, data: Any) -> Any:
        """targetHints on every item's `self` links that its plugin did not fill in already.

        Items are copied, never changed in place: a plugin may keep the dicts it returned.
        """
        if isinstance(data, list):
            return [self._with_target_hints(request, item) if isinstance(item, dict) else item for item in data]
        if not isinstance(data, dict):
            return data
        links = data.get("_links")
        selves = links.get("self") if isinstance(links, dict) else None
        if not isinstance(links, dict) or not isinstance(selves, list) \
                or not any(isinstance(link, dict) and "targetHints" not in link for link in selves):
            return data
        hinted = []
        for link in selves:
            if isinstance(link, dict) and "targetHints" not in link and isinstance(link.get("href"), str):
                hints = self.target_hints(request, link["href"])
                if hints:
                    link = {**link, "targetHints": hints}
            hinted.append(link)
        return {**data, "_links": {**links, "self": hinted}}

    def _options(self, request: RestRequest) -> _Outcome:
        route = self.registry.first_route_for(request.path)
        if route is None:
            return _Outcome(200, {}, [])
        descriptor = self.registry.describe_route(route, request.base_url, help_context=True) or []
        outcome = _Outcome(200, {}, descriptor, route)
        request.route = route
        # The path's own ids (posts/7/revisions) reach the permission checks, as for a GET.
        found = route.regex.match(request.path)
        if found is not None:
            request.url_params = {key: value for key, value in found.groupdict().items() if value is not None}
            endpoint = route.endpoint_for("GET") or route.endpoints[0]
            request.params = _path_params(request.url_params, endpoint.args)
        try:
            allowed = self.allowed_methods(request, route)
        finally:
            request.finish(success=False)
        if allowed:
            outcome.headers["Allow"] = ", ".join(allowed)
        return outcome

    # --- internal requests (embeds, batch) -----------------------------------------------

    def run_and_shape(self, request: RestRequest) -> tuple[int, dict[str, str], Any]:
        """Run an internal request and return (status, headers, data) as a client would see them."""
        outcome = self._options(request) if request.method == "OPTIONS" else self.run(request)
        return self.shape_outcome(request, outcome)

    def shape_outcome(self, request: RestRequest, outcome: _Outcome) -> tuple[int, dict[str, str], Any]:
        """(status, headers, data) of a run internal request; a batch item's deferred answer is built here,
        after its batch committed (an exception building it answers 500, as it would outside a batch)."""
        if isinstance(outcome.data, DeferredAnswer):
            try:
                outcome.data = outcome.data.build()
            except RestError as error:
                outcome = error_outcome(error, outcome.route)
            except Exception as exception:
                outcome = self._unexpected(request, exception, outcome.route)
        try:
            return outcome.status, outcome.headers, self._shape(request, outcome, embed=False)
        finally:
            request.finish(success=False)  # the read session of the Allow and targetHints checks, if any

    def dispatch_internal(self, parent: RestRequest, method: str, path: str, pairs: list[tuple[str, str]],
                          body: Any = None, headers: dict[str, str] | None = None, for_embed: bool = False):
        """Run a sub-request as the parent's user; return (status, headers, data with links)."""
        request = RestRequest(self.app, method, path, pairs, {k.lower(): v for k, v in (headers or {}).items()},
                              base_url=parent.base_url, remote_addr=parent.remote_addr, internal=True,
                              environ=parent.environ)
        request.user = parent.user
        request.application_password = parent.application_password
        if isinstance(body, dict):
            request.form = body
        elif isinstance(body, bytes):
            request.body = body
        if for_embed:
            matched = self.registry.match(path, method)
            if matched is not None:
                per_page = matched[1].args.get("per_page")
                if per_page and "per_page" not in request.query and "maximum" in per_page:
                    request.query["per_page"] = str(per_page["maximum"])
        return self.run_and_shape(request)

    def _embed_request(self, parent: RestRequest, path: str, pairs: list[tuple[str, str]]) -> RestRequest:
        """The internal GET an embedded link runs as: the parent's caller, a collection's largest page."""
        request = RestRequest(self.app, "GET", path, pairs, {}, base_url=parent.base_url,
                              remote_addr=parent.remote_addr, internal=True, environ=parent.environ)
        request.user = parent.user
        request.application_password = parent.application_password
        matched = self.registry.match(path, "GET")
        if matched is not None:
            per_page = matched[1].args.get("per_page")
            if per_page and "per_page" not in request.query and "maximum" in per_page:
                request.query["per_page"] = str(per_page["maximum"])
        return request

    def embed_batched(self, parent: RestRequest, hrefs: list[str]) -> dict[str, Any]:
        """Answers, by href, of the embeddable links whose GET endpoint declares `embed_batch`.

        The links of a whole page are grouped by endpoint and each group is answered in one
        call, instead of one internal request per link; the answers are shaped as an internal
        request's are. Links no batch answers are left out (the caller fetches them one by one).
        """
        groups: dict[int, tuple[Any, list[tuple[str, RestRequest]]]] = {}
        for href in dict.fromkeys(hrefs):
            path, pairs = embed_target(parent, href)
            matched = self.registry.match(path, "GET")
            if matched is None or matched[1].embed_batch is None:
                continue
            route, endpoint, url_params = matched
            request = self._embed_request(parent, path, pairs)
            request.route, request.endpoint, request.url_params = route, endpoint, url_params
            request.params = _path_params(url_params, endpoint.args)
            try:
                request.params = self.prepare_params(request, endpoint)
            except RestError:
                continue  # the normal path answers the error
            groups.setdefault(id(endpoint), (endpoint, []))[1].append((href, request))
        answers: dict[str, Any] = {}
        try:
            for endpoint, members in groups.values():
                requests = [request for _href, request in members]
                try:
                    results = endpoint.embed_batch(parent, requests)
                except Exception:
                    log.exception("embed batch of %s failed; following its links one by one", requests[0].path)
                    results = [None] * len(members)
                for (href, request), result in zip(members, results):
                    try:
                        if isinstance(result, RestError):
                            answers[href] = result.to_body()
                        elif result is not None:
                            data = result.data if isinstance(result, RestResponse) else result
                            answers[href] = _finish_links(self._with_target_hints(request, data), True)
                    finally:
                        request.finish(success=False)
        finally:
            parent.finish(success=False)  # the batches read through a new session of the (finished) parent
        return answers

    # --- shaping and encoding ------------------------------------------------------------

    def _shape(self, request: RestRequest, outcome: _Outcome, embed: bool = True) -> Any:
        data = outcome.data
        if outcome.is_error or outcome.status >= 400 or isinstance(data, RawBody):
            return data
        fields_value = request.query.get("_fields")
        names = parse_names(fields_value) if fields_value is not None else []
        embed_value = request.query.get("_embed") if embed else None
        wants_embed = embed and "_embed" in request.query
        tree = fields_tree(names) if names else None
        if tree is not None:
            keep_links = "_links" in tree or "_embedded" in tree
            if wants_embed and "_embedded" not in tree:
                wants_embed = False
        else:
            keep_links = True
        items = data if isinstance(data, list) else [data]
        if wants_embed:
            wanted = set(parse_names(embed_value)) - {"1", "true"} if embed_value not in (None, "", "1", "true") else None
            items = [dict(item) if isinstance(item, dict) else item for item in items]
            self._embed_page(request, items, wanted or None, encoded=tree is None and "_pretty" not in request.query)
            data = items if isinstance(data, list) else items[0]
        # An OPTIONS answer is the route's descriptor: WordPress links it to itself without targetHints.
        if keep_links and isinstance(data, (dict, list)) and request.method != "OPTIONS":
            data = self._with_target_hints(request, data)
        if tree is not None:
            data = filter_fields(data, tree)
        if isinstance(data, (dict, list)):
            data = _finish_links(data, keep_links)
        return data

    def _embed_page(self, request: RestRequest, items: list, wanted: set[str] | None, encoded: bool) -> None:
        """Fill `_embedded` of every item: kept answers first (callers without credentials), then
        one batch per endpoint for the page, then one internal request per remaining link."""
        links = [embeddable_links(request, item, wanted) if isinstance(item, dict) else [] for item in items]
        hrefs = [href for item_links in links for _rel, href in item_links if href is not None]
        fetched: dict = {}
        versions_before: dict = {}
        shared = KeptEmbeds.applies(request)
        if shared:
            versions: dict = {}
            fetched = self.kept_embeds.lookup(request, hrefs, versions, encoded)
            versions_before = self.kept_embeds.versions_for(request, [h for h in hrefs if h not in fetched], versions)
        built = self.embed_batched(request, [href for href in hrefs if href not in fetched])
        fetched.update(built)
        for item, item_links in zip(items, links):
            if isinstance(item, dict):
                embed_links(self, request, item, item_links, fetched)
        if versions_before:
            self.kept_embeds.keep(request, fetched, versions_before)

    def _render(self, request: RestRequest, outcome: _Outcome, headers: dict[str, str]):
        if isinstance(outcome.data, RawBody):
            request.finish(success=False)  # the Allow checks' read session, if any
            return self._render_raw(request, outcome, headers)
        prepared = outcome.data if isinstance(outcome.data, PreparedDocument) and not outcome.is_error \
            and request.query.keys().isdisjoint(GLOBAL_PARAMS) else None
        data = outcome.data if prepared is not None and prepared.encoded is not None else self._shape(request, outcome)
        # The read session that the Allow and targetHints checks shared closes before the answer is encoded.
        request.finish(success=False)
        status = outcome.status
        response_headers = _answer_headers(request, outcome, headers)
        discovery = f'<{request.base_url}/>; rel="https://api.w.org/"'
        if "_envelope" in request.query:
            envelope_headers = numeric_headers(outcome.headers)
            data = {"body": data, "status": status, "headers": envelope_headers}
            for name in envelope_headers:
                response_headers.pop(name, None)
            response_headers["Link"] = discovery
            status = 200
        self.hook.response_headers(app=self.app, request=request, response=response_headers)
        if status in (204, 304) or (data is None and not outcome.is_error):
            response_headers.pop("Content-Type", None)
            return status, response_headers, b""
        if prepared is not None and prepared.encoded is not None:
            return self._prepared_answer(request, status, response_headers, prepared)
        try:
            body = encode_json(data, pretty="_pretty" in request.query)
            if prepared is not None:
                prepared.keep_encoded(body)
                return self._prepared_answer(request, status, response_headers, prepared)
        except (TypeError, ValueError):
            log.exception("response of %s %s is not JSON-encodable", request.method, request.path)
            error = RestError("rest_encode_error", "The response could not be encoded as JSON.", 500)
            return 500, response_headers, encode_json(error.to_body())
        callback = request.query.get("_jsonp")
        if callback is not None:
            if not isinstance(callback, str) or not _JSONP_CALLBACK.match(callback):
                error_body = {"code": "rest_callback_invalid", "message": "Invalid JSONP callback function."}
                return 400, response_headers, encode_json(error_body)
            response_headers["Content-Type"] = "application/javascript; charset=UTF-8"
            body = b"/**/" + callback.encode() + b"(" + body + b")"
        return status, response_headers, body

    @staticmethod
    def _prepared_answer(request: RestRequest, status: int, headers: dict[str, str], prepared: PreparedDocument):
        """A prepared document's kept bytes: gzip when the client accepts it, 304 when it holds this form.

        Each form has its own ETag (the gzip one marked `-gzip`), as a cache must not take one for the other.
        """
        body = prepared.encoded or b""
        gzipped = len(body) > MIN_BYTES and accepts_gzip(request.environ.get("HTTP_ACCEPT_ENCODING"))
        headers["ETag"] = gzip_etag(prepared.etag) if gzipped else prepared.etag
        add_vary(headers)
        if status == 200 and holds_etag(request.environ.get("HTTP_IF_NONE_MATCH"), headers["ETag"]):
            return 304, not_modified_headers(headers), b""
        if gzipped:
            headers["Content-Encoding"] = "gzip"
            return status, headers, prepared.gzipped()
        return status, headers, body

    def _render_raw(self, request: RestRequest, outcome: _Outcome, headers: dict[str, str]):
        """A RawBody goes out as it is, with its own content type and the usual headers."""
        response_headers = _answer_headers(request, outcome, headers)
        if outcome.status in (204, 304):
            # No content, so no representation metadata either (RFC 9110 15.4.5): a 304 that named a type
            # would tell a cache to update what it holds.
            response_headers.pop("Content-Type", None)
            self.hook.response_headers(app=self.app, request=request, response=response_headers)
            return outcome.status, response_headers, b""
        response_headers["Content-Type"] = outcome.data.content_type
        self.hook.response_headers(app=self.app, request=request, response=response_headers)
        if isinstance(outcome.data, FileBody):
            return outcome.status, response_headers, outcome.data
        return outcome.status, response_headers, outcome.data.body


NUMERIC_HEADERS = ("X-WP-Total", "X-WP-TotalPages")
# What every REST answer lets scripts of other origins read, as WordPress; a Route adds its own (expose_headers).
EXPOSED_HEADERS = "X-WP-Total, X-WP-TotalPages, Link"


def _answer_headers(request: RestRequest, outcome: _Outcome, headers: dict[str, str]) -> dict[str, str]:
    """The base headers, then the handler's, then the endpoint's exposed headers.

    An answer's own `Link` (a page's prev/next, an item's alternate) replaces the discovery link of
    the base headers, as WordPress's second `header('Link: ...')` replaces its first; answers without
    one (errors, single-page lists) keep the discovery link.
    """
    response_headers = dict(headers)
    response_headers.update(outcome.headers)
    endpoint = request.endpoint
    if endpoint is not None and endpoint.expose_headers:
        response_headers["Access-Control-Expose-Headers"] = ", ".join((EXPOSED_HEADERS, *endpoint.expose_headers))
    return response_headers


def not_modified_headers(headers: dict[str, str]) -> dict[str, str]:
    """A 304's headers: the answer's validators and Vary, without what describes a body it does not send."""
    for name in ("Content-Type", "Content-Encoding"):
        headers.pop(name, None)
    add_vary(headers)  # the tag it confirms is one encoding's
    return headers


def numeric_headers(headers: dict[str, str]) -> dict[str, Any]:
    """Headers as a JSON object the way WordPress puts them in `_envelope` and batch answers:
    the totals are numbers there, not the strings HTTP carries."""
    result: dict[str, Any] = dict(headers)
    for name in NUMERIC_HEADERS:
        value = result.get(name)
        if isinstance(value, str) and value.isdigit():
            result[name] = int(value)
    return result


def _deleted_for_good(request: RestRequest, outcome: _Outcome) -> bool:
    """A DELETE that answered `{deleted: true, previous: ...}` removed its item for good.

    That is the answer shape of every permanent delete (posts with force, terms, revisions,
    users, application passwords); the item no longer exists, so no method is allowed on it.
    """
    data = outcome.data
    return request.method == "DELETE" and not outcome.is_error and isinstance(data, dict) \
        and data.get("deleted") is True and "previous" in data


# What a request may send besides the endpoint's args: the global parameters and the ?rest_route= path.
_NOT_ARGS = frozenset((*GLOBAL_PARAMS, "rest_route"))


def _default_params(endpoint) -> dict[str, Any]:
    """A fresh copy of the endpoint's defaults, validated and sanitized once (they never change).

    Defaults are scalars or flat lists (statuses, orders), so a shallow copy per request keeps
    a handler's changes from leaking into the next request.

    A default that does not validate is a plugin's bug: it is reported at first use as the
    error it would have caused on every request.
    """
    prepared = endpoint.prepared_defaults
    if prepared is None:
        prepared = {}
        for name, value in endpoint.defaults.items():
            arg = endpoint.args.get(name)
            if arg:
                validate_value(value, arg, name)
                value = sanitize_value(value, arg)
            prepared[name] = value
        endpoint.list_defaults = tuple(name for name, value in prepared.items() if isinstance(value, (list, dict)))
        endpoint.prepared_defaults = prepared  # after list_defaults: another thread reads both once this is set
    params = dict(prepared)  # copied in C; then the few lists and dicts, each one call
    for name in endpoint.list_defaults:
        params[name] = params[name].copy()
    return params


def _path_params(url_params: dict[str, str], args: dict[str, dict]) -> dict[str, Any]:
    """Path values sanitized by their args where they validate (`"12"` -> 12), else as sent."""
    params: dict[str, Any] = {}
    for name, value in url_params.items():
        arg = args.get(name)
        try:
            if arg:
                validate_value(value, arg, name)
                value = sanitize_value(value, arg)
        except ParamError:
            pass
        params[name] = value
    return params


def encode_item(data: dict) -> orjson.Fragment:
    """`data` finished as the host finishes a returned item (`_links` compacted), encoded once.

    A handler may keep the result and return it, inside its list, to later requests whose
    `request.plain` is true: the host embeds the bytes as they are. (Requests with _fields,
    _embed or _pretty need the item as a dict and must get it as one.)
    """
    return orjson.Fragment(exact_bytes(encode_json(_finish_links(data, True))))


def decode_item(value: Any) -> Any:
    """An item kept by `encode_item` as a dict again, for a request that needs dicts (`_embed`).

    Decoding a kept item costs a small fraction of building it; its `_links` are already
    compacted, which finishing them again leaves as they are.
    """
    return orjson.loads(orjson.dumps(value)) if isinstance(value, orjson.Fragment) else value


def _finish_links(data: Any, keep_links: bool) -> Any:
    """Compact `_links` rels (wp: curies), or drop them when `_fields` did not ask for them."""
    if isinstance(data, list):
        return [_finish_links(item, keep_links) if isinstance(item, dict) else item for item in data]
    if not isinstance(data, dict) or "_links" not in data:
        return data
    data = dict(data)
    links = data.pop("_links")
    embedded = data.pop("_embedded", None)
    if keep_links and isinstance(links, dict):
        data["_links"] = compact_links(links)
    if embedded is not None:
        data["_embedded"] = embedded
    return data


def _depth(value: Any, limit: int = 10_000) -> int:
    """Nesting depth of parsed JSON, iteratively (deep input must not exhaust the stack)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def parse_multipart(request: RestRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    """multipart/form-data through Bottle's parser: form fields and uploaded files."""
    import io

    import bottle

    environ = {
        "REQUEST_METHOD": "POST",
        "CONTENT_TYPE": request.header("content-type") or "",
        "CONTENT_LENGTH": str(len(request.body)),
        "wsgi.input": io.BytesIO(request.body),
    }
    parsed = bottle.BaseRequest(environ)
    try:
        forms = parsed.forms
        files = parsed.files
    except Exception:
        raise RestError("rest_invalid_multipart", "The multipart body could not be parsed.", 400) from None
    form = parse_query([(key, value) for key, value in forms.allitems()])
    uploads = {key: value for key, value in files.allitems()}
    return form, uploads
