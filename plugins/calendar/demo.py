"""A school year of events for `sitehost init --demo`: term dates, fixtures, a trip, a parents' evening.

Dates are computed from the current school year (September to July), in the site's zone, so the
demo calendar always has something coming up. Written through the content service, like events
created over REST, so the same rows and links result.
"""

from __future__ import annotations

import datetime

from sqlalchemy import select

from host.auth import users as user_service
from host.content import service_request

from . import times
from .events import sync_status, write_links, write_row
from .names import CATEGORY, EVENT, ORGANIZER, TAG, VENUE

CATEGORIES = [("Term dates", "Term starts, ends and holidays"), ("Sport", "Fixtures and sports events"),
              ("Trips", "School trips and visits"), ("Parents", "Meetings and evenings for parents")]
TAGS = ["Year 7", "Year 9", "Year 11", "Football", "Netball", "Whole school"]
VENUES = [
    ("Riverside School main hall", {"address": "Mill Lane", "city": "Riverside", "zip": "RV1 2AB",
                                    "country": "United Kingdom", "phone": "01234 567890"}),
    ("Riverside playing fields", {"address": "Meadow Road", "city": "Riverside", "zip": "RV1 4CD",
                                  "country": "United Kingdom"}),
]
ORGANIZERS = [("Riverside School office", {"phone": "01234 567890", "email": "office@riverside.example",
                                           "website": "https://riverside.example"}),
              ("PE department", {"email": "pe@riverside.example"})]


def _school_year_start(today: datetime.date) -> datetime.date:
    year = today.year if today.month >= 8 else today.year - 1
    september = datetime.date(year, 9, 1)
    return september + datetime.timedelta(days=(7 - september.weekday()) % 7)  # the first Monday


def _administrator(app, session):
    users = app.auth_tables["users"]
    for row in session.execute(select(users.c.id, users.c.roles).order_by(users.c.id)):
        if "administrator" in row.roles.split(","):
            return user_service.get_user(app, session, row.id)
    return None


def write_demo_content(app, session) -> None:
    admin = _administrator(app, session)
    if admin is None:
        return
    request = service_request(app, session, admin)
    content = request.app.content
    zone_name = app.settings.site.get("timezone_string") or "UTC"
    category = {name: content.create_term(request, CATEGORY, name, description=text) for name, text in CATEGORIES}
    tag = {name: content.create_term(request, TAG, name) for name in TAGS}
    venue = {name: content.create(request, VENUE, title=name, status="publish", meta=meta)["id"]
             for name, meta in VENUES}
    organizer = {name: content.create(request, ORGANIZER, title=name, status="publish", meta=meta)["id"]
                 for name, meta in ORGANIZERS}
    start = _school_year_start(datetime.date.today())

    def event(title, first, last, *, hours=None, all_day=False, status="publish", categories=(), tags=(),
              venues=(), organizers=(), description="", cost="", featured=False):
        tz = times.zone(zone_name)
        if all_day:
            local_start = datetime.datetime.combine(first, datetime.time())
            local_end = datetime.datetime.combine(last, datetime.time(23, 59, 59))
        else:
            local_start = datetime.datetime.combine(first, hours[0])
            local_end = datetime.datetime.combine(last, hours[1])
        item = content.create(request, EVENT, title=title, content=description, status=status,
                              terms={CATEGORY: [category[name] for name in categories],
                                     TAG: [tag[name] for name in tags]})
        write_row(request, item, {"timezone": zone_name, "all_day": all_day,
                                  "start_utc": times.to_utc(local_start, tz), "end_utc": times.to_utc(local_end, tz),
                                  "cost": cost, "featured": featured}, created=True)
        write_links(request, item["id"], "venue", [venue[name] for name in venues])
        write_links(request, item["id"], "organizer", [organizer[name] for name in organizers])
        return item

    day = datetime.timedelta(days=1)
    year = start.year
    terms = [("Autumn term", start, datetime.date(year, 12, 19)),
             ("Spring term", datetime.date(year + 1, 1, 6), datetime.date(year + 1, 3, 27)),
             ("Summer term", datetime.date(year + 1, 4, 14), datetime.date(year + 1, 7, 22))]
    for name, first, last in terms:
        event(f"{name} starts", first, first, all_day=True, categories=["Term dates"], tags=["Whole school"],
              description=f"The {name.lower()} begins. Lessons start at 8:45.")
        event(f"{name} ends", last, last, all_day=True, categories=["Term dates"], tags=["Whole school"],
              description=f"The last day of the {name.lower()}: school closes at 1:30pm.")
    half_terms = [datetime.date(year, 10, 27), datetime.date(year + 1, 2, 16), datetime.date(year + 1, 5, 26)]
    for monday in half_terms:
        event("Half-term holiday", monday, monday + 4 * day, all_day=True, categories=["Term dates"],
              tags=["Whole school"], description="School is closed for half term.")
    wednesday = start + 2 * day
    opponents = ["Hillcrest Academy", "St Mary's", "Oakfield School", "Kingsbridge College", "Northgate High"]
    for week in range(12):
        when = wednesday + week * 7 * day
        sport, team = ("Football", "Year 9") if week % 2 == 0 else ("Netball", "Year 7")
        event(f"{sport}: {team} v {opponents[week % len(opponents)]}", when, when,
              hours=(datetime.time(15, 45), datetime.time(17, 0)), categories=["Sport"], tags=[sport, team],
              venues=["Riverside playing fields"], organizers=["PE department"],
              description="Home fixture. Parents and friends are welcome on the touchline.")
    trip = start + 5 * 7 * day + 2 * day
    event("Year 7 outdoor education trip", trip, trip + 2 * day, hours=(datetime.time(8, 30), datetime.time(16, 0)),
          categories=["Trips"], tags=["Year 7"], cost="95", featured=True, organizers=["Riverside School office"],
          description="Three days at the lakeside centre: canoeing, climbing and raft building. Coaches leave "
                      "from the main gate at 8:30.")
    evening = start + 8 * 7 * day + 3 * day
    event("Year 11 parents' evening", evening, evening, hours=(datetime.time(16, 30), datetime.time(19, 30)),
          categories=["Parents"], tags=["Year 11"], venues=["Riverside School main hall"],
          organizers=["Riverside School office"], cost="0", featured=True,
          description="Meet your child's subject teachers. Book appointments through the school office.")
    cancelled = event("Autumn disco (cancelled)", start + 7 * 7 * day + 4 * day, start + 7 * 7 * day + 4 * day,
                      hours=(datetime.time(18, 0), datetime.time(20, 0)), venues=["Riverside School main hall"],
                      description="Cancelled: the hall is being refloored.")
    content.trash(request, cancelled["id"])
    sync_status(app, session, cancelled["id"], "trash", 0)
    event("Spring concert", datetime.date(year + 1, 3, 19), datetime.date(year + 1, 3, 19),
          hours=(datetime.time(19, 0), datetime.time(21, 0)), status="draft", venues=["Riverside School main hall"],
          description="Orchestra and choir. Programme to follow.")
