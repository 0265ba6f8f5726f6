"""Learning catalogue (lms/v1): courses, topics, lessons, quizzes and what hangs off them, read by
outside apps with API keys, and enrolment through verified payment webhooks.

The parts: model.py (post types, taxonomies, course meta), tables.py (questions, attempts,
ratings, Q&A, enrolments, payment events, API keys), settings.py (`[plugins.lms]`),
apikeys.py, catalogue.py and routes.py (the read routes), webhook.py, admin.py, importer.py,
demo.py, cli.py (`sitehost lms ...`), and pages.py (the public pages, kept by the response cache; templates/lms_page_*.html,
static/lms.css).
"""

from __future__ import annotations

from host import AdminPage, Namespace, PluginInfo, hookimpl

from . import model, settings, tables
from .cli import lms_group

PLUGIN = PluginInfo(name="lms", version="0.1.0", requires=("core",), settings=settings.LmsConfigSchema,
                    description="Learning catalogue: courses, topics, lessons and quizzes for outside apps",
                    credential_headers=("Authorization",))  # API keys travel as Basic credentials


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    from . import routes

    return [Namespace(routes.NAMESPACE, description="Learning catalogue for outside apps (API keys)")]


@hookimpl
def register_post_types():
    from .catalogue import may_read_text

    return model.post_types(may_read_text)


@hookimpl
def register_taxonomies():
    return model.taxonomies()


@hookimpl
def register_meta():
    return model.meta_keys()


@hookimpl
def register_routes():
    from . import routes

    return routes.routes()


@hookimpl(tryfirst=True)
def authenticate(app, request):
    """`key_...:secret` over Basic on lms/v1 routes; everything else is the host's."""
    from . import apikeys

    return apikeys.authenticate(app, request)


@hookimpl
def register_pages(app):
    """The public course, lesson, quiz, topic and course category/tag pages (pages.py)."""
    from .pages import pages

    return pages()


@hookimpl
def register_admin_pages(app):
    from .admin_page import ACTIONS, courses_page

    return [AdminPage("Courses", "courses", courses_page, capability="manage_options", actions=ACTIONS)]


@hookimpl
def user_created(app, session, user):
    """A new account receives the paid courses kept pending for its address (same transaction)."""
    from . import pending

    pending.grant_to_new_user(app, session, user)


@hookimpl
def user_deleted(app, session, user, reassign_to):
    """A deleted account's keys, enrolments, attempts, ratings and Q&A go with it (same transaction)."""
    from .accounts import forget_user

    forget_user(app, session, user.id)


@hookimpl
def register_commands(cli):
    cli.add_command(lms_group)


@hookimpl
def demo_content(app, session):
    from .demo import write_demo_content

    write_demo_content(app, session)


@hookimpl
def import_wordpress_item(app, item, run):
    """Courses, topics, lessons, quizzes, announcements, ratings and enrolments of a WordPress export."""
    from . import wordpress

    return wordpress.import_item(app, item, run)


@hookimpl
def wordpress_taxonomies(app):
    from . import wordpress

    return wordpress.taxonomies()


@hookimpl
def export_wordpress_items(app, export):
    from . import wordpress

    return wordpress.export_items(app, export)
