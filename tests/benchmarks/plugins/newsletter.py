"""Newsletter benchmark: the public sign-up POST (>= 300 req/s at 2 workers, 16 connections, no errors).

Each request signs up one of 500 addresses per wrk thread (so addresses repeat: the run also
exercises a second sign-up of a pending address, answered `subscribed` with at most
`email_limit` confirmation mails per address), through the whole pipeline: form and lists,
honeypot and timestamp, the check_spam hook, email-validator, required fields, the address
limit (loopback is exempt by default), the subscriber upsert and the confirmation mail
written to the outbox in the same transaction.
"""

from __future__ import annotations

import time
import urllib.parse

from tests.benchmarks.plugins import Budget
from tests.benchmarks.scenarios import Context, Scenario, Unavailable, expect, fetch
from tests.benchmarks.wrk import lua_string

ADDRESSES_PER_THREAD = 500


def _prepare(context: Context) -> None:
    """A list and a form made over REST as the administrator; the form's id kept on the context."""
    admin = {"Authorization": context.admin_authorization}
    status, _headers, body = fetch(context.rest + "/newsletter/v1/lists", "POST", {"name": "Benchmark families"}, admin)
    expect(status, 201, body, "POST /newsletter/v1/lists")
    status, _headers, form = fetch(context.rest + "/newsletter/v1/forms", "POST", {
        "title": "Benchmark form", "lists": [body["id"]], "fields": [{"tag": "FNAME", "required": True}]}, admin)
    expect(status, 201, form, "POST /newsletter/v1/forms")
    context.newsletter_form = form["id"]


def _body_parts(context: Context) -> tuple[str, str]:
    fixed = urllib.parse.urlencode({"_newsletter_form_id": context.newsletter_form, "_newsletter_honeypot": "",
                                    "_newsletter_timestamp": int(time.time()) - 60, "FNAME": "Bench"})
    return fixed + "&EMAIL=bench-", "%40example.org"


def _check(context: Context) -> None:
    head, tail = _body_parts(context)
    body = (head + "check" + tail).encode()
    import urllib.request
    request = urllib.request.Request(context.rest + "/newsletter/v1/form", data=body, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = response.read()
            if response.status != 200 or answer.strip() != b"true":
                raise Unavailable(f"POST /newsletter/v1/form: HTTP {response.status} {answer[:80]!r}")
    except urllib.error.HTTPError as error:
        raise Unavailable(f"POST /newsletter/v1/form: HTTP {error.code} {error.read()[:120]!r}") from None


def _lua(context: Context) -> str:
    head, tail = _body_parts(context)
    return f"""
local form_path = {lua_string(context.rest_path + "/newsletter/v1/form")}
local form_headers = {{["Content-Type"] = "application/x-www-form-urlencoded"}}
local body_head = {lua_string(head)}
local body_tail = {lua_string(tail)}
request = function()
  counter = counter + 1
  return wrk.format("POST", form_path, form_headers,
                    body_head .. thread_id .. "-" .. (counter % {ADDRESSES_PER_THREAD}) .. body_tail)
end
response = function(status, headers, body)
  if status ~= 200 or body ~= "true" then
    bad_items = bad_items + 1
    wrk.thread:set("bad_items", bad_items)
  end
end
"""


SCENARIOS = [
    Scenario("newsletter-signup", "POST newsletter/v1/form (sign-up)", _lua, _check, writes=True, prepare=_prepare),
]

BUDGET = [
    Budget("newsletter-signup", 0.03,
           "a sign-up POST at 16 connections reaches 300 req/s at 2 workers with zero errors; "
           "the hello-world ceiling at 2 workers is about 10,000 req/s on the development machine, so 3%"),
]
