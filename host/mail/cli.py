"""`sitehost mail ...`: look at the outbox, deliver it now, send a test message."""

from __future__ import annotations

import click

from ..commands import open_site


@click.group("mail")
def mail_group() -> None:
    """Outgoing mail: the outbox and a test message.

    \b
    Example:
      sitehost mail outbox --status queued
    """


@mail_group.command("outbox")
@click.option("--status", type=click.Choice(["queued", "sending", "sent", "failed"]), default=None,
              help="Only messages in this state.")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True, help="Newest N messages.")
@click.pass_context
def outbox_command(ctx: click.Context, status: str | None, limit: int) -> None:
    """List the outbox, newest first: id, state, attempts, queued at, recipients, subject, last error.

    \b
    Example:
      sitehost mail outbox --status failed --limit 20
    """
    with open_site(ctx) as app:
        rows = app.mail.outbox(status=status, limit=limit)
        click.echo(f"transport: {app.mail.describe_transport()}")
        if not rows:
            click.echo("the outbox is empty" if status is None else f"no {status} messages")
            return
        click.echo(f"{'id':>6}  {'status':<8} {'tries':>5}  {'queued (UTC)':<19}  to / subject / last error")
        for row in rows:
            line = (f"{row['id']:>6}  {row['status']:<8} {row['attempts']:>5}  {row['created_at']:%Y-%m-%d %H:%M:%S}  "
                    f"{', '.join(row['recipients'])} / {row['subject']}")
            if row["last_error"]:
                line += f" / {row['last_error']}"
            click.echo(line)


@mail_group.command("deliver")
@click.pass_context
def deliver_command(ctx: click.Context) -> None:
    """Run one delivery pass now (what the sender of `sitehost serve` does every few seconds).

    \b
    Example:
      sitehost mail deliver
    """
    with open_site(ctx) as app:
        delivered = app.mail.deliver_pending()
        click.echo(f"{delivered} message(s) delivered through {app.mail.describe_transport()}")


@mail_group.command("send-test")
@click.argument("address")
@click.pass_context
def send_test_command(ctx: click.Context, address: str) -> None:
    """Queue a test message to ADDRESS and deliver it at once; exits 1 when it could not be delivered.

    \b
    Example:
      sitehost mail send-test office@school.example
    """
    from .message import Message

    with open_site(ctx) as app:
        site = app.settings.site.get("name", "sitehost")
        try:
            outbox_id = app.mail.send(Message(
                to=[address], subject=f"Test message from {site}",
                text=f"This is a test message from {site}. If you can read it, outgoing mail works.\n"))
        except ValueError as error:
            raise click.ClickException(str(error)) from error
        app.mail.deliver_pending()
        row = app.mail.message(outbox_id)
        if row["status"] == "sent":
            where = app.mail.describe_transport()
            click.echo(f"message {outbox_id} delivered to {address} through {where}")
            return
        raise click.ClickException(f"message {outbox_id} not delivered ({row['status']}, will retry "
                                   f"while queued): {row['last_error']}")
