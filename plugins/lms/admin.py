"""lms/v1 administration: API keys (issue, list, revoke), the enrolments the webhook made, the
payment events it recorded (refused payments among them) and the paid checkouts kept as pending
enrolments (list, assign to an existing user).

These are sitehost's own routes (the original managed keys from its admin screens), so they
follow the REST conventions of core/v2 (201 on create, X-WP-Total on lists, the error shape)
rather than the read routes' envelope. They need `manage_options` and an application password
or session: an API key never manages keys or reads enrolments, even an administrator's.
"""

from __future__ import annotations

from sqlalchemy import func, select

from host import RestError, RestResponse, Route, forbidden
from host.auth import users as user_service

from . import apikeys, pending
from .apikeys import api_key_of
from .enrolments import enrolment_record
from .schemas import ApiKeyArgs, ApiKeyCreateArgs, ApiKeyListArgs, CatalogueArgs, EnrolmentListArgs, \
    PaymentEventListArgs, PendingEnrolmentAssignArgs, PendingEnrolmentListArgs
from .tables import ENROLMENTS, EVENTS, table
from .importer import ImportError_, import_catalogue as run_import, read_catalogue


def not_with_api_key(request) -> bool:
    if api_key_of(request) is not None:
        raise forbidden(request.user, "rest_forbidden", "API keys cannot administer; use an application password.")
    return True


def list_keys(request):
    with_user = request.params.get("user")
    return apikeys.list_keys(request.app, request.session, with_user)


def create_key(request):
    params = request.params
    user_id = params.get("user") or request.user.id
    if user_service.get_user(request.app, request.session, user_id) is None:
        raise RestError("rest_user_invalid_id", "Invalid user ID.", 400, {"params": ["user"]})
    record, secret = apikeys.create_key(request.app, request.session, user_id, params["permission"],
                                        params.get("description") or "")
    location = f"{request.base_url}/{request.route.namespace}/api-keys/{record['id']}"
    # The secret is in this answer and nowhere else: only its hash is stored.
    return RestResponse.created({**record, "secret": secret}, location)


def revoke_key(request):
    record = apikeys.revoke_key(request.app, request.session, request.params["id"])
    if record is None:
        raise RestError("lms_api_key_not_found", "There is no API key with that id.", 404)
    return {"deleted": True, "previous": record}


def list_enrolments(request):
    params = request.params
    enrolments = table(request.app, ENROLMENTS)
    conditions = [column == params[name] for name, column in (("course", enrolments.c.course_id),
                                                              ("user", enrolments.c.user_id),
                                                              ("status", enrolments.c.status)) if params.get(name)]
    total = request.session.execute(select(func.count()).select_from(enrolments).where(*conditions)).scalar_one()
    rows = request.session.execute(select(enrolments).where(*conditions).order_by(enrolments.c.id.desc())
                                   .limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"])).all()
    return RestResponse.collection(request, [enrolment_record(row) for row in rows], total, params["per_page"],
                                   params["page"])


def list_payment_events(request):
    """Every verified payment event as recorded, newest first: what an operator checks when a buyer
    says they paid (a refused payment enrolled no one and is to be refunded or enrolled by hand)."""
    params = request.params
    events = table(request.app, EVENTS)
    conditions = [column == params[name] for name, column in (("outcome", events.c.outcome),
                                                              ("course", events.c.course_id)) if params.get(name)]
    total = request.session.execute(select(func.count()).select_from(events).where(*conditions)).scalar_one()
    rows = request.session.execute(select(events).where(*conditions).order_by(events.c.id.desc())
                                   .limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"])).all()
    return RestResponse.collection(request, [payment_event_record(row) for row in rows], total, params["per_page"],
                                   params["page"])


def payment_event_record(row) -> dict:
    return {"id": row.id, "provider": row.provider, "event_id": row.event_id, "type": row.type,
            "outcome": row.outcome, "course_id": row.course_id, "user_id": row.user_id, "amount": row.amount,
            "currency": row.currency, "reference": row.reference, "received": row.received.isoformat()}


def list_pending_enrolments(request):
    """Paid checkouts whose buyer had no account, newest first (what an operator assigns by hand)."""
    params = request.params
    rows, total = pending.listing(request.app, request.session, status=params.get("status"),
                                  course=params.get("course"), page=params["page"], per_page=params["per_page"])
    return RestResponse.collection(request, [pending.record(row) for row in rows], total, params["per_page"],
                                   params["page"])


def assign_pending_enrolment(request):
    """Grant a pending payment to an existing user: 404 unknown, 400 no such user, 409 no longer pending."""
    app, session = request.app, request.session
    row = pending.find(app, session, request.params["id"]) if request.params["id"] < 2**31 else None
    if row is None:
        raise RestError("lms_pending_enrolment_not_found", "There is no pending enrolment with that id.", 404)
    user = user_service.get_user(app, session, request.params["user"])
    if user is None:
        raise RestError("rest_user_invalid_id", "Invalid user ID.", 400, {"params": ["user"]})
    if not pending.grant(app, session, row, user.id, f"operator {request.user.login}"):
        raise RestError("lms_pending_enrolment_resolved", f"This payment is already {row.status}.", 409)
    return pending.record(pending.find(app, session, row.id))


def import_catalogue(request):
    """POST lms/v1/catalogue: what `sitehost lms import` does, for a catalogue sent as the JSON body."""
    try:
        catalogue = read_catalogue(request.body.decode("utf-8") if request.body else "")
    except (ImportError_, UnicodeDecodeError) as error:
        raise RestError("lms_invalid_catalogue", str(error), 400) from None

    def find_user(login: str):
        found = user_service.find_user(request.app, request.session, login)
        return found.id if found is not None else None

    counts = run_import(request, catalogue, request.user.id, find_user)
    return {"courses": len(catalogue["courses"]), "created": counts.created, "updated": counts.updated,
            "unchanged": counts.unchanged, "questions": counts.questions, "ratings": counts.ratings}


def routes(namespace: str) -> list[Route]:
    admin = {"capability": "manage_options", "permission": not_with_api_key}
    return [
        Route(namespace, "/api-keys", "GET", list_keys, args=ApiKeyListArgs, title="lms-api-keys", **admin),
        Route(namespace, "/api-keys", "POST", create_key, args=ApiKeyCreateArgs, **admin),
        Route(namespace, r"/api-keys/(?P<id>[\d]+)", "DELETE", revoke_key, args=ApiKeyArgs, **admin),
        Route(namespace, "/catalogue", "POST", import_catalogue, args=CatalogueArgs, **admin),
        Route(namespace, "/enrolments", "GET", list_enrolments, args=EnrolmentListArgs, title="lms-enrolments",
              **admin),
        Route(namespace, "/payment-events", "GET", list_payment_events, args=PaymentEventListArgs,
              title="lms-payment-events", **admin),
        Route(namespace, "/pending-enrolments", "GET", list_pending_enrolments, args=PendingEnrolmentListArgs,
              title="lms-pending-enrolments", **admin),
        Route(namespace, r"/pending-enrolments/(?P<id>[\d]+)/assign", "POST", assign_pending_enrolment,
              args=PendingEnrolmentAssignArgs, **admin),
    ]
