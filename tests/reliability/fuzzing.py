"""schemathesis against a real `sitehost serve`, driven by the server's own /openapi.json.

Every operation gets SITEHOST_FUZZ_EXAMPLES generated requests (default 10, so CI stays
fast), anonymously and as an administrator. Pass: no 5xx (501/502/503 with a specific
error code, deliberate refusals, excepted), status codes and JSON bodies as documented, no request that
hangs (each has a timeout), and no request the document allows that the server refuses as bad input
(400/422), except the DOCUMENTED_REFUSALS below (also listed in docs/openapi.md).
Deeper run: `SITEHOST_FUZZ_EXAMPLES=500 pytest tests/reliability/test_fuzz_*.py`.

Fuzzing every operation twice was the longest file after the permission matrix, and
`--dist loadfile` runs a file on one worker, so it runs in files test_fuzz_ROLE_N.py (each its
own server): for each caller, FUZZ_SHARES shares of the operations, by a stable hash of the
operation's path, so new routes join a share by themselves. test_fuzz.py checks the files are
there and that the shares split every operation of the document exactly once.
"""

from __future__ import annotations

import os
import zlib
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.specs.openapi.checks import (content_type_conformance, positive_data_acceptance,
                                               response_schema_conformance, status_code_conformance)

from .servers import Server, prepare_site, postgres_available, session_for, throwaway_database

EXAMPLES = int(os.environ.get("SITEHOST_FUZZ_EXAMPLES", "10"))
REQUEST_TIMEOUT = 30  # seconds; a request that takes longer counts as a hang
DELIBERATE = (501, 502, 503)  # documented refusals: not supported here, an outside service failed, unavailable
FUZZ_SHARES = 2  # per caller; files test_fuzz_anonymous_0.py, ..._1.py, test_fuzz_administrator_0.py, ...
FUZZ_CALLERS = ("anonymous", "administrator")
FUZZ_FILE = "test_fuzz_{caller}_{share}.py"


def no_server_error(ctx, response, case):
    """5xx means the server failed, unless it is a documented deliberate refusal with its own error code."""
    deliberate = response.status_code in DELIBERATE and _error_code(response) not in (None, "internal_server_error")
    if response.status_code >= 500 and not deliberate:
        raise AssertionError(f"{case.method} {case.formatted_path} answered {response.status_code}: "
                             f"{response.text[:500]}")
    return None


