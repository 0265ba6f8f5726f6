"""`sitehost forms submissions`: what visitors sent, with the state of each one's mail."""

from __future__ import annotations

import json

import click

from host.commands import open_site


@click.group("forms")
def forms_group() -> None:
    """Contact forms: the submissions visitors sent.

    \b
    Example:
      sitehost forms submissions --form 12
    """


@forms_group.command("submissions")
@click.option("--form", "form_id", type=click.IntRange(1), default=None, help="Only submissions of this form.")
@click.option("--status", type=click.Choice(["validation_failed", "acceptance_missing", "spam", "aborted",
                                             "mail_sent", "mail_failed", "error"]), default=None,
              help="Only submissions with this status.")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True, help="Newest N submissions.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line, with every field.")
@click.pass_context
def submissions_command(ctx: click.Context, form_id: int | None, status: str | None, limit: int,
                        as_json: bool) -> None:
    """List form submissions, newest first: id, date, form, status, address and the fields sent.

    \b
    Example:
      sitehost forms submissions --status mail_failed --limit 20
    """
    from sqlalchemy import select

    with open_site(ctx, plugin="forms") as app:
        table = app.db.metadata.tables["forms_submissions"]
        query = select(table).order_by(table.c.id.desc()).limit(limit)
        if form_id:
            query = query.where(table.c.form_id == form_id)
        if status:
            query = query.where(table.c.status == status)
        with app.db.session() as session:
            rows = session.execute(query).mappings().all()
        if not rows:
            click.echo("no submissions")
            return
        for row in rows:
            fields = json.loads(row["fields"])
            if as_json:
                click.echo(json.dumps({**{key: row[key] for key in ("id", "form_id", "status", "remote_ip",
                                                                       "posted_data_hash", "unit_tag", "guid")},
                                       "date_gmt": row["created_at"].isoformat(timespec="seconds"), "fields": fields,
                                       "files": json.loads(row["files"]), "mail_ids": json.loads(row["mail_ids"])},
                                      ensure_ascii=False))
                continue
            shown = "; ".join(f"{name}={value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
                              for name, value in fields.items() if value not in (None, "", []))
            click.echo(f"{row['id']:>6}  {row['created_at']:%Y-%m-%d %H:%M:%S}  form {row['form_id']:<5} "
                       f"{row['status']:<18} {row['remote_ip']:<15} {shown[:200]}")
