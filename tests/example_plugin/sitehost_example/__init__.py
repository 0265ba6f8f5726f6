"""A minimal third-party plugin used by the kernel tests (not shipped).

It serves `example/v1` with a list route and an item route over a table of its own,
a create route that needs a capability, and a route that exercises every argument type
the validator knows. Tests install it through a real `sitehost` entry point.

It also plays the part the content plugin plays for the cross-plugin hooks, so that each
hook has a real test: creating a note fires `content_saved` after commit, deleting one
fires `content_deleted`, the preview route runs `render_content`, feedback goes through
`check_spam`, the providers route joins `oembed_providers`, and deleting asks
`map_meta_capability` about `delete_note`.
"""

from __future__ import annotations

import datetime
import html

from marshmallow import Schema, fields, validate
from sqlalchemy import Column, DateTime, Integer, String, Table, Text, delete, func, insert, select, update

from host import ContentDeleted, ContentSaved, Namespace, PluginInfo, RestError, RestResponse, Route, Status, forbidden, hookimpl
from host.args import page_field

PLUGIN = PluginInfo(name="example", version="1.2.3", description="Notes, to prove the kernel end to end")
NAMESPACE = "example/v1"


class NoteListArgs(Schema):
    context = fields.String(load_default="view", validate=validate.OneOf(["view", "embed", "edit"]),
                            metadata={"description": "Scope under which the request is made."})
    page = page_field("Current page.")  # refused past host.args.MAX_PAGE, so OFFSET fits a column
    per_page = fields.Integer(load_default=10, validate=validate.Range(min=1, max=100),
                              metadata={"description": "Maximum number of items to return."})
    order = fields.String(load_default="desc", validate=validate.OneOf(["asc", "desc"]))
    include = fields.List(fields.Integer(), metadata={"default": []})


class NoteSchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "Unique identifier.", "context": ["view", "edit"]})
    title = fields.String(required=True, validate=validate.Length(min=1, max=80),
                          metadata={"description": "Title of the note.", "context": ["view", "edit"]})
    status = fields.String(load_default="draft", metadata={"description": "Status.", "context": ["view", "edit"]})


class KitchenSinkArgs(Schema):
    count = fields.Integer(validate=validate.Range(min=2, max=5))
    ratio = fields.Float()
    flag = fields.Boolean()
    tags = fields.List(fields.String(), validate=validate.Length(max=3))
    ids = fields.List(fields.Integer(), metadata={"uniqueItems": True})
    color = fields.String(validate=validate.OneOf(["red", "green", "blue"]))
    when = fields.DateTime()
    email = fields.Email()
    key = fields.UUID()
    code = fields.String(validate=validate.Length(equal=12))
    point = fields.Nested(Schema.from_dict({"x": fields.Integer(required=True), "y": fields.Integer()}))
    maybe = fields.Raw(metadata={"type": ["integer", "null"]})
    needed = fields.String(required=True)
    source = fields.String(load_default="default")
    # A pattern that backtracks exponentially under Python's re: RE2 runs it linearly.
    word = fields.String(metadata={"pattern": r"^(a+)+$"})


class DeleteNoteArgs(Schema):
    force = fields.Boolean(load_default=False, metadata={"description": "Delete for good instead of trashing."})


class FeedbackSchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "Unique identifier."})
    author = fields.String(required=True, validate=validate.Length(min=1, max=80),
                           metadata={"description": "Name of the sender."})
    email = fields.Email(metadata={"description": "Email of the sender (optional)."})
    message = fields.String(required=True, validate=validate.Length(min=1, max=2000),
                            metadata={"description": "The feedback."})
    status = fields.String(dump_only=True, metadata={"description": "received or spam."})


def notes_table(request) -> Table:
    """This app's table (each app has its own MetaData, so no module global holds it)."""
    return request.app.db.metadata.tables["example_notes"]


def define_notes_table(metadata):
    return Table(
        "example_notes", metadata,
        Column("id", Integer, primary_key=True),
        Column("title", String(80), nullable=False),
        Column("status", String(20), nullable=False),
        Column("created", DateTime, nullable=False),
    )


def define_feedback_table(metadata):
    return Table(
        "example_feedback", metadata,
        Column("id", Integer, primary_key=True),
        Column("author", String(80), nullable=False),
        Column("email", String(200), nullable=False),
        Column("message", Text, nullable=False),
        Column("status", String(20), nullable=False),
        Column("spam_reason", String(200), nullable=False, default=""),
    )


def _event_item(row) -> dict:
    """What `content_saved` / `content_deleted` listeners receive."""
    return {"id": row.id, "type": "note", "status": row.status, "title": row.title}


def _note(request, row) -> dict:
    base = request.base_url + f"/{NAMESPACE}/notes"
    return {
        "id": row.id, "title": row.title, "status": row.status,
        "_links": {
            "self": [{"href": f"{base}/{row.id}"}],
            "collection": [{"href": base}],
            "https://api.w.org/related": [{"embeddable": True, "href": f"{base}/{row.id}"}],
        },
    }


def list_notes(request):
    table = notes_table(request)
    params = request.params
    query = select(table)
    count = select(func.count()).select_from(table)
    if params.get("include"):
        query = query.where(table.c.id.in_(params["include"]))
        count = count.where(table.c.id.in_(params["include"]))
    order = table.c.id.asc() if params["order"] == "asc" else table.c.id.desc()
    rows = request.session.execute(query.order_by(order).limit(params["per_page"])
                                   .offset((params["page"] - 1) * params["per_page"])).all()
    total = request.session.execute(count).scalar_one()
    return RestResponse.collection(request, [_note(request, row) for row in rows], total,
                                   params["per_page"], params["page"])


