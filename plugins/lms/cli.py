"""`sitehost lms ...`: API keys for outside apps, and the catalogue import."""

from __future__ import annotations

import json
from pathlib import Path

import click

from host.commands import open_site

from .permissions import PERMISSIONS


def _user(app, session, login: str):
    from host.auth import users as user_service

    user = user_service.find_user(app, session, login)
    if user is None:
        raise click.ClickException(f"no user with login or email {login!r}")
    return user


@click.group("lms")
def lms_group() -> None:
    """The learning catalogue: API keys for outside apps, catalogue import.

    \b
    Examples:
      sitehost lms api-key create admin --permission read --description "Timetable app"
      sitehost lms import catalogue.json
    """


@lms_group.group("api-key")
def api_key_group() -> None:
    """Issue, list and revoke API keys (Basic key:secret on lms/v1).

    \b
    Example:
      sitehost lms api-key list
    """


@api_key_group.command("create")
@click.argument("user")
@click.option("--permission", type=click.Choice(PERMISSIONS), required=True, help="What the key may do.")
@click.option("--description", default="", help="What the key is for.")
@click.pass_context
def api_key_create(ctx: click.Context, user: str, permission: str, description: str) -> None:
    """Issue a key for USER (login or email); the secret is printed once and stored only hashed.

    \b
    Example:
      sitehost lms api-key create admin --permission read --description "Parents' portal"
    """
    from . import apikeys

    with open_site(ctx, plugin="lms") as app, app.db.session(write=True) as session, session.begin():
        owner = _user(app, session, user)
        record, secret = apikeys.create_key(app, session, owner.id, permission, description[:500])
    click.echo(f"API key {record['id']} for {owner.login} ({permission})")
    click.echo(f"key:    {record['key']}")
    click.echo(f"secret: {secret}")
    click.echo("The secret is shown only now; send both as HTTP Basic credentials (key:secret).")


@api_key_group.command("list")
@click.option("--user", default=None, help="Only this user's keys (login or email).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def api_key_list(ctx: click.Context, user: str | None, as_json: bool) -> None:
    """List keys (never their secrets).

    \b
    Example:
      sitehost lms api-key list --user admin
    """
    from . import apikeys

    with open_site(ctx, plugin="lms") as app, app.db.session() as session:
        owner = _user(app, session, user).id if user else None
        keys = apikeys.list_keys(app, session, owner)
    if as_json:
        click.echo(json.dumps(keys, indent=2))
        return
    for key in keys:
        click.echo(f"{key['id']}\tuser {key['user_id']}\t{key['key']}\t{key['permission']}\t"
                   f"last used {key['last_used'] or 'never'}\t{key['description']}")


@api_key_group.command("revoke")
@click.argument("key_id", type=int)
@click.pass_context
def api_key_revoke(ctx: click.Context, key_id: int) -> None:
    """Revoke (delete) key KEY_ID for good.

    \b
    Example:
      sitehost lms api-key revoke 3
    """
    from . import apikeys

    with open_site(ctx, plugin="lms") as app, app.db.session(write=True) as session, session.begin():
        record = apikeys.revoke_key(app, session, key_id)
    if record is None:
        raise click.ClickException(f"there is no API key {key_id}")
    click.echo(f"revoked API key {key_id} ({record['key']})")


@lms_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--author", default=None, help="Login of the courses' author when an entry names none "
              "(default: the first administrator).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
def import_command(ctx: click.Context, file: Path, author: str | None, quiet: bool) -> None:
    """Load a catalogue (courses, topics, lessons, quizzes with questions) from FILE.json.

    Items already there are matched and updated only where they differ: running the same
    file twice changes nothing. The file is checked first and loaded in one transaction.

    \b
    Example:
      sitehost lms import catalogue.json --author r.patel
    """
    from host.auth import users as user_service

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from .importer import MAX_BYTES, ImportError_, WriteContext, import_catalogue, read_catalogue

    if file.stat().st_size > MAX_BYTES:
        raise click.ClickException(f"{file} is larger than {MAX_BYTES} bytes")
    try:
        catalogue = read_catalogue(file.read_text(encoding="utf-8"))
    except (ImportError_, UnicodeDecodeError) as error:
        raise click.ClickException(f"{file}: {error}") from None
    with open_site(ctx, plugin="lms") as app:
        with app.db.session(write=True) as session, session.begin():
            if author:
                owner = _user(app, session, author)
            else:
                admins, _total = user_service.query_users(app, session, roles=["administrator"], orderby="id", limit=1)
                if not admins:
                    raise click.ClickException("no administrator to own the courses; pass --author")
                owner = admins[0]
            context = WriteContext(app, session, owner)

            def find_author(login: str):
                found = user_service.find_user(app, session, login)
                return found.id if found is not None else None

            with Progress(TextColumn("courses"), BarColumn(), MofNCompleteColumn(),
                          disable=quiet) as progress:  # rich, as the backup commands use
                task = progress.add_task("courses", total=len(catalogue["courses"]))
                counts = import_catalogue(context, catalogue, owner.id, find_author,
                                          lambda done=1: progress.advance(task, done))
        context.finished()
    click.echo(f"{len(catalogue['courses'])} courses read: {counts.created} items created, {counts.updated} updated, "
               f"{counts.unchanged} unchanged, {counts.questions} questions written, {counts.ratings} ratings written")
