"""sitehost.toml and SITEHOST_* are checked before anything starts (issue 13.3, 13.11).

A wrong type, a misspelt key or an impossible value stops the command with one `Error:`
line naming the key, the value and what is allowed, and nothing is created. Settings that
are allowed but probably not meant (a plugin that is not installed) give a warning line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CASES = [
    ('max_body_bytes = "lots"', "max_body_bytes = 'lots' is not valid; allowed: a whole number from 1 to"),
    ('databse_url = "sqlite:///x.db"', "unknown setting 'databse_url' (known: auth, channel_timeout"),
    ('database_url = "mysql://x/y"',
     "database_url = 'mysql://x/y' is not valid; allowed: sqlite:///PATH.db or postgresql+psycopg://"),
    ('[site]\ntimezone_string = "Mars/Olympus"',
     "[site]: timezone_string = 'Mars/Olympus' is not valid; allowed: an IANA time zone"),
    ('[site]\nshow_on_front = "news"', "[site]: show_on_front = 'news' is not valid; allowed: posts or page"),
    ('[site]\nnmae = "Riverside"', "[site]: unknown setting 'nmae'"),
    ('cors_origins = "https://app.school.test"', "cors_origins = 'https://app.school.test' is not valid; allowed: a list"),
    ('rest_prefix = "/wp-json/"', "rest_prefix = '/wp-json/' is not valid; allowed: a path such as /wp-json"),
    ('channel_timeout = 0', "channel_timeout = 0 is not valid; allowed: a whole number from 1 to 3,600 (seconds)"),
    ('trust_proxy = "yes"', "trust_proxy = 'yes' is not valid; allowed: true or false"),
    ('site = "Riverside"', "site = 'Riverside' is not valid; allowed: a table"),
    # plugin tables, against the Schema class each plugin declares in PluginInfo.settings
    ('[plugins.core]\nmax_upload_bytes = "lots"', "[plugins.core]: max_upload_bytes = 'lots' is not valid; Not a valid"),
    ('[plugins.core]\navatar_url = "gravatar"', "[plugins.core]: avatar_url = 'gravatar' is not valid; allowed: empty"),
    ('[plugins.cache]\nmax_entriez = 3', "[plugins.cache]: unknown setting 'max_entriez' (known: cache_indexes"),
    ('[plugins.oembed]\nfetch_timeout_seconds = 0', "[plugins.oembed]: fetch_timeout_seconds = 0 is not valid"),
]


def sitehost(folder, *arguments, env_extra=None):
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "host.cli", *arguments], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("toml,expected", CASES, ids=[case[0].split("=")[0].strip().replace("\n", " ") for case in CASES])
def test_a_bad_setting_stops_with_one_error_line_and_creates_nothing(tmp_path, toml, expected):
    (tmp_path / "sitehost.toml").write_text(toml + "\n")
    result = sitehost(tmp_path, "init")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and expected in lines[0], result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sitehost.toml"]


def test_a_bad_database_url_in_the_environment_names_the_variable(tmp_path):
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_DATABASE_URL": "mysql://x/y"})
    assert result.returncode == 1
    assert result.stderr.strip() == ("Error: SITEHOST_DATABASE_URL: database_url = 'mysql://x/y' is not valid; "
                                     "allowed: sqlite:///PATH.db or postgresql+psycopg://USER@HOST/DATABASE")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_plugin_or_variable_is_a_warning_and_the_site_starts(tmp_path):
    (tmp_path / "sitehost.toml").write_text('[plugins]\ndisabled = ["weather", "oembed"]\n\n'
                                            '[plugins.weather]\nunits = "metric"\n')
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_DATABSE_URL": "sqlite:///typo.db"})
    assert result.returncode == 0, result.stderr
    assert "warning: [plugins] disabled names 'weather', which is not installed (installed: " in result.stderr
    assert "cache, calendar, core, " in result.stderr
    assert "warning: [plugins.weather] configures a plugin that is not installed" in result.stderr
    assert "warning: unknown environment variable SITEHOST_DATABSE_URL ignored" in result.stderr
    assert (tmp_path / "sitehost.db").exists() and not (tmp_path / "typo.db").exists()


def test_a_disabled_builtin_plugin_is_listed_with_its_real_version(tmp_path):
    (tmp_path / "sitehost.toml").write_text('[plugins]\ndisabled = ["oembed"]\n')
    assert sitehost(tmp_path, "init").returncode == 0
    result = sitehost(tmp_path, "plugins", "list", "--json")
    row = next(row for row in json.loads(result.stdout) if row["name"] == "oembed")
    assert (row["state"], row["version"]) == ("disabled", "0.1.0")
