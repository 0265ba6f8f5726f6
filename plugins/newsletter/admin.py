"""newsletter/v1 administration: lists, forms and subscribers (manage_options only).

| route | methods | what |
|---|---|---|
| /lists | GET, POST | list (paged, `search`), create {name, description} |
| /lists/<id> | GET, POST/PUT/PATCH, DELETE (force=true) | read, rename, delete with its subscriptions |
| /forms | GET, POST | list, create {title, action, lists, list_choice, fields, messages} |
| /forms/<id> | GET, POST/PUT/PATCH, DELETE (force=true) | read, edit (texts included), delete |
| /subscribers | GET | list (paged, `list`, `status`, `search`) |
| /subscribers/<id> | GET, DELETE (force=true) | read; erase (personal data removed, hashed suppression kept) |
"""

from __future__ import annotations

from sqlalchemy import delete, func, insert, select, update

from host import RestError, RestResponse, invalid_param
from host.text import sanitize_text_field

from . import store
from .messages import MESSAGE_TYPES, messages_of
from .tables import FORMS, LISTS, SUBSCRIBERS, SUBSCRIPTIONS, table

NAMESPACE = "newsletter/v1"


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def _links(request, collection: str, item_id: int) -> dict:
    base = f"{request.base_url}/{NAMESPACE}/{collection}"
    return {"self": [{"href": f"{base}/{item_id}"}], "collection": [{"href": base}]}


def _path_id(request) -> int:
    """The id in the path; one beyond any stored id (and beyond the database's integers) matches nothing."""
    value = int(request.params["id"])
    return value if value < 2**31 else 0


def _require_force(request, what: str) -> None:
    if not request.params.get("force"):
        raise RestError("rest_trash_not_supported",
                        f"{what} cannot be trashed. Set 'force=true' to delete.", 501)


