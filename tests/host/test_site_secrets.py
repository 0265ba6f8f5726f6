"""app.site_secret: a random secret made once per site and name, the same in every process (host.site_secrets)."""

from __future__ import annotations

import threading

import pytest
from itsdangerous import BadSignature, URLSafeSerializer
from marshmallow import Schema, fields
from sqlalchemy import delete, select

from host import Namespace, RestError, Route
from host.testing import assert_rest_error, make_plugin

API = "/wp-json/notary/v1"


class SignArgs(Schema):
    text = fields.String(required=True)


class CheckArgs(Schema):
    token = fields.String(required=True)


def notary_plugin():
    """Signs and checks texts with the site's secret "notary.signing", as a plugin's links would."""
    def signer(app):
        return URLSafeSerializer(app.site_secret("notary.signing"), salt="notary")

    def sign(request):
        return {"token": signer(request.app).dumps(request.params["text"])}

    def check(request):
        try:
            return {"text": signer(request.app).loads(request.params["token"])}
        except BadSignature:
            raise RestError("notary_invalid_token", "Not a token this site signed.", 400) from None

    return make_plugin("notary", register_namespaces=lambda: [Namespace("notary/v1")],
                       register_routes=lambda: [Route("notary/v1", "/sign", "POST", sign, args=SignArgs),
                                                Route("notary/v1", "/check", "GET", check, args=CheckArgs)])


def stored_secrets(app) -> dict[str, str]:
    table = app.host_tables["site_secrets"]
    with app.db.session() as session:
        return dict(session.execute(select(table.c.name, table.c.value)).all())


def test_a_token_signed_by_one_process_verifies_in_another_and_not_on_another_site(make_app):
    first = make_app(plugins=[notary_plugin()])
    token = first.client.post_json(f"{API}/sign", {"text": "Sam's report"}).json["token"]
    assert first.client.get(f"{API}/check", {"token": token}).json == {"text": "Sam's report"}
    # another server process of the same site: it reads the stored secret, it does not make one
    second = make_app(plugins=[notary_plugin()], database_url=first.settings.database_url)
    assert second.client.get(f"{API}/check", {"token": token}).json == {"text": "Sam's report"}
    # a different site has a secret of its own
    other = make_app(plugins=[notary_plugin()])
    assert_rest_error(other.client.get(f"{API}/check", {"token": token}, status=400), "notary_invalid_token", 400)
    secret = first.site_secret("notary.signing")
    assert isinstance(secret, bytes) and len(secret) >= 32
    assert stored_secrets(first) == {"notary.signing": secret.decode()}
    assert first.site_secret("notary.other") not in (secret, b"")  # one random secret per name


def test_the_secret_is_read_once_per_app(make_app):
    app = make_app(plugins=[notary_plugin()])
    token = app.client.post_json(f"{API}/sign", {"text": "kept"}).json["token"]
    table = app.host_tables["site_secrets"]
    with app.db.session(write=True) as session, session.begin():
        session.execute(delete(table))  # never done to a site; shows that the app does not read the row again
    assert app.client.get(f"{API}/check", {"token": token}).json == {"text": "kept"}


def test_two_processes_making_the_secret_at_once_agree(make_app):
    first = make_app(plugins=[])
    second = make_app(plugins=[], database_url=first.settings.database_url)
    for round_number in range(5):
        name = f"race.{round_number}"
        barrier = threading.Barrier(2)
        found: dict[int, bytes] = {}

        def read(index, app, barrier=barrier, found=found, name=name):
            barrier.wait()
            found[index] = app.site_secret(name)

        threads = [threading.Thread(target=read, args=(index, app)) for index, app in enumerate((first, second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert found[0] == found[1]
    assert len(stored_secrets(first)) == 5


def test_a_key_kept_before_is_adopted_only_while_the_store_has_none(make_app):
    app = make_app(plugins=[])
    asked = []

    def old_key(session):
        asked.append(session)
        return "the-key-the-plugin-kept-before"

    assert app.site_secret("lunch.signing", adopt=old_key) == b"the-key-the-plugin-kept-before"
    assert len(asked) == 1
    again = make_app(plugins=[], database_url=app.settings.database_url)
    assert again.site_secret("lunch.signing", adopt=old_key) == b"the-key-the-plugin-kept-before"
    assert len(asked) == 1  # stored: the old key is not asked for again
    # nothing kept before: a new random secret
    assert app.site_secret("lunch.other", adopt=lambda session: None) != b""


@pytest.mark.parametrize("name", ["", "x" * 101, None])
def test_a_secret_needs_a_name(make_app, name):
    app = make_app(plugins=[])
    with pytest.raises(ValueError):
        app.site_secret(name)
