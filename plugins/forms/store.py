"""Forms as stored: the post (title, slug, status) through the content service, properties in forms_forms.

`load(request, id)` answers a Form with its parsed template; parsing happens once per saved
version of a form and app (the cache holds versions, so every worker sees a save at once:
the version is read with the row on each request).
"""

from __future__ import annotations

import json
import secrets
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update

from host import ContentSaved

from . import properties as props
from . import template

POST_TYPE = "forms_contact_form"
STATUSES = ("publish", "fields-disabled")
HASH_PREFIX = re.compile(r"[0-9a-f]{7,40}")  # how the reference's shortcodes name a form by its hash
PARSED_KEPT = 256


@dataclass
class Form:
    id: int
    title: str
    slug: str
    status: str
    hash: str
    locale: str
    properties: dict[str, Any]
    config_errors: dict[str, Any]
    version: int
    parsed: template.ParsedTemplate

    def message(self, key: str) -> str:
        return (self.properties.get("messages") or {}).get(key) or props.DEFAULT_MESSAGES.get(key, "")

    def setting(self, name: str, default: Any = None) -> Any:
        return props.setting(self.properties, name, default)


def table(app, name: str):
    return app.db.metadata.tables[name]


def parsed_template(app, form_id: int, version: int, text: str) -> template.ParsedTemplate:
    """The form's template parsed, kept per form at its version and text."""
    return app.kept("forms.parsed", PARSED_KEPT).get_or_build(form_id, (version, text), lambda: template.parse(text))


def load(request, form_id: int, session=None) -> Form | None:
    """The form with its parsed template, or None: one read of forms_forms (in `session`, else the request's)."""
    app = request.app
    forms = table(app, "forms_forms")
    statement = app.db.prepared("forms.load", lambda: select(forms).where(forms.c.form_id == bindparam("form_id")))
    row = (session or request.session).execute(statement, {"form_id": form_id}).mappings().first()
    if row is None or row["status"] not in STATUSES:
        return None
    properties = json.loads(row["properties"])
    return Form(id=form_id, title=row["title"], slug=row["slug"], status=row["status"], hash=row["hash"],
                locale=row["locale"], properties=properties, config_errors=json.loads(row["config_errors"]),
                version=row["version"], parsed=parsed_template(app, form_id, row["version"], properties.get("form", "")))


def by_hash(request, prefix: str) -> int | None:
    """The id of the form whose hash starts with `prefix` (7 to 40 hex digits), or None."""
    if not HASH_PREFIX.fullmatch(prefix):
        return None
    forms = table(request.app, "forms_forms")
    return request.session.execute(select(forms.c.form_id).where(forms.c.hash.like(prefix + "%"))
                                   .order_by(forms.c.form_id).limit(1)).scalar()


def find(request, reference: str, title: str = "") -> Form | None:
    """The form a shortcode names, looked up as the reference looks it up: by the start of its hash (7
    characters or more, as `[contact-form-7 id="1a2b3c4"]` gives it), else by id, else by title."""
    app, session = request.app, request.session
    forms = table(app, "forms_forms")
    reference = reference.strip().lower()
    found = by_hash(request, reference)
    if found is None and reference.isdigit() and len(reference) < 10:
        found = int(reference)
    form = load(request, found) if found is not None else None
    if form is None and title.strip():
        found = session.execute(select(forms.c.form_id).where(forms.c.title == title.strip()[:500],
                                                              forms.c.status.in_(STATUSES))
                                .order_by(forms.c.form_id).limit(1)).scalar()
        form = load(request, found) if found is not None else None
    return form


