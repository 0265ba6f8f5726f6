"""Validation and sanitization from the args, through the example plugin's echo route."""

import json

import pytest

from host.testing import assert_rest_error


def echo(app, query="", body=None, status=200):
    url = "/wp-json/example/v1/echo?needed=1" + (("&" + query) if query else "")
    if body is None:
        return app.client.get(url, status=status)
    return app.client.post(url, json.dumps(body), content_type="application/json", status=status)


def invalid(app, query="", body=None):
    response = echo(app, query, body, status=400)
    assert_rest_error(response, "rest_invalid_param", 400)
    (name, message), = response.json["data"]["params"].items()
    return name, message, response.json["data"]["details"][name]


@pytest.mark.parametrize("query,expected", [
    ("count=3", 3), ("count=3.0", 3), ("count=%2B4", 4), ("count=5", 5),
])
def test_integers_accept_integral_numbers_and_numeric_strings(example_app, query, expected):
    assert echo(example_app, query).json["params"]["count"] == expected


@pytest.mark.parametrize("query", ["count=1.5", "count=abc", "count="])
def test_integers_refuse_other_values(example_app, query):
    name, message, detail = invalid(example_app, query)
    assert name == "count"
    assert message == "count is not of type integer."
    assert detail == {"code": "rest_invalid_type", "message": "count is not of type integer.", "data": {"param": "count"}}


def test_integer_bounds(example_app):
    assert invalid(example_app, "count=9")[1] == "count must be between 2 (inclusive) and 5 (inclusive)"
    assert invalid(example_app, "count=1")[2]["code"] == "rest_out_of_bounds"


def test_json_true_is_not_an_integer(example_app):
    assert invalid(example_app, body={"count": True})[2]["code"] == "rest_invalid_type"


@pytest.mark.parametrize("value,expected", [("true", True), ("FALSE", False), ("1", True), ("0", False)])
def test_booleans(example_app, value, expected):
    assert echo(example_app, f"flag={value}").json["params"]["flag"] is expected


def test_boolean_refuses_yes(example_app):
    assert invalid(example_app, "flag=yes")[1] == "flag is not of type boolean."


def test_numbers(example_app):
    assert echo(example_app, "ratio=1.25").json["params"]["ratio"] == 1.25
    assert invalid(example_app, "ratio=many")[1] == "ratio is not of type number."


def test_strings_refuse_json_numbers(example_app):
    assert invalid(example_app, body={"color": 1})[1] == "color is not of type string."


def test_enum_message_lists_the_options(example_app):
    name, message, detail = invalid(example_app, "color=purple")
    assert message == "color is not one of red, green, and blue."
    assert detail["code"] == "rest_not_in_enum"


def test_arrays_from_comma_lists_and_brackets(example_app):
    assert echo(example_app, "ids=1,2,3").json["params"]["ids"] == [1, 2, 3]
    assert echo(example_app, "ids[]=4&ids[]=5").json["params"]["ids"] == [4, 5]
    assert echo(example_app, "tags=a b").json["params"]["tags"] == ["a", "b"]
    assert echo(example_app, "ids=").json["params"]["ids"] == []
    assert echo(example_app, body={"ids": [7, "8"]}).json["params"]["ids"] == [7, 8]


def test_array_item_errors_name_the_index(example_app):
    name, message, _detail = invalid(example_app, "ids=1,x")
    assert message == "ids[1] is not of type integer."


def test_array_max_items_and_unique_items(example_app):
    assert invalid(example_app, "tags=a,b,c,d")[1] == "tags must contain at most 3 items."
    assert invalid(example_app, "ids=1,2,1")[1] == "ids has duplicate items."


def test_objects_and_required_properties(example_app):
    assert echo(example_app, "point[x]=3&point[y]=4").json["params"]["point"] == {"x": 3, "y": 4}
    assert echo(example_app, body={"point": {"x": 1}}).json["params"]["point"] == {"x": 1}
    assert invalid(example_app, body={"point": {"y": 1}})[1] == "x is a required property of point."
    assert invalid(example_app, body={"point": {"x": "a"}})[1] == "point[x] is not of type integer."
    assert invalid(example_app, body={"point": "flat"})[1] == "point is not of type object."


def test_formats(example_app):
    assert echo(example_app, "when=2016-06-30T05:43:21").status_int == 200
    assert echo(example_app, "when=2016-06-30T05:43:21Z").status_int == 200
    assert echo(example_app, "when=2016-06-30 05:43:21%2B02:00").status_int == 200
    for bad in ("2016-06-30", "20161027T163355Z", "2016-13-01T00:00:00"):
        assert invalid(example_app, f"when={bad}")[2]["code"] == "rest_invalid_date"
    assert invalid(example_app, "email=not-an-address")[2]["code"] == "rest_invalid_email"
    assert echo(example_app, "key=123e4567-e89b-12d3-a456-426614174000").status_int == 200
    name, message, detail = invalid(example_app, "key=123E4567-E89B-12D3-A456-426614174000")
    assert (detail["code"], message) == ("rest_invalid_uuid", "key is not a valid UUID.")


def test_string_length(example_app):
    assert echo(example_app, "code=abcdefghijkl").json["params"]["code"] == "abcdefghijkl"
    name, message, detail = invalid(example_app, "code=short")
    assert detail["code"] == "rest_too_short"
    assert message == "code must be at least 12 characters long."
    assert invalid(example_app, "code=" + "x" * 13)[2]["code"] == "rest_too_long"


def test_multiple_types_take_the_first_that_fits(example_app):
    assert echo(example_app, body={"maybe": None}).json["params"].get("maybe") is None
    assert echo(example_app, "maybe=15").json["params"]["maybe"] == 15
    assert invalid(example_app, "maybe=many")[1] == "maybe is not of type integer,null."


def test_all_failing_params_are_reported_together(example_app):
    response = echo(example_app, "count=x&color=purple", status=400)
    assert response.json["message"] == "Invalid parameter(s): count, color"
    assert set(response.json["data"]["details"]) == {"count", "color"}
