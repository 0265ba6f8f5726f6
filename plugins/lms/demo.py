"""Demo content: three after-school courses of a school, with topics, lessons, a quiz with
attempts, ratings, an announcement, a paid exam-revision course and an adult-education evening class."""

from __future__ import annotations

import datetime
import json

from sqlalchemy import select

from host.auth import users as user_service

from .answers import bump
from .enrolments import enrol
from .importer import WriteContext, import_catalogue, read_catalogue
from .model import COURSE, QUIZ
from .tables import ANSWERS, ATTEMPT_ANSWERS, ATTEMPTS, QA, QUESTIONS, RATINGS, table

CATALOGUE = {"courses": [
    {"slug": "robotics-club", "title": "Robotics Club (Years 7-9)",
     "excerpt": "Build and program LEGO robots after school on Tuesdays.",
     "content": "<p>Every Tuesday from 15:30 to 16:45 in the Design & Technology lab. Pupils work in teams of three "
                "to build, program and race robots, and enter the regional schools' challenge in March.</p>",
     "categories": ["After-school clubs"], "tags": ["STEM", "Years 7-9"], "level": "beginner",
     "duration": {"hours": 18, "minutes": 0}, "benefits": "Teamwork\nBlock-based and Python programming\nDesign thinking",
     "requirements": "No experience needed", "target_audience": "Pupils in Years 7 to 9",
     "materials": "Robot kits and laptops are provided", "settings": {"maximum_students": 24},
     "topics": [
         {"title": "Getting started", "content": "Meet the kit and build a first driving base.",
          "lessons": [{"title": "Safety in the lab and meeting the kit", "content": "<p>Lab rules, the parts box and charging the hubs.</p>"},
                      {"title": "Building a driving base", "content": "<p>Two motors, one hub, four wheels.</p>",
                       "video": {"source": "external_url", "url": "https://videos.school.invalid/robotics/driving-base.mp4"}}],
          "quizzes": [{"title": "Lab safety check", "content": "Five questions before we switch anything on.",
                       "options": {"passing_grade": 80, "attempts_allowed": 3,
                                   "time_limit": {"time_value": 10, "time_type": "minutes"}},
                       "questions": [
                           {"title": "Where do charged batteries go?", "type": "single_choice", "answers": [
                               {"title": "In the green charging tray", "correct": True},
                               {"title": "In your bag"}, {"title": "On the radiator"}]},
                           {"title": "Goggles are needed when using the hot glue gun.", "type": "true_false",
                            "answers": [{"title": "True", "correct": True}, {"title": "False"}]}]}]},
         {"title": "Sensors and programming", "content": "Make the robot see and react.",
          "lessons": [{"title": "Following a line with the colour sensor", "content": "<p>Loops and conditions.</p>"},
                      {"title": "Avoiding obstacles", "content": "<p>The distance sensor and a simple state machine.</p>"}]}],
     "announcements": [{"title": "Regional challenge entry forms", "content": "<p>Teams must hand in their entry forms "
                                                                              "to Mr Patel by Friday 7 February.</p>"}]},
    {"slug": "gcse-maths-revision", "title": "GCSE Maths Exam Revision (Year 11)",
     "excerpt": "Six Saturday-morning sessions before the summer exams.",
     "content": "<p>Small-group revision on Saturday mornings, 9:30 to 12:00, covering the topics pupils find hardest, "
                "with a past paper under exam conditions each week.</p>",
     "categories": ["Exam revision"], "tags": ["GCSE", "Maths", "Year 11"], "level": "intermediate",
     "price_type": "paid", "price": 45, "duration": {"hours": 15, "minutes": 0},
     "benefits": "Targeted practice on algebra, geometry and statistics\nMarked past papers",
     "requirements": "A scientific calculator", "target_audience": "Year 11 pupils sitting GCSE Maths",
     "materials": "Printed past papers and mark schemes", "settings": {"maximum_students": 16},
     "topics": [
         {"title": "Algebra", "content": "Equations, inequalities and graphs.",
          "lessons": [{"title": "Solving quadratic equations", "content": "<p>Factorising, the formula and completing the square.</p>"},
                      {"title": "Simultaneous equations", "content": "<p>Elimination and substitution.</p>"}]},
         {"title": "Geometry and measures", "content": "Angles, trigonometry and vectors.",
          "lessons": [{"title": "Right-angled trigonometry", "content": "<p>SOH CAH TOA with exam questions.</p>"}]}],
     "announcements": [{"title": "Room change on 15 March", "content": "<p>Saturday's session moves to room M4.</p>"}]},
    {"slug": "conversational-spanish-adults", "title": "Conversational Spanish for Adults (Evening Class)",
     "excerpt": "Ten Wednesday evenings for parents and members of the community.",
     "content": "<p>A relaxed evening class in the school library, Wednesdays 19:00 to 20:30, for complete beginners "
                "who want to get by on holiday and chat with Spanish-speaking neighbours.</p>",
     "categories": ["Adult education"], "tags": ["Languages", "Evening class"], "level": "beginner",
     "price_type": "paid", "price": 60, "duration": {"hours": 15, "minutes": 0},
     "benefits": "Everyday conversations\nConfidence speaking", "requirements": "None",
     "target_audience": "Adults, including parents and carers", "materials": "Course booklet",
     "topics": [{"title": "Greetings and introductions", "content": "Saying who you are.",
                 "lessons": [{"title": "Hola: greetings for every time of day", "content": "<p>Buenos días, buenas tardes, buenas noches.</p>"}]}]},
]}


