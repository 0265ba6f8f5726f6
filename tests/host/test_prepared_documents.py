"""Discovery documents are encoded to JSON once; shaping parameters still shape every answer."""

import json


def test_root_index_bytes_are_reused_and_stay_identical(example_app):
    first = example_app.client.get("/wp-json/")
    second = example_app.client.get("/wp-json/")
    assert first.status_int == second.status_int == 200
    assert first.body == second.body
    assert first.headers["Content-Length"] == str(len(second.body))
    assert second.headers["Link"] == '<http://school.test/wp-json/>; rel="https://api.w.org/"'
    assert json.loads(second.body)["namespaces"] == ["example/v1"]


def test_shaping_parameters_are_applied_after_the_plain_answer_was_cached(example_app):
    plain = example_app.client.get("/wp-json/example/v1").json
    assert set(plain) == {"namespace", "routes", "_links"}
    fields = example_app.client.get("/wp-json/example/v1?_fields=namespace")
    assert fields.json == {"namespace": "example/v1"}
    envelope = example_app.client.get("/wp-json/example/v1?_envelope")
    assert envelope.json["status"] == 200 and envelope.json["body"] == plain
    pretty = example_app.client.get("/wp-json/example/v1?_pretty")
    assert b"\n    " in pretty.body and pretty.json == plain
    again = example_app.client.get("/wp-json/example/v1")
    assert again.json == plain and b"\n" not in again.body


def test_each_base_url_gets_its_own_document(example_app):
    school = example_app.client.get("/wp-json/").json
    other = example_app.client.get("/wp-json/", headers={"Host": "other.test"}).json
    assert school["url"] == "http://school.test"
    assert other["url"] == "http://other.test"
    assert other["routes"]["/example/v1/notes"]["_links"]["self"][0]["href"] == "http://other.test/wp-json/example/v1/notes"
    assert example_app.client.get("/wp-json/").json == school
