"""Routes the optimisation service calls back (cache/v1 notify_*, check_img; cache/v3), in its protocol.

A caller must come from one of the service's published addresses (service_ips.py) and, when
`[plugins.cache] callback_secret` is set, also send it in `X-Cache-Secret`; anyone else gets
`rest_forbidden` (401, 403 when signed in), as the real plugin's permission check answers.
Past that check the service's own envelope is spoken, always with HTTP 200 as the real plugin's
`ok()` / `err()`: `{..., "_res": "ok"}` or `{"_res": "err", "_msg": <the real plugin's code>}`.
Payloads are checked with marshmallow by the handlers (the declared args only document them),
and a refused payload changes nothing. Results are shown by `GET cache/v1/status`.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import platform
import re
import time
from importlib import metadata
from urllib.parse import urlsplit

from marshmallow import EXCLUDE, Schema, fields, validate
from sqlalchemy import delete, func, insert, select, update

from host import RestResponse
from host.signing import Signer

from . import service_ips
from .tables import tables
from .runtime import runtime_of
from .state import get_state, set_state
from .validation import CallbackError, load_callback_payload

SECRET_HEADER = "X-Cache-Secret"
ECHO_MAX_AGE_SECONDS = 24 * 60 * 60
DB_SCHEMA_VERSION = 1
MAX_ERR_DOMAINS = 100
MAX_ECHO_TIMESTAMP_DIGITS = 12
NO_STORE = {"Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private"}
# Length is checked apart (253 at most): JSON Schema patterns run on RE2, which has no look-ahead.
MAX_HOSTNAME = 253
_HOSTNAME = r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
_NAME = validate.Regexp(r"^[\w./-]{1,100}$")
CDN_STATUSES = ("anonymous", "linked", "cdn", "deleted")
ECHO_FAILED = "Data validation from WPAPI REST Echo failed"


def require_service_caller(request) -> bool:
    """Permission of every callback route: a listed address, and the secret when one is configured.

    The secret is checked first, so a caller without it never makes the site download the list.
    The verdict is kept for the rest of the request (the Allow header asks again).
    """
    verdict = getattr(request.state, "cache_service_caller", None)
    if verdict is None:
        verdict = _has_secret(request) and service_ips.is_listed(
            request.app, runtime_of(request.app).config, service_ips.caller_address(request))
        request.state.cache_service_caller = verdict
    return verdict


def _has_secret(request) -> bool:
    secret = runtime_of(request.app).config.callback_secret
    if not secret:
        return True
    given = request.header(SECRET_HEADER) or ""
    return Signer.matches(given, secret)


def ok(data: dict | None = None) -> dict:
    """The real plugin's success envelope: the data, then `_res: "ok"`."""
    return {**(data or {}), "_res": "ok"}


def err(code: str) -> dict:
    """The real plugin's failure envelope (answered with HTTP 200)."""
    return {"_res": "err", "_msg": code}


def speaks_envelope(handler):
    """A CallbackError raised by `handler` becomes the `_res: "err"` answer."""
    @functools.wraps(handler)
    def answer(request):
        try:
            return handler(request)
        except CallbackError as error:
            return err(error.code)
    return answer


def _sign(request, message: str) -> str | None:
    """The site's HMAC of `message` with the callback secret; None when no secret is configured."""
    secret = runtime_of(request.app).config.callback_secret
    if not secret:
        return None
    return Signer(secret.encode("utf-8"), "cache.callbacks").digest(message)


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


# --- cache/v3 ------------------------------------------------------------------------------

class IpValidateSchema(Schema):
    hash = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-fA-F]{64}$"),
                         metadata={"description": "The service's proof that it holds the shared secret."})


@speaks_envelope
def ip_validate(request):
    """The service proves it holds the secret (`hash`); the site answers with its own proof."""
    given = request.params.get("hash")
    if given is None or given == "":
        raise CallbackError("lack_of_params")
    expected = _sign(request, "ip_validate:service")
    if not isinstance(given, str) or expected is None or not Signer.matches(given.lower(), expected):
        raise CallbackError("err_hash")
    return RestResponse(ok({"hash": _sign(request, "ip_validate:site")}), 200, NO_STORE)


