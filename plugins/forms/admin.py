"""The forms plugin's admin pages: the forms list and editor, and each form's stored submissions.

- /admin/forms (editors, `publish_pages`, the capability the REST writes need): the list, "Add
  form", delete, and /admin/forms/ID, the editor of the template, both mails, the messages and
  the additional settings, with a preview of the edited template that saves nothing. Saving
  runs the REST write's own code (FormUpdateArgs, then routes.update_from).
- /admin/form-submissions (administrators, `manage_options`, as GET forms/v1/submissions): the
  forms with their submission counts, each form's submissions with search over the values sent
  and a streamed CSV export, one submission with its files, resend and delete.
"""

from __future__ import annotations

from host import AdminPage

from . import editor, inbox


def admin_pages() -> list[AdminPage]:
    return [
        AdminPage("Contact forms", "forms", editor.forms_page, capability="publish_pages", actions=editor.ACTIONS),
        AdminPage("Form submissions", "form-submissions", inbox.submissions_page, capability="manage_options",
                  actions=inbox.ACTIONS),
    ]
