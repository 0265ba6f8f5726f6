"""Demo content for `sitehost init --demo`: a believable school site.

News posts in categories with tags, a sticky welcome post, drafts and a pending post,
pages with parents, and a password-protected page for parents. The first administrator
(created by the auth plugin in `site_installed`) writes most of it; a teacher account
with the author role writes the rest.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from sqlalchemy import insert, select

from host.auth import users as user_service

from . import dates, store
from .media import image_size, store_file
from .tables import tables

CATEGORIES = [("News", "School news and announcements", None), ("Events", "What is coming up", None),
              ("Sport", "Fixtures and results", "Events"), ("Music", "Concerts and rehearsals", "Events")]
TAGS = ["Year 7", "Parents", "Trips", "Awards", "Library"]
POSTS = [
    ("Welcome back for the autumn term", "We are delighted to welcome every pupil back to Riverside School.\n\n"
     "The first week is a short one: lessons start on Wednesday at 8:45. Please check your child's timetable "
     "on the parents' page.", ["News"], ["Parents"], "publish", True, 1),
    ("Year 7 outdoor education trip", "Our new Year 7 pupils spent three days at the lakeside centre, canoeing, "
     "climbing and building rafts that (mostly) floated.", ["News", "Events"], ["Year 7", "Trips"], "publish", False, 3),
    ("Football team reaches county final", "The under-14 football team beat Hillcrest 3-1 on Saturday and will "
     "play in the county final next month. Supporters are welcome.", ["Sport"], ["Awards"], "publish", False, 6),
    ("Winter concert rehearsals", "The orchestra and choir rehearse every Tuesday after school in the music "
     "block. The winter concert takes place in the main hall in December.", ["Music"], [], "publish", False, 9),
    ("Library opening hours extended", "From next week the library stays open until 5pm on weekdays for "
     "homework and quiet reading.", ["News"], ["Library"], "publish", False, 12),
    ("Science fair: call for projects", "Pupils in every year group can enter the science fair. Entry forms are "
     "due by the end of the month.", ["Events"], ["Awards"], "publish", False, 15),
    ("Sports day timetable (draft)", "Track events start at 10am; field events run alongside.", ["Sport"], [],
     "draft", False, 0),
    ("Parents' evening booking notes", "Notes for the office team on the new booking system.", ["News"],
     ["Parents"], "draft", False, 0),
    ("Chess club results", "The chess club won four of its five matches this term.", ["News"], ["Awards"],
     "pending", False, 0),
]
PAGES = [
    ("About us", "Riverside School is a mixed secondary school of 900 pupils on the edge of the river meadows.",
     None, "", 1),
    ("Our staff", "Meet the teachers and support staff who make Riverside work.", "About us", "", 1),
    ("History of the school", "The school opened in 1962 in the old mill buildings.", "About us", "", 2),
    ("Admissions", "How to apply for a place, open mornings and the admissions policy.", None, "", 2),
    ("Parents' area", "Timetables, letters home and the lunch menu for this term.", None, "riverside", 3),
    ("Contact", "Riverside School, Mill Lane. Telephone the office between 8am and 4pm.", None, "", 4),
]

# Shipped with the plugin and uploaded as a media item, so demo pages show a picture from the site
# itself: the site's CSP (img-src 'self') refuses images hotlinked from another host.
DEMO_IMAGE = Path(__file__).parent / "assets" / "open-day-classroom.png"
DEMO_IMAGE_SLUG = "open-day-classroom"
DEMO_IMAGE_ALT = "Pupils working together in a bright classroom"


def _first_administrator(app, session):
    users = app.auth_tables["users"]
    for row in session.execute(select(users.c.id, users.c.roles).order_by(users.c.id)):
        if "administrator" in row.roles.split(","):
            return row.id
    return None


def _teacher(app, session) -> int:
    users = app.auth_tables["users"]
    for row in session.execute(select(users.c.id, users.c.roles).order_by(users.c.id)):
        if "author" in row.roles.split(","):
            return row.id
    return user_service.create_user(app, session, "teacher", "teacher@school.invalid", "author",
                                    display_name="Ms Okafor").id


def write_demo_content(app, session) -> None:
    t = tables(app)
    admin = _first_administrator(app, session) or _teacher(app, session)
    teacher = _teacher(app, session)
    site = app.site_address(session)
    tz = app.timezone()
    now = dates.utcnow()
    term_ids: dict[str, int] = {}
    for name, description, parent in CATEGORIES:
        term_ids[name] = session.execute(insert(t["terms"]).values(
            taxonomy="category", name=name, slug=store.sanitize_slug(name), description=description,
            parent=term_ids.get(parent, 0) if parent else 0)).inserted_primary_key[0]
    tag_ids = {name: session.execute(insert(t["terms"]).values(
        taxonomy="post_tag", name=name, slug=store.sanitize_slug(name), description="", parent=0)).inserted_primary_key[0]
        for name in TAGS}
    for index, (title, content, categories, tags, status, sticky, days_ago) in enumerate(POSTS):
        when = now - datetime.timedelta(days=days_ago, hours=index)
        floating = status in ("draft", "pending")
        post_id = store.insert_item(app, session, {
            "type": "post", "status": status, "slug": "", "title": title, "content": content, "excerpt": "",
            "author": teacher if index % 3 == 1 else admin, "sticky": sticky, "comment_status": "open",
            "ping_status": "open", "date": dates.utc_to_local(when, tz), "date_gmt": None if floating else when,
            "modified": dates.utc_to_local(when, tz), "modified_gmt": when,
        })
        slug = "" if floating else store.unique_slug(app, session, store.sanitize_slug(title), "post", post_id)
        store.update_item(app, session, post_id, {"slug": slug, "guid": f"{site}/?p={post_id}"})
        store.set_terms(app, session, post_id, "category", [term_ids[name] for name in categories])
        store.set_terms(app, session, post_id, "post_tag", [tag_ids[name] for name in tags])
    page_ids: dict[str, int] = {}
    for title, content, parent, password, order in PAGES:
        when = now - datetime.timedelta(days=30)
        parent_id = page_ids.get(parent, 0) if parent else 0
        page_id = store.insert_item(app, session, {
            "type": "page", "status": "publish", "slug": "", "title": title, "content": content, "excerpt": "",
            "author": admin, "parent": parent_id, "menu_order": order, "password": password,
            "comment_status": "closed", "ping_status": "closed", "date": dates.utc_to_local(when, tz),
            "date_gmt": when, "modified": dates.utc_to_local(when, tz), "modified_gmt": when,
        })
        slug = store.unique_slug(app, session, store.sanitize_slug(title), "page", page_id, parent_id)
        store.update_item(app, session, page_id, {"slug": slug, "guid": f"{site}/?page_id={page_id}"})
        page_ids[title] = page_id
    write_demo_image(app, session, admin, now)


def write_demo_image(app, session, author: int, now: datetime.datetime) -> int:
    """The demo's picture as an attachment in uploads/ (other plugins' demos find it by its slug)."""
    data = DEMO_IMAGE.read_bytes()
    local_now = dates.utc_to_local(now, app.timezone())
    relative = store_file(app, DEMO_IMAGE.name, data, local_now, "image/png")
    width, height = image_size(data, "image/png") or (0, 0)
    site = app.site_address(session)
    return store.insert_item(app, session, {
        "type": "attachment", "status": "inherit", "slug": DEMO_IMAGE_SLUG, "title": "Year 8 science lesson",
        "content": "", "excerpt": "A Year 8 science lesson", "author": author, "comment_status": "open",
        "ping_status": "closed", "date": local_now, "date_gmt": now, "modified": local_now, "modified_gmt": now,
        "mime_type": "image/png", "file": relative, "alt_text": DEMO_IMAGE_ALT, "guid": f"{site}/uploads/{relative}",
        "media_details": {"width": width, "height": height, "file": relative, "filesize": len(data), "sizes": {},
                          "image_meta": {}},
    })
