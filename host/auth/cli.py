"""`sitehost user ...` and `sitehost app-password ...`: user and credential chores for operators."""

from __future__ import annotations

import secrets
import sys

import click

from ..commands import open_site
from .roles import ROLES
from . import ratelimit


def _find(app, session, login: str):
    from . import users as user_service

    user = user_service.find_user(app, session, login)
    if user is None:
        raise click.ClickException(f"no user with login or email {login!r}")
    return user


@click.group("user")
def user_group() -> None:
    """Create and list users.

    \b
    Example:
      sitehost user list
    """


@user_group.command("create")
@click.argument("login")
@click.option("--role", type=click.Choice(ROLES), default="subscriber", show_default=True, help="The user's role.")
@click.option("--email", required=True, help="The user's email address (unique).")
@click.option("--password", default=None, help="Login password; a random one is generated and printed when absent.")
@click.pass_context
def user_create(ctx: click.Context, login: str, role: str, email: str, password: str | None) -> None:
    """Create user LOGIN with a role and an email address.

    \b
    Example:
      sitehost user create jsmith --role editor --email jsmith@school.test
    """
    from . import users as user_service

    if "@" not in email or "." not in email.rsplit("@", 1)[-1]:
        raise click.BadParameter(f"{email!r} is not an email address", param_hint="--email")
    generated = password is None
    if password is None:
        password = secrets.token_urlsafe(18)
    if not password:
        raise click.BadParameter("the password cannot be empty", param_hint="--password")
    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        try:
            user = user_service.create_user(app, session, login, email, role, password)
        except user_service.UserError as error:
            raise click.ClickException(error.message) from error
    click.echo(f"created user {user.login!r} (id {user.id}, role {role}, email {user.email})")
    if generated:
        click.echo(f"login password (shown once): {password}")


@user_group.command("list")
@click.pass_context
def user_list(ctx: click.Context) -> None:
    """Every user: id, login, email, roles and registration date.

    \b
    Example:
      sitehost user list
    """
    from . import users as user_service

    with open_site(ctx) as app, app.db.session() as session:
        rows = user_service.list_users(app, session)
    click.echo(f"{'id':>5}  {'login':<24} {'email':<32} {'roles':<24} registered")
    for user in rows:
        click.echo(f"{user.id:>5}  {user.login:<24} {user.email:<32} {','.join(user.roles):<24} "
                   f"{user.registered.isoformat()}")


@user_group.command("set-password")
@click.argument("login")
@click.option("--password-stdin", is_flag=True, help="Read the new password from the first line of standard input.")
@click.pass_context
def user_set_password(ctx: click.Context, login: str, password_stdin: bool) -> None:
    """Give user LOGIN a new login password (for the authorize page); ends their browser sessions.

    \b
    Examples:
      sitehost user set-password admin
      printf '%s\\n' "$NEW_PASSWORD" | sitehost user set-password admin --password-stdin
    """
    from . import users as user_service

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif not sys.stdin.isatty():  # getpass would warn, echo nothing useful and abort on end of input
        raise click.ClickException("no terminal to ask for the password: pipe it in with --password-stdin "
                                   f"(printf '%s\\n' \"$NEW_PASSWORD\" | sitehost user set-password {login} "
                                   "--password-stdin)")
    else:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    if len(password) < MIN_PASSWORD_LENGTH:
        raise click.ClickException(f"the password must be at least {MIN_PASSWORD_LENGTH} characters long")
    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        user = _find(app, session, login)
        user_service.update_user(app, session, user.id, {"password": password})
    click.echo(f"new login password set for {user.login!r}; their browser sessions were ended")


@user_group.command("set-role")
@click.argument("login")
@click.argument("role", type=click.Choice(ROLES))
@click.pass_context
def user_set_role(ctx: click.Context, login: str, role: str) -> None:
    """Give user LOGIN the role ROLE (replacing their roles); a change ends their browser sessions.

    \b
    Example:
      sitehost user set-role jsmith editor
    """
    from . import users as user_service

    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        user = _find(app, session, login)
        _keep_an_administrator(app, session, user, role)
        user_service.update_user(app, session, user.id, {"roles": [role]})
    click.echo(f"{user.login!r} is now {role}")