class EchoSchema(Schema):
    wpapi_ts = fields.Integer(required=True, validate=validate.Range(min=0, max=10 ** MAX_ECHO_TIMESTAMP_DIGITS - 1),
                              metadata={"description": "Unix time the service signed."})
    wpapi_signature_b64 = fields.String(required=True, validate=validate.Length(max=200),
                                        metadata={"description": "The service's signature of wpapi_ts, base64."})


@speaks_envelope
def wp_rest_echo(request):
    """Verify the service's signature of a timestamp, answer with the site's signature of it."""
    timestamp, signature_b64 = request.params.get("wpapi_ts"), request.params.get("wpapi_signature_b64")
    if timestamp in (None, "", 0, "0") or signature_b64 in (None, ""):
        raise CallbackError("No echo data")  # PHP's empty(): "0" is no data either
    timestamp = _echo_timestamp(timestamp)
    expected = _sign(request, f"echo:service:{timestamp}")
    if timestamp is None or expected is None or not isinstance(signature_b64, str) or len(signature_b64) > 200:
        raise CallbackError(ECHO_FAILED)
    try:
        signature = base64.b64decode(signature_b64, validate=True)
    except (binascii.Error, ValueError):
        raise CallbackError(ECHO_FAILED) from None
    if not Signer.matches(signature.hex(), expected):
        raise CallbackError(ECHO_FAILED)
    if abs(time.time() - timestamp) > ECHO_MAX_AGE_SECONDS:
        raise CallbackError("Echo data expired")
    return ok({"signature_b64": base64.b64encode(bytes.fromhex(_sign(request, f"echo:site:{timestamp}") or "")).decode("ascii")})


def _echo_timestamp(value) -> int | None:
    """A non-negative whole number of seconds, sent as a number or as digits; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 10 ** MAX_ECHO_TIMESTAMP_DIGITS else None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= MAX_ECHO_TIMESTAMP_DIGITS:
        return int(value)
    return None


class PingSchema(Schema):
    funcs = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list,
                        metadata={"description": "Hook names to look up."})
    classes = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list,
                          metadata={"description": "Plugin names to look up."})
    consts = fields.List(fields.String(validate=_NAME), validate=validate.Length(max=50), load_default=list,
                         metadata={"description": "REST namespaces to look up."})


@speaks_envelope
def ping(request):
    """Versions under the real plugin's keys, then "y"/"n" for each name asked about.

    The real plugin answers its own version (`v_{kp}`, `v_{kp}_db`), PHP's (`v_php`) and
    WordPress's (`v_wp`); this site puts Python's version under `v_php` and sitehost's under
    `v_wp`. `funcs` are hook names, `classes` plugins and `consts` REST namespaces. As in the
    real plugin, a name asked about overwrites a version key of the same name.
    """
    payload = load_callback_payload(PingSchema(), request.params)
    app = request.app
    site_url = _site_url(request)
    answer = {
        "v_cache": app.plugin("cache").version, "v_cache_db": DB_SCHEMA_VERSION, "v_php": platform.python_version(),
        "v_wp": _sitehost_version(), "home_url": (app.settings.site.get("home") or site_url).rstrip("/"),
        "site_url": site_url,
    }
    hooks = {name for name in dir(app.hook) if not name.startswith("_")}
    loaded = {record.name for record in app.enabled_plugins}
    answer.update({name: "y" if name in hooks else "n" for name in payload["funcs"]})
    answer.update({name: "y" if name in loaded else "n" for name in payload["classes"]})
    answer.update({name: "y" if name in app.registry.namespaces else "n" for name in payload["consts"]})
    return ok(answer)


def _sitehost_version() -> str:
    try:
        return metadata.version("sitehost")
    except metadata.PackageNotFoundError:
        return "unknown"


class CdnStatusSchema(Schema):
    qc_activated = fields.String(required=True, validate=validate.OneOf(CDN_STATUSES),
                                 metadata={"description": "The service's view of this site."})


@speaks_envelope
def cdn_status(request):
    """Record the service's view of this site: `cdn` switches the CDN on, `deleted` resets it."""
    status = request.params.get("qc_activated")
    if status not in CDN_STATUSES:
        raise CallbackError("lack_of_params")  # missing or unknown alike, as the real plugin
    app = request.app
    current = get_state(request.session, app, "cdn", {"status": None, "cdn_enabled": False})
    enabled = True if status == "cdn" else False if status == "deleted" else bool(current.get("cdn_enabled"))
    set_state(request.session, app, "cdn", {"status": status, "cdn_enabled": enabled, "updated": _iso_now()})
    if status == "deleted":
        set_state(request.session, app, "err_domains", [])
    return ok({"qc_activated": status})


