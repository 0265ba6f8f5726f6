"""A pupil in headless Chromium against a real `sitehost serve` (demo site): signs in, opens a free
course, finds its lessons locked, enrols from the course page and reads a lesson.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from host.testing import stop_sitehost

from tests.admin.served import init_site, serve

PUPIL, PUPIL_PASSWORD = "dana.p", "Riverside pupil 2026!"
LESSON_TEXT = "Lab rules, the parts box and charging the hubs."
COURSE, LESSON = "/courses/robotics-club/", "/lesson/safety-in-the-lab-and-meeting-the-kit/"
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def add_pupil(config: Path) -> None:
    subprocess.run([sys.executable, "-m", "host.cli", "--config", str(config), "user", "create", PUPIL,
                    "--email", "dana.p@pupils.school.invalid", "--password", PUPIL_PASSWORD],
                   check=True, capture_output=True, timeout=120)


def sign_in_pupil(page, site: str) -> None:
    """The demo pupil signs in through the sign-in page (the session cookie then carries every page)."""
    page.goto(site + "/admin/sign-in")
    page.get_by_label("Username or email address").fill(PUPIL)
    page.get_by_label("Password").fill(PUPIL_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/sign-in" not in url)


def enrol_pupil(page, site: str) -> None:
    """The demo pupil signs in and enrols in the Robotics Club from its page."""
    sign_in_pupil(page, site)
    page.goto(site + COURSE)
    page.get_by_role("button", name="Enrol now").click()
    expect(page.get_by_role("heading", name="You are enrolled")).to_be_visible()


def test_a_pupil_signs_in_enrols_in_a_free_course_and_opens_a_lesson(browser, tmp_path):
    config, _admin, _password = init_site(tmp_path, demo=True)
    add_pupil(config)
    process, site, _rest = serve(config)
    page = browser.new_page(viewport=SIZES["desktop"])
    try:
        sign_in_pupil(page, site)

        page.goto(site + COURSE)
        expect(page.get_by_role("heading", level=1)).to_have_text("Robotics Club (Years 7-9)")
        outline = page.get_by_role("region", name="Course content")
        expect(outline.get_by_role("heading", level=3)).to_have_text(["Getting started", "Sensors and programming"])
        outline.get_by_role("link", name="Safety in the lab and meeting the kit").click()
        page.wait_for_url(site + "/lesson/safety-in-the-lab-and-meeting-the-kit/")
        expect(page.get_by_role("note")).to_contain_text("This lesson is for learners enrolled in Robotics Club")
        expect(page.get_by_text(LESSON_TEXT)).to_have_count(0)

        page.get_by_role("link", name="Robotics Club (Years 7-9)").click()
        page.wait_for_url(site + "/courses/robotics-club/")
        page.get_by_role("button", name="Enrol now").click()
        expect(page.get_by_role("heading", name="You are enrolled")).to_be_visible()
        page.get_by_role("link", name="Start learning").click()
        page.wait_for_url(site + "/lesson/safety-in-the-lab-and-meeting-the-kit/")
        expect(page.get_by_text(LESSON_TEXT)).to_be_visible()
        assert LESSON_TEXT in page.content()
        # Enrolled in the pupil's session only: an anonymous visitor still gets the locked lesson.
        with urllib.request.urlopen(site + "/lesson/safety-in-the-lab-and-meeting-the-kit/", timeout=30) as anonymous:
            assert anonymous.status == 200 and LESSON_TEXT not in anonymous.read().decode("utf-8")
        page.get_by_role("link", name="Next: Building a driving base").click()
        expect(page.get_by_role("link", name="Watch the video of this lesson")).to_be_visible()
    finally:
        page.close()
        stop_sitehost(process)
