"""block-editor/v1/url-details: a link preview (title, icon, description, image) for editors.

As WordPress's `wp-block-editor/v1/url-details`: editors only (`edit_posts`), the page is
fetched through the host's guarded fetch (no private addresses unless allowed, time and size
limits), and the result is kept in the database for `cache_ttl_seconds`. Failures answer
WordPress's codes: `rest_invalid_url` for a URL that cannot be fetched at all, `no_response`
when the page does not answer 200 in time and size, `no_content` when it is not HTML; the
host's precise reason is in `data.details`.
"""

from __future__ import annotations

import datetime
import hashlib
import json

from marshmallow import Schema, fields, validate
from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from host import RestError, Route
from host.outbound import Limits, fetch

from .page import MAX_URL, details_of
from .settings import config_of

NAMESPACE = "block-editor/v1"
HTML_TYPES = ("text/html", "application/xhtml+xml")


class UrlDetailsArgs(Schema):
    url = fields.String(required=True, validate=validate.Length(min=1, max=MAX_URL),
                        metadata={"description": "The URL to process.", "format": "uri"})


class UrlDetailsSchema(Schema):
    title = fields.String(metadata={"description": "The contents of the <title> element from the URL.",
                                    "context": ["view", "edit", "embed"], "readonly": True})
    icon = fields.String(metadata={"description": "The favicon image link of the <link rel=\"icon\"> element.",
                                   "format": "uri", "context": ["view", "edit", "embed"], "readonly": True})
    description = fields.String(metadata={"description": "The content of the <meta name=\"description\"> element.",
                                          "context": ["view", "edit", "embed"], "readonly": True})
    image = fields.String(metadata={"description": "The Open Graph image link of the <meta property=\"og:image\">.",
                                    "format": "uri", "context": ["view", "edit", "embed"], "readonly": True})


# Route keywords of url-details: editors only, refused in the real route's words.
VIEW_URL_DETAILS = {"capability": "edit_posts",
                    "refusal": ("rest_cannot_view_url_details", "Sorry, you are not allowed to process remote URLs.")}


def url_details(request):
    url = request.params["url"].strip()
    config = config_of(request.app)
    table = request.app.db.metadata.tables["block_editor_url_details"]
    key = hashlib.sha256(url.encode("utf-8")).hexdigest()
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    row = request.session.execute(select(table.c.details, table.c.fetched_at).where(table.c.url_hash == key)).first()
    if row is not None and config.cache_ttl_seconds and (now - row.fetched_at).total_seconds() < config.cache_ttl_seconds:
        return json.loads(row.details)
    # End the read transaction before the fetch: on SQLite a snapshot taken before another process
    # wrote cannot become a write afterwards (the fetched page may be this site, which writes meanwhile).
    request.session.commit()
    details = _fetch_details(url, config)
    if config.cache_ttl_seconds:
        request.session.execute(delete(table).where(table.c.url_hash == key))
        try:
            with request.session.begin_nested():
                request.session.execute(insert(table).values(url_hash=key, url=url, details=json.dumps(details),
                                                             fetched_at=now))
        except IntegrityError:  # another request stored the same URL a moment ago: theirs is as good
            pass
    return details


def _fetch_details(url: str, config) -> dict[str, str]:
    limits = Limits(timeout_seconds=config.fetch_timeout_seconds, max_response_bytes=config.max_response_bytes,
                    allow_private_targets=config.allow_private_targets, user_agent="sitehost url-details")
    try:
        page = fetch(url, limits, "text/html,application/xhtml+xml", code_prefix="url_details")
    except RestError as error:
        code = "rest_invalid_url" if error.code in ("url_details_unsupported_url", "url_details_private_target") \
            else "no_response"
        message = "Invalid URL" if code == "rest_invalid_url" else \
            "URL not found. Response returned a non-200 status code for this URL."
        raise RestError(code, message, 404, {"details": error.code, "reason": error.message}) from None
    content_type = page.content_type.split(";", 1)[0].strip().lower()
    if content_type and content_type not in HTML_TYPES:
        raise RestError("no_content", "Unable to retrieve body from response at this URL.", 404,
                        {"details": "not_html", "content_type": content_type})
    charset = _charset(page.content_type)
    return details_of(page.body.decode(charset, errors="replace"), page.url)


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        name, _eq, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            candidate = value.strip("\"' ").lower()
            try:
                "".encode(candidate)
                return candidate
            except LookupError:
                break
    return "utf-8"


def routes() -> list[Route]:
    return [Route(NAMESPACE, "/url-details", "GET", url_details, args=UrlDetailsArgs,
                  **VIEW_URL_DETAILS, schema=UrlDetailsSchema, title="url-details")]
