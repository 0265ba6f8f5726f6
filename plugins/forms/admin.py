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

from contextlib import contextmanager

from host import AdminPage
from host.rest.request import RestRequest


def admin_pages() -> list[AdminPage]:
    from . import editor, inbox  # they import rest_request from here

    return [
        AdminPage("Contact forms", "forms", editor.forms_page, capability="publish_pages", actions=editor.ACTIONS),
        AdminPage("Form submissions", "form-submissions", inbox.submissions_page, capability="manage_options",
                  actions=inbox.ACTIONS),
    ]


@contextmanager
def rest_request(page, write: bool = False):
    """A RestRequest as the signed-in user, for the content service and the plugin's own modules.

    Writes commit when the block ends without an error and roll back otherwise.
    """
    request = RestRequest(page.app, "POST" if write else "GET", "/", [], {}, environ=page.environ,
                          base_url=page.app.rest_base_url(page.environ), remote_addr=page.client_address)
    request.user = page.user
    success = False
    try:
        yield request
        success = True
    finally:
        request.finish(success=success)
