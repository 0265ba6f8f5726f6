"""After the JSON-Schema check the route's marshmallow class loads the args: its own validators run,
values arrive typed, and every failure is one rest_invalid_param naming each bad argument."""

from __future__ import annotations

import datetime
import uuid

import pytest
from marshmallow import Schema, ValidationError, fields, validate, validates, validates_schema

from host import Namespace, Route
from host.testing import assert_rest_error, make_plugin

ECHO = "/wp-json/loading/v1/echo"


def _even(value: int) -> None:
    if value % 2:
        raise ValidationError("must be even.")


class EchoArgs(Schema):
    day = fields.Date()
    moment = fields.DateTime()
    key = fields.UUID()
    count = fields.Integer(validate=[validate.Range(min=0, max=100), _even])
    size = fields.Integer(validate=_even)
    code = fields.String(validate=validate.Regexp(r"^(a+)+$"))
    start = fields.Integer()
    end = fields.Integer()
    point = fields.Nested(Schema.from_dict({"x": fields.Integer()}))

    @validates("size")
    def not_reserved(self, value, **_kwargs):
        if value == 42:
            raise ValidationError("is reserved.")

    @validates_schema
    def ordered(self, data, **_kwargs):
        if "start" in data and "end" in data and data["end"] < data["start"]:
            raise ValidationError("end is before start.", field_name="end")


def _echo(request):
    """What the handler received, with the Python type of each value."""
    return {name: {"type": type(value).__name__, "text": value.isoformat() if hasattr(value, "isoformat") else str(value)}
            for name, value in request.params.items()}


@pytest.fixture
def app(make_app):
    plugin = make_plugin("loading", register_namespaces=lambda: [Namespace("loading/v1")],
                         register_routes=lambda: [Route("loading/v1", "/echo", "POST", _echo, args=EchoArgs)])
    return make_app(plugins=[plugin])


def test_values_reach_the_handler_as_the_fields_types(app):
    """Date, DateTime and UUID fields give date, datetime and UUID objects, not the strings sent."""
    key = str(uuid.uuid4())
    answer = app.client.post_json(ECHO, {"day": "2030-12-31", "moment": "2030-12-31T08:30:00", "key": key,
                                         "count": "4"}).json
    assert answer["day"] == {"type": "date", "text": "2030-12-31"}
    assert answer["moment"] == {"type": "datetime", "text": datetime.datetime(2030, 12, 31, 8, 30).isoformat()}
    assert answer["key"] == {"type": "UUID", "text": key}
    assert answer["count"] == {"type": "int", "text": "4"}


def test_every_failing_validator_is_named_in_one_answer(app):
    """A validate= function and a @validates method fail together; @validates_schema names its field
    (it runs once the fields passed, as marshmallow's skip_on_field_errors has it)."""
    refused = app.client.post_json(ECHO, {"count": 3, "size": 42, "start": 5, "end": 1}, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert body["message"] == "Invalid parameter(s): count, size"
    assert body["data"]["params"] == {"count": "must be even.", "size": "is reserved."}
    assert body["data"]["details"]["count"] == {"code": "rest_invalid_param", "message": "must be even.", "data": None}
    refused = app.client.post_json(ECHO, {"start": 5, "end": 1}, status=400)
    assert assert_rest_error(refused, "rest_invalid_param", 400)["data"]["params"] == {"end": "end is before start."}
    assert app.client.post_json(ECHO, {"start": 1, "end": 5}).json["end"]["text"] == "5"


def test_json_schema_refusals_come_first_in_wordpress_words(app):
    """A bound the JSON Schema expresses answers with WordPress's code; the class's own validators wait for it."""
    refused = app.client.post_json(ECHO, {"count": 101, "size": 3}, status=400)
    body = assert_rest_error(refused, "rest_invalid_param", 400)
    assert list(body["data"]["params"]) == ["count"]
    assert body["data"]["details"]["count"]["code"] == "rest_out_of_bounds"


def test_an_advertised_date_format_is_enforced(app):
    """`format: date` refuses day-first and impossible days with rest_invalid_date."""
    for bad in ("31/12/2030", "2030-02-30", "2030-12-31T00:00:00"):
        body = assert_rest_error(app.client.post_json(ECHO, {"day": bad}, status=400), "rest_invalid_param", 400)
        assert body["data"]["details"]["day"]["code"] == "rest_invalid_date", bad


def test_a_regexp_validator_runs_only_in_linear_time(app):
    """The class's Regexp is the JSON Schema's `pattern` (RE2); Python's backtracking engine never sees the input."""
    refused = app.client.post_json(ECHO, {"code": "a" * 5000 + "!"}, status=400)
    assert assert_rest_error(refused, "rest_invalid_param", 400)["data"]["details"]["code"]["code"] == "rest_invalid_pattern"


def test_extra_keys_of_an_object_the_json_schema_allows_are_kept_out_quietly(app):
    """marshmallow's "Unknown field." inside an object is no error: the JSON Schema allowed the key."""
    answer = app.client.post_json(ECHO, {"point": {"x": 1, "colour": "red"}, "count": 2}).json
    assert answer["count"]["text"] == "2"
