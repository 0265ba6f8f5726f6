"""Routes the image/CSS optimisation service calls back (cache/v1 notify_*, check_img; cache/v3).

Every callback is authenticated by the shared secret `[plugins.cache] callback_secret`,
sent in the `X-Cache-Secret` header and compared in constant time. Payloads are checked
with marshmallow; results are stored and shown by `GET cache/v1/status`. Success bodies
carry `_res: "ok"` as the service expects; failures use the REST error shape.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import platform
import re
import time
from importlib import metadata
from urllib.parse import urlsplit

from marshmallow import EXCLUDE, Schema, fields, validate
from sqlalchemy import delete, func, insert, select, update

from host import RestError, RestResponse, forbidden

from .tables import tables
from .runtime import runtime_of
from .state import get_state, set_state
from .validation import load_payload

SECRET_HEADER = "X-Cache-Secret"
ECHO_MAX_AGE_SECONDS = 24 * 60 * 60
DB_SCHEMA_VERSION = 1
MAX_ERR_DOMAINS = 100
NO_STORE = {"Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private"}
# Length is checked apart (253 at most): JSON Schema patterns run on RE2, which has no look-ahead.
MAX_HOSTNAME = 253
_HOSTNAME = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
_NAME = validate.Regexp(r"^[\w./-]{1,100}$")


def require_callback_secret(request):
    """Permission of every callback route: the configured secret, compared in constant time.

    The service calls anonymously, so refusals are 401 for it (403 for a signed-in caller,
    like every other permission refusal).
    """
    secret = runtime_of(request.app).config.callback_secret
    if not secret:
        raise forbidden(request.user, "cache_callbacks_disabled",
                        "Callbacks are refused because no callback_secret is configured in [plugins.cache].")
    given = request.header(SECRET_HEADER)
    if not given:
        raise forbidden(request.user, "cache_callback_secret_missing", f"The {SECRET_HEADER} header is missing.")
    if not hmac.compare_digest(given.encode("utf-8"), secret.encode("utf-8")):
        raise forbidden(request.user, "cache_callback_secret_invalid", f"The {SECRET_HEADER} header is wrong.")
    return True


def _sign(request, message: str) -> bytes:
    secret = runtime_of(request.app).config.callback_secret
    return hmac.new(secret.encode("utf-8"), message.encode("utf-8"), hashlib.sha256).digest()


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


# --- cache/v3 ------------------------------------------------------------------------------

class IpValidateSchema(Schema):
    hash = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-fA-F]{64}$"))


def ip_validate(request):
    """The service proves it holds the secret (`hash`); the site answers with its own proof."""
    given = load_payload(IpValidateSchema(), request.params)["hash"].lower()
    if not hmac.compare_digest(given, _sign(request, "ip_validate:service").hex()):
        raise RestError("cache_invalid_hash", "The hash does not match this site's callback secret.", 401)
    return RestResponse({"hash": _sign(request, "ip_validate:site").hex(), "_res": "ok"}, 200, NO_STORE)


class EchoSchema(Schema):
    wpapi_ts = fields.Integer(required=True, validate=validate.Range(min=0))
    wpapi_signature_b64 = fields.String(required=True, validate=validate.Length(max=200))


def wp_rest_echo(request):
    """Verify the service's signature of a timestamp, answer with the site's signature of it."""
    payload = load_payload(EchoSchema(), request.params)
    timestamp = payload["wpapi_ts"]
    try:
        signature = base64.b64decode(payload["wpapi_signature_b64"], validate=True)
    except (binascii.Error, ValueError):
        raise RestError("rest_invalid_param", "Invalid parameter(s): wpapi_signature_b64", 400,
                        {"params": {"wpapi_signature_b64": "Not valid base64."}}) from None
    if not hmac.compare_digest(signature, _sign(request, f"echo:service:{timestamp}")):
        raise RestError("cache_invalid_signature", "The signature does not match this site's callback secret.", 401)
    if abs(time.time() - timestamp) > ECHO_MAX_AGE_SECONDS:
        raise RestError("cache_echo_expired", "Echo data expired: the timestamp is more than a day away.", 400)
    signed = base64.b64encode(_sign(request, f"echo:site:{timestamp}")).decode("ascii")
    return {"signature_b64": signed, "_res": "ok"}


class PingSchema(Schema):
    funcs = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list)
    classes = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list)
    consts = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list)


def ping(request):
    """Versions and addresses; `funcs` are hook names, `classes` plugins, `consts` namespaces ("y"/"n")."""
    from . import PLUGIN

    payload = load_payload(PingSchema(), request.params)
    app = request.app
    hooks = {name for name in dir(app.hook) if not name.startswith("_")}
    loaded = {record.name for record in app.enabled_plugins}
    answer: dict = {}
    answer.update({name: "y" if name in hooks else "n" for name in payload["funcs"]})
    answer.update({name: "y" if name in loaded else "n" for name in payload["classes"]})
    answer.update({name: "y" if name in app.registry.namespaces else "n" for name in payload["consts"]})
    site_url = _site_url(request)
    try:
        host_version = metadata.version("sitehost")
    except metadata.PackageNotFoundError:
        host_version = "unknown"
    answer.update({
        "v_cache": PLUGIN.version, "v_cache_db": DB_SCHEMA_VERSION, "v_python": platform.python_version(),
        "v_sitehost": host_version, "home_url": (app.settings.site.get("home") or site_url).rstrip("/"),
        "site_url": site_url, "_res": "ok",
    })
    return answer


class CdnStatusSchema(Schema):
    qc_activated = fields.String(required=True, validate=validate.OneOf(["anonymous", "linked", "cdn", "deleted"]))


def cdn_status(request):
    """Record the service's view of this site: `cdn` switches the CDN on, `deleted` resets it."""
    status = load_payload(CdnStatusSchema(), request.params)["qc_activated"]
    app = request.app
    current = get_state(request.session, app, "cdn", {"status": None, "cdn_enabled": False})
    enabled = True if status == "cdn" else False if status == "deleted" else bool(current.get("cdn_enabled"))
    set_state(request.session, app, "cdn", {"status": status, "cdn_enabled": enabled, "updated": _iso_now()})
    if status == "deleted":
        set_state(request.session, app, "err_domains", [])
    return {"qc_activated": status, "_res": "ok"}


