"""What handlers return (data or a RestResponse) and what they raise (RestError)."""

from __future__ import annotations

import math
from typing import Any, Mapping
from urllib.parse import urlencode

from .validation import ParamError


class RestError(Exception):
    """An error in the interface's shape: {"code", "message", "data": {"status", ...}}.

    Raise it anywhere in a handler or permission check. `status` is the HTTP status;
    `data` adds fields beside `status` (for example `params` and `details`).
    `additional_data` is WordPress's top-level list of the error's earlier data (a duplicate
    term name gives the existing term's id there).
    """

    def __init__(self, code: str, message: str, status: int = 500, data: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, additional_data: list[Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.data = dict(data or {})
        self.headers = dict(headers or {})
        self.additional_data = list(additional_data) if additional_data else None

    def to_body(self) -> dict[str, Any]:
        body = {"code": self.code, "message": self.message, "data": {"status": self.status, **self.data}}
        if self.additional_data:
            body["additional_data"] = self.additional_data
        return body

    def __repr__(self) -> str:
        return f"RestError({self.code!r}, status={self.status})"


def invalid_param(problems: Mapping[str, str | ParamError], message: str | None = None) -> RestError:
    """400 `rest_invalid_param` naming every bad parameter at once, in WordPress's shape.

    `problems` maps each parameter to its message (a string: code `rest_invalid_param`) or to a
    `ParamError(code, message, data)`. The answer is what WP_REST_Request::has_valid_params gives:
    message "Invalid parameter(s): a, b", data {status: 400, params: {name: message},
    details: {name: {code, message, data}}}. `message` replaces the summary where WordPress's own
    check words it differently ("Invalid parent type.").
    """
    params: dict[str, str] = {}
    details: dict[str, dict[str, Any]] = {}
    for name, problem in problems.items():
        if isinstance(problem, ParamError):
            params[name] = problem.message
            details[name] = {"code": problem.code, "message": problem.message, "data": problem.data}
        else:
            params[name] = problem
            details[name] = {"code": "rest_invalid_param", "message": problem, "data": None}
    summary = message if message is not None else f"Invalid parameter(s): {', '.join(params)}"
    return RestError("rest_invalid_param", summary, 400, {"params": params, "details": details})


def forbidden(user, code: str = "rest_forbidden", message: str = "Sorry, you are not allowed to do that.") -> RestError:
    """A permission denial: 401 for an anonymous caller, 403 for a signed-in one."""
    return RestError(code, message, 403 if user.is_authenticated else 401)


class RawBody:
    """A body sent as it is, not as JSON (for example oEmbed's XML format).

    Return it as a handler's data, or inside a RestResponse for another status. The server
    writes `body` with `content_type`; `_fields`, `_embed`, `_envelope` and `_jsonp` only
    apply to JSON and leave it alone.
    """

    __slots__ = ("body", "content_type")

    def __init__(self, body: bytes | str, content_type: str):
        self.body = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        self.content_type = content_type


class FileBody(RawBody):
    """A file sent as it is, streamed in chunks rather than read into memory (downloads).

    `handle` is an open binary file positioned at its start; the server sends `size` bytes
    from it and closes it. Like RawBody, `_fields`, `_embed` and `_envelope` leave it alone;
    inside a batch or an embed it reads as empty text (never declare such routes batchable).
    """

    __slots__ = ("handle", "size")

    CHUNK = 256 * 1024

    def __init__(self, handle, size: int, content_type: str = "application/octet-stream"):
        super().__init__(b"", content_type)
        self.handle = handle
        self.size = int(size)

    def chunks(self):
        """The file's bytes, chunk by chunk; the file is closed when done or abandoned."""
        try:
            remaining = self.size
            while remaining > 0:
                data = self.handle.read(min(self.CHUNK, remaining))
                if not data:
                    break
                remaining -= len(data)
                yield data
        finally:
            self.handle.close()


class RestResponse:
    """A handler's answer when plain data is not enough: a status, headers, or no body."""

    __slots__ = ("data", "status", "headers")

    def __init__(self, data: Any = None, status: int = 200, headers: dict[str, str] | None = None):
        self.data = data
        self.status = status
        self.headers = dict(headers or {})

    @classmethod
    def created(cls, data: Any, location: str) -> "RestResponse":
        return cls(data, 201, {"Location": location})

    @classmethod
    def collection(cls, request, items: list, total: int, per_page: int | None, page: int = 1) -> "RestResponse":
        """A page of a collection with X-WP-Total, X-WP-TotalPages and a prev/next Link header."""
        response = cls(items)
        set_pagination_headers(request, response.headers, total, per_page, page)
        return response


def set_pagination_headers(request, headers: dict[str, str], total: int, per_page: int | None, page: int) -> None:
    total_pages = math.ceil(total / per_page) if per_page else (1 if total else 0)
    headers["X-WP-Total"] = str(total)
    headers["X-WP-TotalPages"] = str(total_pages)
    links = []
    base = request.url_for_route(request.route_path)
    query = [(key, value) for key, value in request.query_pairs if key != "rest_route"]
    if page > 1:
        previous = min(page - 1, total_pages) if total_pages else 1
        links.append(f'<{_with_page(base, query, previous)}>; rel="prev"')
    if page < total_pages:
        links.append(f'<{_with_page(base, query, page + 1)}>; rel="next"')
    if links:
        headers["Link"] = ", ".join(links)


def _with_page(base: str, query: list[tuple[str, str]], page: int) -> str:
    pairs, replaced = [], False
    for key, value in query:
        if key == "page":
            if not replaced:
                pairs.append(("page", str(page)))
                replaced = True
            continue
        pairs.append((key, value))
    if not replaced:
        pairs.append(("page", str(page)))
    separator = "&" if "?" in base else "?"
    return base + separator + urlencode(pairs)


def exact_bytes(body: bytes) -> bytes:
    """`body` in an allocation of its own length, for bytes a process keeps.

    orjson's result holds its whole write buffer (4 KB for a tiny answer, ~32 KB for a 3 KB
    one, ~1 MB for 100 KB): kept as it is, every entry of a cache costs about ten times its text.
    """
    return bytes(memoryview(body))
