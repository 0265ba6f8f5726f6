"""newsletter/v1: school newsletter sign-ups with double opt-in, one-click unsubscribe, lists and export.

`POST newsletter/v1/form` takes sign-ups from the site's forms (signup.py); administrators
manage lists, forms and subscribers under newsletter/v1 (admin.py) and at /admin/newsletter
(admin_page.py: lists, consent records, CSV import and export, mailings); the links in mails open
/newsletter/confirm and /newsletter/unsubscribe (pages.py); operators export, import, send
and erase with `sitehost newsletter` (cli.py). Mail goes through the host's mail service.
"""

from __future__ import annotations

from host import AdminPage, Namespace, Page, PluginInfo, hookimpl

from . import settings, tables
from .cli import newsletter_group

PLUGIN = PluginInfo(name="newsletter", version="0.1.0", settings=settings.NewsletterSettingsSchema,
                    description="Newsletter sign-up forms, lists and mailings with double opt-in")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description="Mailing-list sign-up form endpoint and list administration")]


@hookimpl
def register_schemas():
    from .schemas import FormSchema, ListSchema, SubscriberSchema

    return {"NewsletterList": ListSchema, "NewsletterForm": FormSchema, "NewsletterSubscriber": SubscriberSchema}


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl
def register_pages(app):
    from . import pages
    from .mailer import CONFIRM_PATH, UNSUBSCRIBE_PATH

    return [Page(CONFIRM_PATH, ("GET", "POST"), pages.confirm_page, name="newsletter-confirm"),
            Page(UNSUBSCRIBE_PATH, ("GET", "POST"), pages.unsubscribe_page, name="newsletter-unsubscribe")]


@hookimpl
def register_admin_pages(app):
    from .admin_page import ACTIONS, newsletter_page

    return [AdminPage("Newsletter", "newsletter", newsletter_page, capability="manage_options", actions=ACTIONS)]


@hookimpl
def register_commands(cli):
    cli.add_command(newsletter_group)


@hookimpl
def startup(app):
    from . import tokens

    tokens.signer(app)  # the key made (or adopted) at start-up, so no request writes it


@hookimpl
def demo_content(app, session):
    from . import demo

    demo.write_demo(app, session)


@hookimpl
def import_wordpress_item(app, item, run):
    """Sign-up forms of a WordPress export (`mc4wp-form`)."""
    from . import wordpress

    return wordpress.import_item(app, item, run)


@hookimpl
def export_wordpress_items(app, export):
    from . import wordpress

    return wordpress.export_items(app, export)
