"""The `wordpress/import` ability: import a WordPress export given as text, for those with `import`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from host import Ability, RestError

from .reader import WxrError
from .run import import_file

MAX_WXR_CHARACTERS = 50 * 1024 * 1024  # larger sites use the command or the admin page


def _import(request, value: dict) -> dict:
    handle, name = tempfile.mkstemp(suffix=".xml")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(value["wxr"])
        try:
            summary = import_file(request.app, path, fetch_media=bool(value.get("fetch_media")),
                                  importing_user_id=request.user.id)
        except WxrError as refused:
            raise RestError("wordpress_import_refused", f"{refused}; nothing was imported", 400) from None
    finally:
        path.unlink(missing_ok=True)
    totals = summary.totals()
    return {"summary": summary.headline(), "created": totals["created"], "updated": totals["updated"],
            "unchanged": totals["unchanged"],
            "not_imported": [{"item": label, "reason": reason} for label, reason in summary.not_imported[:1000]],
            "users_without_password": summary.users_without_password}


ABILITIES = [
    Ability("wordpress/import", "Import a WordPress export",
            "Import a WordPress export (WXR, as Tools > Export writes it) into this site: users, terms, posts, "
            "pages, comments, media and the plugins' items. Repeating it creates nothing twice.", "site",
            lambda request, value: request.user.can("import"), _import,
            input_schema={"type": "object", "properties": {
                "wxr": {"type": "string", "minLength": 1, "maxLength": MAX_WXR_CHARACTERS},
                "fetch_media": {"type": "boolean"}}, "required": ["wxr"], "additionalProperties": False},
            output_schema={"type": "object", "properties": {
                "summary": {"type": "string"}, "created": {"type": "integer"}, "updated": {"type": "integer"},
                "unchanged": {"type": "integer"},
                "not_imported": {"type": "array", "items": {"type": "object", "properties": {
                    "item": {"type": "string"}, "reason": {"type": "string"}}}},
                "users_without_password": {"type": "array", "items": {"type": "string"}}},
                "required": ["summary", "created", "updated", "unchanged", "not_imported"]},
            idempotent=True),
]
