"""Demo content: the school's contact form and an absence-report form."""

from __future__ import annotations

from sqlalchemy import select

from host import RestRequest
from host.auth import users as user_service

from . import properties as props
from . import store, template

CONTACT_FORM = """<p>Questions about admissions, the timetable or anything else? The school office answers
within two school days.</p>

<label> Your name
    [text* your-name autocomplete:name] </label>

<label> Your email
    [email* your-email autocomplete:email] </label>

<label> Subject
    [select* your-subject include_blank "Admissions|admissions@school.test" "Timetable and lessons|office@school.test" "Something else|office@school.test"] </label>

<label> Your message
    [textarea* your-message maxlength:2000] </label>

[acceptance privacy] I agree that the school keeps my message to answer it. [/acceptance]

[submit "Send message"]"""

ABSENCE_FORM = """<p>Please report an absence before 9am on the day. For absences of more than three days,
attach a note from the doctor if you have one.</p>

<label> Pupil's full name
    [text* pupil-name] </label>

<label> Year group
    [select* year-group "Year 7" "Year 8" "Year 9" "Year 10" "Year 11"] </label>

<label> First day of absence
    [date* absence-date] </label>

<label> Number of school days
    [number* days min:1 max:20 "1"] </label>

<label> Reason
    [radio reason default:1 "Illness" "Medical appointment" "Family circumstances" "Other"] </label>

<label> Details (optional)
    [textarea details maxlength:1000] </label>

<label> Doctor's note (PDF or photo, optional)
    [file doctors-note limit:2mb filetypes:pdf|jpg|jpeg|png] </label>

<label> Parent or carer's email
    [email* parent-email autocomplete:email] </label>

[submit "Report absence"]"""


CONTACT_PAGE_SLUG = "contact"  # core's demo "Contact" page


def demo_forms() -> list[tuple[str, dict]]:
    contact = props.defaults()
    contact["form"] = CONTACT_FORM
    contact["mail"].update(recipient="[your-subject]", subject="Website enquiry: [_raw_your-subject]")
    absence = props.defaults()
    absence["form"] = ABSENCE_FORM
    absence["mail"].update(
        recipient="attendance@school.test", subject="Absence: [pupil-name] ([year-group]) from [absence-date]",
        body="Pupil: [pupil-name]\nYear group: [year-group]\nFirst day: [absence-date]\nSchool days: [days]\n"
             "Reason: [reason]\n\n[details]\n\nReported by: [parent-email]\n",
        additional_headers="Reply-To: [parent-email]", attachments="[doctors-note]", exclude_blank=True)
    # The confirmation goes to an address the visitor types (an autoreply): its subject names nothing the
    # visitor wrote, and its body only values the form checks (a year group from the list, a date, a number),
    # so it cannot carry anyone's text to anyone; the forms plugin also limits autoreplies per recipient.
    absence["mail_2"].update(
        active=True, recipient="[parent-email]", subject="We received your absence report",
        body="Thank you. The attendance office has recorded an absence in [year-group] from [absence-date] "
             "for [days] school day(s).\n\nIf this was not you, please tell the school office.\n\n-- \n"
             "[_site_title]", additional_headers="")
    return [("Contact the school office", contact), ("Report an absence", absence)]


def write_demo_forms(app, session) -> None:
    users = user_service.tables(app)["users"]
    admin_id = session.execute(select(users.c.id).where(users.c.roles.like("%administrator%"))
                               .order_by(users.c.id).limit(1)).scalar()
    request = RestRequest(app, "POST", "/", [], {}, internal=True)
    request._session = session  # the install transaction: the forms are written with the rest of the demo
    if admin_id is not None:
        request.user = user_service.get_user(app, session, admin_id)
    created = {}
    for title, properties in demo_forms():
        parsed = template.parse(properties["form"])
        created[title] = store.create(request, title, "en_US", properties, props.config_errors(properties, parsed))
    if request.user is not None:
        embed_in_page(request, CONTACT_PAGE_SLUG, created["Contact the school office"])


def embed_in_page(request, slug: str, form_id: int) -> None:
    """Add the form's shortcode to the end of core's demo page `slug`, so the page shows the form."""
    page = request.app.content.get_by_slug(request, "page", slug)
    if page is None:
        return
    content = f'{page["content"]}\n\n[contact-form id="{form_id}" title="Contact the school office"]'
    request.app.content.update(request, page["id"], content=content)
