"""Helpers every calendar route shares: URLs, the paging wrapper, argument errors, dates of posts."""

from __future__ import annotations

import math
from urllib.parse import urlencode

from host import invalid_param
from host.lru import LruCache

from . import times
from .names import NAMESPACE, REWRITES
from .schemas import EVENTS_PER_PAGE_CAP

# The totals of the calendar's lists; their routes expose them to scripts of other origins.
TOTAL_HEADERS = ("X-CAL-Total", "X-CAL-TotalPages")
_QUERY_TEXTS = LruCache(512)  # (pairs, page) -> query text: a pure function's results, whatever the app


def site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    base = request.base_url
    return base[: -len(prefix)] if prefix and base.endswith(prefix) else base


def rest_url(request, path: str) -> str:
    return f"{request.base_url}/{NAMESPACE}/{path}"


def permalink(request, item: dict) -> str:
    """An event's, venue's or organizer's page: `/event/<slug>/` (and the like) once published, as
    core's `link` of a type registered with `rewrite`; the plain `/?post_type=<type>&p=<id>` before."""
    rewrite = REWRITES.get(item["type"], "")
    if rewrite and item.get("slug") and _public_status(request, item.get("status", "")):
        return f"{site_url(request)}/{rewrite}/{item['slug']}/"
    return f"{site_url(request)}/?post_type={item['type']}&p={item['id']}"


def _public_status(request, status: str) -> bool:
    registered = request.app.registry.statuses.get(status)
    return status == "publish" or bool(registered and registered[0].public)


def per_page(request) -> int:
    return min(int(request.params.get("per_page") or 10), EVENTS_PER_PAGE_CAP)


def page_links(request, path: str, query: dict, page: int, total_pages: int, has_next, has_previous,
               page_in_url: bool = False) -> dict:
    """rest_url, next_rest_url and previous_rest_url as §1.2 builds them (lists as CSV).

    `page_in_url`: the rest_url names its page even when it is the first (the real event, venue
    and organizer lists do), and the other two move `page` to the end, as WordPress's
    add_query_arg does after remove_query_arg; without it (the term lists) page 1 is left out.
    """
    pairs = {name: (",".join(str(v) for v in value) if isinstance(value, (list, tuple)) else value)
             for name, value in query.items() if value is not None and value != []}
    # As strings (what urlencode sends of them), so that the kept texts' keys never mix 1 and True.
    pairs = tuple((name, "true" if value is True else "false" if value is False else str(value))
                  for name, value in pairs.items())
    base = rest_url(request, path)

    def url(page_number: int | None, at_end: bool) -> str:
        named = page_number is not None and (page_number > 1 or page_in_url)
        return base + _query_text(pairs, str(page_number) if named else None, at_end and page_in_url)

    links = {"rest_url": url(page, False)}
    if page < total_pages and has_next():
        links["next_rest_url"] = url(page + 1, True)
    if page > 1 and has_previous():
        links["previous_rest_url"] = url(page - 1 if page > 2 else None, True)
    return links


def _query_text(pairs: tuple, page_number: str | None, at_end: bool) -> str:
    """`?` and the urlencoded pairs with `page` set (where it was, or last) or dropped, or "": kept,
    since list pages repeat their queries and urlencode costs a tenth of a cheap list's request."""
    key = (pairs, page_number, at_end)
    text = _QUERY_TEXTS.get(key)
    if text is None:
        found = dict(pairs)
        if at_end or page_number is None:
            found.pop("page", None)
        if page_number is not None:
            found["page"] = page_number
        text = "?" + urlencode(found) if found else ""
        _QUERY_TEXTS.put(key, text)
    return text


def status_in_url(request, value: str | None) -> str:
    """The `status` a list's rest_url names: the one asked for, else what the caller sees (any or publish)."""
    if value:
        return ",".join(part.strip() for part in value.split(",") if part.strip()) or "publish"
    return "any" if request.user.can("edit_others_posts") else "publish"


def total_pages(total: int, size: int) -> int:
    return math.ceil(total / size) if total else 0


def post_dates(request, item: dict) -> dict:
    """date, date_utc, modified, modified_utc as `YYYY-MM-DD HH:MM:SS`."""
    tz = request.app.timezone()
    date_utc = item["date_gmt"] or times.to_utc(item["date"], tz)
    return {"date": times.text(item["date"]), "date_utc": times.text(date_utc),
            "modified": times.text(item["modified"]), "modified_utc": times.text(item["modified_gmt"])}


def publication_date(request, params) -> object:
    """The naive UTC publication date sent as date_utc or date (site time), or None."""
    if params.get("date_utc"):
        try:
            return times.to_utc(times.parse_text(params["date_utc"], times.UTC), times.UTC)
        except ValueError:
            raise invalid_param({"date_utc": "Invalid date."}) from None
    if params.get("date"):
        tz = request.app.timezone()
        try:
            return times.to_utc(times.parse_text(params["date"], tz), tz)
        except ValueError:
            raise invalid_param({"date": "Invalid date."}) from None
    return None


def statuses_for(request, post_type: str, value: str | None, name: str = "status") -> list[str]:
    """The statuses a list may show: §1.2's rule (only publish for those who cannot edit the type)."""
    user = request.user
    can_edit = user.can("edit_others_posts")
    readable = [status for status in request.app.registry.status_names(post_type)
                if status not in ("trash", "auto-draft", "inherit") and not _internal(request, status)]
    if value is None or value == "":
        return readable if can_edit else ["publish"]
    wanted = [part.strip() for part in value.split(",") if part.strip()]
    if not wanted:
        return ["publish"]
    for status in wanted:
        if status == "any":
            continue
        if status not in request.app.registry.status_names(post_type):
            raise invalid_param({name: f"{status} is not one of {', '.join(readable)}, any."})
        if status != "publish" and not can_edit:
            raise invalid_param({name: "Only published items can be listed without the right to edit them."})
    if "any" in wanted:
        if not can_edit:
            raise invalid_param({name: "Only published items can be listed without the right to edit them."})
        return readable
    return list(dict.fromkeys(wanted))


def _internal(request, status: str) -> bool:
    registered = request.app.registry.statuses.get(status)
    return bool(registered and registered[0].internal)
