"""`sitehost calendar ...`: iCalendar imports, their records, and events imports must leave alone."""

from __future__ import annotations

import json

import click

from host.commands import open_site
from host.content import service_request


def _author(app, login: str | None):
    from host.auth import users as user_service

    with app.db.session() as session:
        if login:
            user = user_service.find_user(app, session, login)
            if user is None:
                raise click.ClickException(f"no user with login or email {login!r}")
            return user
        admins, _total = user_service.query_users(app, session, roles=["administrator"], orderby="id", limit=1)
        if not admins:
            raise click.ClickException("no administrator to own the events; pass --author")
        return admins[0]


@click.group("calendar")
def calendar_group() -> None:
    """The events calendar: iCalendar imports and their records.

    \b
    Examples:
      sitehost calendar import term-dates.ics
      sitehost calendar import https://example.org/fixtures.ics
      sitehost calendar imports
    """


@calendar_group.command("import")
@click.argument("source")
@click.option("--author", default=None, help="Login of the events' author (default: the first administrator).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
def import_command(ctx: click.Context, source: str, author: str | None, quiet: bool) -> None:
    """Import the events of SOURCE, an .ics file or an http(s) URL.

    Events are matched by UID: a second run updates what changed and creates nothing twice.
    Events marked ignored (`sitehost calendar ignore ID`) are left alone. A moved, retitled or
    cancelled occurrence (RECURRENCE-ID) is kept with its series; what the calendar cannot
    represent (RDATE, to-do and journal components ...) is named on an `unsupported:` line and counted.

    \b
    Example:
      sitehost calendar import term-dates.ics --author office
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from .imports import ImportFailed, import_entries, read_entries

    with open_site(ctx, plugin="calendar") as app:
        user = _author(app, author)
        try:  # a source that cannot be read or parsed fails here, before a bar is drawn
            entries = read_entries(app, source)
        except ImportFailed as error:
            raise click.ClickException(str(error)) from None
        with Progress(TextColumn("events"), BarColumn(), MofNCompleteColumn(), disable=quiet) as progress:
            task = progress.add_task("events", total=len(entries))
            import_id, activity = import_entries(app, user, source, entries,
                                                 on_progress=lambda done: progress.update(task, completed=done))
    for problem in activity.errors[:20]:
        click.echo(f"failed: {problem}", err=True)
    for name in activity.unsupported_items:
        click.echo(f"unsupported: {name}", err=True)
    if activity.unsupported > len(activity.unsupported_items):
        click.echo(f"unsupported: {activity.unsupported - len(activity.unsupported_items)} more", err=True)
    click.echo(f"import {import_id}: {activity.created} created, {activity.updated} updated, "
               f"{activity.skipped} skipped, {activity.failed} failed, {activity.unsupported} unsupported")
    if activity.failed:
        ctx.exit(1)


@calendar_group.command("imports")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def imports_command(ctx: click.Context, as_json: bool) -> None:
    """List import records, newest first: id, state, percentage, interval and counts.

    \b
    Example:
      sitehost calendar imports --json
    """
    from .imports import list_records

    with open_site(ctx, plugin="calendar") as app, app.db.session() as session:
        request = service_request(app, session, _author(app, None))
        records = list_records(session, app, lambda post_id: app.content.get(request, post_id))
    if as_json:
        click.echo(json.dumps(records, indent=2))
        return
    if not records:
        click.echo("no imports yet")
    for record in records:
        counts = record["activity"]
        click.echo(f"{record['import_id']}\t{record['status']}\t{record['percentage_complete']}%\t"
                   f"interval {record['interval']}s\t{counts.get('created', 0)} created, "
                   f"{counts.get('updated', 0)} updated, {counts.get('skipped', 0)} skipped, "
                   f"{counts.get('failed', 0)} failed, {counts.get('unsupported', 0)} unsupported\t"
                   f"{record['origin']} {record['source']}")


@calendar_group.command("expect-import")
@click.argument("source")
@click.option("--author", default=None, help="Login of the events' author (default: the first administrator).")
@click.pass_context
def expect_import_command(ctx: click.Context, source: str, author: str | None) -> None:
    """Open a pending import record for an outside import service fetching SOURCE.

    Prints the import_id and the first batch_hash the service sends to
    cal/event-aggregator/v1/import/{import_id}/batch and /state.

    \b
    Example:
      sitehost calendar expect-import "County fixtures feed"
    """
    from .imports import open_import

    with open_site(ctx, plugin="calendar") as app:
        user = _author(app, author)
        with app.db.session(write=True) as session:
            opened = open_import(service_request(app, session, user), "service", source)
            session.commit()
    click.echo(f"import_id:  {opened['import_id']}")
    click.echo(f"batch_hash: {opened['batch_hash']}")


@calendar_group.command("ignore")
@click.argument("event_id", type=int)
@click.option("--undo", is_flag=True, help="Stop ignoring it: the event becomes a draft again.")
@click.pass_context
def ignore_command(ctx: click.Context, event_id: int, undo: bool) -> None:
    """Mark event EVENT_ID ignored: imports leave it alone and no list shows it.

    \b
    Example:
      sitehost calendar ignore 42
    """
    from .imports import mark_ignored

    with open_site(ctx, plugin="calendar") as app:
        user = _author(app, None)
        with app.db.session(write=True) as session:
            request = service_request(app, session, user)
            try:
                mark_ignored(request, event_id, ignored=not undo)
            except LookupError as error:
                raise click.ClickException(str(error)) from None
            session.commit()
        for callback in request._after_commit:
            callback()
    click.echo(f"event {event_id} is {'a draft again' if undo else 'ignored by imports'}")
