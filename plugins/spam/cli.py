"""`sitehost spam train`: rebuild the classifier from every verdict a moderator labelled."""

from __future__ import annotations

import click


@click.group("spam")
def spam_group() -> None:
    """The spam filter: train its classifier.

    \b
    Example:
      sitehost spam train
    """


@spam_group.command("train")
@click.option("--keep", is_flag=True, help="Add what is not yet learnt instead of starting from an empty model.")
@click.pass_context
def train(ctx: click.Context, keep: bool) -> None:
    """Train the spam classifier from the verdict history (every comment a moderator marked
    spam, restored or approved), so all workers judge with the result.

    \b
    Example:
      sitehost spam train
    """
    from host.app import create_app
    from host.config import ConfigError, load_settings

    try:
        app = create_app(load_settings(ctx.find_root().obj.get("config") if ctx.find_root().obj else None))
    except ConfigError as error:
        raise click.ClickException(str(error)) from error
    try:
        record = app.plugin("spam")
        if record is None or record.state != "enabled":
            raise click.ClickException("the spam plugin is not enabled on this site")
        from .learning import retrain

        with app.db.session(write=True) as session, session.begin():
            counts = retrain(app, session, reset_first=not keep)
        click.echo(f"trained on {counts['spam']} spam and {counts['ham']} ham")
    finally:
        app.close()