def list_forms(request, search: str = "") -> list[dict[str, Any]]:
    """Every form (id, hash, slug, title, locale, modified), in id order."""
    app = request.app
    items: list[dict] = []
    page = 1
    while True:
        found, total = app.content.query(request, POST_TYPE, status=STATUSES, search=search, per_page=100, page=page,
                                         orderby="id", order="asc")
        items.extend(found)
        if len(items) >= total or not found:
            break
        page += 1
    forms = table(app, "forms_forms")
    rows = {row["form_id"]: row for row in request.session.execute(
        select(forms.c.form_id, forms.c.hash, forms.c.locale)).mappings()}
    return [{"id": item["id"], "hash": rows[item["id"]]["hash"], "slug": item["slug"], "title": item["title"] or "",
             "locale": rows[item["id"]]["locale"], "date": item.get("date_gmt") or item.get("date"),
             "modified": item.get("modified_gmt") or item.get("modified")}
            for item in items if item["id"] in rows]


def create(request, title: str, locale: str, properties: dict[str, Any], errors: dict[str, Any],
           status: str = "publish", author: int | None = None, slug: str = "", **imported: Any) -> int:
    """A new form (author: the caller when None; slug: made from the title when empty; `imported`: the
    content service's import fields, item_id, date_gmt, modified_gmt)."""
    app = request.app
    item = app.content.create(request, POST_TYPE, title=title, status=status, author=author, slug=slug, **imported)
    form_hash = hashlib.sha1(f"{item['id']}:{secrets.token_hex(8)}".encode()).hexdigest()
    request.session.execute(insert(table(app, "forms_forms")).values(
        form_id=item["id"], hash=form_hash, title=item["title"] or "", slug=item["slug"], status=item["status"],
        locale=locale, properties=json.dumps(properties),
        config_errors=json.dumps(errors), version=1))
    return item["id"]


def save(request, form: Form, title: str | None, locale: str | None, properties: dict[str, Any],
         errors: dict[str, Any], status: str | None = None) -> None:
    app = request.app
    forms = table(app, "forms_forms")
    if title is not None and title != form.title:
        item = app.content.update(request, form.id, title=title)
        request.session.execute(update(forms).where(forms.c.form_id == form.id).values(
            title=item["title"] or "", slug=item["slug"]))
    if status is not None and status != form.status:
        app.content.update(request, form.id, status=status)
        request.session.execute(update(forms).where(forms.c.form_id == form.id).values(status=status))
    request.session.execute(update(forms).where(forms.c.form_id == form.id).values(
        locale=locale or form.locale, properties=json.dumps(properties), config_errors=json.dumps(errors),
        version=forms.c.version + 1))
    # The fields live in this plugin's table, not in the content item: say the form changed, so what shows
    # it (its feedback schema, the pages it sits in, kept by the response cache) is built anew.
    saved = ContentSaved.of({"id": form.id, "type": POST_TYPE, "status": status or form.status}, False)
    request.after_commit(lambda: app.hook.content_saved(app=app, event=saved))


def remove(request, form: Form) -> None:
    app = request.app
    app.content.delete(request, form.id)
    forms = table(app, "forms_forms")
    request.session.execute(delete(forms).where(forms.c.form_id == form.id))


# --- the site's signer (quiz answers, form nonces) ------------------------------------------

SECRET_NAME = "forms.signing"  # of app.site_secret


def signer(app):
    """The host's signer on the site secret "forms.signing"; a site made before adopts the key it kept
    in forms_secrets (as hex text: the key's bytes change, so a quiz or nonce of a page rendered before
    the upgrade no longer matches, as after a day)."""
    return app.signer(SECRET_NAME, adopt=lambda session: _key_kept_before(app, session))


def signed(app, purpose: str, text: str) -> str:
    """A keyed digest of `text` for `purpose` ("quiz", "nonce")."""
    return signer(app).digest(f"{purpose}\x00{text}")[:32]


def _key_kept_before(app, session) -> str | None:
    secrets_table = table(app, "forms_secrets")
    return session.execute(select(secrets_table.c.value).where(secrets_table.c.name == "hmac")).scalar()


def quiz_hash(app, answer: str) -> str:
    return signed(app, "quiz", normalize_answer(answer))


def normalize_answer(answer: str) -> str:
    return " ".join(answer.split()).casefold()
