"""lms/v1 benchmarks: the course list at 1,000 courses and the contents of a 100-lesson course.

`prepare` loads the catalogue over REST (POST lms/v1/catalogue, in chunks, as the administrator):
1,000 published courses, each with a category, two tags, a price and three ratings by pupils,
and one course of 10 topics with 10 lessons each. wrk then calls with an API key, as the outside
apps do (Basic key:secret).
"""

from __future__ import annotations

import base64

from tests.benchmarks.plugins import Budget
from tests.benchmarks.scenarios import Context, Scenario, Unavailable, expect, fetch
from tests.benchmarks.wrk import lua_string

COURSES = 1000
CHUNK = 100
PUPILS = 5
CATEGORIES = ["After-school clubs", "Exam revision", "Adult education", "Sport", "Music"]
TAGS = [f"Year {year}" for year in range(7, 14)] + ["GCSE", "A-level", "Evening class"]
CONTENTS_SLUG = "benchmark-physics-revision"
_PREPARED: dict[str, dict] = {}  # REST root -> {"authorization", "contents_id"}: one server per root


def _course(index: int) -> dict:
    return {"slug": f"benchmark-course-{index:04d}", "title": f"Course {index:04d}: {CATEGORIES[index % 5]} session",
            "content": "<p>Weekly sessions in the main building, with materials provided.</p>" * 3,
            "excerpt": "A weekly session for pupils and families.", "categories": [CATEGORIES[index % 5]],
            "tags": [TAGS[index % len(TAGS)], TAGS[(index * 7 + 3) % len(TAGS)]],
            "price_type": "paid" if index % 3 else "free", "price": (index % 50) + 5,
            "level": "beginner", "benefits": "Confidence\nTeamwork", "requirements": "None",
            "ratings": [{"user": f"bench-pupil-{(index + offset) % PUPILS}", "rating": 3 + (index + offset) % 3,
                         "review": "Enjoyable and well organised."} for offset in range(3)]}


def _contents_course() -> dict:
    return {"slug": CONTENTS_SLUG, "title": "Physics Revision Weekend", "categories": ["Exam revision"],
            "topics": [{"title": f"Unit {unit}", "content": "Key ideas and exam questions.",
                        "lessons": [{"title": f"Unit {unit} lesson {lesson}",
                                     "content": "<p>Worked examples and a short practice set.</p>" * 4}
                                    for lesson in range(1, 11)]} for unit in range(1, 11)]}


def prepare(context: Context) -> None:
    if context.rest in _PREPARED:
        return
    admin = {"Authorization": context.admin_authorization}
    for number in range(PUPILS):
        fetch(context.rest + "/core/v2/users", "POST", {
            "username": f"bench-pupil-{number}", "email": f"bench-pupil-{number}@pupils.school.invalid",
            "password": "benchmark pupil password"}, admin)
    for start in range(0, COURSES, CHUNK):
        status, _headers, body = fetch(context.rest + "/lms/v1/catalogue", "POST", {
            "courses": [_course(index) for index in range(start, min(start + CHUNK, COURSES))]}, admin)
        expect(status, 200, body, "POST /lms/v1/catalogue")
    status, _headers, body = fetch(context.rest + "/lms/v1/catalogue", "POST", {"courses": [_contents_course()]}, admin)
    expect(status, 200, body, "POST /lms/v1/catalogue (contents)")
    status, _headers, body = fetch(context.rest + "/lms/v1/api-keys", "POST",
                                   {"permission": "read", "description": "benchmark"}, admin)
    expect(status, 201, body, "POST /lms/v1/api-keys")
    token = base64.b64encode(f"{body['key']}:{body['secret']}".encode()).decode()
    authorization = {"Authorization": "Basic " + token}
    status, _headers, found = fetch(context.rest + "/lms/v1/courses?categories=Exam%20revision&orderby=title&order=DESC",
                                    headers=authorization)
    expect(status, 200, found, "GET /lms/v1/courses")
    contents_id = next((course["ID"] for course in found["data"]["posts"] if course["post_name"] == CONTENTS_SLUG), 0)
    _PREPARED[context.rest] = {"authorization": "Basic " + token, "contents_id": contents_id}


def _path(context: Context, scenario: str) -> str:
    prepared = _PREPARED[context.rest]
    if scenario == "courses":
        return "/lms/v1/courses"
    return f"/lms/v1/course-contents/{prepared['contents_id']}"


def _lua(scenario: str):
    def lua(context: Context) -> str:
        authorization = _PREPARED[context.rest]["authorization"]
        return (f'wrk.method = "GET"\nwrk.path = {lua_string(context.rest_path + _path(context, scenario))}\n'
                f'wrk.headers["Authorization"] = {lua_string(authorization)}\n')
    return lua


def _check(scenario: str):
    def check(context: Context) -> None:
        status, _headers, body = fetch(context.rest + _path(context, scenario),
                                       headers={"Authorization": _PREPARED[context.rest]["authorization"]})
        expect(status, 200, body, _path(context, scenario))
        if body.get("code") != "success":
            raise Unavailable(f"{_path(context, scenario)}: code {body.get('code')!r}")
        if scenario == "courses":
            data = body["data"]
            posts = data["posts"]
            if data["total_course"] < COURSES or len(posts) != 10:
                raise Unavailable(f"/lms/v1/courses: {data['total_course']} courses, {len(posts)} on the page")
            if not all(post["course_category"] and post["course_tag"] and post["ratings"]["rating_count"]
                       for post in posts):
                raise Unavailable("/lms/v1/courses: courses without terms or ratings")
        else:
            topics = body["data"]
            if len(topics) != 10 or sum(len(topic["contents"]) for topic in topics) != 100:
                raise Unavailable("course-contents: not 10 topics with 100 lessons")
    return check


SCENARIOS = [
    Scenario("lms-courses", "GET lms/v1/courses (10 of 1,000, ratings, terms)", _lua("courses"), _check("courses"),
             prepare=prepare),
    Scenario("lms-contents", "GET lms/v1/course-contents (10 topics, 100 lessons)", _lua("contents"),
             _check("contents"), prepare=prepare),
]

BUDGET = [
    Budget("lms-courses", 0.15, "the course list, 10 per page with ratings and terms, at 1,000 courses"),
    Budget("lms-contents", 0.10, "course-contents of a course with 10 topics and 100 lessons"),
]
