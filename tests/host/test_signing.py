"""app.signer(purpose): one token signer for every plugin, keyed by a site secret, salted per purpose (host.signing)."""

from __future__ import annotations

import itsdangerous
from marshmallow import Schema, fields, validate

from host import Namespace, RestError, Route
from host.signing import Signer, TokenExpired, TokenInvalid
from host.testing import assert_rest_error, make_plugin

API = "/wp-json/pass/v1"
PURPOSES = ["pass.visit", "pass.parking"]


class IssueArgs(Schema):
    purpose = fields.String(required=True, validate=validate.OneOf(PURPOSES))
    visitor = fields.Integer(required=True)


class CheckArgs(Schema):
    purpose = fields.String(required=True, validate=validate.OneOf(PURPOSES))
    token = fields.String(required=True)


def pass_plugin():
    """Issues and checks visitor passes as a plugin's mailed links would; each purpose has its own salt."""
    def issue(request):
        signer = request.app.signer(request.params["purpose"], "pass.signing")
        return {"token": signer.sign({"visitor": request.params["visitor"]})}

    def check(request):
        signer = request.app.signer(request.params["purpose"], "pass.signing")
        try:
            return signer.unsign(request.params["token"], max_age=3600)
        except TokenExpired:
            raise RestError("pass_expired", "The pass has expired.", 410) from None
        except TokenInvalid:
            raise RestError("pass_invalid", "Not a pass this site issued for that.", 400) from None

    def fingerprint(request):
        return {"digest": request.app.signer("pass.signing").digest("visitor:7")}

    return make_plugin("pass", register_namespaces=lambda: [Namespace("pass/v1")],
                       register_routes=lambda: [Route("pass/v1", "/issue", "POST", issue, args=IssueArgs),
                                                Route("pass/v1", "/check", "GET", check, args=CheckArgs),
                                                Route("pass/v1", "/fingerprint", "GET", fingerprint)])


def test_a_token_verifies_for_its_purpose_only_and_not_once_altered_or_too_long(make_app):
    app = make_app(plugins=[pass_plugin()])
    token = app.client.post_json(f"{API}/issue", {"purpose": "pass.visit", "visitor": 7}).json["token"]
    assert app.client.get(f"{API}/check", {"purpose": "pass.visit", "token": token}).json == {"visitor": 7}
    # the same key, another purpose: another salt, refused
    assert_rest_error(app.client.get(f"{API}/check", {"purpose": "pass.parking", "token": token}, status=400),
                      "pass_invalid", 400)
    altered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert_rest_error(app.client.get(f"{API}/check", {"purpose": "pass.visit", "token": altered}, status=400),
                      "pass_invalid", 400)
    assert_rest_error(app.client.get(f"{API}/check", {"purpose": "pass.visit", "token": token + "x" * 1000},
                                     status=400), "pass_invalid", 400)


def test_an_old_token_is_expired_not_invalid(make_app, monkeypatch):
    app = make_app(plugins=[pass_plugin()])
    real = itsdangerous.timed.TimestampSigner.get_timestamp
    monkeypatch.setattr(itsdangerous.timed.TimestampSigner, "get_timestamp", lambda self: real(self) - 3601)
    old = app.client.post_json(f"{API}/issue", {"purpose": "pass.visit", "visitor": 7}).json["token"]
    monkeypatch.undo()
    assert_rest_error(app.client.get(f"{API}/check", {"purpose": "pass.visit", "token": old}, status=410),
                      "pass_expired", 410)


def test_tokens_and_digests_are_the_same_in_every_process_of_a_site_and_differ_between_sites(make_app):
    first = make_app(plugins=[pass_plugin()])
    token = first.client.post_json(f"{API}/issue", {"purpose": "pass.parking", "visitor": 3}).json["token"]
    second = make_app(plugins=[pass_plugin()], database_url=first.settings.database_url)
    assert second.client.get(f"{API}/check", {"purpose": "pass.parking", "token": token}).json == {"visitor": 3}
    digest = first.client.get(f"{API}/fingerprint").json["digest"]
    assert second.client.get(f"{API}/fingerprint").json["digest"] == digest and len(digest) == 64
    other = make_app(plugins=[pass_plugin()])
    assert other.client.get(f"{API}/fingerprint").json["digest"] != digest
    assert_rest_error(other.client.get(f"{API}/check", {"purpose": "pass.parking", "token": token}, status=400),
                      "pass_invalid", 400)


def test_matching_is_false_for_anything_but_the_same_text():
    """Constant-time comparison that also refuses what is not a string (a list from a JSON body)."""
    assert Signer.matches("abc", "abc")
    assert not Signer.matches("abd", "abc") and not Signer.matches(["abc"], "abc") and not Signer.matches(None, "")
