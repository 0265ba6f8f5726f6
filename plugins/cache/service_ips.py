"""Who may call the service callbacks: the optimisation service's published addresses, kept in the DB.

As the real plugin does, the list is downloaded when the stored copy is missing or older than
REFRESH_DAYS, and once more when a caller is not on it, at most once every RETRY_SECONDS (the
attempt is recorded before the download, so concurrent refused callers cannot make the site
fetch the list again and again). A download that fails keeps the stored copy.
"""

from __future__ import annotations

import logging
import time

from host import RestError
from host import client_address

from .outbound import ListRefused, fetch_service_ips, normalized_address
from .state import get_state, set_state

log = logging.getLogger("sitehost.cache.service_ips")

STATE_KEY = "service_ips"
REFRESH_DAYS = 3
RETRY_SECONDS = 600


def stored(app) -> dict:
    """{ips, fetched, attempted, error}: the stored list and when it was fetched and last tried."""
    with app.db.read_session() as session:
        record = get_state(session, app, STATE_KEY, None)
    return record if isinstance(record, dict) else {"ips": [], "fetched": 0, "attempted": 0, "error": None}


def is_listed(app, config, address: str) -> bool:
    """Whether `address` (the caller, as the host sees it) is one of the service's addresses."""
    caller = normalized_address(address)
    if caller is None:
        return False
    record = stored(app)
    now = time.time()
    if not record["ips"] or now - record["fetched"] > REFRESH_DAYS * 86400:
        record = refresh(app, config, record, now)
    if caller in record["ips"]:
        return True
    record = refresh(app, config, record, now)
    return caller in record["ips"]


def refresh(app, config, record: dict, now: float) -> dict:
    """Download the list again unless that was tried within RETRY_SECONDS; the record now stored."""
    if now - record.get("attempted", 0) < RETRY_SECONDS:
        return record
    _save(app, {**record, "attempted": now})
    try:
        ips = fetch_service_ips(config)
    except (RestError, ListRefused) as error:
        reason = error.message if isinstance(error, RestError) else str(error)
        log.warning("the optimisation service's address list could not be loaded from %s: %s",
                    config.service_ips_url, reason)
        updated = {**record, "attempted": now, "error": reason}
    else:
        updated = {"ips": ips, "fetched": now, "attempted": now, "error": None}
    _save(app, updated)
    return updated


def _save(app, record: dict) -> None:
    with app.db.session(write=True) as session, session.begin():
        set_state(session, app, STATE_KEY, record)


def caller_address(request) -> str:
    """The caller's address by the host's rule (X-Forwarded-For only from `trusted_proxies`)."""
    return client_address(request.app, request.environ)
