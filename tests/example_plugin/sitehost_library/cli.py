"""`sitehost library overdue`: the open loans past their due day."""

import datetime

import click
from sqlalchemy import select

from host.commands import open_site

from .tables import books, loans


@click.group("library")
def library_group():
    """The school library: loans past their due day.

    \b
    Example:
      sitehost library overdue
    """


@library_group.command("overdue")
@click.option("--on", "day", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Count as overdue on this day (YYYY-MM-DD); today by default.")
@click.pass_context
def overdue(ctx, day):
    """List the open loans whose due day is before today (or --on).

    \b
    Examples:
      sitehost library overdue
      sitehost library overdue --on 2031-01-01
    """
    when = day.date() if day is not None else datetime.date.today()
    with open_site(ctx, plugin="library") as app, app.db.session() as session:
        book_table, loan_table = books(app), loans(app)
        rows = session.execute(
            select(loan_table.c.id, loan_table.c.borrower, loan_table.c.due, book_table.c.title)
            .join(book_table, book_table.c.id == loan_table.c.book)
            .where(loan_table.c.status == "open", loan_table.c.due < when)
            .order_by(loan_table.c.due, loan_table.c.id)).all()
    for row in rows:
        click.echo(f"loan {row.id}: {row.title!r} to user {row.borrower}, due {row.due.isoformat()}")
    click.echo(f"{len(rows)} overdue on {when.isoformat()}")
