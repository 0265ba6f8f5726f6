"""Helpers of the lms tests."""

from __future__ import annotations

import base64


def key_headers(key: str, secret: str) -> dict[str, str]:
    """Authorization headers of an API key (Basic key:secret)."""
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}
