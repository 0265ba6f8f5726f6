"""Fixtures of the WordPress-parity tests: posts made over HTTP as a chosen role."""

from __future__ import annotations

import pytest

API = "/wp-json/core/v2"


@pytest.fixture
def make_post(client, users):
    """POST a post/page as `role` (administrator by default) and return the created body."""
    def make(base="posts", role="administrator", expect=201, **fields):
        fields.setdefault("title", "A post")
        fields.setdefault("status", "publish")
        return client.post_json(f"{API}/{base}", fields, headers=users[role].headers, status=expect).json
    return make
