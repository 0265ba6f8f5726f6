"""Demo content: an "Open day" landing page built with the builder, and a reusable template.

The page is written through the content service like any builder document; the demo runs
inside the site's install transaction, so the service gets a small request stand-in holding
that transaction's session and the administrator who owns the demo.
"""

from __future__ import annotations

import datetime
import json

from sqlalchemy import insert

from host.auth import users as user_service

from .tables import DOCUMENTS, table

HERO = {"__globals__": {"background_color": "globals/colors?id=primary"},
        "padding": {"unit": "px", "top": 64, "right": 24, "bottom": 64, "left": 24}}


def _element(element_id: str, el_type: str, settings: dict, children=(), widget: str | None = None) -> dict:
    element = {"id": element_id, "elType": el_type, "settings": settings, "elements": list(children)}
    if widget:
        element["widgetType"] = widget
    return element


# Core's demo uploads this picture (its slug); the page shows it from the site's own uploads,
# since the site's CSP refuses images from other hosts.
DEMO_IMAGE_SLUG = "open-day-classroom"


def open_day_elements(image: dict | None = None) -> list[dict]:
    hero = _element("a1b2c3d", "section", HERO, [_element("a1b2c3e", "column", {"_column_size": 100}, [
        _element("a1b2c3f", "widget", {"title": "Open day: Saturday 14 March", "header_size": "h1",
                                       "title_color": "#FFFFFF", "align": "center"}, widget="heading"),
        _element("a1b2c40", "widget", {"editor": "<p>Meet our teachers, tour the science labs and the new library, "
                                                 "and hear from pupils about life at Riverside School. Families of "
                                                 "children joining Year 7 or the Sixth Form are very welcome.</p>",
                                       "text_color": "#FFFFFF", "align": "center"}, widget="text-editor"),
        _element("a1b2c41", "widget", {"text": "Book your visit", "link": {"url": "mailto:admissions@school.invalid"},
                                       "align": "center", "size": "lg",
                                       "__globals__": {"button_background_color": "globals/colors?id=secondary"},
                                       "button_text_color": "#1F1F1F"}, widget="button"),
    ])])
    details = _element("b1b2c3d", "section", {}, [
        _element("b1b2c3e", "column", {"_column_size": 50}, [
            *([_element("b1b2c3f", "widget", {"image": image, "caption": "A Year 8 science lesson"}, widget="image")]
              if image else []),
        ]),
        _element("b1b2c40", "column", {"_column_size": 50}, [
            _element("b1b2c41", "widget", {"title": "What to expect", "header_size": "h2"}, widget="heading"),
            _element("b1b2c42", "widget", {"icon_list": [
                {"text": "Doors open at 9:30, talks by the head at 10:00 and 12:00",
                 "selected_icon": {"value": "fas fa-clock"}},
                {"text": "Tours of every department, led by pupils", "selected_icon": {"value": "fas fa-users"}},
                {"text": "Admissions team on hand for questions", "selected_icon": {"value": "fas fa-graduation-cap"}},
                {"text": "Free parking on Mill Lane; bus 21 stops outside", "selected_icon": {"value": "fas fa-bus"}},
            ]}, widget="icon-list"),
            _element("b1b2c43", "widget", {"space": {"unit": "px", "size": 8}}, widget="spacer"),
            _element("b1b2c44", "widget", {"weight": {"unit": "px", "size": 2},
                                           "__globals__": {"color": "globals/colors?id=secondary"}},
                     widget="divider"),
            _element("b1b2c45", "widget", {"title": "Coming up at Riverside", "posts_per_page": 3},
                     widget="cal-events-list"),
        ]),
    ])
    return [hero, details]


def admissions_template() -> list[dict]:
    return [_element("c1b2c3d", "section", HERO, [_element("c1b2c3e", "column", {"_column_size": 100}, [
        _element("c1b2c3f", "widget", {"title": "Applying for a place", "header_size": "h2", "title_color": "#FFFFFF"},
                 widget="heading"),
        _element("c1b2c40", "widget", {"text": "Read the admissions policy", "link": {"url": "/?page_id=2"}},
                 widget="button"),
    ])])]


class _InstallRequest:
    """What the content service uses of a request, inside the install transaction (events fire later, on edits)."""

    def __init__(self, app, session, user):
        self.app, self.session, self.user = app, session, user

    def after_commit(self, callback) -> None:
        return None  # the demo's rows are indexed below, in the same transaction


def _administrator(app, session):
    for user in user_service.list_users(app, session):
        if "administrator" in user.roles:
            return user
    return None


def _demo_image(request) -> dict | None:
    """The image setting for core's demo picture (site-relative URL, id, alt); None when it is absent."""
    found = request.app.content.get_by_slug(request, "attachment", DEMO_IMAGE_SLUG)
    if found is None or not found.get("file"):
        return None
    return {"url": f"/uploads/{found['file']}", "id": found["id"], "alt": found.get("alt_text") or ""}


def write_demo_content(app, session) -> None:
    owner = _administrator(app, session)
    if owner is None:
        return
    request = _InstallRequest(app, session, owner)
    documents = table(app, DOCUMENTS)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    page = app.content.create(request, "page", title="Open day", status="publish", slug="open-day",
                              content="<p>Open day at Riverside School: Saturday 14 March, 9:30 to 13:00.</p>",
                              meta={"_builder_edit_mode": "builder", "_builder_template_type": "wp-page",
                                    "_builder_data": json.dumps(open_day_elements(_demo_image(request))),
                                    "_builder_page_settings": {"hide_title": "no"}})
    template = app.content.create(request, "builder_library", title="Admissions call to action", status="publish",
                                  meta={"_builder_edit_mode": "builder", "_builder_template_type": "section",
                                        "_builder_data": json.dumps(admissions_template())})
    for item, template_type in ((page, "wp-page"), (template, "section")):
        session.execute(insert(documents).values(post_id=item["id"], type=item["type"], template_type=template_type,
                                                 modified_gmt=now))
