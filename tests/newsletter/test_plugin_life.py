"""The plugin as a whole: demo content for `sitehost init --demo`, and disabling it."""

from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from host.cli import main
from host.testing import assert_not_in_root_index, assert_rest_error

from .helpers import FORM, standard_site


def test_demo_site_has_lists_forms_and_two_confirmed_families(tmp_path):
    config = tmp_path / "sitehost.toml"
    config.write_text(f'database_url = {json.dumps("sqlite:///" + str(tmp_path / "site.db"))}\n')
    runner = CliRunner()
    assert runner.invoke(main, ["--config", str(config), "init", "--demo"]).exit_code == 0
    result = runner.invoke(main, ["--config", str(config), "newsletter", "export", "Whole school"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO("\n".join(line for line in result.output.splitlines()
                                                     if not line.startswith("exported ")))))
    assert [(row["email"], row["FNAME"], row["source"]) for row in rows] == [
        ("amira.hassan@example.org", "Amira", "demo content"), ("tom.price@example.org", "Tom", "demo content")]
    assert "exported 0" in runner.invoke(main, ["--config", str(config), "newsletter", "export", "Sports news"]).output


def test_a_disabled_plugin_serves_nothing_and_keeps_its_data(make_app):
    site = standard_site(make_app(plugins=["newsletter"]))
    site.sign_up("family", EMAIL="parent@example.org", FNAME="Sam")
    url = site.app.settings.database_url
    disabled = make_app(plugins=["newsletter"], disabled=["newsletter"], database_url=url)
    assert_not_in_root_index(disabled, "newsletter/v1")
    assert_rest_error(disabled.client.post(FORM, {"_newsletter_form_id": "1"}, status=404), "rest_no_route", 404)
    assert disabled.client.get("/newsletter/confirm?token=x", status=404)
    again = make_app(plugins=["newsletter"], database_url=url)
    assert again.client.get("/wp-json/newsletter/v1/subscribers", headers=site.admin_user.headers).json[0]["email"] \
        == "parent@example.org"
