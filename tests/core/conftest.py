"""Helpers for the core/v2 content tests: users of every role and a quick way to make posts."""

from __future__ import annotations

import pytest

from tests.core.helpers import API

@pytest.fixture
def make_post(client, users):
    """POST a post/page as `role` (administrator by default) and return the created body."""
    def make(base="posts", role="administrator", expect=201, **fields):
        fields.setdefault("title", "A post")
        fields.setdefault("status", "publish")
        response = client.post_json(f"{API}/{base}", fields, headers=users[role].headers, status=expect)
        return response.json
    return make