class ErrDomainsSchema(Schema):
    alias = fields.String(required=True, validate=[validate.Length(min=1, max=MAX_HOSTNAME), validate.Regexp(_HOSTNAME)])
    main_domain = fields.String(required=True,
                                validate=[validate.Length(min=1, max=MAX_HOSTNAME), validate.Regexp(_HOSTNAME)])


def err_domains(request):
    """The service reports that `alias` of this site's domain fails; kept for the status route."""
    payload = load_payload(ErrDomainsSchema(), request.params)
    site_host = (urlsplit(request.app.site_address(request.session)).hostname or "").lower()  # not the Host header
    if payload["main_domain"].lower() != site_host:
        raise RestError("cache_not_alias_of_site", "Not an alias request for this site: main_domain is not "
                        "this site's domain.", 400, {"main_domain": payload["main_domain"]})
    app = request.app
    known = [entry for entry in get_state(request.session, app, "err_domains", [])
             if entry.get("alias") != payload["alias"].lower()]
    known.append({"alias": payload["alias"].lower(), "reported": _iso_now()})
    set_state(request.session, app, "err_domains", known[-MAX_ERR_DOMAINS:])
    return {"_res": "ok"}


# --- cache/v1: image optimisation ----------------------------------------------------------

class ImageRowSchema(Schema):
    class Meta:
        unknown = EXCLUDE  # the service may send more detail than we keep

    id = fields.Integer(required=True, validate=validate.Range(min=1))  # attachment id
    file_id = fields.Integer(load_default=0, validate=validate.Range(min=0))
    src_size = fields.Integer(load_default=0, validate=validate.Range(min=0))
    ori = fields.Boolean(load_default=False)
    ori_md5 = fields.String(load_default="", validate=validate.Regexp(r"^([0-9a-fA-F]{32})?$"))
    ori_reduced = fields.Integer(load_default=0, validate=validate.Range(min=0))
    webp = fields.Boolean(load_default=False)
    webp_md5 = fields.String(load_default="", validate=validate.Regexp(r"^([0-9a-fA-F]{32})?$"))
    webp_reduced = fields.Integer(load_default=0, validate=validate.Range(min=0))
    avif = fields.Boolean(load_default=False)
    avif_md5 = fields.String(load_default="", validate=validate.Regexp(r"^([0-9a-fA-F]{32})?$"))
    avif_reduced = fields.Integer(load_default=0, validate=validate.Range(min=0))


class NotifyImgSchema(Schema):
    server = fields.String(required=True, validate=validate.Length(max=255))
    status = fields.String(required=True, validate=validate.Regexp(r"^[a-z_]{1,40}$"))
    data = fields.Dict(keys=fields.String(validate=validate.Regexp(r"^\d{1,18}$")), values=fields.Nested(ImageRowSchema),
                       required=True, validate=validate.Length(min=1, max=1000))