def write_demo_content(app, session) -> None:
    admins, _total = user_service.query_users(app, session, roles=["administrator"], orderby="id", limit=1)
    teacher = user_service.create_user(app, session, "r.patel", "r.patel@school.invalid", "author",
                                       display_name="Mr R. Patel")
    pupils = [user_service.create_user(app, session, login, f"{login}@pupils.school.invalid", "subscriber",
                                       display_name=name)
              for login, name in (("amara.o", "Amara O."), ("ben.k", "Ben K."), ("chloe.w", "Chloe W."))]
    context = WriteContext(app, session, admins[0] if admins else teacher)
    import_catalogue(context, read_catalogue(json.dumps(CATALOGUE)), teacher.id, lambda login: None)
    courses, _count = app.content.query(context, COURSE, per_page=10, orderby="id", order="asc")
    by_slug = {course["slug"]: course for course in courses}
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    ratings = table(app, RATINGS)
    for course_slug, scores in (("robotics-club", [(5, "My son talks about nothing else!"), (4, "Great fun, a bit noisy."),
                                                   (3, "")]),
                                ("gcse-maths-revision", [(5, "The past papers really helped."), (4, "")])):
        for pupil, (score, review) in zip(pupils, scores):
            session.execute(ratings.insert().values(course_id=by_slug[course_slug]["id"], user_id=pupil.id,
                                                    rating=score, review=review, created=now,
                                                    status="approved" if review or score >= 4 else "pending"))
    bump(app, session)
    for pupil in pupils:
        enrol(context, by_slug["robotics-club"]["id"], pupil.id, "demo")
    enrol(context, by_slug["gcse-maths-revision"]["id"], pupils[0].id, "demo")
    qa = table(app, QA)
    question_id = session.execute(qa.insert().values(
        course_id=by_slug["gcse-maths-revision"]["id"], user_id=pupils[0].id, parent=0, created=now,
        content="Will the sessions cover the non-calculator paper as well?")).inserted_primary_key[0]
    session.execute(qa.insert().values(
        course_id=by_slug["gcse-maths-revision"]["id"], user_id=teacher.id, parent=question_id, created=now,
        content="Yes: every other week we sit a non-calculator paper."))
    quizzes, _count = app.content.query(context, QUIZ, per_page=10)
    if quizzes:
        _attempts(app, session, quizzes[0], by_slug["robotics-club"]["id"], pupils, now)


def _attempts(app, session, quiz: dict, course_id: int, pupils, now) -> None:
    questions, answers = table(app, QUESTIONS), table(app, ANSWERS)
    attempts, attempt_answers = table(app, ATTEMPTS), table(app, ATTEMPT_ANSWERS)
    rows = session.execute(select(questions).where(questions.c.quiz_id == quiz["id"]).order_by(questions.c.position)).all()
    choices = {row.id: session.execute(select(answers).where(answers.c.question_id == row.id)
                                       .order_by(answers.c.position)).all() for row in rows}
    for number, pupil in enumerate(pupils[:2]):
        picked = [(row, choices[row.id][0 if number == 0 or index else 1]) for index, row in enumerate(rows)]
        earned = sum(row.mark for row, choice in picked if choice.is_correct)
        total = sum(row.mark for row in rows)
        started = now - datetime.timedelta(days=3 - number, minutes=12)
        attempt_id = session.execute(attempts.insert().values(
            quiz_id=quiz["id"], course_id=course_id, user_id=pupil.id, total_questions=len(rows),
            total_answered_questions=len(rows), total_marks=total, earned_marks=earned,
            info=json.dumps({"passing_grade": 80, "time_taken_seconds": 420 + 60 * number}),
            status="attempt_ended", started_at=started, ended_at=started + datetime.timedelta(minutes=7 + number)
        )).inserted_primary_key[0]
        for row, choice in picked:
            session.execute(attempt_answers.insert().values(
                attempt_id=attempt_id, question_id=row.id, given_answer=json.dumps([choice.id]),
                question_mark=row.mark, achieved_mark=row.mark if choice.is_correct else 0, minus_mark=0,
                is_correct=choice.is_correct))
