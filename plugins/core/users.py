"""core/v2 users and application-password routes."""

from __future__ import annotations


def routes(app):
    return []