def notify_img(request):
    """Results for working rows: `notified` stores them, any other status drops those rows."""
    payload = load_payload(NotifyImgSchema(), request.params)
    server = _server_host(request, payload["server"])
    table = tables(request.app)["cache_image_results"]
    session = request.session
    if payload["status"] != "notified":
        keys = list(payload["data"])
        count = session.execute(delete(table).where(table.c.row_key.in_(keys))).rowcount
        return {"count": count, "_res": "ok"}
    now = _utcnow()
    for row_key, row in payload["data"].items():
        values = {"attachment_id": row["id"], "file_id": row["file_id"], "server": server, "status": "notified",
                  "src_size": row["src_size"], "ori_reduced": row["ori_reduced"], "webp_reduced": row["webp_reduced"],
                  "avif_reduced": row["avif_reduced"], "updated": now,
                  "details": {name: row[name] for name in ("ori", "ori_md5", "webp", "webp_md5", "avif", "avif_md5")}}
        changed = session.execute(update(table).where(table.c.row_key == row_key).values(**values)).rowcount
        if not changed:
            session.execute(insert(table).values(row_key=row_key, **values))
    return {"count": len(payload["data"]), "_res": "ok"}


def _server_host(request, server: str) -> str:
    """The service node's host name; it must belong to a configured image server domain."""
    host = (urlsplit(server if "//" in server else "//" + server).hostname or "").lower()
    allowed = runtime_of(request.app).config.image_servers
    if len(host) > MAX_HOSTNAME or not re.match(_HOSTNAME, host) or (allowed and not any(host == d or host.endswith("." + d) for d in allowed)):
        raise RestError("cache_wrong_server", "The server is not one of the configured image servers.", 400,
                        {"server": server})
    return host


class CheckImgSchema(Schema):
    data = fields.Integer(required=True, validate=validate.Range(min=1),
                          metadata={"description": "Attachment id."})


def check_img(request):
    """What the site knows about one attachment's optimisation, and the site-wide summary."""
    attachment_id = load_payload(CheckImgSchema(), request.params)["data"]
    table = tables(request.app)["cache_image_results"]
    session = request.session
    rows = session.execute(select(table).where(table.c.attachment_id == attachment_id).order_by(table.c.id)).all()
    total = session.execute(select(func.count(), func.coalesce(func.sum(table.c.ori_reduced), 0))).one()
    return {"_res": "ok", "data": {
        "img_count": len(rows),
        "optm_summary": {"images": total[0], "bytes_saved": total[1]},
        "img_data": [{"id": row.row_key, "file_id": row.file_id, "optm_status": row.status, "src_size": row.src_size,
                      "server_info": row.server, "ori_reduced": row.ori_reduced, "webp_reduced": row.webp_reduced,
                      "avif_reduced": row.avif_reduced} for row in rows],
    }}


# --- cache/v1: page optimisation (critical CSS, unused CSS, viewport images) --------------------

def page_result_schema(kind: str) -> type[Schema]:
    """The payload of notify_ccss, notify_ucss or notify_vpi: results keyed by the kind."""
    item = Schema.from_dict({
        "request_url": fields.Url(required=True, require_tld=False),
        "queue_k": fields.String(required=True, validate=validate.Length(min=1, max=200)),
        f"data_{kind}": fields.String(required=True, validate=validate.Length(max=1_000_000)),
    }, name=f"{kind.title()}ResultSchema")
    return Schema.from_dict({
        "data": fields.List(fields.Nested(item(unknown=EXCLUDE)), required=True, validate=validate.Length(min=1, max=500)),
    }, name=f"Notify{kind.title()}Schema")


def notify_page_result(kind: str):
    def handler(request):
        """Store one result per queue key (the newest wins); the count of saved items comes back."""
        payload = load_payload(page_result_schema(kind)(), request.params)
        table = tables(request.app)["cache_page_results"]
        session = request.session
        now = _utcnow()
        for item in payload["data"]:
            values = {"request_url": item["request_url"], "payload": item[f"data_{kind}"], "updated": now}
            where = (table.c.kind == kind) & (table.c.queue_k == item["queue_k"])
            if not session.execute(update(table).where(where).values(**values)).rowcount:
                session.execute(insert(table).values(kind=kind, queue_k=item["queue_k"], **values))
        return {"count": len(payload["data"]), "_res": "ok"}

    handler.__name__ = f"notify_{kind}"
    return handler


def _site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    base = request.base_url
    return base[: -len(prefix)] if prefix and base.endswith(prefix) else base


def _iso_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
