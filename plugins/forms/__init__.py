"""forms/v1: contact forms with a bracket-tag template language, a submission pipeline and mail."""

from __future__ import annotations

import pluggy

from host import Namespace, PluginInfo, PostType, Status, hookimpl

from . import settings, tables
from .cli import forms_group
from .files import files_area

PLUGIN = PluginInfo(name="forms", version="1.0.0", requires=("core",), settings=settings.FormsConfigSchema,
                    description="Contact forms: templates of bracket tags, submissions stored and mailed")

hookspec = pluggy.HookspecMarker("sitehost")


class FormsHooks:
    @hookspec(firstresult=True)
    def forms_before_send_mail(self, app, form_id, submission):
        """Stop a valid submission before its mail is queued (the reference's abort hook).

        When: after validation, acceptance, spam and files passed, before the mail stage.
        Arguments: `app`; `form_id`; `submission`, the dict check_spam receives.
        Returns: {"abort": True, "message": "..."} to end with status `aborted`, or None.
        firstresult: the first non-None answer wins.
        """


@hookimpl
def add_hookspecs(plugin_manager):
    plugin_manager.add_hookspecs(FormsHooks)


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from .routes import NAMESPACE

    return [Namespace(NAMESPACE, description=PLUGIN.description)]


@hookimpl
def register_statuses():
    return [Status("fields-disabled", "Fields disabled", public=False)]


@hookimpl
def register_post_types():
    from . import store

    return [PostType(store.POST_TYPE, "Contact forms", supports=("title",), public=False)]


@hookimpl
def register_abilities():
    from .abilities import ABILITIES

    return ABILITIES


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_pages():
    from . import pages

    return [pages.page()]


@hookimpl
def register_admin_pages(app):
    from .admin import admin_pages

    return admin_pages()


@hookimpl
def render_content(app, item, content):
    from . import pages

    content["html"] = pages.replace_shortcodes(app, item, content["html"])


@hookimpl
def startup(app):
    from .store import signer

    signer(app)  # the key made (or adopted) at start-up, so no request writes it
    files_area(app)  # opened now, so `sitehost storage copy` knows it


@hookimpl
def register_commands(cli):
    cli.add_command(forms_group)


@hookimpl
def demo_content(app, session):
    from . import demo

    demo.write_demo_forms(app, session)


@hookimpl
def import_wordpress_item(app, item, run):
    """Contact forms of a WordPress export (`wpcf7_contact_form`)."""
    from . import wordpress

    return wordpress.import_item(app, item, run)


@hookimpl
def wordpress_item_imported(app, item, new_id, run):
    """Shortcodes of imported posts and pages name the forms as imported here."""
    from . import wordpress

    wordpress.item_imported(app, item, new_id, run)


@hookimpl
def export_wordpress_items(app, export):
    from . import wordpress

    return wordpress.export_items(app, export)
