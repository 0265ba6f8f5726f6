"""The Courses admin page (/admin/courses) over WebTest with real sign-in and CSRF: enrolments (filters,
enrol, cancel), pending payments (assign), API keys (issue with the secret shown once, revoke); each
error and that a refused post changes nothing."""

from __future__ import annotations

import pytest

from host.testing import create_test_user

from tests.admin.helpers import form_with, sign_in

from .keys import key_headers
from .test_webhook import API, checkout_event, enrolments, send_stripe, shop  # noqa: F401 (the fixture)


@pytest.fixture
def office(shop):
    """The shop with a second course, a pupil enrolled by payment, and the administrator signed in."""
    shop.other_course = shop.client.post_json("/wp-json/core/v2/courses", {"title": "Art History", "status": "draft"},
                                              headers=shop.admin.headers, status=201).json["id"]
    send_stripe(shop, checkout_event("evt_paid", shop.course, user_id=shop.parent.id))
    shop.browser = sign_in(shop, shop.admin)
    return shop


def cells(page, column: str) -> list[str]:
    return [cell.text.strip() for cell in page.html.select(f"main tbody td[data-label='{column}']")]


def error_of(page, name: str) -> str:
    element = page.html.select_one(f"#field-{name}-error")
    assert element is not None and page.html.select_one(f"#field-{name}")["aria-invalid"] == "true"
    return element.text


def test_enrolments_are_listed_filtered_and_paged_with_course_titles(office):
    page = office.browser.get("/admin/courses")
    assert cells(page, "Course") == ["GCSE Maths Exam Revision"]
    assert cells(page, "Who")[0].startswith(office.parent.login) and cells(page, "Source") == ["stripe"]
    assert cells(page, "Status") == ["enrolled"]
    assert [th.text for th in page.html.select("main thead th[scope=col]")][:3] == ["Course", "Who", "Enrolled"]
    assert office.browser.get("/admin/courses", {"course": office.other_course}).html.select("main tbody tr") == []
    assert office.browser.get("/admin/courses", {"status": "cancelled"}).html.select("main tbody tr") == []
    assert len(office.browser.get("/admin/courses", {"status": "completed", "course": office.course})
               .html.select("main tbody tr")) == 1
    options = [option.text for option in page.html.select("#field-course option")]
    assert options == ["Choose a course", "Art History", "GCSE Maths Exam Revision"]  # drafts too
    for number in range(21):
        with office.db.session(write=True) as session, session.begin():
            from plugins.lms.enrolments import enrol
            from plugins.lms.pending import Writer
            enrol(Writer(office, session), office.other_course, 1000 + number, "import")
    first = office.browser.get("/admin/courses")
    assert len(first.html.select("main tbody tr")) == 20 and "Page 1 of 2" in first.text
    second = office.browser.get(first.html.select_one("a[rel=next]")["href"])
    assert len(second.html.select("main tbody tr")) == 2 and "(deleted)" in first.text
    assert office.browser.get("/admin/courses/nonesuch", status=404)


def test_enrol_a_user_and_cancel_an_enrolment_with_each_error(office):
    pupil = create_test_user(office, "subscriber", email="pupil@school.test")
    page = office.browser.get("/admin/courses")
    missing = form_with(page, "enrol", person="").submit(status=400)
    assert error_of(missing, "course") == "Choose one of the courses."
    assert "login or email" in error_of(missing, "person")
    unknown = form_with(page, "enrol", course=str(office.other_course), person="nobody@school.test").submit(status=400)
    assert "No user has" in error_of(unknown, "person")
    assert unknown.html.select_one("#field-person")["value"] == "nobody@school.test"  # kept
    assert len(enrolments(office)) == 1
    done = form_with(page, "enrol", course=str(office.other_course), person="PUPIL@school.test").submit(status=201)
    assert f"{pupil.login} enrolled in" in done.html.select_one(".notice").text
    assert {(row["course_id"], row["user_id"], row["source"]) for row in enrolments(office)} == {
        (office.course, office.parent.id, "stripe"), (office.other_course, pupil.id, "admin")}
    again = form_with(page, "enrol", course=str(office.other_course), person=pupil.login).submit(status=409)
    assert "already enrolled" in again.text and len(enrolments(office)) == 2
    listed = office.browser.get("/admin/courses", {"course": office.other_course})
    cancelled = form_with(listed, "cancel").submit(status=200)
    assert "cancelled" in cancelled.html.select_one(".notice").text
    assert [row["status"] for row in enrolments(office) if row["user_id"] == pupil.id] == ["cancelled"]
    stale = form_with(listed, "cancel").submit(status=409)  # the same form again
    assert "nothing changed" in stale.text
    assert form_with(cancelled, "enrol", course=str(office.other_course), person=pupil.login).submit(status=201)
    assert [row["status"] for row in enrolments(office) if row["user_id"] == pupil.id] == ["completed"]


