"""batch/v1: several write requests in one call (REST conventions reference, section 7).

Every item is matched and validated before anything runs. Items then run one after
another as the caller, all in the batch's one transaction, each in a savepoint of its own:
an item that fails is undone alone and the others stand in `normal` mode;
`require-all-validate` runs nothing when any item is invalid. One transaction takes the
write lock once and commits once for up to 25 writes; the items' answers
(`request.answer_after_commit`) and their after-commit work (events, cache purges) are
built and run after that commit, so the other writers do not wait for 25 renderings. Consecutive items
of an endpoint that declares `Route.bulk_batch` (core's post and page creates) run together, with
multi-row inserts, and answer exactly as they would one by one. The batch itself answers
207 once its own shape is valid.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from marshmallow import Schema, fields, validate

from ..args import JsonSchemaField
from .request import RestRequest
from .response import RestError, RestResponse
from .server import numeric_headers

MAX_BATCH_REQUESTS = 25

class BatchArgs(Schema):
    validation = fields.String(load_default="normal", validate=validate.OneOf(["require-all-validate", "normal"]))
    requests = JsonSchemaField({
        "type": "array",
        "maxItems": MAX_BATCH_REQUESTS,
        "items": {
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["POST", "PUT", "PATCH", "DELETE"], "default": "POST"},
                "path": {"type": "string", "required": True},
                "body": {"type": "object", "properties": {}, "additionalProperties": True},
                "headers": {"type": "object", "properties": [],
                            "additionalProperties": {"type": ["string", "array"], "items": {"type": "string"}}},
            },
        },
    }, required=True)


def handle_batch(request: RestRequest) -> RestResponse:
    server = request.app.rest
    items = [_build_item(request, spec) for spec in request.params["requests"]]
    failures = [_prevalidate(server, item) for item in items]
    if request.params["validation"] == "require-all-validate" and any(failures):
        responses = [None if failure is None else _envelope(failure.status, failure.to_body(), {})
                     for failure in failures]
        return RestResponse({"failed": "validation", "responses": responses}, 207)
    outcomes = _run_items(server, request, items, failures)
    # Every item has run: commit them all now, and build the answers after, without the write lock.
    request.commit()
    responses = []
    for item, outcome in zip(items, outcomes):
        if isinstance(outcome, RestError):
            responses.append(_envelope(outcome.status, outcome.to_body(), server.refused_allow(item)))
            continue
        status, headers, data = server.shape_outcome(item, outcome)
        responses.append(_envelope(status, data, headers))
    return RestResponse({"responses": responses}, 207)


def _run_items(server, parent: RestRequest, items: list[RestRequest], failures: list) -> list:
    """Every item's outcome, in order. Consecutive valid items of an endpoint with `bulk_batch`
    (items that failed validation between them write nothing, so they do not break the run) go to it
    together; the first item it does not serve runs alone and the ones after it are offered again."""
    outcomes: list = list(failures)
    waiting = [index for index, failure in enumerate(failures) if failure is None]
    while waiting:
        first = items[waiting[0]]
        run = [waiting[0]]
        if first.endpoint is None:  # _prevalidate passed it, so it matched a route
            raise RuntimeError(f"batch item {first.method} {first.path} has no endpoint")
        if first.endpoint.bulk_batch is not None:
            for index in waiting[1:]:
                if items[index].endpoint is not first.endpoint:
                    break
                run.append(index)
        served = server.run_bulk(parent, [items[index] for index in run]) if len(run) > 1 else []
        for index, outcome in zip(run, served):
            outcomes[index] = outcome
        if len(served) < len(run):
            outcomes[run[len(served)]] = server.run(items[run[len(served)]])
            served.append(None)
        waiting = waiting[len(served):]
    return outcomes


def _build_item(parent: RestRequest, spec: dict) -> RestRequest:
    path, _, query = spec["path"].partition("?")
    headers = {}
    for name, value in (spec.get("headers") or {}).items():
        headers[name.lower()] = ", ".join(value) if isinstance(value, list) else str(value)
    item = RestRequest(parent.app, spec.get("method", "POST").upper(), path or "/",
                       parse_qsl(query, keep_blank_values=True), headers, base_url=parent.base_url,
                       remote_addr=parent.remote_addr, internal=True, environ=parent.environ)
    item.user = parent.user
    item.application_password = parent.application_password
    item.join_transaction(parent)
    body = spec.get("body")
    item.json = dict(body) if isinstance(body, dict) else {}
    return item


def _prevalidate(server, item: RestRequest) -> RestError | None:
    """Route match, allow_batch and parameter validation; permissions run later, per item."""
    matched = server.registry.match(item.path, item.method)
    if matched is None:
        return RestError("rest_no_route", "No route was found matching the URL and request method.", 404)
    route, endpoint, url_params = matched
    item.route, item.endpoint, item.url_params = route, endpoint, url_params
    if not endpoint.allow_batch:
        return RestError("rest_batch_not_allowed", "The requested route does not support batch requests.", 400)
    try:
        item.validated_params = server.prepare_params(item, endpoint)
    except RestError as error:
        return error
    return None


def _envelope(status: int, body: Any, headers: dict[str, str]) -> dict[str, Any]:
    """One answer as WordPress gives it: headers as an object (totals as numbers), `[]` when none."""
    return {"body": body, "status": status, "headers": numeric_headers(headers) if headers else []}