# Requests the document allows and the server refuses on purpose: rules JSON Schema cannot state
# (stored data, one arg against another, what is installed or configured), kept from WordPress and
# the real plugins. Key: an error code, or `code:param` for one arg of a rest_invalid_param answer
# (`rest_invalid_param:param` where the answer gives no code for it). docs/openapi.md lists the same.
DOCUMENTED_REFUSALS = {
    # stored data
    "rest_invalid_author": "author must be the id of an existing user (WordPress)",
    "rest_post_invalid_id": "a post id (post, parent, featured_media ...) must name an existing item (WordPress)",
    "rest_post_invalid_page_number": "a page past the collection's last page (WordPress)",
    "rest_already_trashed": "410: a DELETE without force of an item already in the trash (WordPress)",
    "rest_user_invalid_reassign": "reassign must name an existing user other than the one deleted (WordPress)",
    "rest_invalid_param:reassign": "reassign: true is not a user to reassign to (WordPress takes false or an id)",
    "rest_user_invalid_role": "roles must be registered roles (WordPress declares no enum)",
    "rest_user_invalid_argument": "a user's username cannot change (WordPress)",
    "rest_invalid_param:template": "template must be one registered for the post type (WordPress)",
    "rest_invalid_meta": "a meta value is checked by the plugin that registered the key (JSON in a string ...)",
    "rest_invalid_param:slug": "events/by-slug/{slug}: no event has that slug (the calendar answers 400, as the real one)",
    "rest_invalid_param:import_id": "no pending import has this id (the calendar's import batches)",
    "rest_invalid_param:status": "a calendar status must be a registered one (the real plugin declares no enum)",
    "rest-invalid-event-id": "cal/events/v1/events/{id}: the id is not an event's (400, as the real calendar)",
    "rest_term_invalid": "a term's parent must be an existing term (WordPress)",
    "rest-invalid-venue-id": "cal/events/v1/venues/{id}: the id is not a venue's (400, as the real calendar)",
    "rest-invalid-organizer-id": "cal/events/v1/organizers/{id}: the id is not an organizer's (400, as the real calendar)",
    "rest_invalid_param:image": "a venue's or organizer's image must be an image of the media library",
    "rest_invalid_page_number": "abilities: a page past the list's last page",
    "rest_invalid_param:name": "backups/{name}: no backup archive has that name",
    "rest_invalid_param:type": "builder element defaults: type must be a registered element type",
    "rest_invalid_param:post_type": "builder add-new-post: a post type the builder edits",
    "rest_invalid_param:topic_id": "lms: topic_id is declared without a type, as the real plugin, and must be a number",
    "lms_invalid_catalogue": "lms catalogue import: each course needs a title (checked by the importer)",
    "wordpress_import_refused": "abilities wordpress/import: `wxr` must be a WordPress export the safe reader "
                                "accepts (well-formed XML, no DTD), which no JSON-Schema describes",
    "invalid_title": "builder globals: a new global needs a title (an update does not)",
    "invalid_items": "builder global classes: each item needs an id, a label and a type the builder knows",
    "invalid_order": "builder global classes: `order` lists exactly the ids of `items`",
    "rest_invalid_param:value": "builder globals: a colour's value must be a CSS colour (#hex, rgb(), rgba(), hsl(), "
                                "hsla() or a name), a grammar its description gives and no JSON-Schema format does",
    "rest_invalid_param:geoloc_lat": "geoloc_lat and geoloc_lng go together",
    "rest_invalid_param:geoloc_lng": "geoloc_lat and geoloc_lng go together",
    "unknown-field": "the cache plugin's callbacks (LiteSpeed's) refuse body fields they do not know",
    **{f"rest_invalid_param:{name}": "the calendar's date filters take what PHP's strtotime reads (`2025-03-30 9am`, "
                                     "`next monday`), which no JSON-Schema format describes"
       for name in ("start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after", "date",
                    "date_utc")},
    "rest_forbidden_status": "a status the caller may not list or set (WordPress)",
    "rest_value_out_of_range": "an id past 2**31 - 1 on PostgreSQL, whose id columns are 32-bit (SQLite's and "
                               "the document's bound is 2**63 - 1, as WordPress's unsigned BIGINT ids)",
    # one arg against another, or the value once sanitized
    "rest_no_search_term_defined": "orderby=relevance needs search (WordPress)",
    "rest_invalid_field": "a post cannot be sticky and have a password (WordPress)",
    "empty_content": "a post needs content, a title or an excerpt (WordPress)",
    "empty_term_name": "a term name is empty once sanitized (WordPress)",
    "rest_user_invalid_username": "a username with characters WordPress's sanitize_user removes",
    # what is installed or configured on the site
    "rest_invalid_param:ticketed": "the ticketed filter needs the ticketing extension (not installed)",
    "rest_invalid_param:geoloc": "geolocation filters need the calendar's geolocation extension (not installed)",
    "lms_webhook_no_method": "ecommerce-webhook needs a payment method in the path",
    "lms_webhook_not_configured": "the payment method is not configured on this site",
    # how the body or query is sent
    "rest_upload_no_data": "media upload: the file is the raw body, with a Content-Disposition header (WordPress)",
    "rest_upload_no_content_disposition": "media upload: the file is the raw body, with a Content-Disposition header",
    "rest_too_many_items:tags": "a query array is split on commas: an item holding commas counts as several",
    "rest_not_in_enum:subtype": "search subtypes are the registered post types or taxonomies of the chosen `type`",
    **{f"{code}:{name}": "a taxonomy filter's object form goes in a query string as PHP brackets "
                         "(tags[terms][]=1), which OpenAPI's parameter styles cannot describe beside the list form"
       for code in ("rest_no_matching_schema", "rest_one_of_multiple_matches")
       for name in ("categories", "categories_exclude", "tags", "tags_exclude")},
}