class ErrDomainsSchema(Schema):
    alias = fields.String(required=True, validate=[validate.Length(min=1, max=MAX_HOSTNAME), validate.Regexp(_HOSTNAME)],
                          metadata={"description": "The alias of this site's domain that fails."})
    main_domain = fields.String(required=True,
                                validate=[validate.Length(min=1, max=MAX_HOSTNAME), validate.Regexp(_HOSTNAME)],
                                metadata={"description": "This site's domain."})


@speaks_envelope
def err_domains(request):
    """The service reports that `alias` of this site's domain fails; kept for the status route."""
    payload = load_callback_payload(ErrDomainsSchema(), request.params, missing="lack_of_param")
    site_host = (urlsplit(request.app.site_address(request.session)).hostname or "").lower()  # not the Host header
    if payload["main_domain"].lower() != site_host:
        raise CallbackError("Not an alias req from here")
    app = request.app
    known = [entry for entry in get_state(request.session, app, "err_domains", [])
             if entry.get("alias") != payload["alias"].lower()]
    known.append({"alias": payload["alias"].lower(), "reported": _iso_now()})
    set_state(request.session, app, "err_domains", known[-MAX_ERR_DOMAINS:])
    return ok()


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
    server = fields.String(required=True, validate=validate.Length(max=255),
                           metadata={"description": "The service node that optimised the images."})
    status = fields.String(required=True, validate=validate.Regexp(r"^[a-z_]{1,40}$"),
                           metadata={"description": "`notified`, or the failure that drops the rows."})
    data = fields.Dict(keys=fields.String(validate=validate.Regexp(r"^\d{1,18}$")), values=fields.Nested(ImageRowSchema),
                       required=True, validate=validate.Length(min=1, max=1000),
                       metadata={"description": "Results by working-row id."})


@speaks_envelope
def notify_img(request):
    """Results for working rows: `notified` stores them, any other status drops those rows.

    Checked in the real plugin's order (data, server, status), each with its code; then the rows.
    """
    params = request.params
    if not params.get("data") or not isinstance(params["data"], dict):
        raise CallbackError("no notified data")
    if not params.get("server") or not isinstance(params["server"], str) or _server_host(request, params["server"]) is None:
        raise CallbackError("no/wrong server")
    if not params.get("status"):
        raise CallbackError("no status")
    payload = load_callback_payload(NotifyImgSchema(), params)
    server = _server_host(request, payload["server"])
    table = tables(request.app)["cache_image_results"]
    session = request.session
    if payload["status"] != "notified":
        keys = list(payload["data"])
        session.execute(delete(table).where(table.c.row_key.in_(keys)))
        return ok({"count": len(keys)})
    now = _utcnow()
    for row_key, row in payload["data"].items():
        values = {"attachment_id": row["id"], "file_id": row["file_id"], "server": server, "status": "notified",
                  "src_size": row["src_size"], "ori_reduced": row["ori_reduced"], "webp_reduced": row["webp_reduced"],
                  "avif_reduced": row["avif_reduced"], "updated": now,
                  "details": {name: row[name] for name in ("ori", "ori_md5", "webp", "webp_md5", "avif", "avif_md5")}}
        changed = session.execute(update(table).where(table.c.row_key == row_key).values(**values)).rowcount
        if not changed:
            session.execute(insert(table).values(row_key=row_key, **values))
    return ok({"count": len(payload["data"])})


