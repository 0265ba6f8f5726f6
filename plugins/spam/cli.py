"""`sitehost spam train`: rebuild the classifier from every verdict a moderator labelled."""

from __future__ import annotations

import click

from host.commands import open_site


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
    from .learning import retrain

    with open_site(ctx, plugin="spam") as app, app.db.session(write=True) as session, session.begin():
        counts = retrain(app, session, reset_first=not keep)
    click.echo(f"trained on {counts['spam']} spam and {counts['ham']} ham")
