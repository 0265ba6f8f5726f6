"""`sitehost spam train` rebuilds the model from the labelled verdict history."""

from __future__ import annotations

import datetime
import os

from click.testing import CliRunner
from sqlalchemy import select

from host.app import create_app
from host.cli import main
from host.config import load_settings

from tests.spam.corpus import generate


def _invoke(*args):
    unset = {name: None for name in os.environ if name.startswith("SITEHOST_")}
    return CliRunner().invoke(main, list(args), env=unset)


def test_spam_train_learns_every_labelled_verdict(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n')
    app = create_app(load_settings(config, env={}))
    checks = app.db.metadata.tables["spam_checks"]
    now = datetime.datetime(2026, 1, 1)
    with app.db.session(write=True) as session, session.begin():
        for number, item in enumerate(generate(60, seed=3)):
            session.execute(checks.insert().values(
                guid=f"g{number}", type="comment", spam=False, score=0.1, reason="clean", discarded=False,
                source="local", email_hash="", ip_hash="", content_hash=str(number), author=item["author"],
                url=item["url"], email_domain="", content=item["content"], created=now,
                label=item["label"] if number % 3 else "", reversed="", trained=""))
    app.close()
    result = _invoke("--config", str(config), "spam", "train")
    assert result.exit_code == 0, result.output
    labelled = [item["label"] for number, item in enumerate(generate(60, seed=3)) if number % 3]
    assert result.output.strip() == f"trained on {labelled.count('spam')} spam and {labelled.count('ham')} ham"
    app = create_app(load_settings(config, env={}))
    model = app.db.metadata.tables["spam_model"]
    with app.db.session() as session:
        row = session.execute(select(model)).first()
    assert (row.spam_docs, row.ham_docs) == (labelled.count("spam"), labelled.count("ham"))
    app.close()
    again = _invoke("--config", str(config), "spam", "train")  # rebuilding gives the same model, not twice it
    assert again.exit_code == 0 and again.output == result.output
    help_text = _invoke("spam", "train", "--help").output
    assert "Example:" in help_text and "sitehost spam train" in help_text


def test_spam_train_says_when_the_plugin_is_disabled(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n\n[plugins]\ndisabled = ["spam"]\n')
    assert _invoke("--config", str(config), "init").exit_code == 0
    result = _invoke("--config", str(config), "spam", "train")
    assert result.exit_code != 0 and "the spam plugin is not running here" in result.output
