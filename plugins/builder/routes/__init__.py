"""The builder's route table, assembled from one module per area."""

from __future__ import annotations

from . import ai, documents, editor, globals, library


def routes(app) -> list:
    return documents.routes() + globals.routes(app) + editor.routes() + library.routes(app) + ai.routes()
