"""The reliability suite's own guinea-pig plugin (`probe/v1`), not shipped.

Items have a public and a private status, write routes declare the capability they need
(`Route.capability`), an item may name an embeddable parent, and `/tripwire` records
every call that reaches its handler, so tests can prove that bad input never does. With
`[plugins.probe] leak = true` the item routes forget to hide private items: the suite
uses that to show its leak detector can fail.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate
from sqlalchemy import BigInteger, Column, Integer, String, Table, Text, delete, func, insert, or_, select, update

from host import Namespace, PluginInfo, RestError, RestResponse, Route, Status, hookimpl

PLUGIN = PluginInfo(name="probe", version="1.0.0", description="Reliability probe: items with public and private statuses")
NAMESPACE = "probe/v1"
PUBLIC, SECRET = "probe-open", "probe-secret"


class ItemSchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "Unique identifier."})
    title = fields.String(required=True, validate=validate.Length(min=1, max=80), metadata={"description": "Title."})
    status = fields.String(load_default=PUBLIC, validate=validate.OneOf([PUBLIC, SECRET]),
                           metadata={"description": "Who may read the item."})
    parent = fields.Integer(load_default=0, validate=validate.Range(min=0),
                            metadata={"description": "Id of a parent item (embeddable), 0 for none."})


class ListArgs(Schema):
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100_000))
    per_page = fields.Integer(load_default=10, validate=validate.Range(min=1, max=100))
    search = fields.String(metadata={"description": "Only items whose title contains this."})


class TripwireArgs(Schema):
    text = fields.String(validate=validate.Length(max=200))
    payload = fields.Dict(metadata={"description": "Anything nested."})


def _tables(request):
    return request.app.db.metadata.tables["probe_items"], request.app.db.metadata.tables["probe_tripwire"]


def _leaky(request) -> bool:
    return bool(request.app.plugin_config("probe").get("leak"))


def _may_read_secrets(request) -> bool:
    return _leaky(request) or request.user.can("read_private_posts")


def _item(request, row) -> dict:
    base = f"{request.base_url}/{NAMESPACE}/items"
    links = {"self": [{"href": f"{base}/{row.id}"}], "collection": [{"href": base}]}
    if row.parent:
        links["up"] = [{"href": f"{base}/{row.parent}", "embeddable": True}]
    return {"id": row.id, "title": row.title, "status": row.status, "parent": row.parent, "_links": links}


def list_items(request):
    items, _tripwire = _tables(request)
    query = select(items)
    if not _may_read_secrets(request):
        query = query.where(items.c.status == PUBLIC)
    if request.params.get("search"):
        query = query.where(items.c.title.contains(request.params["search"], autoescape=True))
    total = request.session.execute(select(func.count()).select_from(query.subquery())).scalar_one()
    per_page, page = request.params["per_page"], request.params["page"]
    rows = request.session.execute(query.order_by(items.c.id).limit(per_page).offset((page - 1) * per_page)).all()
    return RestResponse.collection(request, [_item(request, row) for row in rows], total, per_page, page)


def _find(request, item_id: int):
    items, _tripwire = _tables(request)
    row = request.session.execute(select(items).where(items.c.id == item_id)).first()
    if row is None or (row.status != PUBLIC and not _may_read_secrets(request)):
        raise RestError("probe_item_not_found", "No item has that id.", 404)
    return row


def get_item(request):
    return _item(request, _find(request, int(request.params["id"])))


def create_item(request):
    items, _tripwire = _tables(request)
    params = request.params
    item_id = request.session.execute(insert(items).values(
        title=params["title"], status=params["status"], parent=params["parent"])).inserted_primary_key[0]
    row = request.session.execute(select(items).where(items.c.id == item_id)).first()
    return RestResponse.created(_item(request, row), f"{request.base_url}/{NAMESPACE}/items/{item_id}")


def update_item(request):
    items, _tripwire = _tables(request)
    row = _find(request, int(request.params["id"]))
    changes = {name: request.params[name] for name in ("title", "status", "parent") if name in request.params}
    if changes:
        request.session.execute(update(items).where(items.c.id == row.id).values(**changes))
    return _item(request, request.session.execute(select(items).where(items.c.id == row.id)).first())


def delete_item(request):
    items, _tripwire = _tables(request)
    row = _find(request, int(request.params["id"]))
    request.session.execute(delete(items).where(or_(items.c.id == row.id)))
    return {"deleted": True, "previous": _item(request, row)}


def tripwire(request):
    _items, table = _tables(request)
    request.session.execute(insert(table).values(note=repr(request.params)[:2000]))
    return {"reached": True}


@hookimpl
def register_tables(metadata):
    Table("probe_items", metadata,  # 64-bit ids: any id the API accepts fits the column
          Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
          Column("title", String(80), nullable=False),
          Column("status", String(20), nullable=False),
          Column("parent", Integer, nullable=False, default=0))
    Table("probe_tripwire", metadata,
          Column("id", Integer, primary_key=True),
          Column("note", Text, nullable=False))


@hookimpl
def register_namespaces():
    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_statuses():
    return [Status(PUBLIC, "Open", public=True, post_types=("probe_item",)),
            Status(SECRET, "Secret", private=True, post_types=("probe_item",))]


class ItemIdArgs(Schema):
    id = fields.Integer(metadata={"description": "Unique identifier."})


@hookimpl
def register_routes():
    item = r"/items/(?P<id>[\d]+)"
    return [
        Route(NAMESPACE, "/items", "GET", list_items, args=ListArgs, schema=ItemSchema, title="probe_item"),
        Route(NAMESPACE, "/items", "POST", create_item, args=ItemSchema, capability="edit_posts", allow_batch=True),
        Route(NAMESPACE, item, "GET", get_item, args=ItemIdArgs, schema=ItemSchema, title="probe_item"),
        Route(NAMESPACE, item, "PUT, PATCH", update_item, args=ItemSchema, partial_args=True,
              capability="edit_others_posts", allow_batch=True),
        Route(NAMESPACE, item, "DELETE", delete_item, args=ItemIdArgs, capability="delete_others_posts", allow_batch=True),
        Route(NAMESPACE, "/tripwire", "POST", tripwire, args=TripwireArgs),
    ]
