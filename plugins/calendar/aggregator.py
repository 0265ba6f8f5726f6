"""cal/event-aggregator/v1 (§4): an outside import service reports batches and states of an import.

Neither route needs a login: the caller proves itself with the id of a *pending* import record
and that record's one-time `batch_hash` (compared in constant time; each batch gets a new one).
A pending record is opened by `sitehost calendar expect-import SOURCE`, which prints the
import_id and first batch hash to hand to the service. Events of a batch are written by the
same code as `sitehost calendar import` (imports.py), as the record's author, and counted on
the same record that `sitehost calendar imports` lists.

A batch's `events` are objects {uid, title, start_date, end_date, timezone?, all_day?,
description?, website?, location?, rrule?, exdates?}; dates are wall times in `timezone` (default:
the site's), as cal/events/v1 reads them.
"""

from __future__ import annotations

import json
import logging

from marshmallow import Schema, fields, validate

from host import RestError, Route, invalid_param
from host.args import JsonSchemaField
from host.auth import users as user_service
from host.content import service_request

from . import imports

log = logging.getLogger("sitehost.calendar")
NAMESPACE = "cal/event-aggregator/v1"
MAX_BATCH_EVENTS = 100
IMPORT_ID = r"/import/(?P<import_id>\w+)"
COUNTS = {"type": "object", "required": ["total", "done"], "additionalProperties": False,
          "properties": {"total": {"type": "integer", "minimum": 0, "maximum": 10_000_000},
                         "done": {"type": "integer", "minimum": 0, "maximum": 10_000_000}}}
TEXT = {"type": "string", "maxLength": 500}
EVENT_ITEM = {
    "type": "object", "required": ["uid", "title", "start_date", "end_date"], "additionalProperties": False,
    "properties": {
        "uid": {"type": "string", "minLength": 1, "maxLength": imports.MAX_UID}, "title": TEXT,
        "start_date": {"type": "string", "maxLength": 64}, "end_date": {"type": "string", "maxLength": 64},
        "timezone": {"type": "string", "maxLength": 64}, "all_day": {"type": "boolean"},
        "description": {"type": "string", "maxLength": imports.MAX_TEXT}, "website": {"type": "string", "maxLength": 2000},
        "location": TEXT, "rrule": TEXT,
        "exdates": {"type": "array", "maxItems": 500, "items": {"type": "string", "maxLength": 64}},
    },
}


def _import_id() -> fields.Field:
    return fields.String(required=True, validate=[validate.Length(min=1, max=64), validate.Regexp(r"^\w+$")],
                         metadata={"description": "The import record's id."})


def _hash() -> fields.Field:
    return fields.String(required=True, validate=validate.Length(min=1, max=128),
                         metadata={"description": "The one-time hash of this batch."})


def _percentage(required: bool = True) -> fields.Field:
    return fields.Integer(required=required, validate=validate.Range(min=0, max=100),
                          metadata={"description": "How much of the import is done (0 to 100)."})


class BatchArgs(Schema):
    import_id = _import_id()
    batch_hash = _hash()
    status = JsonSchemaField({"type": "object", "required": ["data", "batch"], "additionalProperties": False,
                              "properties": {"data": COUNTS, "batch": COUNTS},
                              "description": "{data:{total, done}, batch:{total, done}}: events and batches."},
                             required=True)
    percentage_complete = _percentage()
    interval = fields.Integer(validate=validate.Range(min=0, max=86_400), metadata={
        "description": "Seconds the service wants before the next batch (10 to 600 are honoured)."})
    events = JsonSchemaField({"type": "array", "maxItems": MAX_BATCH_EVENTS, "items": EVENT_ITEM,
                              "description": "The batch's events."})


class StateArgs(Schema):
    import_id = _import_id()
    batch_hash = _hash()
    status = fields.String(required=True, validate=validate.OneOf(["success", "failed", "pending"]),
                           metadata={"description": "The import's new state."})
    message = fields.String(required=True, validate=validate.Length(max=5000),
                            metadata={"description": "What happened."})
    message_slug = fields.String(required=True, validate=validate.Length(max=100),
                                 metadata={"description": "A short code for the message."})
    percentage_complete = _percentage()


def _writer(request, item: dict):
    """A request writing as the record's author, in this request's transaction."""
    author = user_service.get_user(request.app, request.session, item["author"])
    if author is None:
        raise RestError("cal_import_author_missing", "The import's author no longer exists.", 409)
    writer = service_request(request.app, request.session, author)
    writer.base_url = request.base_url
    writer._after_commit = request._after_commit
    return writer


def report_batch(request):
    params = request.params
    record, item = imports.pending_record(request, params["import_id"], params["batch_hash"])
    status = params["status"]
    for part in ("data", "batch"):
        if status[part]["done"] > status[part]["total"]:
            raise invalid_param({"status": f"status.{part}.done is larger than its total."})
    writer = _writer(request, item)
    activity = imports.Activity()
    entries = imports.entries_from_items(params.get("events") or [], request.app.settings.site.get(
        "timezone_string") or "UTC")
    known = imports.uid_index(request.session, request.app)
    venues: dict = {}
    for data in entries:
        imports.write_event(writer, data, known, venues, activity)
    previous = imports.Activity()
    previous.merge(json.loads(record["activity"] or "{}"))
    previous.merge(activity.as_dict())
    finished = status["batch"]["total"] == status["batch"]["done"] + 1
    interval = imports.clamp_interval(params.get("interval"))
    next_hash = None if finished else imports.new_hash()
    imports.update_record(request, record, status=imports.SUCCESS if finished else None, next_batch_hash=next_hash,
                          total_events=status["data"]["total"], percentage_complete=100 if finished else
                          params["percentage_complete"], interval_s=interval,
                          activity=json.dumps(previous.as_dict()))
    answer = {"status": "success", "activity": activity.as_dict(), "interval": interval}
    if next_hash is not None:
        answer["next_batch_hash"] = next_hash
    return answer


def report_state(request):
    params = request.params
    record, _item = imports.pending_record(request, params["import_id"], params["batch_hash"])
    status = params["status"]
    if status == "failed":
        log.error("calendar import %s failed (%s): %s", params["import_id"], params["message_slug"][:100],
                  params["message"][:500])
    imports.update_record(request, record, status=imports.STATE_STATUSES[status],
                          percentage_complete=params["percentage_complete"],
                          next_batch_hash=record["next_batch_hash"] if status == "pending" else None,
                          message=params["message"], message_slug=params["message_slug"])
    return {"status": "success"}


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, IMPORT_ID + "/batch", "POST", report_batch, args=BatchArgs, title="import batch"),
        Route(NAMESPACE, IMPORT_ID + "/state", "POST", report_state, args=StateArgs, title="import state"),
    ]
