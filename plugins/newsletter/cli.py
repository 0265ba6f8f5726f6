"""`sitehost newsletter ...`: export, import, send and erase, for the school office.

    sitehost newsletter export "Whole school" --format csv > consent.csv
    sitehost newsletter import families.csv --list "Year 7 parents" [--send-confirmations]
    sitehost newsletter send "Whole school" --subject "Spring term" --body-file spring.txt
    sitehost newsletter erase parent@example.org
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from host.commands import open_site

MAX_BODY_BYTES = 1_000_000
MAX_IMPORT_BYTES = 50_000_000


def _site_url(app, given: str | None) -> str:
    """The base of the mails' links: --site-url when given, else the site's address."""
    url = (given or app.site_address()).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise click.ClickException("links in mails need the site's address: set `url` in [site] of sitehost.toml "
                                   "or pass --site-url https://www.school.example")
    return url


def _list(app, session, name: str):
    from .operations import OperationError, find_list

    try:
        return find_list(app, session, name)
    except OperationError as error:
        raise click.ClickException(str(error)) from error


@click.group("newsletter")
def newsletter_group() -> None:
    """Newsletter lists: export consent evidence, import, send a mailing, erase a person.

    \b
    Examples:
      sitehost newsletter export "Whole school" --format csv > consent.csv
      sitehost newsletter send "Whole school" --subject "Spring term" --body-file spring.txt
    """


@newsletter_group.command("export")
@click.argument("list_name", metavar="LIST")
@click.option("--format", "output_format", type=click.Choice(["csv"]), default="csv", show_default=True,
              help="Output format.")
@click.option("--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to this file instead of standard output.")
@click.pass_context
def export_command(ctx: click.Context, list_name: str, output_format: str, output: str | None) -> None:
    """Print the confirmed subscribers of LIST (name or id) with consent time, IP and source.

    \b
    Example:
      sitehost newsletter export "Whole school" --format csv --output consent.csv
    """
    from .operations import export_csv

    with open_site(ctx, plugin="newsletter") as app, app.db.session() as session:
        row = _list(app, session, list_name)
        if output:
            with open(output, "w", newline="", encoding="utf-8") as handle:
                count = export_csv(app, session, row, handle)
        else:
            count = export_csv(app, session, row, sys.stdout)
        click.echo(f"exported {count} confirmed subscriber(s) of {row.name!r}", err=True)


@newsletter_group.command("import")
@click.argument("csv_file", metavar="FILE.csv", type=click.Path(exists=True, dir_okay=False))
@click.option("--list", "list_name", required=True, help="The list (name or id) to add the addresses to.")
@click.option("--send-confirmations", is_flag=True, help="Queue a confirmation mail to each address added.")
@click.option("--site-url", default=None, help="The site's address for the links in mails (default: the site's address).")
@click.pass_context
def import_command(ctx: click.Context, csv_file: str, list_name: str, send_confirmations: bool,
                   site_url: str | None) -> None:
    """Add the addresses of FILE.csv to a list as pending (all or nothing).

    The file needs a header line with an `email` column; other columns become merge fields
    (`first name` -> FIRSTNAME). Erased and unsubscribed addresses are skipped.

    \b
    Example:
      sitehost newsletter import families.csv --list "Year 7 parents" --send-confirmations
    """
    from .operations import OperationError, import_csv, queue_confirmations

    path = Path(csv_file)
    if path.stat().st_size > MAX_IMPORT_BYTES:
        raise click.ClickException(f"{csv_file} is larger than {MAX_IMPORT_BYTES:,} bytes; split it")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise click.ClickException(f"{csv_file} is not UTF-8 text; save it as CSV UTF-8") from None
    with open_site(ctx, plugin="newsletter") as app:
        url = _site_url(app, site_url) if send_confirmations else ""
        with app.db.session(write=True) as session, session.begin():
            row = _list(app, session, list_name)
            try:
                report = import_csv(app, session, row, text, f"import: {path.name}")
            except OperationError as error:
                raise click.ClickException(str(error)) from error
            sent = queue_confirmations(app, session, row, report.added, url) if send_confirmations else 0
    for problem in report.invalid:
        click.echo(f"skipped {problem}", err=True)
    click.echo(f"{row.name}: {len(report.added)} added as pending, {report.exists} already on the list, "
               f"{report.suppressed} erased before (skipped), {report.unsubscribed} unsubscribed before (skipped), "
               f"{len(report.invalid)} invalid; {sent} confirmation mail(s) queued")


@newsletter_group.command("send")
@click.argument("list_name", metavar="LIST")
@click.option("--subject", required=True, help="Subject line of the mailing.")
@click.option("--body-file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Plain-text body (UTF-8); an unsubscribe link is added at the end.")
@click.option("--site-url", default=None, help="The site's address for the links in mails (default: the site's address).")
@click.option("--deliver", is_flag=True, help="Also run one delivery pass now instead of leaving it to the server.")
@click.pass_context
def send_command(ctx: click.Context, list_name: str, subject: str, body_file: str, site_url: str | None,
                 deliver: bool) -> None:
    """Queue a mailing to the confirmed subscribers of LIST through the outbox (with a progress bar).

    \b
    Example:
      sitehost newsletter send "Whole school" --subject "Spring term" --body-file spring.txt
    """
    from .operations import queue_mailing

    subject = subject.strip()
    if not subject or len(subject) > 300 or "\n" in subject or "\r" in subject:
        raise click.ClickException("--subject must be one line of 1 to 300 characters")
    path = Path(body_file)
    if path.stat().st_size > MAX_BODY_BYTES:
        raise click.ClickException(f"{body_file} is larger than {MAX_BODY_BYTES:,} bytes")
    try:
        body = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise click.ClickException(f"{body_file} is not UTF-8 text") from None
    if not body.strip():
        raise click.ClickException(f"{body_file} is empty")
    with open_site(ctx, plugin="newsletter") as app:
        url = _site_url(app, site_url)
        with app.db.session(write=True) as session, session.begin():
            row = _list(app, session, list_name)

            def progress(recipients):
                with click.progressbar(recipients, label=f"Queuing mails to {row.name}", file=sys.stderr,
                                       show_pos=True) as bar:
                    yield from bar

            mailing_id, count = queue_mailing(app, session, row, subject, body, url, progress)
        delivered = app.mail.deliver_pending() if deliver else None
    click.echo(f"mailing {mailing_id}: {count} mail(s) to {row.name!r} queued in the outbox"
               + (f"; {delivered} delivered now" if delivered is not None else
                  " (the running server's mail sender delivers them)"))


@newsletter_group.command("erase")
@click.argument("email")
@click.pass_context
def erase_command(ctx: click.Context, email: str) -> None:
    """Remove a person's data; keep only a hashed entry so that imports never add them again.

    \b
    Example:
      sitehost newsletter erase parent@example.org
    """
    from .operations import erase_address

    with open_site(ctx, plugin="newsletter") as app, app.db.session(write=True) as session, session.begin():
        found = erase_address(app, session, email)
    click.echo(f"erased {email}; a hashed suppression entry remains" if found else
               f"no subscriber {email}; a hashed suppression entry was recorded so imports skip it")
