"""The builder's route table, assembled from one module per area."""

from __future__ import annotations

from . import ai, documents, editor, global_classes, globals, library


def routes(app) -> list:
    return (documents.routes() + globals.routes(app) + editor.routes() + global_classes.routes() + library.routes(app)
            + ai.routes())