def _page(request, query, count):
    params = request.params
    rows = request.session.execute(query.limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"])).all()
    return rows, request.session.execute(count).scalar_one()


# --- lists ------------------------------------------------------------------------------------

def _list_counts(request, list_ids: list[int]) -> dict[int, dict[str, int]]:
    subscriptions = table(request.app, SUBSCRIPTIONS)
    counts = {list_id: {status: 0 for status in store.STATUSES} for list_id in list_ids}
    if list_ids:
        for list_id, status, number in request.session.execute(
                select(subscriptions.c.list_id, subscriptions.c.status, func.count())
                .where(subscriptions.c.list_id.in_(list_ids))
                .group_by(subscriptions.c.list_id, subscriptions.c.status)):
            counts[list_id][status] = number
    return counts


def _list_data(request, row, counts) -> dict:
    return {"id": row.id, "name": row.name, "description": row.description, "created": _iso(row.created),
            "subscribers": counts.get(row.id, {status: 0 for status in store.STATUSES}),
            "_links": _links(request, "lists", row.id)}


def _find_list(request):
    lists = table(request.app, LISTS)
    row = request.session.execute(select(lists).where(lists.c.id == _path_id(request))).first()
    if row is None:
        raise RestError("newsletter_list_not_found", "There is no list with that id.", 404)
    return row


def _unique_name(request, name: str, except_id: int | None = None) -> str:
    name = name.strip()
    if not name:
        raise invalid_param({"name": "The list needs a name."})
    lists = table(request.app, LISTS)
    query = select(lists.c.id).where(func.lower(lists.c.name) == name.lower())
    if except_id is not None:
        query = query.where(lists.c.id != except_id)
    if request.session.execute(query).first():
        raise RestError("newsletter_list_exists", "A list with that name already exists.", 400, {"params": ["name"]})
    return name


def list_lists(request):
    lists, search = table(request.app, LISTS), request.params.get("search")
    query, count = select(lists), select(func.count()).select_from(lists)
    if search:
        condition = func.lower(lists.c.name).contains(search.lower(), autoescape=True)
        query, count = query.where(condition), count.where(condition)
    rows, total = _page(request, query.order_by(lists.c.name, lists.c.id), count)
    counts = _list_counts(request, [row.id for row in rows])
    return RestResponse.collection(request, [_list_data(request, row, counts) for row in rows], total,
                                   request.params["per_page"], request.params["page"])


def create_list(request):
    lists = table(request.app, LISTS)
    name = _unique_name(request, request.params["name"])
    new_id = request.session.execute(insert(lists).values(
        name=name, description=request.params.get("description", "") or "", created=store.utcnow())).inserted_primary_key[0]
    request.params["id"] = new_id
    row = _find_list(request)
    return RestResponse.created(_list_data(request, row, _list_counts(request, [row.id])),
                                f"{request.base_url}/{NAMESPACE}/lists/{row.id}")


def get_list(request):
    row = _find_list(request)
    return _list_data(request, row, _list_counts(request, [row.id]))


def update_list(request):
    row, lists = _find_list(request), table(request.app, LISTS)
    changes = {}
    if "name" in request.params:
        changes["name"] = _unique_name(request, request.params["name"], row.id)
    if "description" in request.params:
        changes["description"] = request.params["description"] or ""
    if changes:
        request.session.execute(update(lists).where(lists.c.id == row.id).values(**changes))
    return get_list(request)


def delete_list(request):
    row = _find_list(request)
    _require_force(request, "Lists")
    previous = get_list(request)
    subscriptions, lists = table(request.app, SUBSCRIPTIONS), table(request.app, LISTS)
    request.session.execute(delete(subscriptions).where(subscriptions.c.list_id == row.id))
    request.session.execute(delete(lists).where(lists.c.id == row.id))
    return {"deleted": True, "previous": previous}


# --- forms ------------------------------------------------------------------------------------

def _form_data(request, row) -> dict:
    return {"id": row.id, "title": row.title, "action": row.action, "lists": list(row.lists or []),
            "list_choice": bool(row.list_choice), "fields": list(row.fields or []),
            "messages": messages_of(row.messages), "message_types": dict(MESSAGE_TYPES),
            "created": _iso(row.created), "modified": _iso(row.modified), "_links": _links(request, "forms", row.id)}


def _find_form(request):
    forms = table(request.app, FORMS)
    row = request.session.execute(select(forms).where(forms.c.id == _path_id(request))).first()
    if row is None:
        raise RestError("newsletter_form_not_found", "There is no form with that id.", 404)
    return row


def _checked_lists(request, list_ids) -> list[int]:
    wanted = list(dict.fromkeys(int(list_id) for list_id in list_ids))
    missing = sorted(set(wanted) - set(store.existing_list_ids(request.app, request.session, wanted)))
    if missing:
        raise RestError("newsletter_unknown_list", f"There is no list with the id {missing[0]}.", 400,
                        {"params": ["lists"]})
    return wanted


def _checked_fields(field_list) -> list[dict]:
    """The form's merge fields: tags unique, EMAIL first and required."""
    checked, seen = [], set()
    for field in field_list or []:
        tag = field["tag"]
        if tag in seen:
            raise RestError("newsletter_duplicate_field", f"The merge field {tag} is listed twice.", 400,
                            {"params": ["fields"]})
        seen.add(tag)
        checked.append({"tag": tag, "label": field.get("label", tag.title()), "type": field.get("type", "text"),
                        "required": bool(field.get("required", False)) or tag == "EMAIL"})
    email = next((field for field in checked if field["tag"] == "EMAIL"),
                 {"tag": "EMAIL", "label": "Email address", "type": "email", "required": True})
    return [{**email, "type": "email", "required": True}] + [field for field in checked if field["tag"] != "EMAIL"]


def list_forms(request):
    forms = table(request.app, FORMS)
    rows, total = _page(request, select(forms).order_by(forms.c.id), select(func.count()).select_from(forms))
    return RestResponse.collection(request, [_form_data(request, row) for row in rows], total,
                                   request.params["per_page"], request.params["page"])


def create_form(request):
    params, forms, now = request.params, table(request.app, FORMS), store.utcnow()
    title = params["title"].strip()
    if not title:
        raise invalid_param({"title": "The form needs a title."})
    new_id = request.session.execute(insert(forms).values(
        title=title, action=params.get("action", "subscribe"), lists=_checked_lists(request, params.get("lists", [])),
        list_choice=1 if params.get("list_choice") else 0, fields=_checked_fields(params.get("fields")),
        messages=messages_of(params.get("messages")), created=now, modified=now)).inserted_primary_key[0]
    request.params["id"] = new_id
    return RestResponse.created(_form_data(request, _find_form(request)),
                                f"{request.base_url}/{NAMESPACE}/forms/{new_id}")


def get_form(request):
    return _form_data(request, _find_form(request))


def update_form(request):
    row, params, forms = _find_form(request), request.params, table(request.app, FORMS)
    changes = {"modified": store.utcnow()}
    if "title" in params:
        if not params["title"].strip():
            raise invalid_param({"title": "The form needs a title."})
        changes["title"] = params["title"].strip()
    if "action" in params:
        changes["action"] = params["action"]
    if "lists" in params:
        changes["lists"] = _checked_lists(request, params["lists"])
    if "list_choice" in params:
        changes["list_choice"] = 1 if params["list_choice"] else 0
    if "fields" in params:
        changes["fields"] = _checked_fields(params["fields"])
    if "messages" in params:
        changes["messages"] = messages_of({**messages_of(row.messages), **(params["messages"] or {})})
    request.session.execute(update(forms).where(forms.c.id == row.id).values(**changes))
    return get_form(request)


def delete_form(request):
    row = _find_form(request)
    _require_force(request, "Forms")
    previous = _form_data(request, row)
    forms = table(request.app, FORMS)
    request.session.execute(delete(forms).where(forms.c.id == row.id))
    return {"deleted": True, "previous": previous}


# --- subscribers ------------------------------------------------------------------------------

def _subscriptions_of(request, subscriber_ids: list[int]) -> dict[int, list[dict]]:
    subscriptions, lists = table(request.app, SUBSCRIPTIONS), table(request.app, LISTS)
    found: dict[int, list[dict]] = {subscriber_id: [] for subscriber_id in subscriber_ids}
    if subscriber_ids:
        for row in request.session.execute(
                select(subscriptions, lists.c.name).join(lists, lists.c.id == subscriptions.c.list_id)
                .where(subscriptions.c.subscriber_id.in_(subscriber_ids)).order_by(subscriptions.c.list_id)):
            found[row.subscriber_id].append({
                "list": row.list_id, "list_name": row.name, "status": row.status, "source": row.source,
                "requested": _iso(row.requested), "confirmed": _iso(row.confirmed), "unsubscribed": _iso(row.unsubscribed)})
    return found


def _plain_fields(fields: dict | None) -> dict | None:
    """Merge fields without markup, also those stored before sign-ups were cleaned (or imported)."""
    if fields is None:
        return None
    return {tag: sanitize_text_field(value) if isinstance(value, str) else value for tag, value in fields.items()}


def _subscriber_data(request, row, subscriptions) -> dict:
    return {"id": row.id, "email": row.email, "fields": _plain_fields(row.fields) or {},
            "pending_fields": _plain_fields(row.pending_fields),
            "created": _iso(row.created), "subscriptions": subscriptions.get(row.id, []),
            "_links": _links(request, "subscribers", row.id)}


def list_subscribers(request):
    params = request.params
    subscribers, subscriptions = table(request.app, SUBSCRIBERS), table(request.app, SUBSCRIPTIONS)
    conditions = []
    if params.get("list") is not None or params.get("status"):
        inner = select(subscriptions.c.subscriber_id)
        if params.get("list") is not None:
            inner = inner.where(subscriptions.c.list_id == params["list"])
        if params.get("status"):
            inner = inner.where(subscriptions.c.status == params["status"])
        conditions.append(subscribers.c.id.in_(inner))
    if params.get("search"):
        conditions.append(subscribers.c.email_key.contains(params["search"].lower(), autoescape=True))
    query = select(subscribers).where(*conditions).order_by(subscribers.c.id)
    rows, total = _page(request, query, select(func.count()).select_from(subscribers).where(*conditions))
    found = _subscriptions_of(request, [row.id for row in rows])
    return RestResponse.collection(request, [_subscriber_data(request, row, found) for row in rows], total,
                                   params["per_page"], params["page"])


def _find_subscriber(request):
    row = store.find_by_id(request.app, request.session, _path_id(request))
    if row is None:
        raise RestError("newsletter_subscriber_not_found", "There is no subscriber with that id.", 404)
    return row


def get_subscriber(request):
    row = _find_subscriber(request)
    return _subscriber_data(request, row, _subscriptions_of(request, [row.id]))


def erase_subscriber(request):
    row = _find_subscriber(request)
    _require_force(request, "Subscribers")
    previous = _subscriber_data(request, row, _subscriptions_of(request, [row.id]))
    store.erase(request.app, request.session, row)
    return {"deleted": True, "previous": previous}
