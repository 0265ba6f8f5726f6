"""Builder benchmarks: the HTML view of a 100-widget builder page, and builder/v1/globals.

`prepare` builds the page over REST as the administrator (through core/v2/pages with the
builder's meta), the way the editor saves one. Both run on the server without the response
cache plugin; the page's rendered HTML is kept by core's render cache like any page's.
"""

from __future__ import annotations

import json
import urllib.request

from tests.benchmarks.plugins import Budget
from tests.benchmarks.scenarios import Context, Scenario, Unavailable, expect, fetch
from tests.benchmarks.wrk import lua_string

WIDGETS = 100
KINDS = ("heading", "text-editor", "button", "icon-list", "image")


def page_elements() -> list[dict]:
    """Ten sections of ten widgets: headings, text, buttons, icon lists and images."""
    sections = []
    for number in range(WIDGETS // 10):
        widgets = []
        for index in range(10):
            kind = KINDS[index % len(KINDS)]
            settings = {"heading": {"title": f"Section {number} heading {index}", "header_size": "h2"},
                        "text-editor": {"editor": "<p>Open mornings run every Tuesday in term time. "
                                                  "<strong>Book</strong> a place with the office.</p>"},
                        "button": {"text": "Book a visit", "link": {"url": "/?page_id=2"}},
                        "icon-list": {"icon_list": [{"text": "Small classes"}, {"text": "Forest school"}]},
                        "image": {"image": {"url": "/uploads/hall.jpg", "alt": "The hall"}}}[kind]
            widgets.append({"id": f"w{number}x{index}", "elType": "widget", "widgetType": kind, "settings": settings})
        sections.append({"id": f"s{number}", "elType": "section", "settings": {}, "elements": [
            {"id": f"c{number}", "elType": "column", "settings": {"_column_size": 100}, "elements": widgets}]})
    return sections


def _prepare(context: Context) -> None:
    status, _headers, body = fetch(context.rest + "/core/v2/pages", "POST", {
        "title": "Benchmark landing page", "status": "publish",
        "meta": {"_builder_edit_mode": "builder", "_builder_data": json.dumps(page_elements())}},
        headers={"Authorization": context.admin_authorization})
    expect(status, 201, body, "create the builder page")
    context.builder_page_id = body["id"]


def _site(context: Context) -> str:
    return context.rest[: -len(context.rest_path)] if context.rest_path != "/" else context.rest


def _lua_view(context: Context) -> str:
    return f'wrk.method = "GET"\nwrk.path = {lua_string("/?page_id=" + str(context.builder_page_id))}\n'


def _check_view(context: Context) -> None:
    with urllib.request.urlopen(f"{_site(context)}/?page_id={context.builder_page_id}", timeout=60) as response:
        html = response.read().decode()
    if response.status != 200 or html.count("builder-widget ") != WIDGETS:
        raise Unavailable(f"the builder page's HTML view: HTTP {response.status}, "
                          f"{html.count('builder-widget ')} widgets rendered")


def _lua_globals(context: Context) -> str:
    return (f'wrk.method = "GET"\nwrk.path = {lua_string(context.rest_path + "/builder/v1/globals")}\n'
            f'wrk.headers["Authorization"] = {lua_string(context.authorization)}\n')


def _check_globals(context: Context) -> None:
    status, _headers, body = fetch(context.rest + "/builder/v1/globals",
                                   headers={"Authorization": context.authorization})
    expect(status, 200, body, "builder/v1/globals")
    if not isinstance(body, dict) or "primary" not in body.get("colors", {}):
        raise Unavailable("builder/v1/globals: no colours in the answer")


SCENARIOS = [
    Scenario("builder-view", f"HTML view of a {WIDGETS}-widget builder page", _lua_view, _check_view,
             prepare=_prepare),
    Scenario("builder-globals", "GET builder/v1/globals (author)", _lua_globals, _check_globals),
]

BUDGET = [
    Budget("builder-view", 0.10, "the HTML view of a 100-widget builder page, uncached"),
    Budget("builder-globals", 0.25, "builder/v1/globals"),
]
