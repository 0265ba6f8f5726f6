"""A school library, as a third-party plugin written from docs/plugin-guide.md (not shipped).

library/v1 serves books (an ISBN-13 whose check digit a marshmallow validator checks) and
loans (a `due` day that arrives as a datetime.date). Deleting a user closes their open loans
(`user_deleted`), the Library admin page lists open loans and takes books back, and
`sitehost library overdue` lists the late ones. Release 0.2.0 counts a loan's renewals: a
column its Alembic revision (migrations/0001_loan_renewals.py) adds to a site of 0.1.0. Its public
pages (pages.py) show a book, send an ISBN's address to the book's page and give the catalogue as
CSV. Tests install it through a real `sitehost` entry point (tests/library).
"""

import datetime

from sqlalchemy import case, update

from host import Namespace, PluginInfo, hookimpl

from . import pages, routes, tables

PLUGIN = PluginInfo(name="library", version="0.2.0", description="The school library: books and loans")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces():
    return [Namespace(routes.NAMESPACE, description="The school library")]


@hookimpl
def register_capabilities():
    return {"lend_books": ["administrator", "editor"]}


@hookimpl
def register_routes():
    return routes.routes()


@hookimpl
def register_pages():
    return pages.PAGES


@hookimpl
def register_admin_pages():
    from .admin_page import ADMIN_PAGES

    return ADMIN_PAGES


@hookimpl
def register_commands(cli):
    from .cli import library_group

    cli.add_command(library_group)


@hookimpl
def user_deleted(app, session, user):
    """Close the person's open loans and forget who borrowed: a later account given the same id
    (SQLite reuses ids) must not inherit them. The loans stay, as the book's history."""
    table = tables.loans(app)
    session.execute(update(table).where(table.c.borrower == user.id).values(
        borrower=None, status="closed",
        closed_on=case((table.c.status == "open", datetime.date.today()), else_=table.c.closed_on)))