def get_note(request):
    table = notes_table(request)
    row = request.session.execute(select(table).where(table.c.id == int(request.params["id"]))).first()
    if row is None:
        raise RestError("example_note_not_found", "No note has that id.", 404)
    return _note(request, row)


def create_note(request):
    table = notes_table(request)
    values = {"title": request.params["title"], "status": request.params["status"],
              "created": datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)}
    note_id = request.session.execute(insert(table).values(**values)).inserted_primary_key[0]
    if request.params["title"] == "explode after insert":
        raise RuntimeError("secret internal detail")
    row = request.session.execute(select(table).where(table.c.id == note_id)).first()
    app = request.app
    request.after_commit(lambda: app.hook.content_saved(app=app, event=ContentSaved.of(_event_item(row), True)))
    return RestResponse.created(_note(request, row), f"{request.base_url}/{NAMESPACE}/notes/{note_id}")


def delete_note(request):
    """Trash a note (status `trash`), or delete it for good with `force=true`."""
    table = notes_table(request)
    row = request.session.execute(select(table).where(table.c.id == int(request.params["id"]))).first()
    if row is None:
        raise RestError("example_note_not_found", "No note has that id.", 404)
    if not request.user.can("delete_note", _event_item(row)):
        raise forbidden(request.user, "example_cannot_delete", "Sorry, you are not allowed to delete this note.")
    force = request.params["force"]
    if force:
        request.session.execute(delete(table).where(table.c.id == row.id))
        body = {"deleted": True, "previous": _note(request, row)}
    else:
        if row.status == "trash":
            raise RestError("example_already_trashed", "The note has already been trashed.", 410)
        request.session.execute(update(table).where(table.c.id == row.id).values(status="trash"))
        trashed = request.session.execute(select(table).where(table.c.id == row.id)).first()
        body = _note(request, trashed)
    app = request.app
    request.after_commit(lambda: app.hook.content_deleted(app=app, event=ContentDeleted.of(_event_item(row), force)))
    return body


def preview_note(request):
    """The note's title as HTML, after every `render_content` implementation rewrote it."""
    table = notes_table(request)
    row = request.session.execute(select(table).where(table.c.id == int(request.params["id"]))).first()
    if row is None:
        raise RestError("example_note_not_found", "No note has that id.", 404)
    content = {"html": f"<p>{html.escape(row.title)}</p>"}
    request.app.hook.render_content(app=request.app, item=_event_item(row), content=content)
    return {"id": row.id, "rendered": content["html"]}


def send_feedback(request):
    """Store feedback; `check_spam` decides whether it is received or spam."""
    table = request.app.db.metadata.tables["example_feedback"]
    submission = {"type": "feedback", "author": request.params["author"], "email": request.params.get("email", ""),
                  "content": request.params["message"], "ip": request.remote_addr,
                  "user_agent": request.header("user-agent") or ""}
    verdict = request.app.hook.check_spam(app=request.app, submission=submission) or {}
    values = {"author": submission["author"], "email": submission["email"], "message": submission["content"],
              "status": "spam" if verdict.get("spam") else "received", "spam_reason": verdict.get("reason", "")}
    feedback_id = request.session.execute(insert(table).values(**values)).inserted_primary_key[0]
    return RestResponse(dict(id=feedback_id, author=values["author"], status=values["status"]), 201)


def list_oembed_providers(request):
    """Every provider that enabled plugins declare, as {pattern, endpoint} objects."""
    providers = [provider for answer in request.app.hook.oembed_providers(app=request.app) for provider in answer]
    return [{"pattern": pattern, "endpoint": endpoint} for pattern, endpoint in providers]


def can_write(request):
    return request.user.can("edit_posts")


def echo(request):
    return {"params": request.params, "method": request.method}


@hookimpl
def register_tables(metadata):
    define_notes_table(metadata)
    define_feedback_table(metadata)


@hookimpl
def map_meta_capability(capability):
    """Deleting a note needs `delete_posts`; other plugins may answer first with a stricter rule."""
    if capability == "delete_note":
        return ["delete_posts"]
    return None


@hookimpl
def register_namespaces():
    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_statuses():
    return [Status("example-archived", "Archived", post_types=("note",))]


class NoteIdArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier."})


class EchoSourceArgs(Schema):
    source = fields.String()


@hookimpl
def register_routes():
    return [
        Route(NAMESPACE, "/notes", "GET", list_notes, args=NoteListArgs, schema=NoteSchema, title="note"),
        Route(NAMESPACE, "/notes", "POST", create_note, args=NoteSchema, permission=can_write, allow_batch=True),
        Route(NAMESPACE, r"/notes/(?P<id>[\d]+)", "GET", get_note, args=NoteIdArgs, schema=NoteSchema),
        Route(NAMESPACE, "/echo", "GET, POST, PUT, PATCH, DELETE", echo, args=KitchenSinkArgs),
        Route(NAMESPACE, r"/echo/(?P<source>[\w-]+)", "GET, POST", echo, args=EchoSourceArgs),
        Route(NAMESPACE, r"/notes/(?P<id>[\d]+)", "DELETE", delete_note, args=DeleteNoteArgs, permission=can_write),
        Route(NAMESPACE, r"/notes/(?P<id>[\d]+)/preview", "GET", preview_note),
        Route(NAMESPACE, "/feedback", "POST", send_feedback, args=FeedbackSchema, schema=FeedbackSchema,
              title="feedback"),
        Route(NAMESPACE, "/oembed-providers", "GET", list_oembed_providers),
    ]