@user_group.command("delete")
@click.argument("login")
@click.option("--reassign", default=None, metavar="OTHER", help="Give LOGIN's content to user OTHER first.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def user_delete(ctx: click.Context, login: str, reassign: str | None, yes: bool) -> None:
    """Delete user LOGIN with their application passwords and sessions.

    A user who authored content is deleted only with --reassign: their content is never
    deleted from here. Nothing changes when the command is refused.

    \b
    Examples:
      sitehost user delete leaver --reassign admin
      sitehost user delete typo-account --yes
    """
    from . import users as user_service

    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        user = _find(app, session, login)
        heir = _find(app, session, reassign) if reassign else None
        if heir is not None and heir.id == user.id:
            raise click.ClickException("cannot reassign a user's content to that same user")
        _keep_an_administrator(app, session, user, None)
        if not yes:
            click.confirm(f"Delete {user.login!r} (id {user.id})?", abort=True)
        try:
            user_service.delete_user(app, session, user.id, heir.id if heir else None)
        except user_service.UserError as error:
            raise click.ClickException(f"{error.message} (use --reassign OTHER)") from error
    moved = f"; their content now belongs to {heir.login!r}" if heir else ""
    click.echo(f"deleted user {user.login!r}{moved}")


MIN_PASSWORD_LENGTH = 8


def _keep_an_administrator(app, session, user, new_role: str | None) -> None:
    """Refuse to take the site's last administrator away (nobody could manage it any more)."""
    from . import users as user_service

    if "administrator" not in user.roles or new_role == "administrator":
        return
    others = [other for other in user_service.list_users(app, session)
              if other.id != user.id and "administrator" in other.roles]
    if not others:
        raise click.ClickException(f"{user.login!r} is the only administrator; make another one first")


@user_group.command("unlock")
@click.argument("login", required=False)
@click.option("--address", default=None, help="Forget the failed sign-ins from this client address instead.")
@click.pass_context
def user_unlock(ctx: click.Context, login: str | None, address: str | None) -> None:
    """Lift the sign-in lock-outs of user LOGIN (from every address), or of one client address.

    \b
    Examples:
      sitehost user unlock admin
      sitehost user unlock --address 203.0.113.7
    """
    if bool(login) == bool(address):
        raise click.UsageError("give either LOGIN or --address")
    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        if login:
            user = _find(app, session, login)
            forgotten = ratelimit.unlock_account(app, session, user.id)
            click.echo(f"unlocked {user.login!r}: {forgotten} failed sign-ins forgotten")
        elif address:  # the check above: exactly one of LOGIN and --address
            forgotten = ratelimit.unlock_address(app, session, address)
            click.echo(f"unlocked address {address}: {forgotten} failed sign-ins forgotten")


@click.group("app-password")
def app_password_group() -> None:
    """Create, list and revoke application passwords.

    \b
    Example:
      sitehost app-password create admin 'Newsroom app'
    """


@app_password_group.command("create")
@click.argument("login")
@click.argument("name")
@click.option("--app-id", default="", help="Optional UUID of the application.")
@click.pass_context
def app_password_create(ctx: click.Context, login: str, name: str, app_id: str) -> None:
    """Create an application password NAME for user LOGIN; the password is the last line printed.

    \b
    Example:
      sitehost app-password create admin 'Lost the first one'
    """
    from . import users as user_service

    from .pages import clean_name, request_errors

    name = clean_name(name)
    if not name:
        raise click.BadParameter("the name cannot be empty", param_hint="NAME")
    if app_id and request_errors({"app_id": app_id, "success_url": "", "reject_url": "", "app_name": ""}):
        raise click.BadParameter("the application ID must be a lower-case UUID", param_hint="--app-id")
    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        user = _find(app, session, login)
        password, record = user_service.create_application_password(app, session, user.id, name, app_id)
    click.echo(f"created application password {record['uuid']} ({name!r}) for {user.login!r}; shown once:")
    click.echo(password)


@app_password_group.command("list")
@click.argument("login")
@click.pass_context
def app_password_list(ctx: click.Context, login: str) -> None:
    """The application passwords of user LOGIN (never the passwords themselves).

    \b
    Example:
      sitehost app-password list admin
    """
    from . import users as user_service

    with open_site(ctx) as app, app.db.session() as session:
        user = _find(app, session, login)
        records = user_service.list_application_passwords(app, session, user.id)
    click.echo(f"{'uuid':<36}  {'name':<24} {'created':<19}  {'last used':<19}  last ip")
    for record in records:
        last_used = record["last_used"].isoformat() if record["last_used"] else "never"
        click.echo(f"{record['uuid']:<36}  {record['name']:<24} {record['created'].isoformat():<19}  "
                   f"{last_used:<19}  {record['last_ip'] or '-'}")


@app_password_group.command("revoke")
@click.argument("login")
@click.argument("uuid")
@click.pass_context
def app_password_revoke(ctx: click.Context, login: str, uuid: str) -> None:
    """Delete application password UUID of user LOGIN; it stops working at once.

    \b
    Example:
      sitehost app-password revoke admin 0f3c9a2e-5d1b-4c8e-9a77-2b6d1e4f8a10
    """
    from . import users as user_service

    with open_site(ctx, create=True) as app, app.db.session(write=True) as session, session.begin():
        user = _find(app, session, login)
        if not user_service.delete_application_password(app, session, user.id, uuid):
            raise click.ClickException(f"user {user.login!r} has no application password {uuid!r}")
    click.echo(f"revoked application password {uuid} of {user.login!r}")
