"""`sitehost jobs ...`: look at the site's background jobs, and run the due ones once (a cron's way)."""

from __future__ import annotations

import click

from ..commands import open_site


@click.group("jobs")
def jobs_group() -> None:
    """Background jobs: what is scheduled, queued, running or failed, and a one-shot run.

    \b
    Example:
      sitehost jobs list
    """


@jobs_group.command("list")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True, help="Newest N jobs.")
@click.pass_context
def list_command(ctx: click.Context, limit: int) -> None:
    """List periodic jobs, then the newest queued ones: id, name, state, next run, attempts, last error.

    \b
    Example:
      sitehost jobs list --limit 20
    """
    with open_site(ctx) as app:
        app.jobs.ensure_periodic_rows()
        rows = app.jobs.listing(limit)
        click.echo(f"{'id':>6}  {'name':<28} {'state':<8} {'tries':>5}  {'due (UTC)':<19}  holder / last error")
        for row in rows:
            state = row["state"] if row["state"] != "running" or row["leased"] else "lost"
            line = (f"{row['id']:>6}  {row['name']:<28} {state:<8} {row['attempts']:>5}  "
                    f"{row['run_at']:%Y-%m-%d %H:%M:%S}  {row['holder'] or '-'}")
            if row["last_error"]:
                line += f" / {row['last_error']}"
            click.echo(line)


@jobs_group.command("run")
@click.argument("name", required=False)
@click.pass_context
def run_command(ctx: click.Context, name: str | None) -> None:
    """Run every due job once in this process, under the same leases as `sitehost serve` (for a site
    run without a serving process, from cron); with NAME, make that periodic job due first.

    \b
    Example:
      sitehost jobs run backup.schedule
    """
    with open_site(ctx) as app:
        if name is not None:
            job = app.jobs.declared.get(name)
            if job is None or job.every is None:
                periodic = sorted(found.name for found in app.jobs.declared.values() if found.every is not None)
                raise click.ClickException(f"no periodic job named {name!r} (periodic jobs: {', '.join(periodic)})")
            app.jobs.ensure_periodic_rows()
            app.jobs.run_soon(name)
        ran = app.jobs.run_due()
        click.echo(f"{ran} job(s) run")