def test_pending_payments_are_listed_and_assigned_to_an_existing_user(office):
    send_stripe(office, checkout_event("evt_gran", office.course, email="gran@elsewhere.test", reference="pi_gran"))
    page = office.browser.get("/admin/courses/pending")
    assert cells(page, "Email") == ["gran@elsewhere.test"] and cells(page, "Amount") == ["45.00 GBP"]
    assert cells(page, "Course") == ["GCSE Maths Exam Revision"] and "pi_gran" in cells(page, "Reference")[0]
    wrong = form_with(page, "assign", person="nobody").submit(status=400)
    error = wrong.html.select_one("td[data-label=Assign] .field-error")
    assert error is not None and "No user has the login or email address nobody" in error.text
    assert wrong.html.select_one("td[data-label=Assign] input[name=person]")["aria-invalid"] == "true"
    assert len(enrolments(office)) == 1
    granted = form_with(page, "assign", person=office.parent.email).submit(status=200)
    assert "now enrols" in granted.html.select_one(".notice").text
    assert [(row["course_id"], row["user_id"]) for row in enrolments(office)] == [(office.course, office.parent.id)]
    assert granted.html.select("main tbody tr") == []  # the default filter shows only those waiting
    every = office.browser.get("/admin/courses/pending", {"status": "granted"})
    assert f"to {office.parent.login}" in cells(every, "Status")[0] and "operator" in cells(every, "Status")[0]
    assert "already granted" in form_with(page, "assign", person=office.parent.login).submit(status=409).text
    gone = office.browser.post("/admin/courses/pending", {"csrf_token": form_with(page, "assign")["csrf_token"].value,
                                                            "action": "assign", "pending": "99999", "person": "x"},
                               status=409)
    assert "no such pending payment" in gone.text


def test_api_keys_are_issued_with_the_secret_shown_once_and_revoked(office):
    page = office.browser.get("/admin/courses/keys")
    assert "No API keys yet" in page.text
    assert page.html.select_one("#field-person")["value"] == office.admin.login
    form = form_with(page, "create-key", person="nobody", description="x" * 501)
    form["permission"].force_value("everything")  # what a forged post could send
    bad = form.submit(status=400)
    assert "No user has" in error_of(bad, "person") and error_of(bad, "permission")
    assert "500 characters" in error_of(bad, "description")
    issued = form_with(page, "create-key", person=office.admin.login, permission="read",
                       description="Timetable app").submit(status=201)
    key, secret = issued.html.select_one("kbd.api-key").text, issued.html.select_one("kbd.api-secret").text
    assert issued.html.select_one(".notice.secret") is not None and "shown only this once" in issued.text
    assert office.client.get(f"{API}/courses", headers=key_headers(key, secret)).status_int == 200
    listed = office.browser.get("/admin/courses/keys")
    assert cells(listed, "Key") == [key] and cells(listed, "Description") == ["Timetable app"]
    assert secret not in listed.text and cells(listed, "Last used") != ["never"]
    revoked = form_with(listed, "revoke-key").submit(status=200)
    assert f"{key} revoked" in revoked.html.select_one(".notice").text and "No API keys yet" in revoked.text
    assert office.client.get(f"{API}/courses", headers=key_headers(key, secret), status=401)
    assert "no such API key" in form_with(listed, "revoke-key").submit(status=409).text


def test_the_page_is_for_administrators_only(office):
    editor = create_test_user(office, "editor")
    client = sign_in(office, editor)
    assert client.get("/admin/courses", status=403)
    assert "Courses" in office.browser.get("/admin/").text
