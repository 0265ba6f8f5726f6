"""Fixtures of the lms tests: signing helpers and API-key headers."""

from __future__ import annotations

import pytest

from .keys import key_headers


@pytest.fixture
def issue_key():
    """issue_key(app, admin, permission) -> headers of a new API key issued over REST."""

    def issue(app, admin, permission: str = "read", user: int | None = None):
        body = {"permission": permission, **({"user": user} if user else {})}
        created = app.client.post_json("/wp-json/lms/v1/api-keys", body, headers=admin.headers, status=201).json
        return key_headers(created["key"], created["secret"])

    return issue