def document_allows_only_what_server_accepts(ctx, response, case):
    """schemathesis's positive_data_acceptance, less the DOCUMENTED_REFUSALS."""
    if response.status_code in (400, 410, 422) and _refusal_reasons(response) <= DOCUMENTED_REFUSALS.keys():
        return None
    return positive_data_acceptance(ctx, response, case)


def _refusal_reasons(response) -> set[str]:
    """Why the server refused: its error code, or per arg of rest_invalid_param `code:param` (both forms)."""
    try:
        body = response.json()
    except ValueError:
        return {"not JSON"}
    code = body.get("code") if isinstance(body, dict) else None
    data = (body.get("data") if isinstance(body, dict) else None) or {}
    if code != "rest_invalid_param" or not isinstance(data.get("params"), dict):
        return {str(code)}
    details = data.get("details") or {}
    reasons = set()
    for name, message in data["params"].items():
        if message == "Unknown field.":  # marshmallow's refusal of a field a payload schema does not know
            reasons.add("unknown-field")
            continue
        detail = (details.get(name) or {}).get("code") or "rest_invalid_param"
        reasons.add(f"{detail}:{name}" if f"{detail}:{name}" in DOCUMENTED_REFUSALS else
                    detail if detail != "rest_invalid_param" else f"rest_invalid_param:{name}")
    return reasons


def _error_code(response):
    try:
        return response.json().get("code")
    except ValueError:
        return None


CHECKS = [no_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          document_allows_only_what_server_accepts]


def _database_kind() -> str:
    return "postgresql" if os.environ.get("SITEHOST_TEST_DATABASE_URL", "").startswith("postgresql") else "sqlite"


def share_of_operation(path: str) -> int:
    """The share an operation of /openapi.json runs in, by its path: stable across runs and processes."""
    return zlib.crc32(path.encode()) % FUZZ_SHARES


def caller_and_share_of_file(test_file: str) -> tuple[str, int]:
    """`.../test_fuzz_administrator_1.py` -> ("administrator", 1)."""
    _test, _fuzz, caller, share = Path(test_file).stem.split("_")
    return caller, int(share)


@contextmanager
def fuzz_server(tmp_path_factory):
    """A real `sitehost serve` with every plugin, the example and the probe, on a fresh database."""
    folder = tmp_path_factory.mktemp("fuzz")
    if _database_kind() == "postgresql" and postgres_available():
        pytest.fail(postgres_available())
    with throwaway_database(_database_kind(), folder) as url:
        users = prepare_site(url, folder)
        server = Server(folder / "server", url, threads=4).start()
        server.users = users
        try:
            yield server
        finally:
            server.stop()
        log = server.log()
        assert "unexpected error in" not in log, log[-5000:]  # a handler crashed, whatever it answered


def fuzz_every_operation(server, user=None, share: int | None = None) -> tuple[int, int]:
    """Run schemathesis over every operation (of `share`) of the served document; returns (operations, examples)."""
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    session = session_for(user)
    operations = examples = 0
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if share is not None and share_of_operation(operation.path) != share:
            continue
        calls = []

        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate, Phase.shrink],
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def check_operation(case):
            try:
                response = case.call(session=session, timeout=REQUEST_TIMEOUT)
            except requests.Timeout:
                raise AssertionError(f"{case.method} {case.formatted_path} hung for {REQUEST_TIMEOUT}s") from None
            calls.append(response.status_code)  # noqa: B023 (run at once, inside this iteration)
            case.validate_response(response, checks=CHECKS)

        try:
            check_operation()
        except (AssertionError, BaseExceptionGroup) as failure:  # schemathesis's FailureGroup; report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {str(failure)[:2000]}")
        operations += 1
        examples += len(calls)
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
    return operations, examples


def fuzz_share(tmp_path_factory, test_file: str) -> tuple[int, int]:
    """The body of each test_fuzz_CALLER_N.py: its share of the operations, as its caller, on a server of its own."""
    caller, share = caller_and_share_of_file(test_file)
    with fuzz_server(tmp_path_factory) as server:
        user = server.users["administrator"] if caller == "administrator" else None
        operations, examples = fuzz_every_operation(server, user, share)
    assert operations >= 20 // FUZZ_SHARES and examples >= operations
    print(f"fuzz {caller} share {share}: {operations} operations, {examples} requests")
    return operations, examples