def _server_host(request, server: str) -> str | None:
    """The service node's host name when it belongs to a configured image server domain, else None."""
    if len(server) > 255:
        return None
    host = (urlsplit(server if "//" in server else "//" + server).hostname or "").lower()
    allowed = runtime_of(request.app).config.image_servers
    if len(host) > MAX_HOSTNAME or not re.match(_HOSTNAME, host) or \
            (allowed and not any(host == domain or host.endswith("." + domain) for domain in allowed)):
        return None
    return host


class CheckImgSchema(Schema):
    data = fields.Integer(required=True, validate=validate.Range(min=1, max=2 ** 31 - 1),
                          metadata={"description": "Attachment id."})


@speaks_envelope
def check_img(request):
    """What the site knows about one attachment's optimisation, and the site-wide summary."""
    attachment_id = load_callback_payload(CheckImgSchema(), request.params)["data"]
    table = tables(request.app)["cache_image_results"]
    session = request.session
    rows = session.execute(select(table).where(table.c.attachment_id == attachment_id).order_by(table.c.id)).all()
    total = session.execute(select(func.count(), func.coalesce(func.sum(table.c.ori_reduced), 0))).one()
    return ok({"data": {
        "img_count": len(rows),
        "optm_summary": {"images": total[0], "bytes_saved": total[1]},
        "img_data": [{"id": row.row_key, "file_id": row.file_id, "optm_status": row.status, "src_size": row.src_size,
                      "server_info": row.server, "ori_reduced": row.ori_reduced, "webp_reduced": row.webp_reduced,
                      "avif_reduced": row.avif_reduced} for row in rows],
    }})


# --- cache/v1: page optimisation (critical CSS, unused CSS, viewport images) --------------------

def page_result_schema(kind: str) -> type[Schema]:
    """The payload of notify_ccss, notify_ucss or notify_vpi: results keyed by the kind."""
    item = Schema.from_dict({
        "request_url": fields.Url(required=True, require_tld=False),
        "queue_k": fields.String(required=True, validate=validate.Length(min=1, max=200)),
        f"data_{kind}": fields.String(required=True, validate=validate.Length(max=1_000_000)),
    }, name=f"{kind.title()}ResultSchema")
    return Schema.from_dict({
        "data": fields.List(fields.Nested(item(unknown=EXCLUDE)), required=True, validate=validate.Length(min=1, max=500),
                            metadata={"description": "One result per queue key."}),
    }, name=f"Notify{kind.title()}Schema")


def notify_page_result(kind: str):
    schema = page_result_schema(kind)

    @speaks_envelope
    def handler(request):
        """Store one result per queue key (the newest wins); the count of saved items comes back."""
        if not request.params.get("data") or not isinstance(request.params["data"], list):
            raise CallbackError("no notified data")
        payload = load_callback_payload(schema(), request.params)
        table = tables(request.app)["cache_page_results"]
        session = request.session
        now = _utcnow()
        for item in payload["data"]:
            values = {"request_url": item["request_url"], "payload": item[f"data_{kind}"], "updated": now}
            where = (table.c.kind == kind) & (table.c.queue_k == item["queue_k"])
            if not session.execute(update(table).where(where).values(**values)).rowcount:
                session.execute(insert(table).values(kind=kind, queue_k=item["queue_k"], **values))
        return ok({"count": len(payload["data"])})

    handler.__name__ = f"notify_{kind}"
    return handler


def _site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    base = request.base_url
    return base[: -len(prefix)] if prefix and base.endswith(prefix) else base


def _iso_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
